"""The dashboard against a seeded local exchange with a frozen clock: fixtures and waiting helpers.

The market moves only when a test steps the clock. Tests wait for conditions (``settle``), never for time.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from textual.message import Message
from textual.notifications import Notify

from tests.conftest import ALICE_KEY, client_for
from tui.api.client import Client
from tui.api.signing import Signer
from tui.app import XtuiApp, make_app
from tui.sim.clock import FrozenClock
from tui.sim.ratelimit import Limits
from tui.sim.server import LocalExchange, SimConfig
from tui.startup import DashboardOptions

MARKET_STEPS = 40  # 250 ms steps of synthetic market before the app starts


@pytest.fixture
def sim_config() -> SimConfig:
    return SimConfig(seed=7, market=True, limits=Limits())


@pytest.fixture
async def trader(sim: LocalExchange, clock: FrozenClock) -> AsyncIterator[Client]:
    """Alice's client, funded by the faucet, after the market has run a while."""
    for _ in range(MARKET_STEPS):
        sim.step(250)
    async with client_for(sim, ALICE_KEY, clock) as c:
        await c.cancel_all()
        yield c


def dashboard(
    client: Client,
    sim: LocalExchange,
    clock: FrozenClock,
    signer: Signer | None,
    *,
    account: str | None = None,
    feed_options: dict[str, Any] | None = None,
    **options: Any,
) -> XtuiApp:
    """The app as the command line builds it, with the exchange's frozen time as its wall clock."""
    app = make_app(
        client,
        sim.ws_url,
        signer,
        account=account,
        options=DashboardOptions(**options),
        wall_clock=lambda: clock.now_ms() / 1000,
        feed_options={"poll_s": 0.5, **(feed_options or {})},
    )
    app.feed.state.status.clock_drift_ms = 0  # the server's HTTP Date is wall time, not the frozen clock
    return app


class Notes:
    """A ``message_hook`` that keeps the text of every notification the app shows."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def __call__(self, message: Message) -> None:
        if isinstance(message, Notify):
            self.messages.append(message.notification.message)


async def settle(pilot: Any, ready: Callable[[], object], timeout_s: float = 10.0, what: str = "") -> None:
    """Let the app run until ``ready()`` is true, then until the panes have drawn it."""
    for _ in range(int(timeout_s / 0.02)):
        if ready():
            break
        await pilot.pause(0.02)
    else:
        raise AssertionError(f"timed out waiting for {what or ready}")
    for _ in range(3):
        await pilot.pause(0.1)

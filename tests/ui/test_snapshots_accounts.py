"""Snapshots of the account switcher over the dashboard, and of the header's "trading as" banner of a watch-only
profile in its own colour, at 160x48, 120x30 and 80x24 (the switcher's two lines a profile fit at 80 columns).

The profiles' URLs are fixed (not the test exchange's port) so that the picture does not move between runs: the
switcher is only looked at here; tests/ui/test_accounts_switch.py switches.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ALICE_KEY, BOB_KEY, QUIET_WS
from tests.ui.conftest import settle
from tests.ui.test_snapshots import PinnedGovernor, exchange, frozen, loaded
from tui.api.client import Client
from tui.api.signing import Signer
from tui.config.launch import Flags, Identity, apply_flags
from tui.config.profiles import Settings, parse_config
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.ui.accounts import Accounts
from tui.ui.app import XtuiApp, make_app
from tui.ui.screens.accounts import AccountsScreen

__all__ = ["exchange", "frozen"]  # the fixtures, used by name

ALICE, BOB = Signer(ALICE_KEY), Signer(BOB_KEY)
SIZES = [(160, 48), (120, 30), (80, 24)]
IDS = ["160x48", "120x30", "80x24"]
CONFIG = f"""\
[profiles.alice]
url = "http://127.0.0.1:8765"
key_env = "XTUI_ALICE_KEY"
account = "{ALICE.address}"

[profiles.desk-agent]
url = "http://127.0.0.1:8765"
agent_key_env = "XTUI_DESK_AGENT_KEY"
account = "{ALICE.address}"

[profiles.bob-watch]
url = "http://127.0.0.1:8765"
account = "{BOB.address}"

[profiles.main-desk]
url = "https://api.hotstuff.trade"
key_env = "XTUI_MAIN_KEY"
account = "{BOB.address}"
"""


def profile_app(ex: EmbeddedExchange, frozen: FrozenClock, profile: str, signer: Signer | None) -> XtuiApp:
    """The snapshots' dashboard on Alice's account as ``profile`` (``signer`` None: watching it)."""
    client = Client(ex.url, signer=signer, clock_ms=frozen.now_ms, governor=PinnedGovernor(), testnet=True)
    app = make_app(
        client,
        ex.url.replace("http://", "ws://") + "/ws/",
        signer,
        account=ALICE.address,
        profile=profile,
        clock=lambda: 0.0,
        wall_clock=lambda: frozen.now_ms() / 1000,
        feed_options={"poll_s": 3600.0, "ws_options": QUIET_WS},
        close_client=True,
    )
    app.feed.state.status.clock_drift_ms = 0
    app.animation_level = "none"
    return app


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_account_switcher(
    snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock, size: tuple[int, int]
) -> None:
    """@ over Alice's dashboard: the profiles that can be switched to first (alice, now, marked), each in its
    colour, main-desk's name and network in red; the built-in ones after, each saying why not from here."""
    config = parse_config(CONFIG, Path("config.toml"))
    started = apply_flags(Settings(config, config.profiles["alice"], "--profile", "info", {}, ()), Flags())
    app = profile_app(exchange, frozen, "alice", ALICE)
    app.accounts = Accounts(config, started, Identity(ALICE, ALICE.address), local_url=None)

    async def open_switcher(pilot: Any) -> None:
        await loaded(pilot)
        await pilot.press("at")
        await settle(pilot, lambda: isinstance(pilot.app.screen, AccountsScreen), what="the switcher")

    assert snap_compare(app, terminal_size=size, run_before=open_switcher)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_trading_as_banner_watch_only(
    snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock, size: tuple[int, int]
) -> None:
    """Alice's account watched as profile bob-watch: the banner in bob-watch's colour, trading as Alice's address,
    watch-only, testnet."""
    app = profile_app(exchange, frozen, "bob-watch", None)
    assert snap_compare(app, terminal_size=size, run_before=loaded)

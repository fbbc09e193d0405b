"""The dashboard against a seeded local exchange with a frozen clock: fixtures and waiting helpers.

The market moves only when a test steps the clock. Tests wait for conditions (``settle``), never for time.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from rich.console import RenderableType
from textual.app import App
from textual.command import Command, CommandList
from textual.message import Message
from textual.notifications import Notify
from textual.screen import Screen
from textual.widgets import DataTable
from textual.widgets._toast import Toast

from tests.conftest import ALICE_KEY, QUIET_WS, client_for, signs_for
from tests.fault_proxy import FaultProxy, through_proxy
from tui.api.client import Client
from tui.api.signing import Signer
from tui.config.launch import DashboardOptions
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.sim.server.local_exchange import LocalExchange, SimConfig
from tui.sim.server.ratelimit import Limits
from tui.ui.app import XtuiApp, make_app
from tui.ui.messages import FeedChanged
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.data_screen import DataScreen
from tui.ui.widgets.pane import FollowsFeed

MARKET_STEPS = 40  # 250 ms steps of synthetic market before the app starts


@contextlib.contextmanager
def seeded_market(frozen: FrozenClock, minutes: int, step_ms: int = 60_000) -> Iterator[EmbeddedExchange]:
    """The snapshots' exchange: seed 7 with its market, run ``minutes`` steps on the frozen clock, served from a
    thread as ``snap_compare`` needs (it runs the app in a loop of its own); stopped afterwards."""
    ex = EmbeddedExchange(SimConfig(seed=7, market=True), frozen)
    ex.start()
    try:
        ex.call(lambda sim: [sim.step(step_ms) for _ in range(minutes)])
        yield ex
    finally:
        ex.stop()


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


@pytest.fixture
async def proxied(sim: LocalExchange, clock: FrozenClock) -> AsyncIterator[tuple[FaultProxy, Client]]:
    """Alice's client, through a fault proxy in front of the exchange (the market run a while first)."""
    for _ in range(MARKET_STEPS):
        sim.step(250)
    async with through_proxy(sim.url, Signer(ALICE_KEY), testnet=signs_for(sim), clock_ms=clock.now_ms) as pair:
        yield pair


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
    ws_options = {**QUIET_WS, **(feed_options or {}).get("ws_options", {})}
    app = make_app(
        client,
        sim.ws_url,
        signer,
        account=account,
        options=DashboardOptions(**options),
        wall_clock=lambda: clock.now_ms() / 1000,
        feed_options={"poll_s": 0.5, **(feed_options or {}), "ws_options": ws_options},
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


class Seen(Notes):
    """Notes that also count each data screen's loads, as its ``DataScreen.Loaded`` messages say, and keep what
    ``at_markets()`` read as the app took each change of the markets (when it checks the alerts)."""

    def __init__(self, at_markets: Callable[[], object] = lambda: None) -> None:
        super().__init__()
        self.loads: Counter[DataScreen] = Counter()
        self.at_markets = at_markets
        self.markets: list[object] = []

    def __call__(self, message: Message) -> None:
        super().__call__(message)
        if isinstance(message, DataScreen.Loaded):
            self.loads[message.screen] += 1
        elif isinstance(message, FeedChanged) and "markets" in message.topics:
            self.markets.append(self.at_markets())


@pytest.fixture
def screen_loads(monkeypatch: pytest.MonkeyPatch) -> Counter[DataScreen]:
    """Each data screen's loads, counted by a handler of its ``DataScreen.Loaded`` message: for apps that
    ``snap_compare`` runs, where no ``message_hook`` can be given."""
    loads: Counter[DataScreen] = Counter()

    def on_data_screen_loaded(screen: DataScreen, message: DataScreen.Loaded) -> None:
        loads[message.screen] += 1

    monkeypatch.setattr(DataScreen, "on_data_screen_loaded", on_data_screen_loaded, raising=False)
    return loads


async def settle(pilot: Any, ready: Callable[[], object], timeout_s: float = 10.0, what: str = "") -> None:
    """Let the app run until ``ready()`` is true, then until the panes have drawn it."""
    for _ in range(int(timeout_s / 0.02)):
        if ready():
            break
        await pilot.pause(0.02)
    else:
        raise AssertionError(f"timed out waiting for {what or ready}")
    await drawn(pilot)


@contextlib.asynccontextmanager
async def noted(app: XtuiApp, size: tuple[int, int]) -> AsyncIterator[tuple[Any, Notes]]:
    """``app`` run headless at ``size``, once its feed is ready: its pilot, and the notices it gives."""
    notes = Notes()
    async with app.run_test(size=size, message_hook=notes) as pilot:
        await feed_ready(app)
        yield pilot, notes


async def asked(pilot: Any, *keys: str) -> str:
    """Press ``keys``, until the question they ask (``ConfirmScreen``) is on screen and drawn: its reasons, as one
    line."""
    await pilot.press(*keys)
    await settle(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), what="the question")
    return " ".join(str(s.render()) for s in pilot.app.screen.query(".reason"))


async def palette_search(pilot: Any, words: str, first: str | None) -> list[str]:
    """Type ``words`` into the open command palette, then wait until its search (a worker) has ended with
    ``first`` in the top command's text (the one Enter runs; None: no command found). The commands listed."""
    await pilot.press(*words)
    palette = pilot.app.screen
    results = palette.query_one(CommandList)

    def listed() -> list[str]:
        options = (results.get_option_at_index(i) for i in range(results.option_count))
        return [str(o.hit.text) for o in options if isinstance(o, Command)]

    def found() -> bool:
        if any(w.node is palette and not w.is_finished for w in pilot.app.workers):
            return False
        shown = listed()
        return first in shown[0] if first is not None and shown else first is None and results.option_count > 0

    await settle(pilot, found, what=f"{first!r} first in the palette")
    return listed()


async def drawn(pilot: Any, timeout_s: float = 10.0) -> None:
    """Until every live widget has read the state it was told of, then one full layout and paint. A widget that
    waits for its pace (the markets' half second, the positions' second) or the screen's next refresh tick draws
    now: what it shows is what that redraw would show (waiting for them cost ~0.2 s a call, ~600 calls)."""
    app = pilot.app
    await pilot.pause()
    if not app.is_running:
        return

    def waiting(w: FollowsFeed) -> bool:  # as ``FollowsFeed.flush`` decides: a hidden pane waits until shown
        return w.dirty and w.is_mounted and w.display

    # each pane seen drawn once, not all at one instant: on a live market (an exchange on the wall clock) the paced
    # panes (positions, account bar) are told of new prices again before the others have all drawn
    late = {w for w in app.screen.query("*") if isinstance(w, FollowsFeed) and waiting(w)}
    for w in late:
        w.redraw_soon()
        w.flush(tick=False)
    for _ in range(int(timeout_s / 0.05)):
        late = {w for w in late if waiting(w)}
        if not late:
            break
        await pilot.pause(0.05)
    else:
        raise AssertionError(f"the panes did not draw the state they were told of: {sorted(str(w.id) for w in late)}")
    # A DataTable sizes its columns to new rows on its next idle event: on a busy machine that can come after
    # the screenshot, which would then show the columns as wide as their labels.
    for _ in range(int(timeout_s / 0.05)):
        # private: a DataTable's pending resize of its columns shows nowhere else
        if not any(table._require_update_dimensions for table in app.screen.query(DataTable)):
            break
        await pilot.pause(0.05)
    await pilot.wait_for_scheduled_animations()
    app.screen.refresh(layout=True)
    await pilot.pause()
    await pilot.pause()


def screen_rows(app: App[Any]) -> list[str]:
    """The rows of the frame the screen composes now, as the text of their segments."""
    # private: Textual has no public way to read a screen as text (an SVG screenshot is all it exports)
    return ["".join(segment.text for segment in strip) for strip in app.screen._compositor.render_strips()]


def toasts(app: App[Any]) -> list[Toast]:
    """The notices on screen (``run_test(notifications=True)``), oldest first."""
    return list(app.screen.query(Toast))


def frames_handed(
    monkeypatch: pytest.MonkeyPatch, app_class: type[App[Any]], keep: Callable[[Any, RenderableType], None]
) -> None:
    """``keep(app, frame)`` told of every frame (not None) an ``app_class`` app hands Textual's ``App._display``,
    which writes it to the terminal (all of them, run headless), before it is handed on."""
    display = app_class._display  # private: the one place a frame leaves for the terminal, which LeanApp overrides

    def kept(app: App[Any], screen: Screen[Any], renderable: RenderableType | None) -> None:
        if renderable is not None:
            keep(app, renderable)
        display(app, screen, renderable)

    monkeypatch.setattr(app_class, "_display", kept)  # private: as above


async def feed_ready(app: Any, timeout_s: float = 20.0) -> None:
    """The feed's ``wait_ready``, bounded: a feed that never gets ready fails the test, saying what it lacks,
    instead of leaving it waiting for ever."""
    try:
        await asyncio.wait_for(app.feed.wait_ready(), timeout_s)
    except TimeoutError:
        s = app.feed.state
        lacks = {
            "instruments": bool(s.market.instruments),
            "book loaded": s.market.book.loaded,
            "account loaded": s.account.address is None or s.account.loaded,
        }
        raise AssertionError(
            f"the feed was not ready in {timeout_s:.0f} s: {lacks}, connection {s.status.connection!r}, "
            f"last error {s.status.last_error!r}"
        ) from None


QUIT_PRESS_S = 5.0  # Pilot.press's own wait, at most, for a key that ends the app (``press_to_quit``)


async def press_to_quit(pilot: Any, key: str) -> None:
    """Press ``key`` where it ends the app (y to "Quit?"). ``Pilot.press`` then waits for Textual's animator to
    complete, without a deadline, and an app that exits with an animation scheduled never completes it: the test
    hung for good (seen once in CI, at -n 8). The key is sent all the same; what it did is the test's to wait for."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(pilot.press(key), QUIT_PRESS_S)

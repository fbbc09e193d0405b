"""How ``xtui`` starts: the profile (``tui.launch``), its key unlocked, the built-in exchange when it has no URL.

The built-in exchange runs in its own thread with its own asyncio loop, so the synthetic market never
takes a frame from the UI loop. Textual is imported late, by ``run_dashboard`` only, so ``xtui --help``
stays fast.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from tui.api.endpoints import MAINNET, TESTNET

if TYPE_CHECKING:
    from tui.api.client import Client
    from tui.app import XtuiApp
    from tui.launch import Flags, Identity, Launch
    from tui.sim.clock import Clock
    from tui.sim.server import LocalExchange, SimConfig

T = TypeVar("T")

__all__ = [
    "DashboardOptions",
    "EmbeddedExchange",
    "StartupError",
    "dashboard_app",
    "prepare",
    "profile_name",
    "run_dashboard",
    "take_screenshots",
]


@dataclass(frozen=True, slots=True)
class DashboardOptions:
    """What the dashboard is started with besides the exchange: passed in, never read from globals."""

    theme: str = "xtui"
    symbol: str = "BTC-PERP"
    keymap: dict[str, str] = field(default_factory=dict)  # binding id -> keys, e.g. {"buy": "B"}
    confirm_notional: Decimal = Decimal(50_000)  # USDC: ask before sending a larger order
    confirm_through_pct: Decimal = Decimal(2)  # ask before a limit price this far through the book
    read_only: bool = False  # no order entry, cancels, closes or panic


class StartupError(Exception):
    """A start-up choice that cannot work (no key and no address for a remote exchange...)."""


def profile_name(url: str) -> str:
    """The header name of an exchange URL: MAINNET/TESTNET for the known hosts, else the host."""
    base = url.rstrip("/")
    if base == MAINNET.api:
        return "MAINNET"
    if base == TESTNET.api:
        return "TESTNET"
    return urlsplit(base).hostname or base


class EmbeddedExchange:
    """The local exchange on a free loopback port, served from a background thread and its own loop."""

    def __init__(self, config: SimConfig | None = None, clock: Clock | None = None) -> None:
        self._config = config
        self._clock = clock
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._error: BaseException | None = None
        self.exchange: LocalExchange | None = None
        self.url = ""

    def start(self, timeout: float = 10.0) -> str:
        """Start serving and return the base URL; raises what the server raised while starting."""
        self._thread = threading.Thread(target=self._run, name="xtui-local-exchange", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise StartupError("the local exchange did not start in time")
        if self._error is not None:
            raise StartupError(f"the local exchange did not start: {self._error}")
        return self.url

    def _run(self) -> None:
        from tui.sim.clock import SystemClock
        from tui.sim.server import LocalExchange, SimConfig

        async def serve() -> None:
            self._stop = asyncio.Event()
            self.exchange = LocalExchange(self._config or SimConfig(), self._clock or SystemClock())
            try:
                self.url = await self.exchange.start()
            except BaseException as exc:
                self._error = exc
                self._ready.set()
                return
            self._ready.set()
            try:
                await self._stop.wait()
            finally:
                await self.exchange.stop()

        self._loop = asyncio.new_event_loop()
        try:
            self._loop.run_until_complete(serve())
        finally:
            self._loop.close()

    def call(self, fn: Callable[[LocalExchange], T], timeout: float = 30.0) -> T:
        """Run ``fn(exchange)`` on the exchange's own loop (``step`` a frozen clock, say) and return its result."""
        loop, exchange = self._loop, self.exchange
        if loop is None or exchange is None:
            raise StartupError("the local exchange is not running")

        async def run() -> T:
            return fn(exchange)

        return asyncio.run_coroutine_threadsafe(run(), loop).result(timeout)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving and wait for the thread."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(stop.set)
        if self._thread is not None:
            self._thread.join(timeout)

    def __enter__(self) -> EmbeddedExchange:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def prepare(profile: str | None = None, flags: Flags | None = None) -> Launch:
    """The profile (``resolve``) with the flags laid over it, its theme and keymap checked by name."""
    from tui.app import known_themes
    from tui.commands import binding_ids
    from tui.config import resolve
    from tui.launch import Flags, apply_flags, check_names

    launch = apply_flags(resolve(profile), flags or Flags())
    check_names(launch, known_themes(), binding_ids())
    return launch


def dashboard_app(
    launch: Launch,
    ident: Identity,
    *,
    local_url: str | None = None,
    client: Client | None = None,
    **extra: Any,
) -> XtuiApp:
    """The app for ``launch`` as ``ident``; ``client`` (tests) replaces the one made from the profile's URLs."""
    from tui.api.client import Client
    from tui.app import make_app

    profile = launch.profile
    ends = profile.endpoints(local_url)
    own = client is None
    if client is None:
        client = Client(
            ends.api, explorer_url=ends.explorer, signer=ident.signer, testnet=profile.testnet, dialect=profile.dialect
        )
    return make_app(
        client,
        ends.ws,
        ident.signer,
        account=ident.account,
        profile=launch.label,
        mainnet=launch.mainnet,
        demo_key=ident.demo_key,
        options=launch.options,
        fund=profile.builtin_exchange and ident.signer is not None,
        close_client=own,
        **extra,
    )


def run_dashboard(
    profile: str | None = None,
    *,
    url: str | None = None,
    testnet: bool = False,
    mainnet: bool = False,
    address: str | None = None,
    key_env: str | None = None,
    read_only: bool = False,
    theme: str | None = None,
    symbol: str | None = None,
    password_env: str | None = None,
) -> int:
    """Start the dashboard on ``profile`` (``--profile``; else XTUI_PROFILE, default_profile, local).

    Before Textual takes the screen: the profile's warnings are printed, and its key is unlocked (a
    keystore asks for its password here). The built-in exchange starts only for a profile without url.
    """
    from tui.launch import Flags, identity

    flags = Flags(url, testnet, mainnet, address, key_env, read_only, theme, symbol)
    launch = prepare(profile, flags)
    for warning in launch.warnings:
        sys.stderr.write(warning + "\n")
    sys.stderr.flush()
    ident = identity(launch, password_env)
    embedded = EmbeddedExchange() if launch.profile.builtin_exchange else None
    try:
        local_url = embedded.start() if embedded is not None else None

        async def main() -> None:
            await dashboard_app(launch, ident, local_url=local_url).run_async()

        asyncio.run(main())
    finally:
        if embedded is not None:
            embedded.stop()
    return 0


SCREENSHOT_KEY = "0x" + "5e" * 32  # a fixed demo key, so the screenshots show the same account every time
SCREENSHOT_SEED = 7
SCREENSHOT_MINUTES = 40  # of synthetic market before the screenshots: enough candles for the chart
SCREENSHOT_SIZES = ((120, 40), (80, 24))


def take_screenshots(out_dir: str, *, seed: int = SCREENSHOT_SEED, theme: str = "xtui") -> list[str]:
    """SVG screenshots of every screen on the built-in exchange, with a fixed seed and a frozen clock.

    The market runs ``SCREENSHOT_MINUTES`` of exchange time first; the demo account then rests a bid and
    buys a little, so the positions and open orders panes have something to show.
    """
    return asyncio.run(_capture(Path(out_dir), seed=seed, theme=theme))


async def _capture(out: Path, *, seed: int, theme: str) -> list[str]:
    from tui.api.client import Client
    from tui.api.signing import Signer
    from tui.api.wire import order_item
    from tui.app import make_app
    from tui.sim.clock import FrozenClock
    from tui.sim.server import LocalExchange, SimConfig

    out.mkdir(parents=True, exist_ok=True)
    clock = FrozenClock()
    sim = LocalExchange(SimConfig(seed=seed, market=True), clock)
    await sim.start()
    written: list[str] = []
    try:
        for _ in range(SCREENSHOT_MINUTES):
            sim.step(60_000)
        signer = Signer(SCREENSHOT_KEY)
        async with Client(sim.url, signer=signer, clock_ms=clock.now_ms) as client:
            await client.cancel_all()  # the faucet
            book = await client.orderbook("BTC-PERP", depth=5)
            bid, ask = book.bids[4].price, book.asks[0].price
            await client.place_order([order_item(1, "b", bid, "0.05", cloid="demo-bid")])
            await client.place_order([order_item(1, "b", ask, "0.02", tif="IOC")])
            for size in SCREENSHOT_SIZES:
                app = make_app(
                    client,
                    sim.ws_url,
                    signer,
                    profile="LOCAL",
                    demo_key=True,
                    options=DashboardOptions(theme=theme),
                    clock=lambda: 0.0,  # every pane's data "0s" old: no wall-clock text in the pictures
                    wall_clock=lambda: clock.now_ms() / 1000,
                    feed_options={"poll_s": 3600.0},
                )
                app.feed.state.status.clock_drift_ms = 0  # the HTTP Date header is wall time, not the frozen clock
                app.animation_level = "none"  # no tab underline caught sliding
                written += await _shoot(app, size, out, every_screen=size == SCREENSHOT_SIZES[0])
    finally:
        await sim.stop()
    return written


async def _shoot(app: XtuiApp, size: tuple[int, int], out: Path, *, every_screen: bool) -> list[str]:
    written = []
    suffix = "" if every_screen else f"-{size[0]}x{size[1]}"
    market = app.feed.state.market
    async with app.run_test(size=size) as pilot:
        await app.feed.wait_ready()
        await _settle(pilot, lambda: bool(market.candles and market.trades))
        written.append(app.save_screenshot(f"main{suffix}.svg", str(out)))
        if every_screen:
            await pilot.press("b")
            await _settle(pilot, lambda: app.screen is not app.main)
            for box in app.screen.query("Input"):
                box.cursor_blink = False  # type: ignore[attr-defined]  # the same picture every run
            await pilot.pause()
            written.append(app.save_screenshot("order-form.svg", str(out)))
            await pilot.press("escape", "question_mark")
            await _settle(pilot, lambda: app.screen is not app.main)
            written.append(app.save_screenshot("help.svg", str(out)))
            await pilot.press("escape")
            written += await _shoot_data_screens(app, pilot, out)
    return written


async def _shoot_data_screens(app: XtuiApp, pilot: Any, out: Path) -> list[str]:
    """Each data screen (account, wallet, history...) as its key opens it, after its first load."""
    from tui.screens.catalogue import SCREENS, open_screen
    from tui.screens.data_screen import DataScreen

    written = []
    for name, kind in SCREENS.items():
        open_screen(app, name, app.context)
        await _settle(pilot, lambda kind=kind: isinstance(app.screen, kind) and app.screen.loads >= 1)  # type: ignore[misc]
        written.append(app.save_screenshot(f"{name}.svg", str(out)))
        await pilot.press("escape")
        await _settle(pilot, lambda: not isinstance(app.screen, DataScreen))
    return written


async def _settle(pilot: Any, ready: Callable[[], bool], timeout_s: float = 10.0) -> None:
    """Let the app run until ``ready()`` and the panes have drawn what it brought."""
    for _ in range(int(timeout_s / 0.05)):
        if ready():
            break
        await pilot.pause(0.05)
    for _ in range(4):  # past the coalescing delay and the panes' refresh tick
        await pilot.pause(0.1)

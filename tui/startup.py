"""How ``xtui`` starts: which exchange (the built-in one, testnet, mainnet, a URL), which account and key.

The built-in exchange runs in its own thread with its own asyncio loop, so the synthetic market never
takes a frame from the UI loop. Textual is imported late, by ``run_dashboard`` only, so resolving a
profile (and ``xtui --help``) stays fast.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from tui.api.endpoints import MAINNET, TESTNET, Endpoints

if TYPE_CHECKING:
    from tui.api.signing import Signer
    from tui.app import XtuiApp
    from tui.sim.clock import Clock
    from tui.sim.server import LocalExchange, SimConfig

T = TypeVar("T")

__all__ = [
    "DashboardOptions",
    "EmbeddedExchange",
    "Profile",
    "StartupError",
    "profile_name",
    "resolve_profile",
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


class StartupError(Exception):
    """A start-up choice that cannot work (no key and no address for a remote exchange...)."""


@dataclass(frozen=True, slots=True)
class Profile:
    """Where the dashboard connects and as whom. ``signer`` None means watch-only."""

    name: str  # LOCAL, TESTNET, MAINNET or the URL's host; the header always shows it
    api_url: str
    explorer_url: str
    ws_url: str
    testnet: bool
    account: str | None
    signer: Signer | None
    local: bool = False
    demo_key: bool = False  # a fresh key made for this run (the local exchange funds it)

    @property
    def watch_only(self) -> bool:
        return self.signer is None


def profile_name(url: str) -> str:
    """The header name of an exchange URL: MAINNET/TESTNET for the known hosts, else the host."""
    base = url.rstrip("/")
    if base == MAINNET.api:
        return "MAINNET"
    if base == TESTNET.api:
        return "TESTNET"
    return urlsplit(base).hostname or base


def _signer(key_env: str | None) -> Signer | None:
    if not key_env:
        return None
    from tui.api.signing import Signer, SigningError

    secret = os.environ.get(key_env)
    if not secret:
        raise StartupError(f"environment variable {key_env} is not set (it should hold the private key)")
    try:
        return Signer(secret)
    except SigningError as exc:
        raise StartupError(f"{key_env}: {exc}") from None


def _check_address(address: str) -> str:
    from tui.api.signing import checksum_address

    try:
        return checksum_address(address)
    except (ValueError, TypeError):
        raise StartupError(f"--address {address!r} is not an account address (0x and 40 hex digits)") from None


def resolve_profile(
    *,
    url: str | None = None,
    testnet: bool = False,
    mainnet: bool = False,
    address: str | None = None,
    key_env: str | None = None,
    local_url: str | None = None,
) -> Profile:
    """The profile the flags describe. ``local_url`` is the built-in exchange's URL when no remote is given.

    ``--address`` alone watches that account; ``--key-env`` trades as that key (for ``--address`` when both
    are given, as its agent); on the built-in exchange with neither, a fresh demo key is made.
    """
    signer = _signer(key_env)
    account = _check_address(address) if address else None
    if url or testnet or mainnet:
        if url:
            ends = Endpoints.for_base(url)
            name = profile_name(url)
        else:
            ends = TESTNET if testnet else MAINNET
            name = "TESTNET" if testnet else "MAINNET"
        if signer is None and account is None:
            raise StartupError(f"{name}: give --address ADDR to watch an account or --key-env VAR to trade")
        return Profile(
            name=name,
            api_url=ends.api,
            explorer_url=ends.explorer,
            ws_url=ends.ws,
            testnet=name == "TESTNET",
            account=account or (signer.address if signer else None),
            signer=signer,
        )
    if local_url is None:
        raise StartupError("no exchange: the built-in exchange is not running")
    demo = signer is None and account is None
    if demo:
        from tui.api.signing import Signer

        signer = Signer.generate()
    ends = Endpoints.for_base(local_url)
    return Profile(
        name="LOCAL",
        api_url=ends.api,
        explorer_url=ends.explorer,
        ws_url=ends.ws,
        testnet=False,
        account=account or (signer.address if signer else None),
        signer=signer,
        local=True,
        demo_key=demo,
    )


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


def run_dashboard(
    *,
    url: str | None = None,
    testnet: bool = False,
    mainnet: bool = False,
    address: str | None = None,
    key_env: str | None = None,
    options: DashboardOptions | None = None,
) -> int:
    """Start the dashboard on the exchange the flags name (the built-in one when none is named)."""
    embedded = None if (url or testnet or mainnet) else EmbeddedExchange()
    try:
        local_url = embedded.start() if embedded is not None else None
        profile = resolve_profile(
            url=url, testnet=testnet, mainnet=mainnet, address=address, key_env=key_env, local_url=local_url
        )
        from tui.api.client import Client
        from tui.app import make_app

        async def main() -> None:
            client = Client(
                profile.api_url, explorer_url=profile.explorer_url, signer=profile.signer, testnet=profile.testnet
            )
            app = make_app(
                client,
                profile.ws_url,
                profile.signer,
                account=profile.account,
                profile=profile.name,
                demo_key=profile.demo_key,
                options=options,
                fund=profile.local and profile.signer is not None,
                close_client=True,
            )
            await app.run_async()

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
    return written


async def _settle(pilot: Any, ready: Callable[[], bool], timeout_s: float = 10.0) -> None:
    """Let the app run until ``ready()`` and the panes have drawn what it brought."""
    for _ in range(int(timeout_s / 0.05)):
        if ready():
            break
        await pilot.pause(0.05)
    for _ in range(4):  # past the coalescing delay and the panes' refresh tick
        await pilot.pause(0.1)

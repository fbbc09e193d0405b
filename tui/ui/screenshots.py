"""``xtui screenshot``: SVG pictures of every screen on the built-in exchange, with a fixed seed and a frozen clock."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.message import Message
from textual.widgets import Input

from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.config.launch import DashboardOptions
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange, SimConfig
from tui.ui.app import XtuiApp, make_app
from tui.ui.screens.catalogue import open_screen, screen_classes
from tui.ui.screens.data_screen import DataScreen
from tui.ui.widgets.pane import FollowsFeed

__all__ = ["take_screenshots"]

SCREENSHOT_KEY = "0x" + "5e" * 32  # a fixed demo key, so the screenshots show the same account every time
SCREENSHOT_SEED = 7
SCREENSHOT_SECONDS = 20  # of synthetic market before the screenshots: a new user's first look (history included)
SCREENSHOT_SIZES = ((160, 48), (120, 30), (80, 24))


def take_screenshots(out_dir: str, *, seed: int = SCREENSHOT_SEED, theme: str = "xtui") -> list[str]:
    """SVG screenshots of every screen on the built-in exchange, with a fixed seed and a frozen clock.

    The market runs ``SCREENSHOT_SECONDS`` of exchange time first (the charts' weeks of history are there
    from the start); the demo account then rests a bid and buys a little, so the positions and open orders
    panes have something to show. The dashboard at 160x48 (``main.svg``, with every other screen), 120x30
    and 80x24.
    """
    return asyncio.run(_capture(Path(out_dir), seed=seed, theme=theme))


async def _capture(out: Path, *, seed: int, theme: str) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    clock = FrozenClock()
    sim = LocalExchange(SimConfig(seed=seed, market=True), clock)
    await sim.start()
    written: list[str] = []
    stores = Path(tempfile.mkdtemp(prefix="xtui-screenshots-"))
    try:
        for _ in range(SCREENSHOT_SECONDS * 4):
            sim.step(250)
        signer = Signer(SCREENSHOT_KEY)
        testnet = sim.config.network == "testnet"
        async with Client(sim.url, signer=signer, clock_ms=clock.now_ms, testnet=testnet) as client:
            await client.request_funds(signer.address)  # the exchange's faucet (``tui.api.faucet``)
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
                    stores=stores,  # the user's alerts, layouts and event log are not in the pictures
                )
                app.feed.state.status.clock_drift_ms = 0  # the HTTP Date header is wall time, not the frozen clock
                app.animation_level = "none"  # no tab underline caught sliding

                async def trade(client: Client = client) -> None:  # a fill while the dashboard watches: news
                    await client.place_order([order_item(1, "s", bid, "0.01", tif="IOC")])
                    sim.step(500)

                written += await _shoot(app, size, out, every_screen=size == SCREENSHOT_SIZES[0], trade=trade)
    finally:
        await sim.stop()
        shutil.rmtree(stores, ignore_errors=True)
    return written


async def _shoot(
    app: XtuiApp, size: tuple[int, int], out: Path, *, every_screen: bool, trade: Callable[[], Awaitable[None]]
) -> list[str]:
    written = []
    suffix = "" if every_screen else f"-{size[0]}x{size[1]}"
    market = app.feed.state.market
    loaded: set[DataScreen] = set()  # the data screens whose first load has landed

    def note_load(message: Message) -> None:
        if isinstance(message, DataScreen.Loaded):
            loaded.add(message.screen)

    async with app.run_test(size=size, message_hook=note_load) as pilot:
        await app.feed.wait_ready()
        await _settle(pilot, lambda: bool(market.candles and market.trades))
        written.append(app.save_screenshot(f"main{suffix}.svg", str(out)))
        if every_screen:
            await pilot.press("b")
            await _settle(pilot, lambda: app.screen is not app.main)
            form = app.screen
            await _settle(pilot, lambda: "leverage 10x" in str(form.query_one("#risk").render()))
            for box in form.query(Input):
                box.cursor_blink = False  # the same picture every run
            form.query_one("#size", Input).value = "0.5"  # an order, to show its risk
            await pilot.pause()
            written.append(app.save_screenshot("order-form.svg", str(out)))
            await pilot.press("escape", "question_mark")
            await _settle(pilot, lambda: app.screen is not app.main)
            written.append(app.save_screenshot("help.svg", str(out)))
            await pilot.press("escape")
            await trade()  # news for the event log's picture, taken with the data screens
            book = app.feed.state.account.events.book
            await _settle(pilot, lambda: book.unread > 0)
            written += await _shoot_data_screens(app, pilot, out, loaded)
    return written


async def _shoot_data_screens(app: XtuiApp, pilot: Any, out: Path, loaded: set[DataScreen]) -> list[str]:
    """Each data screen (account, wallet, history...) as its key opens it, after its first load."""
    written = []
    for name, kind in screen_classes().items():
        app.call_later(open_screen, app, name, app.context)  # on the app's loop: its messages reach the hook

        def opened(kind: type[DataScreen] = kind) -> bool:
            return isinstance(app.screen, kind) and app.screen in loaded

        await _settle(pilot, opened)
        written.append(app.save_screenshot(f"{name}.svg", str(out)))
        await pilot.press("escape")
        await _settle(pilot, lambda: not isinstance(app.screen, DataScreen))
    return written


async def _settle(pilot: Any, ready: Callable[[], bool], timeout_s: float = 10.0) -> None:
    """Let the app run until ``ready()``, the feed has told the panes all its news, and every pane shown has
    read it (a paced pane waits for its turn)."""
    app = pilot.app

    def settled() -> bool:
        panes = (w for w in app.screen.query("*") if isinstance(w, FollowsFeed) and w.display)
        return bool(ready()) and not app.feed.news_pending and not any(pane.dirty for pane in panes)

    for _ in range(int(timeout_s / 0.05)):
        if settled():
            break
        await pilot.pause(0.05)
    await pilot.pause()  # the redraws the last reads asked for

"""The child side of the dashboard's figures: ``python -m tui.bench.dashboard_probe WHAT ARGS`` runs the app
headless, measures one figure and prints it as one JSON line (``tui.bench.dashboard`` spawns it).

Keys are posted to the app as the terminal driver posts them (``events.Key``), not through ``Pilot.press``,
which waits for the process to go idle. A frame counts as drawn when a ``call_after_refresh`` callback runs:
Textual calls those after the screen has composited its next update.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.message import Message

    from tui.config.launch import Flags
    from tui.ui.app import XtuiApp

__all__ = ["BOOK_HZ", "FEED_RATES", "KEY_TARGET_MS", "main"]

SIZE = (120, 40)
KEY_TARGET_MS = 50.0
FEED_RATES = (1_000, 2_500, 5_000, 10_000, 20_000, 40_000, 80_000)  # book + trade messages a second
BOOK_HZ = 10  # CPU under load: book changes a second
BATCH = 64  # frames handled per loop turn while behind, as a socket reader drains a full buffer
KEPT_PACE = 0.9  # a feed rate counts as absorbed when this share of it was handled (a frame drawn lags)
_KEY_ENV = "XTUI_BENCH_KEY"


# ---- helpers ---------------------------------------------------------------------------


async def _until(ready: Callable[[], object], timeout: float, what: str, step: float = 0.001) -> None:
    deadline = time.perf_counter() + timeout
    while not ready():
        if time.perf_counter() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        await asyncio.sleep(step)


async def _drawn(app: XtuiApp) -> float:
    """When the screen has composited what the app holds now."""
    painted = asyncio.get_running_loop().create_future()

    def mark() -> None:
        if not painted.done():
            painted.set_result(time.perf_counter())

    app.screen.call_after_refresh(mark)
    result: float = await asyncio.wait_for(painted, 5)
    return result


def _press(app: XtuiApp, key: str, char: str | None) -> float:
    """Post a key as the terminal driver does; when it was posted."""
    from textual import events

    event = events.Key(key, char)
    event.set_sender(app)
    t = time.perf_counter()
    app.post_message(event)
    return t


def _cell(app: XtuiApp, table_id: str, row: str, column: int) -> str:
    from textual.widgets import DataTable
    from textual.widgets.data_table import RowDoesNotExist

    try:
        cells = app.main.query_one(table_id, DataTable).get_row(row)
    except RowDoesNotExist:
        return ""
    text = cells[column] if column < len(cells) else ""
    return str(getattr(text, "plain", text)).strip()


def _book_price(app: XtuiApp, slot: str) -> str:
    from tui.ui.widgets.book_lines import BookLines

    return app.main.query_one("#book-table", BookLines).cell(slot, 0)


def _panes_show_data(app: XtuiApp, *, book: bool = True) -> bool:
    """The book (both sides), the markets (the shown instrument's last price) and the account bar show data."""
    from textual.widgets import Static

    if not app.is_running or app.screen is not app.main:
        return False
    symbol = app.feed.state.market.selected
    if _cell(app, "#markets-table", symbol, 1) in ("", "-"):
        return False
    if book and not (_book_price(app, "a0") and _book_price(app, "b0")):
        return False
    return "Equity" in str(app.main.query_one("#account", Static).render())


async def _showing_data(app: XtuiApp, *, book: bool = True) -> None:
    """Once the feed's first picture is in and the panes show it (``_panes_show_data``)."""
    await app.feed.wait_ready()
    await _until(lambda: _panes_show_data(app, book=book), 30, "the panes", step=0.005)


@contextlib.contextmanager
def _launched(
    flags: Flags | None = None,
    *,
    key: str | None = None,
    market: bool = True,
    marks: dict[str, float] | None = None,
    launched: float = 0.0,
) -> Iterator[XtuiApp]:
    """The app as ``run_dashboard`` builds it for the built-in ``local`` profile with ``flags`` laid over it,
    the built-in exchange started first when the profile has no URL (``market``: its synthetic market).
    ``key`` is put in the environment variable ``flags.key_env`` names while the key is read, then removed."""
    from tui.config.launch import Flags, identity
    from tui.sim.process import ExchangeProcess
    from tui.ui.run import dashboard_app, prepare

    launch = prepare("local", flags or Flags())
    env = flags.key_env if flags is not None and key is not None else None
    if env and key:
        os.environ[env] = key
    try:
        ident = identity(launch, None)
    finally:
        if env:
            os.environ.pop(env, None)
    embedded = None
    if launch.profile.builtin_exchange:
        # as run_dashboard does: the built-in exchange, in its own process, plays the network signed for
        embedded = ExchangeProcess(market=market, network=launch.profile.network)
    try:
        local_url = embedded.start() if embedded is not None else None
        if marks is not None:
            marks["exchange"] = time.time() - launched
        yield dashboard_app(launch, ident, local_url=local_url)
    finally:
        if embedded is not None:
            embedded.stop()


def _ms(seconds: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in seconds)
    return {"median": statistics.median(ms), "p90": ms[min(len(ms) - 1, round(0.9 * (len(ms) - 1)))], "max": ms[-1]}


# ---- 1: start to first full frame ----------------------------------------------------------------------


def _startup(launched: float) -> dict[str, float]:
    from tui.config.launch import start_logging

    start_logging(None, None)  # what `xtui` with no arguments does first
    marks: dict[str, float] = {}
    with _launched(marks=marks, launched=launched) as app:

        async def main() -> None:
            async with app.run_test(headless=True, size=SIZE):
                await app.feed.wait_ready()
                marks["feed_ready"] = time.time() - launched
                await _until(lambda: _panes_show_data(app), 30, "the panes to show data", step=0.002)
                await _drawn(app)
                marks["frame"] = time.time() - launched
                app.exit()

        asyncio.run(main())
    return marks


# ---- 2: Enter in the order form to the order acknowledged ----------------------------------------------


Ack = tuple[float, str, str]  # when the app handled the notification, its severity, its text


async def _order_from_form(app: XtuiApp, acks: list[Ack], price: Decimal) -> float:
    """``b``, a resting limit price and a size typed into the form, then Enter: seconds from Enter to the
    app's acknowledgement (the notification with the order id, handled on the UI loop)."""
    from textual.widgets import Input

    from tui.ui.screens.order_form import OrderFormScreen

    _press(app, "b", "b")
    await _until(lambda: isinstance(app.screen, OrderFormScreen), 5, "the order form")
    form = app.screen
    await _until(lambda: any(w.has_focus for w in form.query("#size")), 5, "the size field")
    form.query_one("#price", Input).value = format(price, "f")
    form.query_one("#size", Input).value = "0.01"
    await _drawn(app)
    await asyncio.sleep(0.05)  # the form has taken the typing in
    seen = len(acks)
    sent = _press(app, "enter", "\r")
    await _until(lambda: len(acks) > seen, 10, "the acknowledgement")
    at, severity, text = acks[seen]
    if severity == "error":
        raise RuntimeError(f"the order was refused: {text}")
    return at - sent


def _order(repeats: int) -> dict[str, Any]:
    from textual.notifications import Notify

    acks: list[Ack] = []

    def hook(message: Message) -> None:
        if isinstance(message, Notify) and message.notification.title == "Order":
            n = message.notification
            # a notice the app showed at once says when; one it posted is shown as its message is handled
            acks.append((getattr(message, "shown_at", time.perf_counter()), n.severity, n.message))

    samples: list[float] = []
    with _launched() as app:

        async def main() -> None:
            state = app.feed.state
            async with app.run_test(headless=True, size=SIZE, message_hook=hook):
                await _showing_data(app)
                await _until(lambda: state.account.summary and state.account.summary.available_balance, 10, "funds")
                tick = state.market.instruments[state.market.selected].tick_size
                for _ in range(repeats):
                    bid = state.market.book.best_bid
                    assert bid is not None
                    price = (bid * Decimal("0.8") / tick).to_integral_value() * tick  # far below the book: rests
                    samples.append(await _order_from_form(app, acks, price))
                    await _until(lambda: app.screen is app.main and not app.main.desk.in_flight, 10, "the dashboard")
                    await asyncio.sleep(0.2)  # the account poll after the order
                app.exit()

        asyncio.run(main())
    return {**_ms(samples), "n": len(samples)}


# ---- 3: feed throughput while keys are answered ---------------------------------------------------------


async def _help_round_trip(app: XtuiApp) -> list[float]:
    """Open and close the help screen; seconds from each key to the frame showing its result."""
    from tui.ui.screens.help import HelpScreen

    def help_up() -> bool:
        screen = app.screen
        return isinstance(screen, HelpScreen) and any(t.has_focus for t in screen.query("#help-table"))

    sent = _press(app, "question_mark", "?")
    await _until(help_up, 5, "the help screen", step=0.0005)
    opened = await _drawn(app) - sent
    sent = _press(app, "escape", "\x1b")
    await _until(lambda: app.screen is app.main, 5, "the dashboard", step=0.0005)
    closed = await _drawn(app) - sent
    return [opened, closed]


async def _grouping_key(app: XtuiApp) -> float:
    """``g`` (the book's grouping, a cheap binding): seconds from the key to the frame showing the new grouping."""
    from tui.ui.widgets.book import OrderBookPane

    pane = app.main.query_one(OrderBookPane)
    before = pane.grouping
    sent = _press(app, "g", "g")
    await _until(lambda: pane.grouping != before, 5, "the book's grouping", step=0.0005)
    return await _drawn(app) - sent


async def _keys(app: XtuiApp, presses: int) -> list[float]:
    out = []
    for k in range(presses):
        out.append(await _grouping_key(app))
        await asyncio.sleep(0.05 + 0.013 * (k % 7))  # not in step with the panes' 100 ms refresh
    return out


async def _feed_stage(
    app: XtuiApp, rate: int, presses: int, frames: tuple[bytes, list[tuple[bool, bytes]]]
) -> dict[str, Any]:
    """Frames into the feed's handlers at ``rate`` a second while ``presses`` keys are timed."""
    from tui.bench.feed import dated_frame as stamped

    feed = app.feed
    snapshot, stream = frames
    stop = asyncio.Event()
    sent = [0]

    start = time.perf_counter()

    async def pump() -> None:
        book, trades = feed.frames.handle_book, feed.frames.handle_trades
        feed.frames.handle_book(stamped(snapshot, True))
        i = 0
        while not stop.is_set():
            due = min(int((time.perf_counter() - start) * rate) - sent[0], BATCH)
            for _ in range(due):
                if i == len(stream):  # start the stream over from a fresh snapshot
                    feed.frames.handle_book(stamped(snapshot, True))
                    i = 0
                is_book, raw = stream[i]
                i += 1
                (book if is_book else trades)(stamped(raw, is_book))
            sent[0] += max(0, due)
            await asyncio.sleep(0 if due == BATCH else 0.001)

    status = feed.state.status
    bad, resyncs = status.bad_frames, status.resyncs
    task = asyncio.create_task(pump()) if rate else None
    try:
        await asyncio.sleep(0.5)  # the feed and the panes at this rate before the first key
        latencies = await _keys(app, presses)
        achieved = sent[0] / (time.perf_counter() - start)
    finally:
        stop.set()
        if task is not None:
            await task
    if status.bad_frames != bad or status.resyncs != resyncs:
        raise RuntimeError(f"the synthetic frames were not applied cleanly: {status.last_error}")
    return {"rate": rate, "achieved": achieved, "kept_pace": achieved >= KEPT_PACE * rate, **_ms(latencies)}


def _feed(presses: int) -> dict[str, Any]:
    from tui.bench.feed import synthetic_frames

    frames = synthetic_frames(20_000)
    stages: list[dict[str, Any]] = []
    result: dict[str, Any] = {"stages": stages}

    def kept_up(stage: dict[str, Any]) -> bool:
        return bool(stage["median"] <= KEY_TARGET_MS and stage["kept_pace"])

    with _launched(market=False) as app:  # no synthetic market: its book pushes would break the sequence

        async def main() -> None:
            async with app.run_test(headless=True, size=SIZE):
                await _showing_data(app, book=False)
                await asyncio.sleep(0.5)
                helps = []
                for _ in range(max(2, presses // 3)):
                    helps += await _help_round_trip(app)
                    await asyncio.sleep(0.1)
                result["help"] = _ms(helps[0::2])  # opening; closing is cheaper
                for rate in (0, *FEED_RATES):  # up to the rate the loop no longer absorbs, or keys are lost
                    stage = await _feed_stage(app, rate, presses, frames)
                    stages.append(stage)
                    if not stage["kept_pace"] or stage["median"] > 4 * KEY_TARGET_MS:
                        break
                    await asyncio.sleep(0.3)
                app.exit()

        asyncio.run(main())
    ok = [s for s in stages if s["rate"] and kept_up(s)]
    result["best"] = max(ok, key=lambda s: s["achieved"]) if ok else None
    return result


# ---- 4: CPU idle and with the book changing 10 times a second -------------------------------------------


async def _cpu_window(seconds: float) -> float:
    """% of one core this process used over the next ``seconds``."""
    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.sleep(seconds)
    return 100 * (time.process_time() - cpu) / (time.perf_counter() - wall)


def _cpu(url: str, seconds: float) -> dict[str, Any]:
    import secrets

    from tui.api.client import Client
    from tui.config.launch import Flags

    result: dict[str, Any] = {}

    async def main(app: XtuiApp) -> None:
        async with Client(url, signer=app.client.signer, testnet=app.client.testnet) as c:
            if c.acting_for is not None:
                await c.request_funds(c.acting_for, once=True)  # the exchange's faucet (``api.faucet``)
        market = app.feed.state.market
        async with app.run_test(headless=True, size=SIZE):
            await _showing_data(app, book=False)
            await asyncio.sleep(1.0)  # chart history and the first account poll are start-up, not idle
            result["idle"] = await _cpu_window(seconds)
            load = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tui.bench.dashboard_probe",
                "load",
                url,
                str(BOOK_HZ),
                stdout=asyncio.subprocess.PIPE,
            )
            try:
                assert load.stdout is not None
                line = await asyncio.wait_for(load.stdout.readline(), 30)
                if not line.startswith(b"ready"):
                    raise RuntimeError(f"the load process did not start: {line!r}")
                await asyncio.sleep(1.0)
                seq, wall = market.book.sequence, time.perf_counter()
                result["loaded"] = await _cpu_window(seconds)
                if load.returncode is not None:
                    raise RuntimeError("the load process stopped during the measurement")
                result["book_updates_per_s"] = (market.book.sequence - seq) / (time.perf_counter() - wall)
            finally:
                with contextlib.suppress(ProcessLookupError):  # it ended by itself: its error is on stderr
                    load.terminate()
                await load.wait()
            app.exit()

    flags = Flags(url=url, key_env=_KEY_ENV)  # `xtui --url URL --key-env VAR`, with a throwaway key
    with _launched(flags, key="0x" + secrets.token_hex(32)) as app:
        asyncio.run(main(app))
    return result


def _load(url: str, hz: float) -> None:
    """Place and cancel a resting BTC-PERP bid by turns, ``hz`` actions a second, until terminated."""
    from tui.api import wire
    from tui.api.client import Client
    from tui.api.limits import Governor
    from tui.api.signing import Signer

    big = 10**9

    async def main() -> None:
        governor = Governor(info_per_minute=big, info_per_hour=big, exchange_per_minute=big)
        # the exchange is a default `xtui sim`: it plays testnet
        signer = Signer.generate()
        async with Client(url, signer=signer, governor=governor, testnet=True) as c:
            await c.request_funds(signer.address)  # the exchange's faucet (``api.faucet``)
            [ticker] = await c.ticker("BTC-PERP")
            price = int(ticker.mark_price * 9 / 10)  # rests well inside the exchange's price band
            sys.stdout.write("ready\n")
            sys.stdout.flush()
            start, k = time.perf_counter(), 0
            while True:
                cloid = f"bench-load-{k // 2}"
                if k % 2 == 0:
                    await c.place_order([wire.order_item(1, "b", price, "0.01", cloid=cloid)])
                else:
                    await c.cancel_by_cloid([(cloid, 1)])
                k += 1
                await asyncio.sleep(max(0.0, start + k / hz - time.perf_counter()))

    asyncio.run(main())


_COMMANDS: dict[str, Callable[..., Any]] = {
    "startup": lambda launched: _startup(float(launched)),
    "order": lambda repeats: _order(int(repeats)),
    "feed": lambda presses: _feed(int(presses)),
    "cpu": lambda url, seconds: _cpu(url, float(seconds)),
    "load": lambda url, hz: _load(url, float(hz)),
    "tick": lambda seconds, *rates: _tick(float(seconds), [int(r) for r in rates]),
}


def _tick(seconds: float, rates: list[int]) -> dict[str, Any]:
    """Each rate in turn on one headless app; what ``tick_stage`` saw at each."""
    from tui.bench.feed import synthetic_frames
    from tui.bench.tick_to_screen import tick_stage

    frames = synthetic_frames(20_000)
    stages: list[dict[str, Any]] = []
    with _launched(market=False) as app:  # no synthetic market: its book pushes would break the sequence

        async def main() -> None:
            async with app.run_test(headless=True, size=SIZE):
                await _showing_data(app, book=False)
                # the exchange sends its book's picture again after a subscription (at 0.25 s, 1 s and with the
                # client's next frame, a ping after 3 s of quiet): past those, only these messages move the book
                await asyncio.sleep(4.0)
                for rate in rates:
                    stages.append(await tick_stage(app, rate, seconds, frames))
                app.exit()

        asyncio.run(main())
    return {"stages": stages}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in _COMMANDS:
        sys.stderr.write(f"usage: python -m tui.bench.dashboard_probe {{{','.join(_COMMANDS)}}} ARGS\n")
        return 2
    result = _COMMANDS[argv[0]](*argv[1:])
    if result is not None:
        sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

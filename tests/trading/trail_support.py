"""What the trailing-stop tests share: a real `xtui sim` process (optionally with `--faults`), Alice long 0.1 BTC
on it, a price the test moves, and a watcher that reads Alice's open orders from the exchange all along and keeps
how many of the trail's stops rested at each reading."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import TypeVar

import msgspec

from tests.conftest import ALICE_KEY, BOB_KEY
from tui.api.client import Client
from tui.api.errors import ClientError
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.trading import OrderContext
from tui.trading.trail_plan import Source
from tui.trading.trailing import TrailRunner

D = Decimal
T = TypeVar("T")
ALICE = Signer(ALICE_KEY)
WAIT_S = 60.0  # the longest any step may take on a busy machine
SIZE = D("0.1")


async def retried(call: Callable[[], Awaitable[T]]) -> T:
    """A set-up call, again until it works (an exchange with faults refuses or drops some)."""
    async with asyncio.timeout(WAIT_S):
        while True:
            try:
                return await call()
            except ClientError:
                await asyncio.sleep(0.05)  # a fault's moment: set-up only, nothing is measured by it


async def go_long(url: str) -> OrderContext:
    """Bob rests asks from 100,000; Alice buys 0.1 BTC at market. The context the runner works in (the
    exchange's mark, Alice's position), read back from the exchange."""
    async with Client(url, signer=Signer(BOB_KEY), testnet=True) as bob:
        await retried(lambda: bob.place_order([order_item(1, "s", str(100_000 + i), "1") for i in range(5)]))
    async with Client(url, signer=ALICE, testnet=True) as alice:
        await retried(lambda: alice.place_order([order_item(1, "b", "100100", str(SIZE), tif="IOC")]))
        held = await retried(lambda: position(url))
        while held < SIZE:  # a partial fill (faults): the rest
            rest = [order_item(1, "b", "100100", str(SIZE - held), tif="IOC")]
            await retried(lambda rest=rest: alice.place_order(rest))  # type: ignore[misc]
            held = await retried(lambda: position(url))
        [btc] = [i for i in (await retried(alice.instruments)).perps if i.name == "BTC-PERP"]
        [ticker] = await retried(lambda: alice.ticker("BTC-PERP"))
    return OrderContext(
        instrument_id=btc.id, symbol="BTC-PERP", kind="perp", tick=btc.tick_size, lot=btc.lot_size,
        min_notional=D(10), max_leverage=D(50), mark=ticker.mark_price, position=held, available=D(100_000),
    )  # fmt: skip


async def position(url: str) -> Decimal:
    async with Client(url, testnet=True) as reader:
        return sum((p.size for p in await reader.positions(ALICE.address)), D(0))


class Market:
    """The price the runner follows (the test moves it) and the context it reads (the exchange's mark, kept
    fixed: the quiet market does not move it, so every stop stays below it and is armed as a stop)."""

    def __init__(self, ctx: OrderContext, price: Decimal) -> None:
        self.ctx = ctx
        self.now = price

    def context(self, symbol: str) -> OrderContext:
        return self.ctx

    def price(self, symbol: str, source: Source) -> Decimal:
        return self.now

    def close(self) -> None:
        self.ctx = msgspec.structs.replace(self.ctx, position=D(0))


class Said:
    """A runner's ``on_change`` (the trailing stops', the TWAPs'): every message, and a bounded wait for a condition
    (looked at on each message, and every 50 ms for what the exchange's record shows)."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.hooks: list[Callable[[str], None]] = []
        self._event = asyncio.Event()

    def __call__(self, tool: object, what: str) -> None:  # a trail's, a TWAP's: any runner's listener
        self.messages.append(what)
        for hook in self.hooks:
            hook(what)
        self._event.set()

    async def until(self, pred: Callable[[], bool], timeout: float = WAIT_S) -> None:
        async with asyncio.timeout(timeout):
            while not pred():
                self._event.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.05):
                        await self._event.wait()

    def any(self, part: str) -> bool:
        return any(part in m for m in self.messages)


class StopWatch:
    """Reads Alice's open orders from the exchange (not through any proxy) as often as it answers, and keeps the
    number of the trail's reduce-only stops at each reading, with whether the position was open then."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.counts: list[tuple[int, bool]] = []
        self.triggers: list[list[Decimal]] = []
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._watch())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def read(self) -> tuple[list[Decimal], Decimal]:
        async with Client(self.url, testnet=True, timeout=2.0) as reader:
            orders = (await reader.open_orders(ALICE.address, limit=100)).data
            held = sum((p.size for p in await reader.positions(ALICE.address)), D(0))
        stops = [o.trigger_px for o in orders if o.cloid.startswith("tr") and o.reduce_only and o.trigger_px]
        return sorted(stops), held

    async def _watch(self) -> None:
        while True:
            try:
                stops, held = await self.read()
            except ClientError:
                await asyncio.sleep(0.02)  # frozen or gone: nothing to observe until it answers
                continue
            self.counts.append((len(stops), held != 0))
            self.triggers.append(stops)
            await asyncio.sleep(0.02)  # readings as fast as the exchange answers, with room for the runner

    def never_lost_or_doubled(self) -> None:
        """Once the first stop rested: at least one at every reading while the position was open, never more
        than two."""
        first = next((i for i, (n, _) in enumerate(self.counts) if n), None)
        assert first is not None, "no stop ever rested"
        assert max(n for n, _ in self.counts) <= 2, f"more than two stops rested: {self.counts}"
        lost = [i for i, (n, open_) in enumerate(self.counts[first:], first) if open_ and n == 0]
        assert not lost, f"no stop rested at readings {lost[:5]} of {len(self.counts)}"


def runner(client: Client, market: Market, said: Said, **options: float) -> TrailRunner:
    """A runner on real time with short steps."""
    knobs = {"step_s": 0.05, "check_s": 0.5, "retry_s": 0.1, "stop_expiry_s": 3.0, **options}
    return TrailRunner(client, ALICE.address, market.context, market.price, said, **knobs)  # type: ignore[arg-type]

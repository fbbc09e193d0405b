"""The local exchange under load: /info latency while 50 WebSocket subscribers are fanned out to and 200
orders a second arrive, and the exchange's memory (RSS) after a warm-up and after a soak.

Three processes, so that each figure is the exchange's: ``xtui sim`` with its synthetic market (limits
lifted); a load process (``python -m tui.bench.sim_load``) holding the subscribers and sending the orders
through ``tui.api``'s own ``Client`` (its transport, its kept connections), counting every order that ended in a
transport error (a lost connection, no answer in time); and this one, which only times /info calls on a
keep-alive socket and reads the exchange's RSS. ``--rate 0`` holds the subscribers and sends no order: the run
to compare with.

The load: every subscriber follows what a dashboard follows (BTC-PERP book, trades, best bid/offer and
1-minute candles; every ticker and mid; blocks), the first one also the trading account's orders, fills,
positions and summary. Of the actions, half are IOC orders crossing the synthetic makers (trades and fills,
the position swinging around flat), half rest away from the market, and one in a hundred is a cancelAll that
clears them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.api.signing import Signer

SUBSCRIBERS = 50
ORDERS_PER_S = 200
CONNECTIONS = 16  # keep-alive sockets the orders go over (open loop: a slow answer does not slow the load)
PROBE_EVERY_S = 0.05  # one /info call every 50 ms
PROBES = (
    b'{"method":"ticker","params":{"symbol":"all"}}',
    b'{"method":"orderbook","params":{"symbol":"BTC-PERP","depth":50}}',
    b'{"method":"trades","params":{"symbol":"BTC-PERP","limit":100}}',
    b'{"method":"mids","params":{"symbol":"all"}}',
)
MARKET_CHANNELS = (
    {"channel": "orderbook", "symbol": "BTC-PERP"},
    {"channel": "trades", "symbol": "BTC-PERP"},
    {"channel": "bbo", "symbol": "BTC-PERP"},
    {"channel": "ticker", "symbol": "all"},
    {"channel": "mids", "symbol": "all"},
    {"channel": "chart", "instrument_id": "1", "chart_type": "ltp", "resolution": "1"},
    {"channel": "blocks"},
)
ACCOUNT_CHANNELS = ("orders", "fills", "position", "account_summary")
INSTRUMENTS = ((1, "BTC-PERP", Decimal("0.001"), Decimal("0.1")), (2, "ETH-PERP", Decimal("0.01"), Decimal("0.01")))


async def sim_process(*flags: str, market: bool = False) -> tuple[asyncio.subprocess.Process, str]:
    """``xtui sim`` in its own process (as a user runs it), limits lifted; returns it and its URL."""
    big = str(10**9)
    quiet = () if market else ("--quiet-market",)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tui", "sim", *quiet, "--exchange-per-minute", big,
        "--info-per-minute", big, "--info-per-hour", big, "--ws-messages-per-minute", big,
        "--ws-subscriptions", big, "--ws-connections", big, *flags,
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None
    line = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()
    if not line.startswith("listening on "):
        proc.kill()
        raise RuntimeError(f"xtui sim did not start: {line!r}")
    return proc, line.split()[-1]


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MB (Linux; 0 where /proc is missing)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class _Http:
    """One keep-alive HTTP/1.1 socket, lean, so that a timing is the exchange's and not a client library's."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, url: str) -> _Http:
        host, port = url.split("//", 1)[1].rsplit(":", 1)
        return cls(*await asyncio.open_connection(host, int(port)))

    async def post(self, path: bytes, body: bytes) -> bytes:
        head = b"POST %s HTTP/1.1\r\nHost: sim\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
        self.writer.write(head % (path, len(body)) + body)
        headers = await self.reader.readuntil(b"\r\n\r\n")
        length = next(int(h.split(b":")[1]) for h in headers.split(b"\r\n") if h.lower().startswith(b"content-length"))
        return await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


# ---- the load process ----------------------------------------------------------------------------------


@dataclass
class _Tally:
    orders: int = 0
    refused: int = 0
    frames: int = 0
    closed: list[str] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)  # orders that ended in a transport error, by its kind
    said: list[str] = field(default_factory=list)  # the first few of those errors' words

    def failed(self, exc: Exception) -> None:
        kind = type(exc).__name__
        self.errors[kind] = self.errors.get(kind, 0) + 1
        if len(self.said) < 5:
            self.said.append(f"{kind}: {exc}"[:200])


async def _subscriber(ws_url: str, params: list[dict[str, Any]], tally: _Tally, ready: asyncio.Event) -> None:
    from websockets.asyncio.client import connect

    async with connect(ws_url, max_queue=None) as ws:
        for i, p in enumerate(params):
            await ws.send(json.dumps({"jsonrpc": "2.0", "method": "subscribe", "id": str(i + 1), "params": p}))
        ready.set()
        try:
            async for _ in ws:
                tally.frames += 1
        except Exception as exc:  # a subscriber the exchange dropped is part of the figure
            tally.closed.append(repr(exc))


async def _orders(url: str, signer: Signer, rate: float, seconds: float, tally: _Tally) -> None:
    from tui.api import wire
    from tui.api.client import Client
    from tui.api.errors import ActionRejected, ApiError, ConnectionFailed, RequestTimeout, TransportError

    if rate <= 0:  # the run to compare with: the subscribers only
        await asyncio.sleep(seconds)
        return
    async with Client(url, signer=signer, testnet=True) as c:
        await c.exchange("cancelAll", {})  # the first signed action funds the account
        marks = {t["symbol"]: Decimal(str(t["mark_price"])) for t in await c.info("ticker", symbol="all")}

        def body(i: int) -> dict[str, Any]:
            k = i % 100
            if k == 99:
                return c.sign("cancelAll", {})
            inst, name, size, tick = INSTRUMENTS[(i // 4) % len(INSTRUMENTS)]
            mark = marks[name]
            if k % 2 == 0:  # IOC through the makers' ladder; buys and sells alternate
                buy = k % 4 == 0
                price = (mark * (Decimal("1.005") if buy else Decimal("0.995")) / tick).to_integral_value() * tick
                item = wire.order_item(inst, "b" if buy else "s", price, size, tif="IOC")
            else:  # resting 0.5 % to 2 % away from the mark
                buy = k % 4 == 1
                away = Decimal(1) + Decimal(5 + (i * 7) % 15) / 1000 * (-1 if buy else 1)
                price = (mark * away / tick).to_integral_value() * tick
                item = wire.order_item(inst, "b" if buy else "s", price, size)
            return c.sign("placeOrder", {"orders": [item]})

        async def worker(w: int) -> None:
            start = time.perf_counter()
            i = w
            # open loop, but it ends on time: orders a busy machine could not send by then are not sent
            while (due := start + i / rate) < start + seconds and time.perf_counter() < start + seconds:
                wait = due - time.perf_counter()
                if wait > 0:
                    await asyncio.sleep(wait)
                try:
                    await c.submit(body(i))
                    tally.orders += 1
                except ActionRejected:
                    tally.orders += 1
                    tally.refused += 1
                except (TransportError, RequestTimeout, ConnectionFailed, ApiError) as exc:
                    tally.failed(exc)
                i += CONNECTIONS

        async def follow_marks() -> None:
            while True:
                await asyncio.sleep(1.0)
                marks.update((t["symbol"], Decimal(str(t["mark_price"]))) for t in await c.info("ticker", symbol="all"))

        follower = asyncio.create_task(follow_marks())
        try:
            await asyncio.gather(*(worker(w) for w in range(CONNECTIONS)))
        finally:
            follower.cancel()


async def run_load(url: str, subscribers: int, rate: float, seconds: float) -> _Tally:
    """Hold ``subscribers`` WebSocket subscribers and send ``rate`` orders a second for ``seconds``."""
    from tui.api.signing import Signer

    tally = _Tally()
    ws_url = url.replace("http://", "ws://", 1) + "/ws/"
    signer = Signer.generate()
    market = [dict(p) for p in MARKET_CHANNELS]
    account = [*market, *({"channel": ch, "user": signer.address} for ch in ACCOUNT_CHANNELS)]
    readies = [asyncio.Event() for _ in range(subscribers)]
    subs = [
        asyncio.create_task(_subscriber(ws_url, account if n == 0 else market, tally, ready))
        for n, ready in enumerate(readies)
    ]
    await asyncio.gather(*(r.wait() for r in readies))
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    await _orders(url, signer, rate, seconds, tally)
    for s in subs:
        s.cancel()
    return tally


@dataclass
class LoadFigures:
    """What ``measure`` saw: /info latencies (ms) over the soak, the exchange's RSS (MB), the load achieved."""

    p50_ms: float
    p99_ms: float
    max_ms: float
    probes: int
    rss_start_mb: float
    rss_warm_mb: float
    rss_end_mb: float
    rss_peak_mb: float
    orders_per_s: float
    refused: int
    frames_per_s: float
    dropped: int
    transport_errors: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)
    errors_said: list[str] = field(default_factory=list)


def _percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] if len(values) > 1 else values[0]


async def measure(
    warm_s: float, soak_s: float, subscribers: int = SUBSCRIBERS, rate: float = ORDERS_PER_S
) -> LoadFigures:
    """Load ``xtui sim`` for ``warm_s + soak_s`` seconds; time /info and read RSS through the soak."""
    proc, url = await sim_process(market=True)
    load: asyncio.subprocess.Process | None = None
    try:
        rss_start = rss_mb(proc.pid)
        load = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tui.bench.sim_load", url, "--subscribers", str(subscribers),
            "--rate", str(rate), "--seconds", str(warm_s + soak_s), stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert load.stdout is not None
        line = (await asyncio.wait_for(load.stdout.readline(), 60)).decode().strip()
        if line != "ready":
            raise RuntimeError(f"the load process did not start: {line!r}")
        http = await _Http.open(url)
        latencies: list[float] = []
        rss_warm, rss_peak = 0.0, 0.0
        start = time.perf_counter()
        n = 0
        while (now := time.perf_counter()) < start + warm_s + soak_s:
            t = time.perf_counter()
            await http.post(b"/info", PROBES[n % len(PROBES)])
            took = time.perf_counter() - t
            if now >= start + warm_s:
                if not rss_warm:
                    rss_warm = rss_mb(proc.pid)
                latencies.append(took * 1000)
            if n % 20 == 0:
                rss_peak = max(rss_peak, rss_mb(proc.pid))
            n += 1
            await asyncio.sleep(max(0.0, start + n * PROBE_EVERY_S - time.perf_counter()))
        rss_end = rss_mb(proc.pid)
        http.close()
        tally = json.loads(await asyncio.wait_for(load.stdout.readline(), 60))
        await load.wait()
        return LoadFigures(
            p50_ms=statistics.median(latencies),
            p99_ms=_percentile(latencies, 99),
            max_ms=max(latencies),
            probes=len(latencies),
            rss_start_mb=rss_start,
            rss_warm_mb=rss_warm,
            rss_end_mb=rss_end,
            rss_peak_mb=max(rss_peak, rss_end),
            orders_per_s=tally["orders"] / tally["seconds"],
            refused=tally["refused"],
            frames_per_s=tally["frames"] / tally["seconds"],
            dropped=tally["closed"],
            transport_errors=sum(tally["errors"].values()),
            error_kinds=tally["errors"],
            errors_said=tally["said"],
        )
    finally:
        if load is not None and load.returncode is None:
            load.kill()
            await load.wait()
        proc.terminate()
        await proc.wait()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tui.bench.sim_load")
    p.add_argument("url")
    p.add_argument("--subscribers", type=int, default=SUBSCRIBERS)
    p.add_argument("--rate", type=float, default=ORDERS_PER_S)
    p.add_argument("--seconds", type=float, required=True)
    args = p.parse_args(argv)
    t = time.perf_counter()
    tally = asyncio.run(run_load(args.url, args.subscribers, args.rate, args.seconds))
    elapsed = time.perf_counter() - t
    out: dict[str, Any] = {"orders": tally.orders, "refused": tally.refused, "frames": tally.frames, "seconds": elapsed}
    out.update(closed=len(tally.closed), errors=tally.errors, said=tally.said)
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The exchange's published figures (``xtui bench --only server``): a matching engine's latency table.

p50, p99, p99.9 and worst, in microseconds, for placing and for cancelling an order:

- over loopback HTTP, open loop, at 1,000 and 5,000 orders a second offered: every request is signed before
  the clock starts and has a scheduled time (``offered`` apart); a pool of keep-alive connections sends each
  as soon as one is free, and its latency runs from its *scheduled* time to its answer, so a request that had
  to wait behind a slow one counts that wait (no coordinated omission). The rate achieved is printed beside
  the rate offered: when the exchange cannot keep up, it is lower and the latencies grow without bound;
- over loopback HTTP, closed loop (``CLOSED_CONNECTIONS`` requests in flight): the most it takes;
- in process, no HTTP: the signed body parsed, its signer recovered and the action applied
  (``SignedActions.apply``), back to back;
- the engine alone: ``Exchange.place_order`` and ``cancel_by_cloid``, back to back.

Each order rests away from the market (nothing trades) and is cancelled by its cloid ``LAG`` orders later, so
the book holds about ``LAG`` of them. ``xtui sim`` runs in its own process, as a user runs it (limits lifted,
no synthetic market); the load comes from this one, which shares the machine's cores with it.
"""

from __future__ import annotations

import asyncio
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from tui.bench.sim_load import _Http, sim_process

__all__ = ["Row", "latency_table", "print_table"]

LAG = 400  # a cancel goes this many orders after its place: the place has long been answered
OPEN_CONNECTIONS = 64  # enough that 5,000/s at a few ms each never waits for a socket but for the exchange
CLOSED_CONNECTIONS = 16
PRICE = Decimal(90_000)  # a bid well under BTC-PERP's market: it rests and never trades
SIZE = Decimal("0.001")
EXPIRY_MS = 3_600_000


@dataclass
class Row:
    """One line of the table: latencies in microseconds by kind, and what was offered and achieved."""

    label: str
    offered: float | None  # orders (places and cancels) a second; None: as fast as answered
    achieved: float = 0.0
    place: list[float] = field(default_factory=list)
    cancel: list[float] = field(default_factory=list)
    refused: int = 0


def _quantile(sorted_values: list[float], q: float) -> float:
    """Nearest rank: the smallest value with at least ``q`` of the values at or below it."""
    if not sorted_values:
        return math.nan
    return sorted_values[min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))]


def _cells(values: list[float]) -> str:
    ordered = sorted(values)
    figures = (_quantile(ordered, 0.5), _quantile(ordered, 0.99), _quantile(ordered, 0.999), ordered[-1])
    return "".join(f"{v:>11,.0f}" for v in figures) if ordered else f"{'-':>11}" * 4


def print_table(rows: list[Row]) -> None:
    out = sys.stdout
    out.write("\nexchange latency, place and cancel, in us: over HTTP from the scheduled send to the answer,\n")
    out.write("in process from call to return; offered and achieved count places and cancels (all signed in advance)\n")
    head = f"{'':<44}{'offered/s':>10}{'achieved/s':>11} |"
    out.write(f"{head}{'place':>11}{'':>33} |{'cancel':>11}\n")
    quantiles = "".join(f"{q:>11}" for q in ("p50", "p99", "p99.9", "worst"))
    out.write(f"{'':<44}{'':>10}{'':>11} |{quantiles} |{quantiles}  refused\n")
    for row in rows:
        offered = f"{row.offered:,.0f}" if row.offered is not None else "most"
        line = f"{row.label:<44}{offered:>10}{row.achieved:>11,.0f} |{_cells(row.place)} |{_cells(row.cancel)}"
        out.write(f"{line}  {row.refused}\n")
    out.flush()


# ---- the requests, signed before any clock starts ------------------------------------------------------


def signed_stream(pairs: int, *, testnet: bool = True) -> tuple[str, bytes, list[tuple[str, bytes]]]:
    """A fresh account's address, its funding action (a cancelAll) and ``pairs`` places, each followed ``LAG``
    orders later by the cancel of its cloid (the last ``LAG`` stay)."""
    import msgspec

    from tui.api import wire
    from tui.api.signing import Signer

    signer = Signer.generate()
    now = int(time.time() * 1000)
    nonce = iter(range(now, now + 4 * pairs + 10))

    def body(name: str, fields: dict[str, Any]) -> bytes:
        data = wire.action_data(name, {**fields, "expiresAfter": now + EXPIRY_MS}, next(nonce))
        signature = signer.sign_action(data, wire.tx_type(name, "sdk"), testnet=testnet)
        return msgspec.json.encode(wire.build_body(name, data, signature, "sdk"))

    funding = body("cancelAll", {})  # the lowest nonce: the exchange keeps a signer's newest 10,000 in order
    stream: list[tuple[str, bytes]] = []
    for i in range(pairs):
        item = wire.order_item(1, "b", PRICE, SIZE, cloid=f"bench-{i}")
        stream.append(("place", body("placeOrder", {"orders": [item]})))
        if i >= LAG:
            cancel = {"cancels": [{"cloid": f"bench-{i - LAG}", "instrumentId": 1}]}
            stream.append(("cancel", body("cancelByCloid", cancel)))
    return signer.address, funding, stream


def _taken(kind: str, answer: bytes) -> bool:
    return (b'"error":""' in answer) if kind == "place" else (b'"success":true' in answer)


# ---- over loopback HTTP ------------------------------------------------------------------------------


async def _http_row(url: str, label: str, offered: float | None, pairs: int, connections: int) -> Row:
    """Send a signed stream at ``offered`` orders a second on schedule (None: each as soon as a socket is free)."""
    _, funding, stream = signed_stream(pairs)
    row = Row(label, offered)
    sockets = [await _Http.open(url) for _ in range(connections)]
    await sockets[0].post(b"/exchange", funding)
    queue: asyncio.Queue[tuple[float | None, str, bytes] | None] = asyncio.Queue()
    clock = time.perf_counter

    async def produce(start: float) -> None:
        if offered is None:
            for kind, body in stream:
                queue.put_nowait((None, kind, body))
        else:
            j = 0
            while j < len(stream):
                now = clock()
                while j < len(stream) and (due := start + j / offered) <= now:  # all that are due, late or not
                    queue.put_nowait((due, *stream[j]))
                    j += 1
                if j < len(stream):
                    await asyncio.sleep(max(0.0, start + j / offered - clock()))
        for _ in sockets:
            queue.put_nowait(None)

    async def send(http: _Http) -> None:
        while (item := await queue.get()) is not None:
            due, kind, body = item
            sent = clock()
            answer = await http.post(b"/exchange", body)
            took_us = (clock() - (due if due is not None else sent)) * 1e6
            (row.place if kind == "place" else row.cancel).append(took_us)
            row.refused += not _taken(kind, answer)

    start = clock()
    try:
        await asyncio.gather(produce(start), *(send(h) for h in sockets))
    finally:
        for h in sockets:
            h.close()
    row.achieved = len(stream) / (clock() - start)
    return row


# ---- in process, no HTTP -----------------------------------------------------------------------------


def _timed(row: Row, stream: list[tuple[str, Any]], apply: Callable[[str, Any], bool]) -> Row:
    """Apply ``stream`` back to back under the collector's setting of the exchange's process (``GC_THRESHOLD``),
    the prepared requests kept out of its collections."""
    import gc

    from tui.sim.engine import GC_THRESHOLD

    saved = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLD)
    gc.collect()
    gc.freeze()
    clock = time.perf_counter_ns
    try:
        start = clock()
        for kind, what in stream:
            t = clock()
            ok = apply(kind, what)
            (row.place if kind == "place" else row.cancel).append((clock() - t) / 1000)
            row.refused += not ok
        row.achieved = len(stream) / ((clock() - start) / 1e9)
    finally:
        gc.set_threshold(*saved)
        gc.unfreeze()
    return row


def _signed_in_process_row(pairs: int) -> Row:
    from tui.sim.server.actions import Rejected, parse_body
    from tui.sim.server.local_exchange import LocalExchange, SimConfig

    sim = LocalExchange(SimConfig(seed=1, market=False))
    _, funding, stream = signed_stream(pairs)
    sim.actions.apply(parse_body(funding))

    def apply(kind: str, body: bytes) -> bool:
        try:
            envelope = sim.actions.apply(parse_body(body))
        except Rejected:
            return False
        sim.dispatch.flush()
        return envelope.get("error") == "" or envelope.get("success") is True

    return _timed(Row("in process: parse, recover signer, apply", None), list(stream), apply)


def _engine_row(pairs: int) -> Row:
    from tui.sim.clock import FrozenClock
    from tui.sim.engine import Rejected
    from tui.sim.engine.exchange import Exchange
    from tui.sim.engine.requests import OrderRequest

    ex = Exchange(clock=FrozenClock())
    account = "0x" + "42" * 20
    ex.deposit(account, 1, Decimal(10) ** 9)
    stream: list[tuple[str, Any]] = []
    for i in range(pairs):
        stream.append(("place", OrderRequest(1, True, PRICE, SIZE, cloid=f"bench-{i}")))
        if i >= LAG:
            stream.append(("cancel", [(f"bench-{i - LAG}", 1)]))

    def apply(kind: str, what: Any) -> bool:
        try:
            if kind == "place":
                ex.place_order(account, what)
            else:
                ex.cancel_by_cloid(account, what)
        except Rejected:
            return False
        return True

    return _timed(Row("engine alone: place_order, cancel_by_cloid", None), stream, apply)


async def latency_table(seconds: float, closed_pairs: int, engine_pairs: int) -> list[Row]:
    """Measure every row (each open-loop rate for about ``seconds``) and print the table."""
    rows: list[Row] = []
    proc, url = await sim_process()
    try:
        for rate in (1_000, 5_000):
            pairs = max(LAG + 10, int(rate * seconds / 2))  # a pair is two orders: a place and a cancel
            label = f"HTTP loopback, open loop, {rate // 1000}k/s"
            rows.append(await _http_row(url, label, rate, pairs, OPEN_CONNECTIONS))
        label = f"HTTP loopback, closed loop ({CLOSED_CONNECTIONS} conns)"
        rows.append(await _http_row(url, label, None, closed_pairs, CLOSED_CONNECTIONS))
    finally:
        proc.terminate()
        await proc.wait()
    rows.append(_signed_in_process_row(closed_pairs))
    rows.append(_engine_row(engine_pairs))
    print_table(rows)
    return rows

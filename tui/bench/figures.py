"""``xtui bench``: the performance figures the issues ask for, measured here and printed.

Each figure is printed as ``name: value unit (target)``. Nothing here asserts: the figures are read by
people, and tests never time anything.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from tui.bench.sim_load import sim_process


def _report(name: str, value: float, unit: str, target: str = "") -> None:
    tail = f"  (target {target})" if target else ""
    sys.stdout.write(f"{name:<48} {value:>12,.1f} {unit}{tail}\n")
    sys.stdout.flush()


def _median_us(fn: Callable[[], Any], n: int) -> float:
    samples = []
    for _ in range(n):
        t = time.perf_counter_ns()
        fn()
        samples.append(time.perf_counter_ns() - t)
    return statistics.median(samples) / 1000


def bench_signing(n: int) -> None:
    from tui.api import wire
    from tui.api.signing import Signer, recover_signer

    signer = Signer("0x" + "11" * 32)
    orders = [wire.order_item(1, "b", "65000.5", "0.01", cloid="bench")]
    data = wire.action_data("placeOrder", {"orders": orders, "expiresAfter": 1_700_000_060_000}, 1_700_000_000_000)
    sig = signer.sign_action(data, 1301)
    signer.sign_action(data, 1301)
    _report("sign placeOrder (median)", _median_us(lambda: signer.sign_action(data, 1301), n), "us", "<= 40 us")
    _report("recover signer (median)", _median_us(lambda: recover_signer(data, 1301, sig), n), "us", "<= 80 us")


def book_frame(levels: int = 200) -> bytes:
    import msgspec

    def side(start: float, step: float) -> list[dict[str, str]]:
        return [{"price": f"{start + i * step:.1f}", "size": f"{0.001 * (i + 1):.3f}"} for i in range(levels // 2)]

    book = {
        "instrument_name": "BTC-PERP",
        "bids": side(64999.9, -0.1),
        "asks": side(65000.1, 0.1),
        "sequence_number": 123456,
        "timestamp": 1_767_225_600_000,
    }
    return msgspec.json.encode(book)


def bench_decode(n: int) -> None:
    from tui.api.models import ORDERBOOK_DECODER

    frame = book_frame(200)
    ORDERBOOK_DECODER.decode(frame)
    t = time.perf_counter()
    for _ in range(n):
        ORDERBOOK_DECODER.decode(frame)
    _report("decode 200-level order book", n / (time.perf_counter() - t), "frames/s")


async def _rate(n: int, call: Callable[[], Awaitable[Any]], concurrency: int = 8) -> float:
    async def worker(k: int) -> None:
        for _ in range(k):
            await call()

    t = time.perf_counter()
    await asyncio.gather(*(worker(n // concurrency) for _ in range(concurrency)))
    return (n // concurrency * concurrency) / (time.perf_counter() - t)


async def _raw_exchange_load(url: str, bodies: list[bytes], connections: int) -> float:
    """Send pre-signed /exchange bodies over ``connections`` keep-alive sockets; orders per second.

    A lean HTTP/1.1 writer, so that the figure is the exchange's and not the client library's.
    """
    host, port = url.split("//", 1)[1].rsplit(":", 1)

    async def worker(share: list[bytes]) -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        for body in share:
            head = b"POST /exchange HTTP/1.1\r\nHost: sim\r\nContent-Type: application/json\r\n"
            writer.write(head + b"Content-Length: %d\r\n\r\n" % len(body) + body)
            await writer.drain()
            headers = await reader.readuntil(b"\r\n\r\n")
            length = next(
                int(h.split(b":")[1]) for h in headers.split(b"\r\n") if h.lower().startswith(b"content-length")
            )
            answer = await reader.readexactly(length)
            if b'"error":""' not in answer:
                raise RuntimeError(f"order refused during the benchmark: {answer[:200]!r}")
        writer.close()

    t = time.perf_counter()
    await asyncio.gather(*(worker(bodies[i::connections]) for i in range(connections)))
    return len(bodies) / (time.perf_counter() - t)


async def bench_server(n: int, table_seconds: float) -> None:
    import msgspec

    from tui.api import wire
    from tui.api.client import Client
    from tui.api.limits import Governor
    from tui.api.signing import Signer
    from tui.bench.latency_table import latency_table

    big = 10**9
    proc, url = await sim_process()
    try:
        governor = Governor(info_per_minute=big, info_per_hour=big, exchange_per_minute=big)
        signer = Signer.generate()
        async with Client(url, signer=signer, governor=governor, testnet=True) as c:  # `xtui sim` plays testnet
            await c.ticker("BTC-PERP")
            rate = await _rate(n, lambda: c.ticker("BTC-PERP"))
            _report("/info round trips, xtui client (8 in flight)", rate, "calls/s")
            await c.cancel_all()  # the first signed action funds the account

            def order() -> Awaitable[Any]:
                return c.place_order([wire.order_item(1, "b", "90000", "0.001")])

            client_rate = await _rate(n, order)
            _report("signed placeOrder, xtui client (8 in flight)", client_rate, "orders/s")
            item = [wire.order_item(1, "b", "90000", "0.001")]
            bodies = [msgspec.json.encode(c.sign("placeOrder", {"orders": item})) for _ in range(n * 2)]
        rate = await _raw_exchange_load(url, bodies, 8)
        _report("signed placeOrder round trips, loopback (8 conns)", rate, "orders/s", ">= 1,000/s")
        # the lean writer sends bodies signed in advance: what is left to the client is its own cost
        _report("  xtui client as a share of the lean writer", client_rate / rate * 100, "%", ">= 60%")
    finally:
        proc.terminate()
        await proc.wait()
    await latency_table(table_seconds, closed_pairs=n * 10, engine_pairs=n * 50)


FANOUT_WARM_UP = 200  # orders before the timed rounds: a fresh exchange's first ones pay for its caches


async def bench_ws_fanout(n: int, subscribers: int = 50, rounds: int = 3) -> None:
    """Book updates caused by signed orders, counted as delivered to ``subscribers`` sockets: the median of
    ``rounds`` rounds of ``n`` orders, after a warm-up. The readers are lean frame counters
    (``tui.bench.ws_reader``): the figure is the exchange's, not a client library's."""
    import msgspec

    from tui.api import wire
    from tui.api.client import Client
    from tui.api.signing import Signer
    from tui.bench.ws_reader import FrameCounter, subscribe

    async def settled(readers: list[FrameCounter]) -> None:
        """Until no frame has arrived for 50 ms (what the last orders caused is in), then counts from zero."""
        seen = -1
        while seen != (seen := sum(r.frames for r in readers)):
            await asyncio.sleep(0.05)
        for r in readers:
            r.frames = 0

    proc, url = await sim_process()
    readers: list[FrameCounter] = []
    try:
        async with Client(url, signer=Signer.generate(), testnet=True) as c:
            item = [wire.order_item(1, "b", "90000", "0.001")]

            def signed(k: int) -> list[bytes]:
                return [msgspec.json.encode(c.sign("placeOrder", {"orders": item})) for _ in range(k)]

            host, port = url.split("//", 1)[1].rsplit(":", 1)
            sub = '{"jsonrpc":"2.0","method":"subscribe","id":"1","params":{"channel":"orderbook","symbol":"BTC-PERP"}}'
            readers = [await subscribe(host, int(port), "/ws/", sub) for _ in range(subscribers)]
            await _raw_exchange_load(url, signed(FANOUT_WARM_UP), 8)
            rates = []
            for _ in range(rounds):
                await c.exchange("cancelAll", {})  # the book starts each round the same, the margin free
                bodies = signed(n)
                await settled(readers)
                t = time.perf_counter()
                await _raw_exchange_load(url, bodies, 8)
                expected = n * subscribers
                deadline = time.perf_counter() + 30
                while sum(r.frames for r in readers) < expected and time.perf_counter() < deadline:
                    await asyncio.sleep(0.002)
                rates.append(sum(r.frames for r in readers) / (time.perf_counter() - t))
        _report(
            f"WS fan-out to {subscribers} subscribers (median of {rounds})",
            statistics.median(rates),
            "msgs/s",
            ">= 150,000/s",
        )
        if rounds > 1:
            _report(f"  slowest of {rounds} rounds of {n:,} orders", min(rates), "msgs/s")
            _report(f"  fastest of {rounds} rounds of {n:,} orders", max(rates), "msgs/s")
    finally:
        for r in readers:
            if r.transport is not None:
                r.transport.close()
        proc.terminate()
        await proc.wait()


def bench_engine(n: int) -> None:
    try:
        from tui.bench.engine import bench_engine as run
    except ImportError:
        return
    _report("matching engine, simple limit orders", run(n), "orders/s", ">= 100,000/s")


def bench_feed_handlers(n: int) -> None:
    from tui.bench.feed import bench_feed

    _report("feed: book + trade messages absorbed (headless)", bench_feed(n), "msgs/s", ">= 5,000/s")


def bench_startup(runs: int) -> None:
    from tui.bench.dashboard import startup_seconds
    from tui.bench.floor import floor_to_first_frame
    from tui.bench.terminal import start_to_full_frame

    real: list[float] = []
    floor: list[float] = []
    with tempfile.TemporaryDirectory(prefix="xtui-bench-cache-") as cache:
        for _ in range(runs):  # taken in turns, so that both meet the machine as it is
            real.append(start_to_full_frame(cache=Path(cache)) * 1000)
            floor.append(floor_to_first_frame() * 1000)
    xtui, least = statistics.median(real), statistics.median(floor)
    _report(f"start to first full frame, xtui in a pty (median of {runs})", xtui, "ms", "<= 1.25x the floor")
    _report("  the floor: a minimal Textual app's first frame", least, "ms")
    _report("  xtui over the floor", xtui / least, "x", "<= 1.25")
    # the first start since the sources were compiled, as after an install: nothing of xtui's in the OS's caches yet
    _report("  the first of them", real[0], "ms", "<= 500 ms")
    marks = startup_seconds(runs)

    def median_ms(key: str) -> float:
        return statistics.median(m[key] for m in marks) * 1000

    _report("  headless probe: until the local exchange serves", median_ms("exchange"), "ms")
    _report("  headless probe: until the feed is ready", median_ms("feed_ready"), "ms")
    _report("  headless probe: first full frame", median_ms("frame"), "ms")


def bench_order_ack(repeats: int) -> None:
    from tui.bench.dashboard import order_ack_ms

    ack = order_ack_ms(repeats)
    _report(f"Enter to order acknowledged (median of {ack['n']})", ack["median"], "ms", "<= 10 ms")
    _report("Enter to order acknowledged (p90)", ack["p90"], "ms")


def bench_feed_under_keys(presses: int) -> None:
    from tui.bench.dashboard import KEY_TARGET_MS, feed_under_keys

    result = feed_under_keys(presses)
    best = result["best"]
    name = f"feed + UI: msgs/s with a key answered <= {KEY_TARGET_MS:.0f} ms"
    _report(name, best["achieved"] if best else 0.0, "msgs/s", ">= 5,000/s")
    if best:
        _report("  key to frame at that rate (median)", best["median"], "ms", "<= 50 ms")
    for stage in result["stages"]:
        rate = f"at {stage['rate']:,} msgs/s" if stage["rate"] else "with no feed load"
        behind = "" if stage["kept_pace"] else f"  (the feed fell behind: {stage['achieved']:,.0f} msgs/s)"
        _report(f"  key to frame {rate} (median)", stage["median"], "ms" + behind)
    _report("help screen: key to frame, no feed load (median)", result["help"]["median"], "ms")


def bench_tick_to_screen(seconds: float, rates: Sequence[int] = (100, 1_000, 5_000)) -> None:
    from tui.bench.dashboard import tick_to_screen

    for stage in tick_to_screen(seconds, rates)["stages"]:
        rate = f"{stage['rate']:,} msgs/s"
        target = "<= 35 ms" if stage["rate"] == 1_000 else ""
        _report(f"tick to screen at {rate}: p50", stage["p50"], "ms", target)
        _report(f"tick to screen at {rate}: p99", stage["p99"], "ms", "<= 80 ms" if target else "")


async def bench_dashboard_cpu(seconds: float) -> None:
    from tui.bench.dashboard import BOOK_HZ, dashboard_cpu

    proc, url = await sim_process()
    try:
        cpu = await dashboard_cpu(url, seconds)
    finally:
        proc.terminate()
        await proc.wait()
    _report("dashboard CPU, idle", cpu["idle"], "% of a core", "<= 15%")
    _report(f"dashboard CPU, book changing {BOOK_HZ}x a second", cpu["loaded"], "% of a core", "<= 15%")
    _report("  book updates the dashboard received", cpu["book_updates_per_s"], "/s")


def bench_terminal(seconds: float) -> None:
    """The default run (``xtui``, built-in exchange) in a real pty at 160x48: bytes to the terminal a second,
    per pane, and CPU of the whole process; then with a position and a resting order (the chart's lines drawn);
    then the default run with --low-bandwidth; then each view over the dashboard (the heatmap, the ladder, three
    markets side by side), by default and with --low-bandwidth: every one within the same budget."""
    from tui.bench.terminal import measure_default_run

    runs = (
        ("", (), False),
        (" with a position and an order", (), True),
        (" --low-bandwidth", ("--low-bandwidth",), False),
    )
    for label, args, trade in runs:
        cost = measure_default_run(seconds, (160, 48), extra_args=args, trade=trade)
        goal = "<= 3,000 B/s" if args else "<= 6,000 B/s"
        _report(f"terminal bytes, default run{label}", cost.bytes_per_s, "B/s", goal)
        for pane, n in cost.by_pane.most_common():
            _report(f"  of which {pane}", n / cost.seconds, "B/s")
        _report(f"CPU of the whole process, default run{label}", cost.cpu_pct, "% of a core", "<= 12%")
        _report(f"resident memory, default run{label}: the dashboard", cost.rss_mb, "MB")
        _report("  and its built-in exchange", cost.exchange_rss_mb, "MB")
    bench_views(seconds)


def bench_views(seconds: float) -> None:
    """Bytes to the terminal a second at 160x48 with each view shown over the dashboard: the heatmap (h), the
    price ladder (D), and a layout of three markets side by side (Y); by default and with --low-bandwidth."""
    from tui.bench.terminal import measure_default_run, side_by_side_layouts

    with tempfile.TemporaryDirectory(prefix="xtui-bench-layouts-") as folder:
        layouts = side_by_side_layouts(Path(folder, "layouts.json"))
        views = (("the heatmap shown (h)", "h", None), ("the ladder shown (D)", "D", None),
                 ("3 markets side by side (Y)", "", layouts))  # fmt: skip
        for label, keys, file in views:
            for args in ((), ("--low-bandwidth",)):
                cost = measure_default_run(seconds, (160, 48), extra_args=args, keys=keys, layouts=file)
                said = " --low-bandwidth" if args else ""
                goal = "<= 3,000 B/s" if args else "<= 6,000 B/s"
                _report(f"terminal bytes, {label}{said}", cost.bytes_per_s, "B/s", goal)
                _report(f"  CPU of the whole process, {label}{said}", cost.cpu_pct, "% of a core")


def bench_slow_link(seconds: float) -> None:
    """The default run behind a slow link (``tui.bench.slow_link``): 256 kbit/s and 100 ms, then 64 kbit/s and
    100 ms with --low-bandwidth; key to visible at the far end, the link's backlog, bytes a second."""
    from tui.bench.slow_link import measure_slow_link

    for kbit, args in ((256.0, ()), (64.0, ("--low-bandwidth",))):
        run = measure_slow_link(seconds, kbit, 100.0, extra_args=args)
        link = f"{kbit:g} kbit/s + 100 ms" + (" --low-bandwidth" if args else "")
        _report(f"over {link}: key to visible, p50", run.p(50), "ms", "<= 140 ms")
        _report(f"over {link}: key to visible, p99", run.p(99), "ms")
        _report("  of which in xtui (p50)", run.p(50, run.out_ms), "ms")
        first, last = run.backlog_trend()
        _report("  link backlog, first fifth of the run", first, "B")
        _report("  link backlog, last fifth of the run", last, "B", "flat")
        _report("  bytes over the link", run.bytes_per_s, "B/s")


async def bench_sim_load(warm_s: float, soak_s: float) -> None:
    """The local exchange under load (50 subscribers, 200 orders/s sent through ``tui.api``'s client): /info latency,
    its memory over a soak, and the orders lost to the transport; then the subscribers alone, to compare."""
    from tui.bench.sim_load import ORDERS_PER_S, SUBSCRIBERS, measure

    f = await measure(warm_s, soak_s)
    load = f"{SUBSCRIBERS} subscribers + {ORDERS_PER_S} orders/s"
    _report(f"/info p50 under load ({load})", f.p50_ms, "ms")
    _report(f"/info p99 under load ({load})", f.p99_ms, "ms", "<= 100 ms")
    _report("  /info slowest", f.max_ms, "ms")
    _report("  /info calls timed", f.probes, "")
    _report("  orders the exchange answered", f.orders_per_s, "/s")
    _report("  of which refused", f.refused, "")
    _report("  orders lost to a transport error", f.transport_errors, "", "0")
    for said in f.errors_said:
        sys.stdout.write(f"    {said}\n")
    _report("  frames delivered to the subscribers", f.frames_per_s, "/s")
    _report("  subscribers dropped", f.dropped, "")
    _report("exchange memory at start", f.rss_start_mb, "MB")
    _report(f"exchange memory after {warm_s:.0f} s warm-up", f.rss_warm_mb, "MB")
    _report(f"exchange memory after {soak_s:.0f} s soak", f.rss_end_mb, "MB", "flat after warm-up")
    _report("  exchange memory peak", f.rss_peak_mb, "MB")
    quiet = await measure(warm_s, soak_s, rate=0)
    alone = f"{SUBSCRIBERS} subscribers, no orders"
    _report(f"/info p50 ({alone})", quiet.p50_ms, "ms")
    _report(f"/info p99 ({alone})", quiet.p99_ms, "ms")
    _report("  frames delivered to the subscribers", quiet.frames_per_s, "/s")
    _report("  subscribers dropped", quiet.dropped, "")
    _report(f"exchange memory after {soak_s:.0f} s ({alone})", quiet.rss_end_mb, "MB")


def _groups(scale: int, quick: bool) -> dict[str, Callable[[], object]]:
    """Each group of figures by the name ``xtui bench --only`` takes, in the order a full run prints them."""
    return {
        "signing": lambda: bench_signing(2_000 * scale),
        "decode": lambda: bench_decode(500 * scale),
        "engine": lambda: bench_engine(20_000 * scale),
        "feed": lambda: bench_feed_handlers(5_000 * scale),
        "server": lambda: asyncio.run(bench_server(300 * scale, 2.0 if quick else 10.0)),
        "fanout": lambda: asyncio.run(bench_ws_fanout(200 * scale, rounds=1 if quick else 3)),
        "startup": lambda: bench_startup(1 if quick else 7),  # it varies by ±60 ms run to run: a median of 7
        "ack": lambda: bench_order_ack(5 if quick else 20),
        "keys": lambda: bench_feed_under_keys(6 if quick else 15),
        "tick": lambda: bench_tick_to_screen(3.0 if quick else 10.0),
        "cpu": lambda: asyncio.run(bench_dashboard_cpu(4.0 if quick else 10.0)),
        "terminal": lambda: bench_terminal(10.0 if quick else 30.0),
        "ssh": lambda: bench_slow_link(10.0 if quick else 60.0),
        # the warm-up fills the exchange's history to its caps (~100 s at 200 orders/s); memory is flat after it
        "load": lambda: asyncio.run(bench_sim_load(5.0, 10.0) if quick else bench_sim_load(120.0, 300.0)),
        "render": lambda: _render(5.0 if quick else 20.0, 1 if quick else 5),
    }


def _render(seconds: float, starts: int) -> None:
    from tui.bench.render_patches import bench_render_patches

    bench_render_patches(seconds, starts)


def run_bench(quick: bool = False, only: Sequence[str] = ()) -> int:
    """Print the figures: every group, or those named in ``only`` (``tui.bench.GROUPS``)."""
    groups = _groups(1 if quick else 10, quick)
    sys.stdout.write("xtui bench (" + ("quick" if quick else "full") + ")\n")
    for name, run in groups.items():
        if not only or name in only:
            run()
    return 0

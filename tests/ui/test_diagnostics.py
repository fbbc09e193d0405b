"""The diagnostics figures: rates from counts over the time between samples, the bytes the terminal receives
(UTF-8, as written), frame times; and the depth chart's curve."""

from __future__ import annotations

from decimal import Decimal as D

from tui.api.limits import Budget, GovernorStatus
from tui.ui.diagnostics import Diagnostics, FrameMeter, FrameStats, Probes, ProcessUsage, TerminalBytes
from tui.ui.render.lean_output import compress_sgr
from tui.ui.widgets.depth_chart import depth_curve

RATE = GovernorStatus(Budget(10, 5000), Budget(10, 200_000), Budget(0, 20_000), 0.0, None)


class Readings:
    """Probes whose values a test sets: what a counter would hold at each moment."""

    def __init__(self) -> None:
        self.now = 0.0
        self.frames = FrameStats(0, 0.0, 0.0)
        self.written: int | None = 0
        self.cpu_s = 0.0
        self.messages: dict[str, int] = {}

    def probes(self) -> Probes:
        return Probes(
            messages=lambda: self.messages,
            rate=lambda: RATE,
            frames=lambda: self.frames,
            written=lambda: self.written,
            process=lambda: ProcessUsage(self.cpu_s, 64 * 1_048_576),
            clock=lambda: self.now,
        )


def test_rates_are_counts_over_the_time_between_samples() -> None:
    r = Readings()
    diag = Diagnostics(r.probes())
    r.now, r.cpu_s, r.written = 2.0, 0.1, 20_000
    r.frames = FrameStats(20, 0.1, 0.012)
    r.messages = {"orderbook": 40, "ticker": 10}
    f = diag.sample()
    assert f is not None and f.window_s == 2.0
    assert (f.frames_per_s, f.frame_ms, f.worst_frame_ms) == (10.0, 5.0, 12.0)
    assert (f.bytes_per_s, round(f.cpu_pct, 6), f.rss_bytes) == (10_000.0, 5.0, 64 * 1_048_576)
    assert f.messages_per_s == {"orderbook": 20.0, "ticker": 5.0} and f.total_messages_per_s == 25.0
    r.now = 2.3  # too soon: the same figures
    r.messages = {"orderbook": 100}
    assert diag.sample() is f
    r.now, r.messages, r.frames = 3.0, {"orderbook": 41, "ticker": 10, "trades": 3}, FrameStats(20, 0.1, 0.0)
    g = diag.sample()
    assert g is not None and g.messages_per_s == {"orderbook": 1.0, "trades": 3.0, "ticker": 0.0}
    assert g.frame_ms is None and g.frames_per_s == 0.0  # no frame in that second


def test_bytes_are_not_counted_without_a_terminal() -> None:
    r = Readings()
    r.written = None
    diag = Diagnostics(r.probes())
    r.now = 1.0
    f = diag.sample()
    assert f is not None and f.bytes_per_s is None
    counter = TerminalBytes()
    assert counter.read() is None  # no driver attached: headless


def test_terminal_bytes_count_utf8_as_written() -> None:
    frame = "\x1b[1;1H\x1b[38;2;46;189;133m╭─ Book ─╮\x1b[0m\x1b[38;2;46;189;133m 99,990.0 ▲ █▏\x1b[0m"
    written = compress_sgr(frame)
    counter = TerminalBytes()
    counter.attached = True
    counter.add(written)
    counter.add("plain ascii")
    assert counter.read() == len(written.encode()) + len("plain ascii")
    assert len(written.encode()) > len(written)  # box drawing and blocks are three bytes each


def test_frame_meter_keeps_the_worst_until_taken() -> None:
    now = [0.0]
    meter = FrameMeter(clock=lambda: now[0])
    for took in (0.004, 0.020, 0.006):
        started = meter.begin()
        now[0] += took
        meter.end(started)
    first = meter.take()
    assert (first.count, round(first.total_s, 6), first.worst_s) == (3, 0.03, 0.020)
    assert meter.take().worst_s == 0.0


def test_depth_curve_spans_both_sides_around_the_mid() -> None:
    bids = [(D(99), D(1)), (D(98), D(2)), (D(96), D(4))]
    asks = [(D(101), D("0.5")), (D(103), D(3))]
    curve = depth_curve(bids, asks, 10)  # made odd: 9 columns, the mid in the middle
    assert curve is not None and len(curve.prices) == 9 and curve.mid == D(100) and curve.mid_column == 4
    assert (curve.low, curve.high) == (D(96), D(104)) and curve.sides[4] == ""
    assert curve.prices[0] == D(96) and curve.sizes[0] == D(7)  # the deepest bid: every bid
    assert curve.sizes[3] == D(1)  # 99 and above
    assert curve.prices[5] == D(101) and curve.sizes[5:] == (D("0.5"), D("0.5"), D("3.5"), D("3.5"))
    bid_side = curve.sizes[:4]
    assert list(bid_side) == sorted(bid_side, reverse=True)  # cumulative: growing away from the mid
    assert depth_curve([], asks, 10) is None and depth_curve(bids, asks, 2) is None

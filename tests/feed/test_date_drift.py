"""Before the first stamp, the clock's drift is read from an HTTP ``Date`` header, in whole seconds: a clock in
step with the exchange must never read as a second off (that is the warning's threshold). Only fresh answers
count: one that took longer than ``FRESH_S``, or a stamp read late, measures nothing."""

from __future__ import annotations

from email.utils import formatdate

import pytest

from tui.feed.drift import FRESH_S, DriftMeter
from tui.feed.state import FeedStatus
from tui.ui.widgets.status_bar import drift_warning

SECOND = 1_767_225_600  # a whole second; the Date header names it, however far into it the answer was sent
DATE = formatdate(SECOND, usegmt=True)


def meter(status: FeedStatus, wall: float, now: float = 100.0) -> DriftMeter:
    return DriftMeter(status, wall=lambda: wall, clock=lambda: now, changed=lambda: None)


@pytest.mark.parametrize("into_the_second", [0.0, 0.2, 0.5, 0.9, 0.999])
def test_a_clock_in_step_is_not_taken_for_one_a_second_off(into_the_second: float) -> None:
    status = FeedStatus()
    meter(status, SECOND + into_the_second + 0.004).dated(DATE, sent_s=100.0)  # arrived 4 ms after it was dated
    drift = status.clock_drift_ms
    assert drift is not None and abs(drift) <= 504, drift
    assert drift_warning(drift) is None


def test_a_clock_two_seconds_off_still_reads_so() -> None:
    status = FeedStatus()
    meter(status, SECOND + 2.3).dated(DATE, sent_s=100.0)
    assert drift_warning(status.clock_drift_ms) == "this clock is 1.8s ahead of the exchange's"


def test_a_slow_answer_and_a_late_stamp_measure_nothing() -> None:
    status = FeedStatus()
    m = meter(status, SECOND + 2.3, now=100.0)
    m.dated(DATE, sent_s=100.0 - FRESH_S - 0.1)  # its Date is as old as the wait
    assert status.clock_drift_ms is None
    m.stamped(SECOND * 1000 + 2_300, sent_s=100.0 - FRESH_S - 0.1)
    assert status.clock_drift_ms is None
    m.stamped(SECOND * 1000 + 2_296)  # a frame, read 4 ms after it was stamped
    assert status.clock_drift_ms == -4
    m.stamped(SECOND * 1000 + 1_100)  # a frame read 1.2 s late (the loop held): no measure of the clocks
    assert status.clock_drift_ms == -4
    m.dated(DATE, sent_s=100.0)  # a Date, coarser than what is known, changes nothing
    assert status.clock_drift_ms == -4

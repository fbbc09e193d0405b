"""Before the first book frame, the clock's drift is read from an HTTP ``Date`` header, in whole seconds: a
clock in step with the exchange must never read as a second off (that is the warning's threshold)."""

from __future__ import annotations

from email.utils import formatdate

import pytest

from tui.api.client import Client
from tui.feed.worker import Feed
from tui.ui.widgets.status_bar import drift_warning

SECOND = 1_767_225_600  # a whole second; the Date header names it, however far into it the answer was sent


@pytest.mark.parametrize("into_the_second", [0.0, 0.2, 0.5, 0.9, 0.999])
async def test_a_clock_in_step_is_not_taken_for_one_a_second_off(into_the_second: float) -> None:
    wall = SECOND + into_the_second + 0.004  # the answer arrived 4 ms after it was dated
    client = Client("http://127.0.0.1:9")
    try:
        feed = Feed(client, "ws://127.0.0.1:9/ws/", account=None, wall_clock=lambda: wall)
        client.last_server_date = formatdate(SECOND, usegmt=True)
        feed._refresh_status()
        drift = feed.state.status.clock_drift_ms
        assert drift is not None and abs(drift) <= 504, drift
        assert drift_warning(drift) is None
    finally:
        await client.aclose()


async def test_a_clock_two_seconds_off_still_reads_so() -> None:
    client = Client("http://127.0.0.1:9")
    try:
        feed = Feed(client, "ws://127.0.0.1:9/ws/", account=None, wall_clock=lambda: SECOND + 2.3)
        client.last_server_date = formatdate(SECOND, usegmt=True)
        feed._refresh_status()
        assert drift_warning(feed.state.status.clock_drift_ms) == "this clock is 1.8s ahead of the exchange's"
    finally:
        await client.aclose()

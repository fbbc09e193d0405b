"""The HTTP ``Date`` header, read without the email package (it cost the dashboard ~0.3 MB for one header): the
three forms RFC 9110 has a recipient read, checked against the standard library's own writer, and hostile
headers, which read as no date rather than as a wrong one."""

from __future__ import annotations

import random
import time
from email.utils import formatdate

import pytest

from tui.api.server_time import date_ms, http_date_s

INSTANT = 784_111_777  # RFC 9110's example: Sun, 06 Nov 1994 08:49:37 GMT


@pytest.mark.parametrize(
    "header",
    [
        "Sun, 06 Nov 1994 08:49:37 GMT",  # IMF-fixdate, the form to send
        "Sunday, 06-Nov-94 08:49:37 GMT",  # obsolete RFC 850
        "Sun Nov  6 08:49:37 1994",  # obsolete asctime
        "sun, 06 nov 1994 08:49:37 gmt",  # names in any case
        "  Sun, 06 Nov 1994 08:49:37 GMT \r",  # whitespace around
        "06 Nov 1994 08:49:37 GMT",  # no weekday
        "Sun, 06 Nov 1994 09:49:37 +0100",  # a numeric zone, as email's parser read it
        "Sun, 06 Nov 1994 08:49:37 -0000",
    ],
)
def test_every_form_rfc_9110_reads_names_the_same_second(header: str) -> None:
    assert http_date_s(header) == INSTANT
    assert date_ms(header) == INSTANT * 1000 + 500  # the middle of the whole second it names


def test_every_second_the_standard_library_writes_reads_back() -> None:
    """20,000 random seconds from 1970 to 2100, in both forms ``email.utils.formatdate`` writes."""
    rng = random.Random(7)
    for _ in range(20_000):
        second = rng.randint(0, 4_102_444_800)
        assert http_date_s(formatdate(second, usegmt=True)) == second
        assert http_date_s(formatdate(second)) == second


def test_a_two_digit_year_is_the_latest_not_more_than_50_years_ahead() -> None:
    this_year = time.gmtime().tm_year

    def year_of(yy: int) -> int:
        return time.gmtime(http_date_s(f"Monday, 01-Jan-{yy:02d} 00:00:00 GMT")).tm_year

    assert year_of(this_year % 100) == this_year
    assert year_of((this_year + 50) % 100) == this_year + 50
    assert year_of((this_year + 51) % 100) == this_year + 51 - 100


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "yesterday",
        "Mon, 30 Feb 2026 00:00:00 GMT",  # no such day
        "Mon, 31 Apr 2026 00:00:00 GMT",
        "Mon, 01 Jan 2026 25:00:00 GMT",  # no such hour
        "Mon, 01 Jan 2026 00:60:00 GMT",
        "Mon, 01 Jan 2026 00:00:60 GMT",  # a leap second: no Unix second names it
        "Mon, 01 Foo 2026 00:00:00 GMT",  # no such month
        "Mon, 01 Jan 0000 00:00:00 GMT",  # no year 0
        "Mon, 01 Jan 20260 00:00:00 GMT",
        "Mon, 01 Jan 2026 00:00:00 EST",  # a zone by name, other than GMT: ambiguous, so not read
        "Mon, 01 Jan 2026 00:00:00 GMT trailing",
        "Mon, ٠١ Jan ٢٠٢٦ ٠٠:٠٠:٠٠ GMT",  # digits of another script
        "Mon, 01 Jan 2026 00:00:00 GMT" + " " * 10_000 + "x",  # a huge header
        "Mon, 01 Jan 2026\x0000:00:00 GMT",
        "1767225600",  # a timestamp is not a date
    ],
)
def test_a_hostile_header_reads_as_no_date(header: str | None) -> None:
    assert http_date_s(header) is None
    assert date_ms(header) is None

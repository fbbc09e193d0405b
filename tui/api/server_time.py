"""The exchange's clock as this machine reckons it, for nonces and ``expiresAfter`` (protocol-notes 2.3).

Nonces and expiry times are the exchange's milliseconds: a local clock 70 s behind would sign actions
that expired before they were sent. ``ServerClock`` adds the measured offset to the local clock.

Every observation of the exchange's time (a frame's timestamp, a pong's, /info's) is a little old when
it is read, so ``stamp - local now`` is a lower bound of the offset: the clock takes the largest bound
seen in the last ``window_s`` seconds (the freshest sample wins, a delayed frame never drags it back).
An HTTP ``Date`` header (whole seconds) is used only while nothing finer has been seen; a refused
action that names the exchange's time resets the estimate outright.
"""

from __future__ import annotations

import collections
import re
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime

from .refusals import RefusalKind, classify

__all__ = [
    "NonceManager",
    "ServerClock",
    "date_ms",
    "exchange_time_in",
    "http_date_s",
    "is_expiry_refusal",
    "skew_words",
]

WINDOW_S = 30.0  # how long a sample of the exchange's time counts
_EXCHANGE_TIME = re.compile(r"(?:exchange|server|current)(?:'s)? time\D{0,12}(\d{12,14})", re.IGNORECASE)


class ServerClock:
    """``now_ms()``: the local clock (``local_ms``) plus the measured offset to the exchange's clock.

    ``monotonic`` ages the samples (inject it in tests). Until a sample arrives the offset is 0.
    """

    def __init__(
        self,
        local_ms: Callable[[], int],
        *,
        window_s: float = WINDOW_S,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.local_ms = local_ms
        self._window_s = window_s
        self._monotonic = monotonic
        self._samples: collections.deque[tuple[float, int]] = collections.deque()  # (when, lower bound)
        self._coarse: int | None = None  # from an HTTP Date header

    @property
    def offset_ms(self) -> int | None:
        """Exchange time minus local time, as last measured (None: never measured)."""
        self._expire()
        return self._samples[0][1] if self._samples else self._coarse

    def now_ms(self) -> int:
        """The exchange's time now, in Unix milliseconds, as far as this machine can tell."""
        return self.local_ms() + (self.offset_ms or 0)

    def observe(self, exchange_ms: int) -> None:
        """The exchange stamped something ``exchange_ms`` (a frame, a pong, an /info answer) and it is read now."""
        bound = exchange_ms - self.local_ms()
        samples = self._samples
        while samples and samples[-1][1] <= bound:  # older and no larger: never the largest again
            samples.pop()
        samples.append((self._monotonic(), bound))  # so the bounds fall from left to right, the largest first
        self._expire()

    def observe_date(self, header: str | None) -> None:
        """An HTTP ``Date`` header: whole seconds, so only used while nothing finer has been seen."""
        stamp = date_ms(header)
        if stamp is not None:
            self._coarse = stamp - self.local_ms()

    def reset(self, exchange_ms: int) -> None:
        """The exchange said its time (a refusal naming it): forget every earlier sample."""
        self._samples.clear()
        self.observe(exchange_ms)

    def _expire(self) -> None:
        oldest = self._monotonic() - self._window_s
        while self._samples and self._samples[0][0] < oldest:
            self._samples.popleft()


def date_ms(header: str | None) -> int | None:
    """The time an HTTP ``Date`` header names, in ms: the middle of its whole second (None: unreadable)."""
    seconds = http_date_s(header)
    return None if seconds is None else seconds * 1000 + 500


_MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTHS = {name: number for number, name in enumerate(_MONTH_NAMES, start=1)}
_WEEKDAY = r"(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*"
# RFC 9110 5.6.7: IMF-fixdate, then the two obsolete forms a recipient must still read (rfc850, asctime). A zone
# other than GMT is read too (email's "+0100"), as the parser this replaces did.
_IMF_FIXDATE = re.compile(
    rf"(?:{_WEEKDAY},\s*)?(\d{{1,2}})\s+([a-z]{{3}})\s+(\d{{4}})\s+(\d\d):(\d\d):(\d\d)\s*(gmt|utc|ut|z|[+-]\d{{4}})?",
    re.ASCII,
)
_RFC850 = re.compile(rf"{_WEEKDAY},\s*(\d\d)-([a-z]{{3}})-(\d\d)\s+(\d\d):(\d\d):(\d\d)\s+gmt", re.ASCII)
_ASCTIME = re.compile(rf"{_WEEKDAY}\s+([a-z]{{3}})\s+(\d{{1,2}})\s+(\d\d):(\d\d):(\d\d)\s+(\d{{4}})", re.ASCII)


def http_date_s(header: str | None) -> int | None:
    """The whole second (Unix time) an HTTP date names, in any of the three forms RFC 9110 has a recipient read;
    None when it is not one, or names no real moment (30 February, 25:00)."""
    text = (header or "").strip().lower()
    if len(text) > 64:
        return None
    zone = "gmt"
    if m := _IMF_FIXDATE.fullmatch(text):
        day, mon, year, hh, mm, ss, zone = m.groups()
        zone = zone or "gmt"
    elif m := _RFC850.fullmatch(text):
        day, mon, yy, hh, mm, ss = m.groups()
        year = str(_full_year(int(yy)))
    elif m := _ASCTIME.fullmatch(text):
        mon, day, hh, mm, ss, year = m.groups()
    else:
        return None
    if mon not in _MONTHS:
        return None
    try:
        moment = datetime(int(year), _MONTHS[mon], int(day), int(hh), int(mm), int(ss), tzinfo=UTC)
    except ValueError:
        return None
    offset = 0 if zone[0] not in "+-" else (int(zone[1:3]) * 60 + int(zone[3:])) * (1 if zone[0] == "+" else -1)
    return int(moment.timestamp()) - offset * 60


def _full_year(yy: int) -> int:
    """An rfc850 date's two-digit year: the latest year ending in those digits that is at most 50 years ahead (RFC
    9110)."""
    this_year = time.gmtime().tm_year
    year = this_year - this_year % 100 + yy
    return year - 100 if year > this_year + 50 else year


def is_expiry_refusal(message: str) -> bool:
    """Whether an exchange's refusal is about time: an expired action, a nonce out of its window (``classify``'s
    ``EXPIRED``; an agent that expired is ``AGENT``, not this machine's clock)."""
    return classify(message) is RefusalKind.EXPIRED


def exchange_time_in(message: str) -> int | None:
    """The exchange's time in ms when a refusal names it ("... before the exchange time 1767225600000")."""
    m = _EXCHANGE_TIME.search(message)
    return int(m.group(1)) if m else None


def skew_words(offset_ms: int) -> str:
    """How far the local clock is from the exchange's, in words: "your clock is 70 s behind the exchange's"."""
    seconds = round(abs(offset_ms) / 1000)
    if seconds < 1:
        return "your clock agrees with the exchange's to within a second"
    way = "behind" if offset_ms > 0 else "ahead of"
    return f"your clock is {seconds:,} s{_roughly(seconds)} {way} the exchange's"


def _roughly(seconds: int) -> str:
    """A long skew in bigger units too: " (about 3 h)"."""
    for unit, size in (("days", 86_400), ("h", 3_600), ("min", 60)):
        if seconds >= 2 * size:
            return f" (about {seconds // size} {unit})"
    return ""


class NonceManager:
    """Nonces are the time in ms, strictly increasing within the process even under concurrent calls."""

    def __init__(self, clock_ms: Callable[[], int] | None = None) -> None:
        self._clock_ms = clock_ms or (lambda: time.time_ns() // 1_000_000)
        self._last = 0
        self._lock = threading.Lock()

    def next(self) -> int:
        """The next nonce: the clock's ms, or one more than the last when the clock has not moved on."""
        with self._lock:
            nonce = max(self._clock_ms(), self._last + 1)
            self._last = nonce
            return nonce

"""Paper trading on a real market: the local exchange's index and mark follow another exchange (the source).

``Mirror.open(url)`` reads the source's instruments, tokens and tickers over its public /info (no key:
the client it uses has no signer, so it cannot even build an /exchange request), and ``poll()`` reads
its tickers again (every instrument's index and mark), with each instrument's new trades and book (``tape``:
what the queue model fills resting orders by). The mirror's
makers (``market``) quote around those prices, so the user's orders match a local book, with
fake money, at the real market's prices.

When a poll fails (connection refused, no answer in time, an error or a nonsense answer) the mirror is
``stale``: it says so (a log line, and the ``X-Xtui-Mirror`` header of every answer: ``tui.api.paper``),
its prices stay where the source last was, and the makers pull their quotes, so nothing trades at a
price nobody vouches for. The next good poll makes it ``live`` again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

from tui.api import models as m
from tui.api.client import Client
from tui.api.endpoints import check_base_url
from tui.api.errors import ClientError
from tui.api.paper import MirrorState, PaperStatus

from .config import POLL_MS, MirrorError, SourceMarkets, SourcePrice, SourceUnusable, prices_of, source_markets
from .past import Minutes, read_past
from .sanity import DEFAULT_MAX_MOVE_PCT, Sanity
from .tape import SourceAnswer, SourceTape, TapeTrade, read_answer

if TYPE_CHECKING:
    from ..engine import Exchange

__all__ = ["POLL_MS", "Mirror", "MirrorError", "source_url"]

log = logging.getLogger(__name__)

TIMEOUT_S = 3.0  # a poll without an answer in this time fails: the mirror is stale
OPEN_TIMEOUT_S = 7.0  # reading the source's instruments, tokens, tickers and past at start: with the process's
# own start, a source that does not answer is said within 10 s
_ENDPOINTS = ("info", "exchange", "explorer", "ws")


def source_url(text: str) -> str:
    """The source's base URL, checked as any base URL is (``check_base_url``) and not an endpoint's own path."""
    text = check_base_url(text)
    last = urlsplit(text).path.rsplit("/", 1)[-1]
    if last in _ENDPOINTS:
        raise ValueError(f"{text[:80]!r}: give the base URL, without /{last}")
    return text


class AnswerLog(Protocol):
    """Where a mirror's source and trades are written as they come (``record.Recorder``, for ``--record``): named
    here by what the mirror and the exchange ask of it, so that the recorder may read the mirror."""

    def answer(self, t: int, answer: SourceAnswer) -> None: ...

    def failure(self, t: int, reason: str) -> None: ...

    def trades(self, engine: Exchange) -> None: ...

    def close(self, t: int) -> None: ...


@dataclass(frozen=True, slots=True)
class SourceOpening:
    """The source's answers read at start, as they came: what a recording keeps to list the same markets again."""

    instruments: m.Instruments
    collaterals: list[m.Collateral]
    tickers: list[m.Ticker]


class Mirror:
    """The source's prices as last read, and whether the source answers. Times are the exchange's clock (ms)."""

    def __init__(
        self,
        url: str,
        markets: SourceMarkets,
        client: Client | None,
        now_ms: Callable[[], int],
        *,
        poll_ms: int = POLL_MS,
        timeout_s: float = TIMEOUT_S,
        past: dict[tuple[int, str], Minutes] | None = None,
        max_move_pct: Decimal = DEFAULT_MAX_MOVE_PCT,
        fills: str = "queue",
        opening: SourceOpening | None = None,
    ) -> None:
        self.url = url
        self.markets = markets
        self.past = past or {}  # the source's last minutes by (instrument id, chart type): the charts' past
        self.prices: dict[str, SourcePrice] = dict(markets.prices)
        self.version = 1  # +1 per poll that brought prices
        self.state: MirrorState = "live"
        self.reason = ""
        self.poll_ms = poll_ms
        self.timeout_s = timeout_s
        self._client = client
        self._now_ms = now_ms
        self.last_ok_ms = now_ms()
        self.sanity = Sanity(max_move_pct)  # which instruments the source's answers make sense for (``stale``)
        self.fills = fills  # "queue" or "optimistic": how resting orders fill (``queue``)
        self.tape = SourceTape()  # the source's books as last read, and its trades already seen
        self.trades: list[TapeTrade] = []  # the source's trades since the market last took them
        self.opening = opening
        self.recorder: AnswerLog | None = None  # ``--record``: every answer and failure goes to a file too

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        seed: int,
        now_ms: Callable[[], int],
        poll_ms: int = POLL_MS,
        timeout_s: float = TIMEOUT_S,
        max_move_pct: Decimal = DEFAULT_MAX_MOVE_PCT,
        fills: str = "queue",
    ) -> Mirror:
        """Read the source's instruments, tokens and prices; ``MirrorError`` naming the source if it cannot."""
        client = Client(url, timeout=timeout_s)
        try:
            async with asyncio.timeout(OPEN_TIMEOUT_S):
                instruments, collaterals, tickers = await asyncio.gather(
                    client.instruments(), client.supported_collateral(), client.ticker()
                )
                markets = source_markets(instruments, collaterals, tickers, seed)
                ids = [p.id for p in markets.config.perps] + [s.id for s in markets.config.spots]
                past = await read_past(client, ids, now_ms())
        except Exception as exc:  # whatever an outside server does wrong, it is said in words and stops the start
            await client.aclose()
            raise MirrorError(f"cannot mirror {url}: {_reason(exc)}") from None
        except BaseException:
            await client.aclose()
            raise
        mirror = cls(
            url,
            markets,
            client,
            now_ms,
            poll_ms=poll_ms,
            timeout_s=timeout_s,
            past=past,
            max_move_pct=max_move_pct,
            fills=fills,
            opening=SourceOpening(instruments, collaterals, tickers),
        )
        names = ", ".join(sorted(markets.prices))
        log.info("mirror: following %s: %s", url, names)
        for line in markets.skipped:
            log.info("mirror: not listed: %s", line)
        return mirror

    @property
    def live(self) -> bool:
        return self.state == "live"

    async def poll(self) -> bool:
        """Read the source's tickers, trades and books once; True if they came. A failure makes the mirror stale
        (said once)."""
        if self._client is None:
            raise TypeError("a mirror without a client is fed its answers (``apply``)")
        try:
            async with asyncio.timeout(self.timeout_s * 2):  # the client's own timeout, with room
                answer = await read_answer(self._client, self.tape.depth_names(self.prices, self.poll_ms))
        except Exception as exc:  # refused, silent, an error, nonsense: the source cannot be followed now
            return self.failed(_reason(exc))
        if self.recorder is not None:  # the trades already seen are left out: a poll's line stays small
            self.recorder.answer(self._now_ms(), self.tape.unseen(answer))
        return self.apply(answer)

    def catch_up(self, now_ms: int) -> None:
        """Apply what came by ``now_ms``: a live mirror applies each poll as it comes, so nothing (``replay``)."""

    def failed(self, reason: str) -> bool:
        """A poll that failed for ``reason``: the mirror is stale. False."""
        if self.recorder is not None:
            self.recorder.failure(self._now_ms(), reason)
        self._stale(reason)
        return False

    def apply(self, answer: SourceAnswer) -> bool:
        """Follow one answer of the source: its prices (as sanity allows), trades and books; True if it priced."""
        tickers = answer.tickers
        fresh = {name: p for name, p in prices_of(tickers).items() if name in self.prices}
        if not fresh:
            self._stale("its ticker priced none of the mirrored instruments")
            return False
        was = dict(self.sanity.stale)
        followed = self.sanity.check(self.prices, fresh, {t.symbol for t in tickers})
        self._say_instruments(was)
        self.prices.update(followed)
        self.trades += self.tape.take(answer, self._now_ms())
        self.version += 1
        self.last_ok_ms = self._now_ms()
        if self.state != "live":
            log.warning("mirror: source %s answers again: prices follow it", self.url)
        self.state, self.reason = "live", ""
        return True

    @property
    def stale(self) -> dict[str, str]:
        """The instruments whose price is held (the source's answer for them makes no sense), with why."""
        return self.sanity.stale

    def _say_instruments(self, was: dict[str, str]) -> None:
        for name, why in self.sanity.stale.items():
            if was.get(name) is None:
                log.warning("mirror: %s stale (%s): its price held, its quotes pulled", name, why)
        for name in was.keys() - self.sanity.stale.keys():
            log.warning("mirror: %s follows the source again", name)

    def _stale(self, reason: str) -> None:
        if self.state != "stale" or reason != self.reason:
            log.warning("mirror: source %s unreachable (%s): prices frozen, quotes pulled", self.url, reason)
        self.state, self.reason = "stale", reason

    def status(self) -> PaperStatus:
        stale = self.sanity.stale
        reason = self.reason or "; ".join(f"{name}: {why}" for name, why in stale.items())
        return PaperStatus(self.state, self.url, self._now_ms() - self.last_ok_ms, reason, tuple(stale))

    async def close(self) -> None:
        if self.recorder is not None:
            self.recorder.close(self._now_ms())
        if self._client is not None:
            await self._client.aclose()


def _reason(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    text = str(exc) or type(exc).__name__
    if not isinstance(exc, ClientError | SourceUnusable):  # a nonsense answer: say that, then what was wrong
        text = f"unexpected answer: {text}"
    return text[:160]

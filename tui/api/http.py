"""Async HTTP client for /exchange, /info and /explorer on keep-alive connections (``tui.api.h1``; httpx's own
client only through a proxy or a transport given, ``tui.api.httpx_path``).

Raw calls (``info``, ``explorer``, ``exchange``) return parsed JSON; the typed methods in
``tui.api.client`` decode it into ``tui.api.models`` records. Every failure is a ``tui.api.errors`` type.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Self

import msgspec

from . import wire
from .errors import (
    AccountMismatch,
    ActionExpired,
    ActionRejected,
    ApiError,
    Banned,
    ConnectionFailed,
    NoSigningKey,
    RateLimited,
    RequestTimeout,
    TransportError,
    agent_refusal,
)
from .faucet import FAUCET_HEADER, FaucetAnswer, FaucetMode, parse_faucet
from .h1 import LeanTransport, prepare_post
from .h1_answer import Answer, Prepared
from .h1_errors import ConnectError, WireError, WireTimeout
from .in_flight import InFlight
from .limits import Governor
from .network import HEADER, mismatch_warning, network_of, parse_network
from .paper import PAPER_HEADER, PaperStatus, parse_paper
from .reach import proxy_in_environment
from .server_time import ServerClock, date_ms, exchange_time_in, is_expiry_refusal, skew_words
from .signing import Signer

if TYPE_CHECKING:
    import httpx

    from .httpx_path import HttpxWay

__all__ = ["DEFAULT_EXPIRY_MS", "HttpClient", "NonceManager"]

DEFAULT_EXPIRY_MS = 60_000
_KEEPALIVE_S = 30.0  # an idle connection is kept this long
_KEPT_IDLE = 8  # and at most this many of them
_READS = frozenset({"info", "explorer"})  # endpoints that only read: sent again if a kept connection drops them
log = logging.getLogger(__name__)
_json_decode = msgspec.json.Decoder(float_hook=Decimal).decode  # numbers stay exact


class _ErrorProbe(msgspec.Struct):
    type: Any = None
    message: Any = None
    error: Any = None
    code: Any = None


_probe = msgspec.json.Decoder(_ErrorProbe).decode
_json_encode = msgspec.json.Encoder().encode
_BAN_SECONDS = re.compile(r"(\d+(?:\.\d+)?)\s*(?:s\b|sec|second)", re.IGNORECASE)
_ANY_NUMBER = re.compile(r"(\d+(?:\.\d+)?)")
_RATE_HEADER = re.compile(r"ratelimit|used-weight", re.IGNORECASE)
_HEADERS = {"Content-Type": "application/json", "Accept-Encoding": "gzip, deflate"}
_AGENT = "xtui"  # what the lean transport says it is (httpx's own client says python-httpx)


class NonceManager:
    """Nonces are the time in ms, strictly increasing within the process even under concurrent calls."""

    def __init__(self, clock_ms: Callable[[], int] | None = None) -> None:
        self._clock_ms = clock_ms or (lambda: time.time_ns() // 1_000_000)
        self._last = 0
        self._lock = threading.Lock()

    def next(self) -> int:
        with self._lock:
            nonce = max(self._clock_ms(), self._last + 1)
            self._last = nonce
            return nonce


def _ban_seconds(message: str, headers: Mapping[str, str]) -> float:
    m = _BAN_SECONDS.search(message) or _ANY_NUMBER.search(message)
    if m:
        return float(m.group(1))
    retry = headers.get("retry-after", "")
    try:
        return float(retry)
    except ValueError:
        return 300.0  # the first ban step of the interface


def _retry_after(headers: Mapping[str, str]) -> float:
    try:
        return max(0.0, float(headers.get("retry-after", "1")))
    except ValueError:
        return 1.0


class HttpClient:
    """One connection pool to an exchange. Use as ``async with HttpClient(url) as c: ...``.

    ``signer`` signs actions (None for a watch-only client). ``testnet`` selects the signing source
    ("Testnet" vs "Mainnet"). ``dialect`` is ``"sdk"`` (what the exchange's SDKs send) or ``"seed"`` (the
    interface's names). ``account`` is the account actions are meant for (an agent's owner); by default
    the signer's own address. Every /exchange envelope's ``address`` is checked against it.

    Nonces and ``expiresAfter`` are on the exchange's clock: ``server_clock`` adds the offset measured
    against ``clock_ms`` (the local clock) by whoever sees the exchange's time (the feed, or a refusal).

    ``server_network`` is what the exchange says it plays (``X-Hotstuff-Network``), None until it says;
    ``on_network_mismatch`` is called with a warning whenever that starts to differ from what this
    client signs for. ``paper`` is what a paper-trading exchange last said of the market it mirrors
    (``X-Xtui-Mirror``, see ``paper``), None for an exchange that is not a mirror.
    """

    def __init__(
        self,
        base_url: str,
        *,
        explorer_url: str | None = None,
        signer: Signer | None = None,
        testnet: bool = False,
        dialect: wire.Dialect = "sdk",
        account: str | None = None,
        expiry_ms: int = DEFAULT_EXPIRY_MS,
        timeout: float = 5.0,
        governor: Governor | None = None,
        clock_ms: Callable[[], int] | None = None,
        transport: httpx.AsyncBaseTransport | LeanTransport | None = None,
    ) -> None:
        if dialect not in wire.DIALECTS:
            raise ValueError(f"dialect must be one of {wire.DIALECTS}, not {dialect!r}")
        self.base_url = base_url.rstrip("/")
        self.explorer_url = (explorer_url or base_url).rstrip("/")
        self.signer = signer
        self.testnet = testnet
        self.dialect: wire.Dialect = dialect
        self.account = account
        self.expiry_ms = expiry_ms
        self.governor = governor or Governor()
        self.server_clock = ServerClock(clock_ms or (lambda: time.time_ns() // 1_000_000))
        self.nonces = NonceManager(self.server_clock.now_ms)
        self.in_flight = InFlight()  # signed actions sent and not yet answered (what an exit logs)
        self.last_server_date: str | None = None
        self.server_network: str | None = None
        self.paper: PaperStatus | None = None  # the exchange is a mirror of another (``paper``): its last word
        self.faucet: FaucetMode | None = None  # the local exchange's faucet (``faucet``); None: no faucet said
        self._heard = asyncio.Event()  # set by the first answer: its headers say whether there is a faucet
        self.rate_limits: dict[str, str] = {}  # the rate-limit headers of the last answer that had any
        self.on_network_mismatch: Callable[[str], None] | None = None
        if transport is None and not proxy_in_environment():
            transport = LeanTransport(max_idle=_KEPT_IDLE, idle_s=_KEEPALIVE_S)
        self._timeout = timeout
        # over the lean transport, each call is written straight through it (``LeanTransport.post``); any other
        # way is httpx's own client
        self._lean: LeanTransport | None = None
        self._httpx: HttpxWay | None = None
        if isinstance(transport, LeanTransport):
            self._lean = transport
        else:
            from .httpx_path import HttpxWay

            self._httpx = HttpxWay(
                timeout=timeout, transport=transport, headers=_HEADERS, max_idle=_KEPT_IDLE, idle_s=_KEEPALIVE_S
            )
        self._prepared: dict[str, Prepared] = {}  # URL -> its request, prepared once

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._lean is not None:
            await self._lean.aclose()
        if self._httpx is not None:
            await self._httpx.aclose()

    # ---- whom and where ----------------------------------------------------------------------------

    @property
    def network(self) -> str:
        """The network this client signs for: "testnet" or "mainnet"."""
        return network_of(self.testnet)

    @property
    def acting_for(self) -> str | None:
        """The account actions are meant for: ``account``, else the signer's address (None: watch-only)."""
        return self.account or (self.signer.address if self.signer else None)

    @property
    def network_mismatch(self) -> str | None:
        """The warning when the exchange said it plays another network than this client signs for.

        None when the exchange has not said, when it agrees, or when this client signs nothing.
        """
        if self.signer is None:
            return None
        return mismatch_warning(self.server_network, self.testnet)

    def _observe_network(self, headers: Mapping[str, str]) -> None:
        said = parse_network(headers.get(HEADER))
        if said is None or said == self.server_network:
            return
        self.server_network = said
        warning = self.network_mismatch
        if warning is not None:
            log.warning("%s (%s)", warning, self.base_url)
            if self.on_network_mismatch is not None:
                self.on_network_mismatch(warning)

    # ---- transport -------------------------------------------------------------------------------

    async def send(self, endpoint: str, body: Any) -> bytes:
        """POST ``body`` to ``/endpoint`` under the governor; the raw JSON of a successful answer, or raise."""
        await self.governor.acquire(endpoint)
        base = self.explorer_url if endpoint == "explorer" else self.base_url
        try:
            url = f"{base}/{endpoint}"
            resp: httpx.Response | Answer
            if self._lean is not None:
                prepared = self._prepared.get(url) or self._prepare(url)
                resp = await self._lean.post(prepared, _json_encode(body), a_read=endpoint in _READS)
            else:
                assert self._httpx is not None
                resp = await self._httpx.post(url, _json_encode(body))
        except WireTimeout as exc:
            raise RequestTimeout(f"{endpoint}: no answer from {base} in time") from exc
        except ConnectError as exc:
            raise ConnectionFailed(f"{endpoint}: cannot connect to {base}") from exc
        except WireError as exc:
            raise TransportError(f"{endpoint}: {type(exc).__name__}: {exc}") from exc
        self.governor.observe(endpoint, resp.headers)
        limits = {k.lower(): v for k, v in resp.headers.items() if _RATE_HEADER.search(k)}
        if limits:
            self.rate_limits = limits
        self.last_server_date = resp.headers.get("date")
        self._observe_network(resp.headers)
        self.paper = parse_paper(resp.headers.get(PAPER_HEADER))
        self.faucet = parse_faucet(resp.headers.get(FAUCET_HEADER))
        self._heard.set()
        self._check(endpoint, resp)
        return resp.content

    def _prepare(self, url: str) -> Prepared:
        prepared = self._prepared[url] = prepare_post(url, _HEADERS, self._timeout, _AGENT)
        return prepared

    async def post(self, endpoint: str, body: Any) -> Any:
        """``send``, parsed: JSON numbers with a fraction come back as ``Decimal``, exactly."""
        content = await self.send(endpoint, body)
        try:
            return _json_decode(content)
        except msgspec.DecodeError:
            raise ApiError(200, f"{endpoint}: the answer is not valid JSON") from None

    def _check(self, endpoint: str, resp: httpx.Response | Answer) -> None:
        content = resp.content
        probe = _ErrorProbe()
        if content[:1] == b"{":
            try:
                probe = _probe(content)
            except msgspec.DecodeError:
                if resp.is_success:
                    raise ApiError(resp.status_code, f"{endpoint}: the answer is not valid JSON") from None
        message = str(probe.message or probe.error or "") if resp.status_code >= 400 or probe.type == "error" else ""
        if resp.status_code == 429:
            retry = _retry_after(resp.headers)
            self.governor.rate_limited(retry)
            raise RateLimited(message or "rate limit exceeded", retry)
        if resp.status_code == 418:
            seconds = _ban_seconds(message, resp.headers)
            self.governor.banned(seconds)
            raise Banned(message or f"banned for {seconds:.0f} s", seconds)
        if probe.type == "error":
            raise ApiError(resp.status_code, message or "error")
        if not resp.is_success:
            raise ApiError(resp.status_code, message or resp.text[:200] or resp.reason_phrase)
        ctype = resp.headers.get("content-type") or ""
        if "json" not in ctype:
            raise ApiError(resp.status_code, f"{endpoint}: the answer is {ctype or 'untyped'}, not JSON")

    # ---- raw calls -------------------------------------------------------------------------------

    async def info(self, method: str, **params: Any) -> Any:
        """Call /info ``method``; parameters that are None are left out."""
        return await self.post("info", {"method": method, "params": _clean(params)})

    async def explorer(self, method: str, **params: Any) -> Any:
        """Call /explorer ``method``; parameters that are None are left out."""
        return await self.post("explorer", {"method": method, "params": _clean(params)})

    async def heard(self) -> None:
        """Return once the exchange has answered once (any answer, an error included): its headers were read."""
        await self._heard.wait()

    async def request_funds(self, address: str, amount: Decimal | None = None, *, once: bool = False) -> FaucetAnswer:
        """Fund ``address`` through the local exchange's faucet (``faucet``); ``once``: only if it never funded it.
        ``ApiError`` when the exchange refuses, or has no faucet (the real one has none)."""
        body: dict[str, Any] = {"address": address}
        if amount is not None:
            body["amount"] = str(amount)
        if once:
            body["once"] = True
        try:
            content = await self.send("faucet", body)
        except ApiError as exc:
            if self.faucet is None and not isinstance(exc, RateLimited | Banned):
                raise ApiError(
                    exc.status, f"the exchange at {self.base_url} has no faucet (only xtui sim has one)"
                ) from None
            raise
        try:
            return msgspec.json.decode(content, type=FaucetAnswer)
        except msgspec.DecodeError as exc:
            raise ApiError(200, f"faucet: the answer is not a faucet's ({exc})") from None

    def sign(
        self, name: str, fields: dict[str, Any], *, signer: Signer | None = None, nonce: int | None = None
    ) -> dict[str, Any]:
        """Build and sign the /exchange body of action ``name`` (nonce and expiresAfter filled in)."""
        signer = signer or self.signer
        if signer is None:
            raise NoSigningKey
        nonce = self.nonces.next() if nonce is None else nonce
        if name in wire.EXPIRING and fields.get("expiresAfter") is None:
            fields = {**fields, "expiresAfter": nonce + self.expiry_ms}
        data = wire.action_data(name, fields, nonce)
        signature = signer.sign_action(data, wire.tx_type(name, self.dialect), testnet=self.testnet)
        return wire.build_body(name, data, signature, self.dialect)

    async def exchange(self, name: str, fields: dict[str, Any], *, signer: Signer | None = None) -> dict[str, Any]:
        """Sign and send action ``name``; return the envelope, or raise ``ActionRejected``/``AccountMismatch``.

        Signed by another ``signer`` than the client's, the action is meant for that signer's own account.
        Refused as expired because this machine's clock is off, it is signed again once on the exchange's
        clock as the refusal told it (nothing was applied); ``ActionExpired`` if it is refused again.
        """
        other = signer.address if signer is not None and signer is not self.signer else None
        try:
            return await self.submit(self.sign(name, fields, signer=signer), account=other)
        except ActionExpired as exc:
            if fields.get("expiresAfter") is not None or exc.offset_ms is None or abs(exc.offset_ms) < 1000:
                raise  # the caller's own expiry, or the clock is not the cause: signing again would not help
            log.warning("%s; signing %s again on the exchange's clock", exc, name)
            return await self.submit(self.sign(name, fields, signer=signer), account=other)

    async def submit(self, body: dict[str, Any], *, account: str | None = None) -> dict[str, Any]:
        """Send a signed /exchange body; return the envelope.

        Raises ``ActionRejected`` when the exchange refused it, and ``AccountMismatch`` when it applied it
        to another account than ``account`` (default: ``acting_for``). Open in ``in_flight`` until answered.
        """
        entry = self.in_flight.sent(body, _action_name(body))
        try:
            envelope = await self._submit(body, account)
        except AccountMismatch as exc:
            entry.answered(exc.envelope)
            raise
        except (ApiError, ConnectionFailed) as exc:  # refused, or never reached the exchange; a 5xx may have applied
            if isinstance(exc, ApiError) and exc.status >= 500:
                entry.lost(str(exc))
            else:
                entry.refused(str(exc))
            raise
        except BaseException as exc:  # a timeout, a dropped connection, a cancelled send: applied or not, unknown
            entry.lost(str(exc) or type(exc).__name__)
            raise
        finally:
            self.in_flight.closed(entry)
        entry.answered(envelope)
        return envelope

    async def _submit(self, body: dict[str, Any], account: str | None) -> dict[str, Any]:
        try:
            envelope = await self.post("exchange", body)
        except ApiError as exc:
            refused_agent = agent_refusal(exc.message, {})  # "agent ... expired" is not this machine's clock
            if refused_agent is not None:
                raise refused_agent from None
            if is_expiry_refusal(exc.message):
                raise self._expired(exc.message, {}) from None
            raise
        if not isinstance(envelope, dict):
            raise ApiError(200, "exchange: the answer is not an envelope object")
        error = envelope.get("error")
        if error or envelope.get("success") is False:
            message = str(error or "the exchange reported success=false")
            refused_agent = agent_refusal(message, envelope)  # "agent ... expired" is not this machine's clock
            if refused_agent is not None:
                raise refused_agent
            if is_expiry_refusal(message):
                raise self._expired(message, envelope)
            raise ActionRejected(message, envelope)
        self._check_account(body, envelope, account or self.acting_for)
        return envelope

    def _expired(self, said: str, envelope: dict[str, Any]) -> ActionExpired:
        """An expiry refusal, with the clock set by what it tells of the exchange's time: the time the
        message names, else the answer's ``Date`` header, else what was measured before."""
        clock = self.server_clock
        told = exchange_time_in(said)
        if told is None:
            told = date_ms(self.last_server_date)
        if told is not None:
            clock.reset(told)
        offset = clock.offset_ms
        words = skew_words(offset) if offset is not None else "the exchange did not say its time"
        log.warning("action refused as expired: %s (%s)", said, words)
        return ActionExpired(said, envelope, offset, words)

    def _check_account(self, body: dict[str, Any], envelope: dict[str, Any], expected: str | None) -> None:
        """Raise ``AccountMismatch`` when the envelope names another account than ``expected`` (compared
        case-insensitively). An empty address says no account was found: nothing to compare."""
        applied = str(envelope.get("address") or "")
        if not applied or expected is None or applied.lower() == expected.lower():
            return
        action = body.get("action")
        name = str(action.get("type", "action")) if isinstance(action, dict) else "action"
        spec = wire.resolve_action(name)
        said = f"; the exchange says it plays {self.server_network}" if self.server_network else ""
        signing = f"xtui signed for {self.network} in the {self.dialect} dialect{said}"
        mine = self.signer.address if self.signer is not None else None  # an agent's, when it is not the account's
        agent = mine if mine is not None and expected == self.acting_for and mine.lower() != expected.lower() else None
        error = AccountMismatch(spec.name if spec else name, applied, expected, signing, envelope, agent=agent)
        log.error("%s", error)
        raise error

    async def pages(self, method: str, *, limit: int = 100, **params: Any) -> AsyncIterator[Any]:
        """Every record of a paginated /info method, page after page."""
        page = 1
        while True:
            envelope = await self.info(method, page=page, limit=limit, **params)
            if not isinstance(envelope, dict):
                raise ApiError(200, f"{method}: expected a paginated envelope")
            for record in envelope.get("data") or []:
                yield record
            if not envelope.get("has_next"):
                return
            page += 1


def _action_name(body: dict[str, Any]) -> str:
    action = body.get("action")
    kind = action.get("type", "action") if isinstance(action, dict) else "action"
    spec = wire.resolve_action(str(kind))
    return spec.name if spec else str(kind)


def _clean(params: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if v is not None}

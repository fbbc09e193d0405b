"""The client of the exchange: a method per /exchange action, /info method and /explorer method, over a transport.

>>> async with Client("http://127.0.0.1:8080", signer=Signer(key)) as c:
...     book = await c.orderbook("BTC-PERP")
...     ack = await c.place_order([order_item(1, "b", "65000", "0.01")])

A ``Client`` holds its ``tui.api.transport.Transport``: the lean one (``tui.api.h1``), or httpx's through a proxy
or around an httpx transport given (``tui.api.httpx_path``); every answer is bounded there. What the answers say of
the exchange is ``server`` (``tui.api.server_state.ServerState``), updated in one place as each is read.

Requests follow the ``sdk`` dialect by default (what the exchange's own SDKs send: numeric action types,
cancelByCloid signed as 1312); ``dialect="seed"`` sends the interface's spelling. Raw calls (``info``,
``explorer``, ``exchange``) return parsed JSON; the typed methods return ``tui.api.models`` records. A response that
does not match its record raises ``DecodeError``, a refused action ``ActionRejected``, an action applied to another
account than ``acting_for`` ``AccountMismatch``; every other failure is a ``tui.api.errors`` type.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Self, TypeVar

import msgspec

from . import answers, wire
from . import models as m
from .actions import Actions
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
from .faucet import FaucetAnswer, FaucetMode
from .h1 import LeanTransport
from .h1_errors import AnswerRefused, ConnectError, WireError, WireTimeout
from .in_flight import InFlight
from .limits import Governor
from .network import mismatch_warning, network_of
from .paper import PaperStatus
from .queries import Queries
from .reach import proxy_in_environment
from .server_state import ServerState
from .server_time import NonceManager, ServerClock, date_ms, exchange_time_in, is_expiry_refusal, skew_words
from .signing import Signer
from .transport import Transport

if TYPE_CHECKING:
    import httpx

__all__ = ["DEFAULT_EXPIRY_MS", "Client"]

T = TypeVar("T")
DEFAULT_EXPIRY_MS = 60_000
_KEEPALIVE_S = 30.0  # an idle connection is kept this long
_KEPT_IDLE = 8  # and at most this many of them
log = logging.getLogger(__name__)


class Client(Queries, Actions):
    """One exchange, through one transport. Use as ``async with Client(url) as c: ...``.

    ``signer`` signs actions (None for a watch-only client). ``testnet`` selects the signing source
    ("Testnet" vs "Mainnet"). ``dialect`` is ``"sdk"`` (what the exchange's SDKs send) or ``"seed"`` (the
    interface's names). ``account`` is the account actions are meant for (an agent's owner); by default
    the signer's own address. Every /exchange envelope's ``address`` is checked against it.

    Nonces and ``expiresAfter`` are on the exchange's clock: ``server_clock`` adds the offset measured
    against ``clock_ms`` (the local clock) by whoever sees the exchange's time (the feed, or a refusal).

    ``transport``: a ``Transport``, or an httpx transport (httpx's own client around it); by default the lean one,
    or httpx's when the environment names a proxy. ``on_network_mismatch`` is called with a warning whenever the
    network the exchange says it plays starts to differ from what this client signs for.
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
        transport: Transport | httpx.AsyncBaseTransport | None = None,
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
        self.server = ServerState()  # what the exchange's answers say of it
        self.on_network_mismatch: Callable[[str], None] | None = None
        self._heard = asyncio.Event()  # set by the first answer: its headers say whether there is a faucet
        self._timeout = timeout
        self.transport = _transport(transport, timeout)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the transport and its kept connections."""
        await self.transport.aclose()

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
        return mismatch_warning(self.server.network, self.testnet)

    # ---- what the exchange said of itself (``server``), by the names callers read ---------------------

    @property
    def server_network(self) -> str | None:
        """What the exchange says it plays (``X-Hotstuff-Network``), None until it says."""
        return self.server.network

    @property
    def last_server_date(self) -> str | None:
        """The last answer's ``Date`` header."""
        return self.server.date

    @last_server_date.setter
    def last_server_date(self, value: str | None) -> None:  # tests stand in for an answer with it
        self.server.date = value

    @property
    def rate_limits(self) -> dict[str, str]:
        """The rate-limit headers of the last answer that had any, by lower-case name."""
        return self.server.rate_limits

    @property
    def paper(self) -> PaperStatus | None:
        """What a paper-trading exchange last said of the market it mirrors; None for one that is not a mirror."""
        return self.server.paper

    @property
    def faucet(self) -> FaucetMode | None:
        """The local exchange's faucet (``request_funds``); None: no faucet said."""
        return self.server.faucet

    # ---- the wire --------------------------------------------------------------------------------

    async def send(self, endpoint: str, body: Any) -> bytes:
        """POST ``body`` to ``/endpoint`` under the governor; the raw JSON of a successful answer, or raise."""
        await self.governor.acquire(endpoint)
        base = self.explorer_url if endpoint == "explorer" else self.base_url
        try:
            answer = await self.transport.post(
                f"{base}/{endpoint}", answers.encode(body), endpoint=endpoint, timeout=self._timeout
            )
        except WireTimeout as exc:
            raise RequestTimeout(f"{endpoint}: no answer from {base} in time") from exc
        except ConnectError as exc:
            raise ConnectionFailed(f"{endpoint}: cannot connect to {base}") from exc
        except AnswerRefused as exc:
            raise TransportError(str(exc)) from exc
        except WireError as exc:
            raise TransportError(f"{endpoint}: {type(exc).__name__}: {exc}") from exc
        self._hear(endpoint, answer.headers)
        answers.check(endpoint, answer, self.governor)
        return answer.content

    def _hear(self, endpoint: str, headers: Any) -> None:
        """The one place an answer's headers are taken in: the governor's counts, then ``server``."""
        self.governor.observe(endpoint, headers)
        if self.server.hear(headers):
            warning = self.network_mismatch
            if warning is not None:
                log.warning("%s (%s)", warning, self.base_url)
                if self.on_network_mismatch is not None:
                    self.on_network_mismatch(warning)
        self._heard.set()

    async def post(self, endpoint: str, body: Any) -> Any:
        """``send``, parsed: JSON numbers with a fraction come back as ``Decimal``, exactly."""
        return answers.parse(endpoint, await self.send(endpoint, body))

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

    async def add_agent(
        self, agent: Signer, name: str, valid_until_ms: int, *, for_account: str = ""
    ) -> m.ExchangeResponse[Any]:
        """Approve ``agent`` to trade for this account. The agent key signs ``{signer, nonce}`` first."""
        if self.signer is None:
            raise NoSigningKey
        nonce = self.nonces.next()
        inner = agent.sign_action({"signer": self.signer.address, "nonce": nonce}, 1201, testnet=self.testnet)
        fields = {
            "agentName": name,
            "agent": agent.address,
            "forAccount": for_account,
            "signature": inner,
            "validUntil": valid_until_ms,
        }
        body = self.sign("addAgent", fields, nonce=nonce)
        return m.decode(await self.submit(body), m.ExchangeResponse[Any])


def _action_name(body: dict[str, Any]) -> str:
    action = body.get("action")
    kind = action.get("type", "action") if isinstance(action, dict) else "action"
    spec = wire.resolve_action(str(kind))
    return spec.name if spec else str(kind)


def _clean(params: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if v is not None}


def _transport(given: Transport | httpx.AsyncBaseTransport | None, timeout: float) -> Transport:
    """The transport given; httpx's client around an httpx transport given, or through a proxy; else the lean one."""
    if given is None and not proxy_in_environment():
        return LeanTransport(max_idle=_KEPT_IDLE, idle_s=_KEEPALIVE_S)
    if given is not None and hasattr(given, "post"):
        return given
    from .httpx_path import HttpxTransport

    return HttpxTransport(timeout=timeout, transport=given, max_idle=_KEPT_IDLE, idle_s=_KEEPALIVE_S)

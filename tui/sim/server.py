"""The local exchange as a server: Starlette routes on uvicorn, in process, on a loopback port.

``LocalExchange`` owns the engine, the synthetic market, the rate limiter and the WebSocket hub. Time
moves through ``advance()``: a background task calls it on the wall clock, or a test calls
``step(ms)`` on a ``FrozenClock``, so that blocks, funding, triggers and the market all follow the
clock and nothing in tests waits for real time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import msgspec
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route, WebSocketRoute

from tui.api import wire

from .actions import BadRequest, ParsedAction, Rejected, parse_body, recover_candidates, verify_agent_signature
from .clock import Clock, FrozenClock, SystemClock
from .dispatch import Dispatcher, QueryError
from .ratelimit import Limits, RateLimiter, Verdict
from .ws_hub import Hub

log = logging.getLogger(__name__)
_encode = msgspec.json.Encoder(decimal_format="number").encode
_decode = msgspec.json.Decoder().decode
NONCES_KEPT = 100_000  # per signer; older nonces are forgotten oldest first


@dataclass
class SimConfig:
    host: str = "127.0.0.1"
    port: int = 0
    seed: int = 1
    faucet: Decimal = Decimal(100_000)
    block_ms: int = 500
    market: bool = True  # synthetic makers and takers
    testnet: bool = False  # the signing source the exchange expects first
    limits: Limits = field(default_factory=Limits)


def _json(payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(_encode(payload), status, headers=headers, media_type="application/json")


def _error(message: str, status: int = 400, headers: dict[str, str] | None = None) -> Response:
    return _json({"type": "error", "message": message}, status, headers)


def _limited(verdict: Verdict) -> Response:
    return _json({"code": verdict.status, "message": verdict.message}, verdict.status, verdict.headers)


class _Server(uvicorn.Server):
    """uvicorn without its signal handling: whoever embeds the exchange owns Ctrl-C."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class LocalExchange:
    """The whole interface on loopback. ``await start()`` returns its base URL."""

    def __init__(self, config: SimConfig | None = None, clock: Clock | None = None) -> None:
        self.config = config or SimConfig()
        self.clock: Clock = clock or SystemClock()
        self.dispatch = Dispatcher(
            self.clock, seed=self.config.seed, faucet=self.config.faucet, market=self.config.market
        )
        self.engine = self.dispatch.engine
        self.limiter = RateLimiter(self.clock, self.config.limits)
        self.hub = Hub(
            self.limiter,
            self.dispatch.resolve_symbol,
            self.dispatch.instrument_id,
            self.dispatch.snapshot,
            self.clock.now_ms,
            post=self._ws_post,
        )
        self.dispatch.set_publisher(self.hub.publish, self.hub.wanted)
        self._nonces: dict[str, dict[int, None]] = {}
        self._next_block_ms = self.clock.now_ms() + self.config.block_ms
        self.app = Starlette(
            routes=[
                Route("/exchange", self._exchange, methods=["POST"]),
                Route("/info", self._info, methods=["POST"]),
                Route("/explorer", self._explorer, methods=["POST"]),
                WebSocketRoute("/ws/", self.hub.serve),
                WebSocketRoute("/ws", self.hub.serve),
            ]
        )
        self._server: uvicorn.Server | None = None
        self._tasks: list[asyncio.Task[Any]] = []
        self.url = ""

    # ---- lifecycle ---------------------------------------------------------------------------------

    async def start(self) -> str:
        """Serve on ``config.host:config.port`` (0 = a free port) in the running loop; return the base URL."""
        cfg = uvicorn.Config(
            self.app,
            host=self.config.host,
            port=self.config.port,
            log_level="warning",
            log_config=None,  # no stderr handlers of its own: records reach the xtui log file (tui.logs)
            access_log=False,
            lifespan="off",
            ws_ping_interval=None,
        )
        self._server = _Server(cfg)
        serve = asyncio.create_task(self._server.serve())
        while not self._server.started:
            if serve.done():
                serve.result()  # raises the bind error
                raise OSError("the local exchange stopped while starting")
            await asyncio.sleep(0.005)
        self._tasks.append(serve)
        port = self._server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://{self.config.host}:{port}"
        if not isinstance(self.clock, FrozenClock):
            self._tasks.append(asyncio.create_task(self._run_clock()))
        return self.url

    async def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        for task in self._tasks[1:]:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()

    async def __aenter__(self) -> LocalExchange:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://", 1) + "/ws/"

    async def _run_clock(self) -> None:
        tick_s = min(self.config.block_ms, 100) / 1000
        while True:
            try:
                self.advance()
            except Exception:  # a bug in a periodic job must not stop the exchange
                log.exception("periodic work failed")
            await asyncio.sleep(tick_s)

    def advance(self) -> None:
        """Run what time makes happen up to now: the market, triggers, funding, blocks, pushed events."""
        now = self.clock.now_ms()
        self.dispatch.tick(now)
        while now >= self._next_block_ms:
            self.dispatch.produce_block()
            self._next_block_ms += self.config.block_ms
        self.dispatch.flush()

    def step(self, ms: int) -> None:
        """Tests: move a ``FrozenClock`` on by ``ms`` and run what that time makes happen."""
        if not isinstance(self.clock, FrozenClock):
            raise TypeError("step() needs a FrozenClock")
        self.clock.advance(ms)
        self.advance()

    # ---- HTTP --------------------------------------------------------------------------------------

    @staticmethod
    def _ip(request: Request) -> str:
        return request.client.host if request.client else "?"

    async def _exchange(self, request: Request) -> Response:
        verdict = self.limiter.check_http(self._ip(request), "exchange")
        if not verdict.allowed:
            return _limited(verdict)
        raw = await request.body()
        try:
            envelope = self.apply(parse_body(raw))
        except BadRequest as exc:
            return _error(str(exc), 400, verdict.headers)
        except Rejected as exc:
            envelope = {"tx_hash": "", "tx_type": 0, "error": str(exc), "data": {}, "address": ""}
        self.dispatch.flush()
        return _json(envelope, 200, verdict.headers)

    async def _query(self, request: Request, endpoint: str) -> Response:
        verdict = self.limiter.check_http(self._ip(request), endpoint)
        if not verdict.allowed:
            return _limited(verdict)
        try:
            body = _decode(await request.body())
        except (msgspec.DecodeError, RecursionError) as exc:
            return _error(f"body is not valid JSON: {exc}", 400, verdict.headers)
        try:
            result = self.query(endpoint, body)
        except QueryError as exc:
            return _error(str(exc), 400, verdict.headers)
        return _json(result, 200, verdict.headers)

    async def _info(self, request: Request) -> Response:
        return await self._query(request, "info")

    async def _explorer(self, request: Request) -> Response:
        return await self._query(request, "explorer")

    def query(self, endpoint: str, body: Any) -> Any:
        if not isinstance(body, dict):
            raise QueryError("body: expected an object with method and params")
        method = body.get("method")
        if not isinstance(method, str):
            raise QueryError("method: missing or not a string")
        params = body.get("params")
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise QueryError("params: expected an object")
        params = {k: v for k, v in params.items() if v is not None}  # the PY SDK sends unset fields as null
        if endpoint == "info":
            return self.dispatch.info(method, params)
        return self.dispatch.explorer(method, params)

    async def _ws_post(self, params: dict[str, Any], ip: str) -> Any:
        """``post`` over the socket (protocol-notes 5.2): the same handlers, the same limits."""
        kind, payload = params.get("type"), params.get("payload")
        endpoint = {"action": "exchange", "info": "info", "explorer": "explorer"}.get(str(kind))
        if endpoint is None:
            return {"type": "error", "message": "params.type: must be action, info or explorer"}
        verdict = self.limiter.check_http(ip, endpoint)
        if not verdict.allowed:
            return {"code": verdict.status, "message": verdict.message}
        try:
            if endpoint == "exchange":
                result = self.apply(parse_body(_encode(payload)))
                self.dispatch.flush()
                return result
            return {"data": self.query(endpoint, payload)}
        except (BadRequest, QueryError) as exc:
            return {"type": "error", "message": str(exc)}
        except Rejected as exc:
            return {"tx_hash": "", "tx_type": 0, "error": str(exc), "data": {}, "address": ""}

    # ---- actions -----------------------------------------------------------------------------------

    def apply(self, parsed: ParsedAction) -> dict[str, Any]:
        """Check expiry, signature, authority and nonce, then apply the action. Raises ``Rejected``."""
        now = self.clock.now_ms()
        spec = parsed.spec
        expires = parsed.data.get("expiresAfter")
        if spec.name in wire.EXPIRING and isinstance(expires, int) and expires < now:
            raise Rejected(f"action expired: expiresAfter {expires} is before the exchange time {now}")
        signer, code, account = self._authorise(parsed, now)
        used = self._nonces.setdefault(signer.lower(), {})
        if parsed.nonce in used:
            raise Rejected(f"nonce {parsed.nonce} was already used by {signer}")
        if spec.name == "addAgent" and not verify_agent_signature(
            parsed.data["agent"], account, parsed.nonce, parsed.data["signature"]
        ):
            raise Rejected("addAgent: the agent's signature does not recover the agent address")
        used[parsed.nonce] = None
        if len(used) > NONCES_KEPT:
            del used[next(iter(used))]
        self.dispatch.ensure_account(account)
        result = self.dispatch.action(spec.name, account, parsed.data, code)
        envelope: dict[str, Any] = {"tx_hash": result.tx_hash, "tx_type": result.tx_type}
        if spec.name in ("cancelByOid", "cancelByCloid"):
            envelope["success"] = result.success
        else:
            envelope["error"] = ""
        envelope.update(data=result.data, address=account)
        return envelope

    def _authorise(self, parsed: ParsedAction, now: int) -> tuple[str, int, str]:
        """(signer, code, account). The first candidate that is a known account or agent wins."""
        first: tuple[str, int] | None = None
        for signer, code in recover_candidates(parsed, testnet=self.config.testnet):
            first = first or (signer, code)
            owner = self.dispatch.agent_owner(signer, now)
            if owner is not None:
                if not parsed.spec.agent_ok:
                    raise Rejected(f"{parsed.spec.name} must be signed by the account's own key, not an agent")
                return signer, code, owner
            if self.dispatch.has_account(signer):
                return signer, code, signer
        assert first is not None
        return first[0], first[1], first[0]

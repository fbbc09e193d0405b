"""The local exchange as a server: Starlette routes on uvicorn, in process, on a loopback port.

``LocalExchange`` owns the engine, the synthetic market, the rate limiter and the WebSocket hub. Time
moves through ``advance()``: a background task calls it on the wall clock, or a test calls
``step(ms)`` on a ``FrozenClock``, so that blocks, funding, triggers and the market all follow the
clock and nothing in tests waits for real time.

The exchange plays one network (``SimConfig.network``, test network by default): new keys are read under
its signing source, and every response says which network it is (see ``network``). Signed actions go
through ``signed_actions``; the WebSocket is ``ws_hub``.

A mirror (``SimConfig.mirror``: another exchange's URL; ``open_exchange`` reads it) lists that exchange's
instruments and follows its index and mark (``mirror.source``, ``mirror.market``): paper trading on a real market.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import msgspec
import uvicorn
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.types import ASGIApp

from tui.api.faucet import FAUCET_HEADER, FAUCET_PATH, FaucetMode
from tui.api.paper import PAPER_HEADER

from ..clock import Clock, FrozenClock, SystemClock
from ..engine.rules import BatchRule, CloidRule
from ..mirror.config import MAX_MOVE_PCT, POLL_MS
from .actions import BadRequest, ParsedAction, Rejected, parse_body
from .dispatch import Dispatcher, QueryError
from .faucet import faucet_answer
from .fault_dice import ClockWaits, FaultDice, Waits, WallWaits
from .fault_plan import FAULTS_HEADER, NO_FAULTS, FaultPlan
from .faults import FaultyWire, fault_message
from .http_posts import Answer, PostRoutes, error, json_answer
from .http_transport import JoinedHttpProtocol
from .network import DEFAULT_NETWORK, HEADER, Network, ResponseHeader
from .ratelimit import Limits, RateLimiter, Verdict
from .signed_actions import SignedActions, refused_envelope
from .ws_hub import MAX_FRAME_BYTES, Hub, PostError
from .ws_transport import CoalescingWebSocketProtocol

if TYPE_CHECKING:
    from ..mirror.record import Recorder
    from ..mirror.replay import Recording
    from ..mirror.source import Mirror

log = logging.getLogger(__name__)
_encode = msgspec.json.Encoder(decimal_format="number").encode
_decode = msgspec.json.Decoder().decode
PARTIAL_SHARE = Decimal("0.5")  # a partial fill (``--partial-fill-rate``) matches half an IOC order, in lots
STOP_GRACE_S = 2  # how long a stop waits for the connections to close before it drops them


@dataclass
class SimConfig:
    host: str = "127.0.0.1"
    port: int = 0
    seed: int | None = None  # of the synthetic market and its history; None: a fresh one each start
    faucet: Decimal = Decimal(100_000)
    block_ms: int = 500
    market: bool = True  # synthetic makers and takers
    network: Network = DEFAULT_NETWORK  # the signing source a new key is read under (see ``network``)
    limits: Limits = field(default_factory=Limits)
    mirror: str | None = None  # the base URL of an exchange whose prices this one follows (paper trading)
    mirror_poll_ms: int = POLL_MS
    mirror_max_move_pct: Decimal = MAX_MOVE_PCT  # a mirrored price that moves more in one poll is held (stale)
    faults: FaultPlan = NO_FAULTS  # ``--faults``: what goes wrong on purpose (``fault_plan``)
    fills: str = "queue"  # how a mirror fills resting orders: "queue" (``mirror.queue``) or "optimistic"
    stepped: bool = False  # the clock moves when a client says (POST /clock/step): a replay's ``--step``
    # the rules the interface leaves open (docs/sim-rules.md): the defaults are what bots met so far
    faucet_mode: FaucetMode = "auto"  # auto: a new signer is funded; explicit: only what POST /faucet funded exists
    sorted_keys: bool = False  # also accept a signature over the action with its keys sorted (protocol-notes 2.5)
    batch: BatchRule = "all-or-nothing"  # one bad order in a placeOrder of several (``engine.rules``)
    duplicate_cloid: CloidRule = "accept"  # a cloid an open order of the account already carries

    def rules_in_force(self) -> list[str]:
        """The rules chosen away from their defaults, as the flags that chose them (the startup line names them)."""
        default = SimConfig()
        said = [f"--faucet {self.faucet_mode}"] if self.faucet_mode != default.faucet_mode else []
        said += ["--sorted-keys"] if self.sorted_keys else []
        said += [f"--batch {self.batch}"] if self.batch != default.batch else []
        said += [f"--duplicate-cloid {self.duplicate_cloid}"] if self.duplicate_cloid != default.duplicate_cloid else []
        return said


MAX_STEP_MS = 86_400_000  # the longest one /clock/step may move the clock


def _limited(verdict: Verdict) -> Answer:
    return json_answer({"code": verdict.status, "message": verdict.message}, verdict.status, verdict.headers)


class _Server(uvicorn.Server):
    """uvicorn without its signal handling (whoever embeds the exchange owns Ctrl-C), and whose stop ends.

    uvicorn stops by closing each connection and waiting, unbounded, until every one is gone. A connection
    whose peer reads nothing never goes: its close waits behind frames that cannot be written. So the wait is
    bounded (``STOP_GRACE_S``, through ``timeout_graceful_shutdown``) and what is left after it is aborted."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        await super().shutdown(sockets)
        for connection in list(self.server_state.connections):
            log.warning("a connection that did not close within %.0f s is dropped", STOP_GRACE_S)
            connection.transport.abort()


class LocalExchange:
    """The whole interface on loopback. ``await start()`` returns its base URL."""

    def __init__(
        self, config: SimConfig | None = None, clock: Clock | None = None, *, mirror: Mirror | None = None
    ) -> None:
        self.config = config or SimConfig()
        self.clock: Clock = clock or SystemClock()
        self.seed = self.config.seed if self.config.seed is not None else random.SystemRandom().randrange(2**31)
        if self.config.mirror is not None and mirror is None:
            raise ValueError("a mirror's source is read first: use open_exchange(config)")
        self.mirror = mirror
        cfg = self.config
        plan = cfg.faults
        self.dispatch = Dispatcher(
            self.clock,
            seed=self.seed,
            faucet=cfg.faucet,
            market=cfg.market,
            mirror=mirror,
            batch=cfg.batch,
            duplicate_cloid=cfg.duplicate_cloid,
            thin_book=plan.thin_book,
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
            network=self.config.network,
        )
        self.dispatch.set_publisher(self.hub.publish, self.hub.wanted)
        self.actions = SignedActions(
            self.dispatch, self.clock, cfg.network, faucet=cfg.faucet_mode, sorted_keys=cfg.sorted_keys
        )
        self._next_block_ms = self.clock.now_ms() + self.config.block_ms
        posts = {
            "/exchange": self._exchange,
            "/info": self._info,
            "/explorer": self._explorer,
            FAUCET_PATH: self._faucet,
        }
        if cfg.stepped:
            posts["/clock/step"] = self._clock_step
        websocket = Starlette(routes=[WebSocketRoute("/ws/", self.hub.serve), WebSocketRoute("/ws", self.hub.serve)])
        network, faucet_mode = cfg.network, cfg.faucet_mode
        self.app: ASGIApp = PostRoutes(websocket, posts)
        # the faults' own seed, else the market's: one seed plays the same market and the same faults again
        self.faults = FaultDice(plan, plan.seed if plan.seed is not None else self.seed)
        self.waits: Waits = ClockWaits(self.clock) if isinstance(self.clock, FrozenClock) else WallWaits()
        if plan.active:
            said = self.faults_line
            self.app = ResponseHeader(FaultyWire(self.app, self.faults, self.waits), FAULTS_HEADER, lambda: said)
        self.app = ResponseHeader(self.app, HEADER, lambda: network)
        self.app = ResponseHeader(self.app, FAUCET_HEADER, lambda: faucet_mode)
        if mirror is not None:
            status = mirror.status
            self.app = ResponseHeader(self.app, PAPER_HEADER, lambda: status().header_value())
        self._server: uvicorn.Server | None = None
        self._tasks: list[asyncio.Task[Any]] = []
        self.url = ""

    # ---- lifecycle ---------------------------------------------------------------------------------

    async def start(self, listening: socket.socket | None = None) -> str:
        """Serve on ``config.host:config.port`` (0 = a free port), or on the socket ``listening`` already
        listens on, in the running loop; return the base URL."""
        cfg = uvicorn.Config(
            self.app,
            host=self.config.host,
            port=self.config.port,
            log_level="warning",
            log_config=None,  # no stderr handlers of its own: records reach the xtui log file (tui.logs)
            access_log=False,
            lifespan="off",
            ws_ping_interval=None,
            ws_max_size=MAX_FRAME_BYTES,  # a bigger frame is closed with 1009, "message too big"
            # no compression: it cost each subscriber a deflate of every frame (a sixth of the exchange's CPU
            # fanning out to 50), and the dashboard, on loopback, the inflate; bytes on loopback cost nothing
            ws_per_message_deflate=False,
            ws=CoalescingWebSocketProtocol,  # a connection's frames of one millisecond in one system call
            http=JoinedHttpProtocol,  # an answer's head and body in one system call
            proxy_headers=False,  # nothing stands in front: a client's X-Forwarded-For must not pick its address
            timeout_graceful_shutdown=STOP_GRACE_S,
        )
        self._server = _Server(cfg)
        serve = asyncio.create_task(self._server.serve(sockets=[listening] if listening is not None else None))
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
            self._tasks.append(asyncio.create_task(self._warm_up()))
            if self.mirror is not None:
                self._tasks.append(asyncio.create_task(self._follow_source(self.mirror.poll_ms / 1000)))
        return self.url

    async def stop(self) -> None:
        """Stop serving (within ``STOP_GRACE_S``, whatever the peers do) and the market's tasks."""
        if self._server is not None:
            self._server.should_exit = True
        for task in self._tasks[1:]:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)  # their ends, not stop's own cancellation
        self._tasks.clear()
        if self.mirror is not None:
            if self.mirror.recorder is not None:
                self.mirror.recorder.trades(self.engine)
            await self.mirror.close()

    async def __aenter__(self) -> LocalExchange:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def faults_line(self) -> str:
        """The faults on, in one line (the ``X-Xtui-Faults`` header and the start-up line)."""
        return self.config.faults.describe(self.faults.seed)

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://", 1) + "/ws/"

    async def _warm_up(self) -> None:
        """What a first client asks for (``engine.warm_up``), done while the exchange waits for one: it is
        asked ~100 ms later, when the dashboard has loaded. A step at a time, so that a request arriving
        meanwhile waits for one step at most."""
        for _ in self.engine.warm_up():
            await asyncio.sleep(0)

    async def _run_clock(self) -> None:
        tick_s = min(self.config.block_ms, 100) / 1000
        while True:
            try:
                self.advance()
            except Exception:  # a bug in a periodic job must not stop the exchange
                log.exception("periodic work failed")
            await asyncio.sleep(tick_s)

    async def _follow_source(self, every_s: float) -> None:
        while True:
            try:
                await self.poll_mirror()
            except Exception:  # a bug in a poll must not stop the mirror: the next one tries again
                log.exception("mirror poll failed")
            await asyncio.sleep(every_s)

    async def poll_mirror(self) -> bool:
        """Read the source's prices once and apply them at once (tests call this; a task does every poll_ms)."""
        if self.mirror is None:
            raise TypeError("poll_mirror() needs a mirror")
        ok = await self.mirror.poll()
        self.advance()
        return ok

    def advance(self) -> None:
        """Run what time makes happen up to now: the market, triggers, funding, blocks, pushed events."""
        now = self.clock.now_ms()
        mirror = self.mirror
        if mirror is not None:
            mirror.catch_up(now)  # a replay's source: the recorded polls due by now
        self.dispatch.tick(now)
        while now >= self._next_block_ms:
            self.dispatch.produce_block()
            self._next_block_ms += self.config.block_ms
        self.dispatch.flush()
        if mirror is not None and mirror.recorder is not None:
            mirror.recorder.trades(self.engine)

    def step(self, ms: int) -> None:
        """Tests: move a ``FrozenClock`` on by ``ms`` and run what that time makes happen."""
        if not isinstance(self.clock, FrozenClock):
            raise TypeError("step() needs a FrozenClock")
        self.clock.advance(ms)
        self.advance()
        if isinstance(self.waits, ClockWaits):  # what the faults hold until this time goes on
            self.waits.wake()

    # ---- HTTP (``http_posts``: each a function of the client's address and the body) -------------------

    def _clock_step(self, ip: str, raw: bytes) -> Answer:
        """POST /clock/step {"ms": N} (``stepped`` only): move the clock N ms on, run what that time makes
        happen, and answer {"now_ms": ...}."""
        try:
            body = _decode(raw)
        except (msgspec.DecodeError, RecursionError) as exc:
            return error(f"body is not valid JSON: {exc}", 400)
        ms = body.get("ms") if isinstance(body, dict) else None
        if isinstance(ms, bool) or not isinstance(ms, int) or not 0 <= ms <= MAX_STEP_MS:
            return error(f'body: expected {{"ms": N}}, N a whole number of ms from 0 to {MAX_STEP_MS}', 400)
        self.step(ms)
        return json_answer({"now_ms": self.clock.now_ms()}, 200)

    def _exchange(self, ip: str, raw: bytes) -> Answer:
        verdict = self.limiter.check_http(ip, "exchange")
        if not verdict.allowed:
            return _limited(verdict)
        try:
            envelope, _ = self._submit(raw)
        except BadRequest as exc:
            return error(str(exc), 400, verdict.headers)
        return json_answer(envelope, 200, verdict.headers)

    def _submit(self, raw: bytes) -> tuple[dict[str, Any], bool]:
        """(envelope, applied) for an /exchange body; ``BadRequest`` for a malformed one."""
        parsed: ParsedAction | None = None
        trading = self.engine.trading
        try:
            parsed = parse_body(raw)
            if self.faults.refuse():  # before the signature is read: nothing is applied, no nonce is used
                raise Rejected(fault_message(f"{parsed.spec.name} refused at random, unapplied; send it again"))
            if parsed.spec.name == "placeOrder" and self.faults.partial_fill():
                trading.partial_share = PARTIAL_SHARE
            envelope, applied = self.actions.apply(parsed), True
        except Rejected as exc:
            envelope, applied = refused_envelope(parsed, exc), False
        finally:
            trading.partial_share = None
        self.dispatch.flush()
        return envelope, applied

    def _query(self, ip: str, raw: bytes, endpoint: str) -> Answer:
        verdict = self.limiter.check_http(ip, endpoint)
        if not verdict.allowed:
            return _limited(verdict)
        try:
            body = _decode(raw)
        except (msgspec.DecodeError, RecursionError) as exc:
            return error(f"body is not valid JSON: {exc}", 400, verdict.headers)
        try:
            result = self.query(endpoint, body)
        except QueryError as exc:
            return error(str(exc), 400, verdict.headers)
        return json_answer(result, 200, verdict.headers)

    def _faucet(self, ip: str, raw: bytes) -> Answer:
        """POST /faucet (``tui.api.faucet``): under the /exchange budget, since it changes the exchange's state."""
        verdict = self.limiter.check_http(ip, "exchange")
        if not verdict.allowed:
            return _limited(verdict)
        status, headers, payload = faucet_answer(self.engine, ip, raw)
        self.dispatch.flush()  # the funded account's balance reaches its subscribers now
        return status, {**(headers or {}), **verdict.headers}, payload

    def _info(self, ip: str, raw: bytes) -> Answer:
        return self._query(ip, raw, "info")

    def _explorer(self, ip: str, raw: bytes) -> Answer:
        return self._query(ip, raw, "explorer")

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
        """``post`` over the socket (protocol-notes 5.2): the same handlers and limits as HTTP, the HTTP body
        in ``result.data``; a refusal raises ``PostError``."""
        kind, payload = params.get("type"), params.get("payload")
        endpoint = {"action": "exchange", "info": "info", "explorer": "explorer"}.get(str(kind))
        if endpoint is None:
            raise PostError(PostError.BAD_REQUEST, "params.type: must be action, info or explorer")
        verdict = self.limiter.check_http(ip, endpoint)
        if not verdict.allowed:
            raise PostError(verdict.status, verdict.message)
        try:
            if endpoint == "exchange":
                envelope, applied = self._submit(_encode(payload))
                if not applied:
                    raise PostError(PostError.REFUSED, envelope["error"], envelope)
                return {"data": envelope}
            return {"data": self.query(endpoint, payload)}
        except (BadRequest, QueryError) as exc:
            raise PostError(PostError.BAD_REQUEST, str(exc)) from None


async def open_exchange(
    config: SimConfig,
    clock: Clock | None = None,
    *,
    recording: Recording | None = None,
    recorder: Recorder | None = None,
) -> LocalExchange:
    """A ``LocalExchange`` for ``config``; for a mirror, its source read first (``MirrorError`` if it cannot be),
    and written to ``recorder`` from then on; for a ``recording``, that recording played on ``clock``."""
    clock = clock or SystemClock()
    if recording is not None:
        from ..mirror.replay import ReplaySource

        replay = ReplaySource(recording, clock.now_ms, fills=config.fills)
        return LocalExchange(dataclasses.replace(config, seed=recording.seed), clock, mirror=replay)
    if config.mirror is None:
        return LocalExchange(config, clock)
    from ..mirror.source import Mirror

    seed = config.seed if config.seed is not None else random.SystemRandom().randrange(2**31)
    mirror = await Mirror.open(
        config.mirror,
        seed=seed,
        now_ms=clock.now_ms,
        poll_ms=config.mirror_poll_ms,
        max_move_pct=config.mirror_max_move_pct,
        fills=config.fills,
    )
    try:
        if recorder is not None:
            recorder.start(mirror, seed, clock.now_ms())
            mirror.recorder = recorder
        return LocalExchange(dataclasses.replace(config, seed=seed), clock, mirror=mirror)
    except BaseException:
        await mirror.close()
        raise

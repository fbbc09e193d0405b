"""``xtui doctor``: a read-only check of an exchange and a profile, to run before trading on a real network.

One line per check (name, OK/WARN/FAIL/NOT RUN, detail); the exit code is 1 when any check FAILs, 0 otherwise
(warnings are things to know, not to stop for). A failure is said in words ("nothing answers at URL (connection
refused)"), never as an exception's repr; a check that needs an answer the exchange never gave is NOT RUN.

It signs nothing and sends no /exchange request: the client it uses has no key. A key source is read for its
address only (a keystore's file says it; a key in an environment variable is read for its address and dropped), and
no key is ever printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import ssl
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime
from typing import Any, Literal

import msgspec
from websockets.exceptions import InvalidStatus, WebSocketException

from tui.api.client import Client
from tui.api.endpoints import MAINNET, TESTNET, Endpoints
from tui.api.errors import ClientError
from tui.api.network import HEADER, mismatch_warning, parse_network
from tui.api.server_time import http_date_s
from tui.config.errors import StartupError
from tui.config.launch import Flags, Launch, apply_flags, key_address
from tui.config.profiles import resolve

__all__ = [
    "Check",
    "DoctorTarget",
    "launch_for",
    "render_checks",
    "run_checks",
    "run_doctor",
    "target_for",
]

Status = Literal["OK", "WARN", "FAIL", "NOT RUN"]
CLOCK_OK_MS = 2_000  # the HTTP Date header has whole seconds: within this, the clocks agree
CLOCK_FAIL_MS = 30_000  # actions expire 60 s after their nonce (local time): half of that is too far
AGENT_WARN_MS = 86_400_000  # an agent expiring within a day is worth a warning
PUBLIC_HOSTS = {MAINNET.api: "mainnet", TESTNET.api: "testnet"}
NO_ACCOUNT = "no account to check: give --address ADDR or --key-env VAR, or a profile's account or keystore"
NEW_ACCOUNT = "on xtui sim: `xtui sim faucet ADDR --url URL` funds it; under --faucet auto its first signed action does"
APPROVE = "approve it first (the Agents screen, G)"


class Check(msgspec.Struct, frozen=True):
    """One line of the report."""

    name: str
    status: Status
    detail: str


class DoctorTarget(msgspec.Struct, frozen=True):
    """What to check: where the exchange is, how the profile signs, and for whom."""

    label: str  # the profile's name or the URL
    endpoints: Endpoints
    testnet: bool
    dialect: Literal["seed", "sdk"]
    account: str | None = None
    agent: str | None = None  # the agent key's address when the profile trades as an agent for ``account``
    builtin: bool = False  # the built-in exchange, started for the check

    @property
    def network(self) -> str:
        return "testnet" if self.testnet else "mainnet"


class _Seen(msgspec.Struct):
    """What the exchange said along the way, for the checks that compare."""

    ws_network: str | None = None
    ping_skew_ms: int | None = None


def launch_for(args: argparse.Namespace) -> Launch:
    """The profile (``--profile``, else as the dashboard chooses) with the command line laid over it."""
    flags = Flags(
        url=args.url,
        testnet=args.testnet,
        mainnet=args.mainnet,
        address=args.address,
        key_env=args.key_env,
        network=args.network,
    )
    return apply_flags(resolve(args.profile), flags)


def target_for(launch: Launch, dialect: str | None = None, local_url: str | None = None) -> DoctorTarget:
    """What to check for ``launch``; ``local_url`` is the built-in exchange's address when it has no url."""
    profile = launch.profile
    own = key_address(profile.key)  # a keystore's file or the variable's key, read for its address only
    ends = profile.endpoints(local_url)
    flags = launch.flags
    if flags.url or flags.testnet or flags.mainnet:
        label = ends.api
    elif profile.builtin_exchange:
        label = f"the built-in exchange of profile {profile.name} (started at {ends.api} for this check)"
    else:
        label = f"profile {profile.name} ({ends.api})"
    return DoctorTarget(
        label=label,
        endpoints=ends,
        testnet=profile.testnet,
        dialect="seed" if (dialect or profile.dialect) == "seed" else "sdk",
        account=profile.account or own,
        agent=own if profile.key is not None and profile.key.agent else None,
        builtin=profile.builtin_exchange,
    )


async def _timed(seconds: float, call: Awaitable[Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    result = await asyncio.wait_for(call, seconds)
    return result, (time.perf_counter() - start) * 1000


async def _check_info(client: Client, timeout: float) -> Check:
    found, ms = await _timed(timeout, client.info("instruments", type="all"))
    if not isinstance(found, dict):
        return Check("info", "FAIL", f"instruments: expected an object, got {type(found).__name__}")
    counts = ", ".join(f"{len(v)} {k}" for k, v in found.items() if isinstance(v, list))
    return Check("info", "OK", f"instruments: {counts or 'none'} ({ms:.0f} ms)")


async def _check_explorer(client: Client, timeout: float) -> Check:
    found, ms = await _timed(timeout, client.explorer("blocks", offset=0, limit=1))
    blocks = found.get("blocks") if isinstance(found, dict) else found
    latest = blocks[0] if isinstance(blocks, list) and blocks and isinstance(blocks[0], dict) else {}
    height = latest.get("block_height", latest.get("height"))
    return Check("explorer", "OK", f"blocks: latest {height if height is not None else 'unknown'} ({ms:.0f} ms)")


async def _check_ws(target: DoctorTarget, timeout: float, seen: _Seen) -> Check:
    from websockets.asyncio.client import connect

    url = target.endpoints.ws
    start = time.perf_counter()
    async with asyncio.timeout(timeout), connect(url, open_timeout=timeout) as ws:
        if ws.response is not None:
            seen.ws_network = parse_network(ws.response.headers.get(HEADER))
        sent_ms = time.time() * 1000
        await ws.send(json.dumps({"jsonrpc": "2.0", "method": "ping", "id": "doctor"}))
        while True:  # notifications may come first; the reply carries our id
            reply = json.loads(await ws.recv())
            if isinstance(reply, dict) and reply.get("id") == "doctor":
                break
        back_ms = time.time() * 1000
    if not isinstance(reply.get("result"), dict):
        return Check("websocket", "FAIL", f"{url}: ping answered without a result: {str(reply)[:120]}")
    result = reply["result"]
    seen.ws_network = seen.ws_network or parse_network(str(result.get("network") or ""))
    stamp = result.get("timestamp")
    if isinstance(stamp, int | float) and stamp > 0:
        seen.ping_skew_ms = int(stamp - (sent_ms + back_ms) / 2)
    ms = (time.perf_counter() - start) * 1000
    return Check("websocket", "OK", f"{url}: connected and ping answered ({ms:.0f} ms)")


def _check_clock(client: Client, seen: _Seen) -> Check:
    if seen.ping_skew_ms is not None:
        skew, source = seen.ping_skew_ms, "the ping's timestamp"
    elif client.last_server_date:
        server_s = http_date_s(client.last_server_date)
        if server_s is None:
            return Check("clock", "WARN", f"the HTTP Date header is not a date: {client.last_server_date[:40]!r}")
        skew, source = int((server_s - time.time()) * 1000), "the HTTP Date header"
    else:
        return Check("clock", "WARN", "the exchange gave no time to compare with (no ping timestamp, no Date)")
    size = f"{abs(skew)} ms" if abs(skew) < 1000 else f"{abs(skew) / 1000:.1f} s"
    detail = f"the exchange's clock is {size} {'ahead of' if skew > 0 else 'behind'} this machine's (by {source})"
    if abs(skew) <= CLOCK_OK_MS:
        return Check("clock", "OK", detail)
    status: Status = "WARN" if abs(skew) < CLOCK_FAIL_MS else "FAIL"
    return Check("clock", status, f"{detail}: nonces and expiries are local time; set the clock right")


def _check_signing(target: DoctorTarget) -> Check:
    detail = f"dialect {target.dialect}, signs for {target.network} (the {target.network.capitalize()} source)"
    if target.dialect == "seed" and target.endpoints.api in PUBLIC_HOSTS:
        return Check("signing", "WARN", f"{detail}: the public exchange expects the sdk dialect")
    return Check("signing", "OK", detail)


def _check_network(client: Client, target: DoctorTarget, seen: _Seen) -> Check:
    said = client.server_network or seen.ws_network
    if said is None:
        known = PUBLIC_HOSTS.get(target.endpoints.api)
        if known is None:
            unsaid = f"the exchange does not say which network it plays; xtui signs for {target.network}"
            return Check("network", "WARN", f"{unsaid}: make sure that is the exchange's")
        if known != target.network:
            return Check("network", "FAIL", mismatch_warning(known, target.testnet) or "")
        return Check("network", "OK", f"not said by the exchange; the public {known} host plays {known}")
    warning = mismatch_warning(said, target.testnet)
    if warning is not None:
        return Check("network", "FAIL", warning)
    return Check("network", "OK", f"the exchange plays {said}, as xtui signs")


def _balances(summary: Any) -> str:
    """The non-zero balances of each side of the account: "perp 100 USDC; spot 5 USDC, 0.1 BTC"."""
    sides = []
    for side, book in (("perp", summary.collateral), ("spot", summary.spot_collateral)):
        held = [f"{amount.balance.normalize():f} {name}" for name, amount in book.items() if amount.balance]
        if held:
            sides.append(f"{side} {', '.join(held)}")
    return "; ".join(sides)


async def _check_account(client: Client, target: DoctorTarget, timeout: float) -> Check:
    if target.account is None:
        if target.builtin:
            return Check("account", "OK", "none given: the dashboard makes a demo key on the built-in exchange")
        return Check("account", "WARN", NO_ACCOUNT)
    summary, _ = await _timed(timeout, client.account_summary(target.account))
    held = _balances(summary)
    if not held:
        return Check("account", "WARN", f"{target.account}: no balances ({NEW_ACCOUNT})")
    equity = summary.total_account_equity.normalize()
    return Check("account", "OK", f"{target.account}: {held} (equity {equity:f})")


async def _check_agent(client: Client, target: DoctorTarget, timeout: float) -> Check:
    assert target.agent is not None and target.account is not None
    agents, _ = await _timed(timeout, client.all_agents(target.account))
    mine = [a for a in agents if a.agent_address.lower() == target.agent.lower()]
    if not mine:
        listed = f"all_agents lists {len(agents)}"
        return Check("agent", "FAIL", f"{target.agent} is not an agent of {target.account} ({listed}): {APPROVE}")
    agent = max(mine, key=lambda a: a.valid_until_timestamp)
    until = datetime.fromtimestamp(agent.valid_until_timestamp / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")
    left = agent.valid_until_timestamp - time.time() * 1000
    detail = f"{target.agent} ({agent.agent_name or 'unnamed'}) trades for {target.account} until {until}"
    if left <= 0:
        return Check("agent", "FAIL", f"{detail}: expired")
    return Check("agent", "WARN" if left < AGENT_WARN_MS else "OK", detail)


def _check_rate_limits(client: Client) -> Check:
    if not client.rate_limits:
        return Check("rate limits", "OK", "no rate-limit headers seen (xtui paces itself to the interface's limits)")
    return Check("rate limits", "OK", ", ".join(f"{k}: {v}" for k, v in sorted(client.rate_limits.items())))


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what it was raised from or during (a transport's ``raise ... from None`` keeps it as context)."""
    seen: set[int] = set()
    found: BaseException | None = exc
    while found is not None and id(found) not in seen:
        seen.add(id(found))
        yield found
        found = found.__cause__ or found.__context__


def in_words(exc: BaseException, where: str) -> str:
    """Why a request to ``where`` failed, in words: "nothing answers at URL (connection refused)", not
    ``ConnectionRefusedError: [Errno 111] Connect call failed ('127.0.0.1', 1)``."""
    for cause in _causes(exc):
        if isinstance(cause, ConnectionRefusedError):
            return f"nothing answers at {where} (connection refused)"
        if isinstance(cause, socket.gaierror):
            return f"{where}: its host name is not known (DNS: {cause.strerror or 'no address'})"
        if isinstance(cause, ssl.SSLCertVerificationError):
            return f"{where}: its TLS certificate is not trusted ({cause.verify_message or 'verification failed'})"
        if isinstance(cause, TimeoutError):
            return f"no answer from {where} in time"
        if isinstance(cause, InvalidStatus):
            return f"{where}: the WebSocket was refused (HTTP {cause.response.status_code})"
    if isinstance(exc, ClientError):
        return str(exc)
    if isinstance(exc, OSError):
        return f"{where}: {exc.strerror or 'the connection failed'}"
    if isinstance(exc, WebSocketException):
        return f"{where}: the WebSocket failed ({exc or 'closed'})"
    return f"{where}: an answer xtui cannot read ({exc})"


async def _guarded(name: str, where: str, check: Callable[[], Awaitable[Check]]) -> Check:
    """A check that could not complete is a FAIL saying why in words, never a traceback."""
    try:
        return await check()
    except (ClientError, OSError, ValueError, WebSocketException) as exc:  # TimeoutError is an OSError
        return Check(name, "FAIL", in_words(exc, where))


def _not_run(name: str) -> Check:
    return Check(name, "NOT RUN", "the exchange did not answer: nothing to check this against")


async def run_checks(target: DoctorTarget, timeout: float = 5.0) -> list[Check]:
    """Every check against ``target``, in order. Read-only: the client has no key, nothing is signed."""
    seen = _Seen()
    ends = target.endpoints
    async with Client(ends.api, explorer_url=ends.explorer, testnet=target.testnet, dialect=target.dialect) as c:
        checks = [
            await _guarded("info", ends.api, lambda: _check_info(c, timeout)),
            await _guarded("explorer", ends.explorer, lambda: _check_explorer(c, timeout)),
            await _guarded("websocket", ends.ws, lambda: _check_ws(target, timeout, seen)),
        ]
        answered = any(check.status != "FAIL" for check in checks)
        checks += [
            _check_clock(c, seen) if answered else _not_run("clock"),
            _check_signing(target),
            _check_network(c, target, seen) if answered else _not_run("network"),
        ]
        if answered or target.account is None:  # no account given: said without asking the exchange
            checks.append(await _guarded("account", ends.api, lambda: _check_account(c, target, timeout)))
        else:
            checks.append(_not_run("account"))
        if target.agent is not None:
            agent = _guarded("agent", ends.api, lambda: _check_agent(c, target, timeout)) if answered else None
            checks.append(await agent if agent is not None else _not_run("agent"))
        checks.append(_check_rate_limits(c) if answered else _not_run("rate limits"))
    return checks


def render_checks(target: DoctorTarget, checks: list[Check]) -> str:
    """The report: a heading, then one line per check."""
    width = max(len(c.name) for c in checks)
    lines = [f"xtui doctor: {target.label}", f"{'CHECK':<{width}}  STATUS   DETAIL"]
    lines += [f"{c.name:<{width}}  {c.status:<7}  {c.detail}" for c in checks]
    failed = sum(c.status == "FAIL" for c in checks)
    warned = sum(c.status == "WARN" for c in checks)
    skipped = sum(c.status == "NOT RUN" for c in checks)
    counts = f"{failed} failed, {warned} warning(s)" + (f", {skipped} not run" if skipped else "")
    lines.append(f"{counts}: " + ("do not trade yet" if failed else "ready"))
    return "\n".join(lines) + "\n"


def run_doctor(args: argparse.Namespace) -> int:
    """Run the checks and print the report; exit code 1 when any check failed."""
    launch = launch_for(args)
    if not launch.profile.builtin_exchange:
        target = target_for(launch, args.dialect)
        checks = asyncio.run(run_checks(target, args.timeout))
    else:  # the built-in exchange exists only while xtui runs it: start one, as the dashboard would, to check
        from tui.sim.embedded import EmbeddedExchange, EmbeddedExchangeError
        from tui.sim.server.local_exchange import SimConfig

        embedded = EmbeddedExchange(SimConfig(network=launch.profile.network, mirror=launch.profile.mirror))
        try:
            target = target_for(launch, args.dialect, embedded.start())
            checks = asyncio.run(run_checks(target, args.timeout))
        except EmbeddedExchangeError as exc:
            raise StartupError(str(exc)) from None
        finally:
            embedded.stop()
    sys.stdout.write(render_checks(target, checks))
    return 1 if any(c.status == "FAIL" for c in checks) else 0

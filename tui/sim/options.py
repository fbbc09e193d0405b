"""``xtui sim``: its flags, and running the local exchange in the foreground until Ctrl-C."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import socket
import sys
from decimal import Decimal, InvalidOperation
from pathlib import Path

from tui.api.decimals import is_plain_decimal
from tui.api.faucet import FAUCET_MODES, FaucetMode
from tui.edges.safe_text import printable

from .arguments import quoted, whole
from .engine.rules import BATCH_RULES, CLOID_RULES
from .faucet_command import add_faucet_command, run_faucet
from .fault_options import add_fault_arguments, plan_from_args
from .server.network import DEFAULT_NETWORK, NETWORKS
from .server.ratelimit import LIMIT_WORDS, Limits

DEFAULT_FAUCET_USDC = Decimal(100_000)


def _decimal(text: str) -> Decimal:
    if not is_plain_decimal(text):  # the one grammar of every edge: ASCII digits and at most one point
        raise argparse.ArgumentTypeError(f"not a plain decimal (ASCII digits and at most one point): {text!r}")
    try:
        d = Decimal(text)
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not d.is_finite() or d < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative number: {text!r}")
    return d


def _move_pct(text: str) -> Decimal:
    d = _decimal(text)
    if not 0 < d <= 1000:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most 1000: {text!r}")
    return d


def _positive_int(text: str) -> int:
    n = whole(text)
    if n <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0: {text!r}")
    return n


def _port(text: str) -> int:
    n = whole(text)
    if n > 65_535:
        raise argparse.ArgumentTypeError(f"a port is at most 65535: {text!r}")
    return n


def _descriptor(text: str) -> int:
    n = _positive_int(text)
    try:
        os.fstat(n)
    except OSError:
        raise argparse.ArgumentTypeError(f"no open descriptor {n}") from None
    return n


def _speed(text: str) -> float:
    if not is_plain_decimal(text):  # float() also reads "nan", "1e3", " 3" and "٣"
        raise argparse.ArgumentTypeError(f"not a plain decimal (ASCII digits and at most one point): {quoted(text)}")
    x = float(text)
    if not 0 < x <= 100_000:
        raise argparse.ArgumentTypeError("speed must be in (0, 100000]")
    return x


def _faucet(text: str) -> str | Decimal:
    """auto, explicit, or (as before the modes) an amount of USDC, which means auto with that amount."""
    if text in FAUCET_MODES:
        return text
    try:
        return _decimal(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"must be auto, explicit or an amount of USDC: {quoted(text)}") from None


def _source(text: str) -> str:
    from .mirror.source import source_url  # not at import: ``xtui``'s parser is built on every start

    try:
        return source_url(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_sim_arguments(p: argparse.ArgumentParser) -> None:
    d = Limits()
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default loopback only)")
    p.add_argument("--port", type=_port, default=0, help="port (0: any free port; the first line says which)")
    p.add_argument(
        "--seed", type=whole, default=None, help="seed of the synthetic market and its history (default: a fresh one)"
    )
    p.add_argument(
        "--faucet",
        type=_faucet,
        default="auto",
        metavar="auto|explicit",
        help="auto (default): any new signer is funded on its first signed action; explicit: only an address funded "
        "by `xtui sim faucet ADDR` (POST /faucet) exists, any other signer gets 'account does not exist', as live "
        "(a number is still read as auto with that many USDC)",
    )
    p.add_argument(
        "--faucet-usdc",
        type=_decimal,
        default=None,
        metavar="AMOUNT",
        help=f"USDC the faucet gives (default {DEFAULT_FAUCET_USDC})",
    )
    p.add_argument(
        "--sorted-keys",
        action="store_true",
        help="also accept a signature over the action with its keys sorted (off: only what was sent is verified; "
        "the exchange's rule is uncertain, docs/sim-rules.md)",
    )
    p.add_argument(
        "--batch",
        choices=BATCH_RULES,
        default="all-or-nothing",
        help="a placeOrder of several with one order that fails its own checks: refuse them all (default), or "
        "refuse that one and place the others",
    )
    p.add_argument(
        "--duplicate-cloid",
        choices=CLOID_RULES,
        default="accept",
        help="an order whose cloid an open order of the account carries: accept it (default; a cancel by that cloid "
        "cancels all) or refuse it",
    )
    p.add_argument("--block-ms", type=_positive_int, default=500, help="block interval in ms (default: 500)")
    p.add_argument(
        "--speed",
        type=_speed,
        default=1.0,
        help="how fast exchange time passes (funding, candles): 2 is twice as fast (default: 1, real time)",
    )
    p.add_argument("--quiet-market", action="store_true", help="no synthetic market makers or takers")
    # the dashboard's built-in exchange (``tui.sim.process``): stop when standard input ends, that is when the
    # dashboard that holds the other end of the pipe ends, however it ends
    p.add_argument("--exit-with-stdin", action="store_true", help=argparse.SUPPRESS)
    # and serve on the socket it inherits at this descriptor, already listening: the dashboard knows the
    # address at once, and its first requests wait in the socket's queue while this exchange starts
    p.add_argument("--fd", type=_descriptor, default=None, help=argparse.SUPPRESS)
    p.add_argument(
        "--mirror",
        type=_source,
        default=None,
        metavar="URL",
        help="paper trading: list the instruments of the exchange at URL and follow its index and mark prices "
        "(read-only: its /info, no key); your orders match local makers quoting around them",
    )
    p.add_argument(
        "--mirror-poll-ms", type=_positive_int, help="how often the mirrored exchange is read, in ms (default 1000)"
    )
    p.add_argument(
        "--mirror-max-move-pct",
        type=_move_pct,
        metavar="PCT",
        help="a mirrored index or mark that moves more than PCT%% in one poll, or a mark that far from its index, "
        "is held (quotes pulled) until the source makes sense again (default 20)",
    )
    p.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="with --mirror: write what the mirror reads from its source (prices, trades, books) and the trades "
        "made here to FILE, for --replay (format: docs/recording.md)",
    )
    p.add_argument(
        "--replay",
        type=Path,
        metavar="FILE",
        help="play a recording (--record) again on a virtual clock: from its start, at --speed, or under --step",
    )
    p.add_argument(
        "--step",
        action="store_true",
        help='with --replay: the clock moves only when a client posts {"ms": N} to /clock/step (deterministic)',
    )
    p.add_argument(
        "--fills",
        choices=("queue", "optimistic"),
        default="queue",
        help="how a mirror fills your resting orders: queue (default: only once the source's trades at or through "
        "your price exceed what rested there before you) or optimistic (when the makers' quotes reach it)",
    )
    p.add_argument(
        "--network",
        choices=NETWORKS,
        default=DEFAULT_NETWORK,
        help="the network played: every signature is read under its source only, and one signed for the other "
        "network is refused in words (default testnet)",
    )
    add_fault_arguments(p)
    add_faucet_command(p, _decimal)
    g = p.add_argument_group(
        "rate limits (per client address; over a limit the answer is 429 with Retry-After; calling again while told "
        "to wait is a violation)"
    )
    for field, what in LIMIT_WORDS.items():
        default = getattr(d, field)
        g.add_argument(
            "--" + field.replace("_", "-"), type=_positive_int, default=default, metavar="N",
            help=f"{what} (default: {default})",
        )  # fmt: skip


def limits_from_args(args: argparse.Namespace) -> Limits:
    return Limits(**{field: getattr(args, field) for field in LIMIT_WORDS})


def faucet_from_args(args: argparse.Namespace) -> tuple[FaucetMode, Decimal] | None:
    """(mode, USDC per funding) from --faucet and --faucet-usdc; None when both give an amount."""
    if isinstance(args.faucet, Decimal):
        if args.faucet_usdc is not None:
            return None
        return "auto", args.faucet
    mode: FaucetMode = "explicit" if args.faucet == "explicit" else "auto"
    return mode, DEFAULT_FAUCET_USDC if args.faucet_usdc is None else args.faucet_usdc


def run_from_args(args: argparse.Namespace) -> int:
    if getattr(args, "sim_command", None) == "faucet":
        return run_faucet(args)
    import gc

    from .clock import Clock, FrozenClock, SystemClock
    from .engine import GC_THRESHOLD
    from .mirror.config import MAX_MOVE_PCT, POLL_MS, MirrorError  # not .mirror.source: it brings the HTTP client
    from .server.local_exchange import SimConfig, open_exchange

    # The engine keeps many long-lived objects (orders, levels, records): with the default thresholds
    # the collector takes ~25% of matching time scanning them again and again.
    gc.set_threshold(*GC_THRESHOLD)

    if args.mirror is not None and args.quiet_market:
        return _usage("--mirror needs the market makers (its orders match them): drop --quiet-market")
    problem = _replay_problem(args)
    if problem:
        return _usage(problem)
    recording = recorder = None
    if args.replay is not None:
        from .mirror.replay import RecordingError, load_recording

        try:
            recording = load_recording(args.replay)
        except RecordingError as exc:
            sys.stderr.write(f"xtui sim: cannot replay {printable(str(exc))}\n")
            return 2
    if args.record is not None:
        from .mirror.record import Recorder

        try:
            recorder = Recorder(args.record)
        except OSError as exc:
            sys.stderr.write(f"xtui sim: cannot record to {args.record}: {exc.strerror or exc}\n")
            return 2
    faucet = faucet_from_args(args)
    if faucet is None:
        return _usage("give the faucet's amount once: --faucet AMOUNT or --faucet-usdc AMOUNT")
    config = SimConfig(
        host=args.host,
        port=args.port,
        seed=args.seed,
        faucet=faucet[1],
        faucet_mode=faucet[0],
        sorted_keys=args.sorted_keys,
        batch=args.batch,
        duplicate_cloid=args.duplicate_cloid,
        block_ms=args.block_ms,
        market=not args.quiet_market,
        network=args.network,
        limits=limits_from_args(args),
        mirror=args.mirror,
        mirror_poll_ms=args.mirror_poll_ms or POLL_MS,
        mirror_max_move_pct=args.mirror_max_move_pct or MAX_MOVE_PCT,
        faults=plan_from_args(args),
        fills=args.fills,
        stepped=args.step,
    )

    async def serve() -> None:
        clock: Clock = SystemClock(args.speed)
        if recording is not None:
            clock = FrozenClock(recording.start_ms) if args.step else SystemClock(args.speed, recording.start_ms)
        sim = await open_exchange(config, clock, recording=recording, recorder=recorder)
        url = await sim.start(socket.socket(fileno=args.fd) if args.fd is not None else None)
        if recording is not None:
            how = 'POST {"ms": N} to /clock/step moves its clock' if args.step else f"at speed {args.speed}"
            source = printable(recording.source, 200)
            sys.stderr.write(f"REPLAY of {printable(str(args.replay))} (recorded from {source}): {how}\n")
        elif sim.mirror is not None:  # no seeded market to play again: its prices are the source's
            sys.stderr.write(f"PAPER: prices follow {config.mirror}; orders stay here and never reach it\n")
            if recorder is not None:
                sys.stderr.write(f"RECORDING to {args.record} (Ctrl-C ends it; --replay {args.record} plays it)\n")
        else:
            sys.stderr.write(f"market seed {sim.seed} (--seed {sim.seed} plays the same market again)\n")
        if config.faults.active:  # before anything else a client sees: a faulty run is not a slow exchange
            sys.stderr.write(f"FAULTS: {sim.faults_line}\n")
        rules = config.rules_in_force()
        if rules:  # a run that is stricter or laxer than the defaults says so, so nobody mistakes one for the other
            sys.stderr.write(f"rules: {', '.join(rules)} (docs/sim-rules.md)\n")
        sys.stderr.flush()
        sys.stdout.write(f"listening on {url}\n")
        sys.stdout.flush()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        if args.exit_with_stdin:
            fd = sys.stdin.fileno()

            def stdin_readable() -> None:
                if not os.read(fd, 4096):  # end of input: whoever started this exchange is gone
                    loop.remove_reader(fd)
                    stop.set()

            loop.add_reader(fd, stdin_readable)
        try:
            await stop.wait()
        finally:
            await sim.stop()
            sys.stderr.write("local exchange stopped\n")

    if config.mirror is not None or recording is not None:  # the mirror's state changes are news on the terminal
        _mirror_lines()
    try:
        asyncio.run(serve())
    except MirrorError as exc:
        sys.stderr.write(f"xtui sim: {printable(str(exc))}\n")
        return 1
    except OSError as exc:
        where = f"descriptor {args.fd}" if args.fd is not None else f"{args.host}:{args.port}"
        sys.stderr.write(f"xtui sim: cannot listen on {where}: {exc.strerror or exc}\n")
        return 1
    return 0


def _usage(problem: str) -> int:
    """Flags that do not go together: one line as argparse's own errors are (``tui.cli.parser``), exit code 2."""
    sys.stderr.write(f"xtui sim: error: {problem} (xtui sim --help)\n")
    return 2


def _replay_problem(args: argparse.Namespace) -> str:
    """Why the record and replay flags given do not go together ("" when they do)."""
    if args.record is not None and args.mirror is None:
        return "--record needs --mirror URL: it records what the mirror reads from its source"
    if args.replay is not None and (args.mirror is not None or args.record is not None):
        return "--replay plays a recording: it takes no --mirror or --record"
    if args.replay is not None and args.quiet_market:
        return "--replay needs the market makers (its orders match them): drop --quiet-market"
    if args.step and args.replay is None:
        return "--step moves the clock of a replay: it needs --replay FILE"
    if args.step and args.speed != 1.0:
        return "--step and --speed: choose one (under --step the clock moves only when stepped)"
    return ""


def _mirror_lines() -> None:
    import logging

    from tui.logs import printable_handler

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    printable_handler(handler)  # a recording's reasons and its source's name: no escape reaches the terminal raw
    logger = logging.getLogger("tui.sim.mirror")  # its source's state, and a recording that stopped
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)

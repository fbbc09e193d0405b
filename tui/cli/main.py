"""The ``xtui`` command line. Heavy imports happen inside each command, so ``xtui --help`` is instant."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from tui import __version__
from tui.bench import GROUPS as BENCH_GROUPS
from tui.cli.admin import ADMIN_COMMANDS, add_admin_arguments, refuse_key_argv, run_admin
from tui.cli.lazy_parser import LazyParser
from tui.cli.methods import fill_exchange, fill_explorer, fill_info
from tui.cli.parser import USAGE_EXIT, Parser, UsageError, usage_line
from tui.cli.target_options import CALL_TARGET, DASHBOARD_TARGET, add_doctor_arguments, add_target
from tui.config.errors import StartupError
from tui.edges.safe_text import printable
from tui.logs import KEY_SHAPE

REFUSED_KEY_FLAGS = ("--key", "--private-key", "--secret")
EPILOG = """environment variables:
  XTUI_CONFIG       the configuration file (default: config.toml in the user config directory; xtui config path)
  XTUI_DATA_DIR     keystores (keys/) and your themes (themes/) (default: the user data directory)
  XTUI_LOG_DIR      the log files (default: the user log directory)
  XTUI_CACHE_DIR    what can be made again (default: the user cache directory)
  XTUI_PROFILE      the profile to start with when --profile is not given
  XTUI_LOG_LEVEL    the log file's level (--log-level overrides it)
  XTUI_MIRROR       paper trading: the exchange whose prices the built-in exchange follows (a profile's mirror)
  XTUI_URL, XTUI_NETWORK, XTUI_ACCOUNT, XTUI_KEYSTORE, XTUI_KEY_ENV, XTUI_THEME, XTUI_SYMBOL, XTUI_READ_ONLY, ...
                    XTUI_<FIELD> sets that field of the selected profile (xtui config show says which did)
  every one of them: docs/reference/environment.md"""

# httpx imports its own command-line client (and with it click and pygments) whenever those happen to be
# installed, as they are here (uvicorn's and rich's): ~20 ms of every start, for a command xtui never runs.
# None in sys.modules makes that one import fail, and httpx goes on as it does where they are not installed.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]


PAPER_WAY_OUT = (
    "paper trading follows that exchange's prices: point a profile's `mirror` or XTUI_MIRROR at one that answers, "
    "or start with --profile local"
)


def _parse_value(text: str) -> Any:
    """``key=value`` values: JSON when they parse as JSON, else the string itself."""
    try:
        return json.loads(text, parse_float=Decimal)
    except ValueError:
        return text


def text_pairs(pairs: Sequence[str]) -> dict[str, str]:
    """``key=value`` arguments as text, by key."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"expected key=value, got {pair!r}")
        out[key] = value
    return out


def parse_pairs(pairs: Sequence[str]) -> dict[str, Any]:
    """/info and /explorer parameters: each value JSON when it parses as JSON, else the string itself."""
    return {key: _parse_value(value) for key, value in text_pairs(pairs).items()}


def action_fields(pairs: Sequence[str]) -> dict[str, Any]:
    """/exchange fields: each value typed as its field needs (``amount=10`` is sent as the decimal string "10")."""
    from tui.api.action_fields import FieldError, typed_fields

    try:
        return typed_fields(text_pairs(pairs))
    except FieldError as exc:
        raise UsageError(str(exc)) from None


def print_json(value: Any) -> None:
    """Indented on a terminal, compact when piped; decimals printed with their exact digits."""
    import msgspec

    raw = msgspec.json.Encoder(decimal_format="number").encode(value)
    if sys.stdout.isatty():
        raw = msgspec.json.format(raw, indent=2)
    sys.stdout.write(raw.decode() + "\n")


def _add_target(p: argparse.ArgumentParser) -> None:
    add_target(p, CALL_TARGET)
    p.add_argument("--dialect", choices=("seed", "sdk"), default="sdk", help="wire dialect (default: sdk)")


MAX_SEED = 2**63 - 1


def _seed(text: str) -> int:
    """A market seed: a whole number from 0 to ``MAX_SEED``, in ASCII digits."""
    if not (text.isascii() and text.isdigit()) or int(text) > MAX_SEED:
        raise argparse.ArgumentTypeError(f"the seed must be a whole number from 0 to {MAX_SEED}, not {text!r}")
    return int(text)


def _add_dashboard(parser: argparse.ArgumentParser) -> None:
    """The flags of the default command: the dashboard."""
    d = parser.add_argument_group(
        "dashboard (no command)",
        "A profile from config.toml (xtui config show) says where to connect and as whom; the flags below "
        "override it. Without --profile: XTUI_PROFILE, else the config's default_profile, else local (the "
        "built-in exchange).",
    )
    d.add_argument(
        "--profile",
        metavar="NAME",
        help="profile to start with: local (the built-in exchange), paper (the built-in exchange following the "
        "production prices, no real orders), testnet, mainnet, or one of yours",
    )
    add_target(d, DASHBOARD_TARGET)
    d.add_argument("--address", metavar="ADDR", help="watch this account (trade for it as an agent with --key-env)")
    d.add_argument("--key-env", metavar="VAR", help="environment variable holding the private key to trade with")
    d.add_argument("--password-env", metavar="VAR", help="environment variable holding the profile's keystore password")
    d.add_argument("--read-only", action="store_true", help="no order entry, cancels, closes or panic; no key loaded")
    d.add_argument(
        "--low-bandwidth",
        action="store_true",
        help="for slow links (under 100 kbit/s): half the redraw budget (2,200 B/s), no depth bars (or low_bandwidth "
        "in the profile)",
    )
    d.add_argument(
        "--theme", help="xtui, xtui-colorblind, xtui-light, xtui-mono or one of yours (default: the profile's, xtui)"
    )
    d.add_argument("--symbol", help="instrument shown first (default: the profile's, BTC-PERP)")
    d.add_argument(
        "--seed",
        type=_seed,
        metavar="N",
        dest="dashboard_seed",  # not the seed of `xtui sim` or `xtui screenshot`
        help="the built-in exchange plays the market and history of seed N again (default: a fresh one)",
    )


def _export_arguments(p: argparse.ArgumentParser) -> None:
    from tui.cli.export import add_export_arguments

    add_export_arguments(p)


def _sim_arguments(p: argparse.ArgumentParser) -> None:
    from tui.sim.options import add_sim_arguments

    add_sim_arguments(p)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="xtui", description="Terminal trading dashboard for the Hotstuff exchange.", epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"xtui {__version__}")
    _add_dashboard(parser)
    sub = parser.add_subparsers(dest="command", parser_class=LazyParser)

    for name, endpoint, fill in (("info", "/info", fill_info), ("explorer", "/explorer", fill_explorer)):
        p = sub.add_parser(name, help=f"call an {endpoint} method and print its JSON", fill=fill)
        p.add_argument("method", help="the method's name (listed below)")
        p.add_argument(
            "params", nargs="*", default=[], metavar="key=value", help="its parameters, each value JSON or text"
        )
        _add_target(p)

    p = sub.add_parser("exchange", help="sign and send an /exchange action", fill=fill_exchange)
    p.add_argument("action", help="the action's name, alias or code (listed below)")
    p.add_argument(
        "params", nargs="*", default=[], metavar="key=value", help="its fields, each value typed as the field needs"
    )
    p.add_argument("--key-env", required=True, metavar="VAR", help="environment variable holding the private key")
    _add_target(p)

    p = sub.add_parser("doctor", help="check an exchange and a profile before trading (read-only, signs nothing)")
    add_doctor_arguments(p)

    help_ = "an account's fills, orders, funding or transfers as CSV or JSON (read-only)"
    sub.add_parser("export", help=help_, fill=_export_arguments)  # their modules load only for these commands
    sub.add_parser("sim", help="run the local exchange (HTTP + WebSocket on loopback)", fill=_sim_arguments)

    p = sub.add_parser("screenshot", help="write SVG screenshots of every screen (built-in exchange, fixed seed)")
    p.add_argument("--out", default="screenshots", help="directory to write to (default: screenshots)")
    p.add_argument("--seed", type=int, default=7, help="seed of the synthetic market (default: 7)")
    p.add_argument("--theme", default="xtui", help="theme to draw in (default: xtui)")

    p = sub.add_parser("bench", help="measure and print the performance figures")
    p.add_argument("--quick", action="store_true", help="fewer iterations (a smoke run)")
    p.add_argument(
        "--only",
        action="append",
        default=[],
        choices=BENCH_GROUPS,
        metavar="GROUP",
        help="only this group of figures (repeatable): " + ", ".join(BENCH_GROUPS),
    )
    add_admin_arguments(parser, sub)
    return parser


def _target(args: argparse.Namespace) -> tuple[str, str, bool]:
    """(base URL, explorer URL, signs for testnet): a bare --url signs for the test network unless the URL is
    the production host or --network says otherwise."""
    from tui.api.endpoints import MAINNET, TESTNET, Endpoints
    from tui.config.launch import signs_for_testnet

    if args.url:
        api = Endpoints.for_base(args.url).api
        return args.url, args.url, signs_for_testnet(api, api != MAINNET.api, args.network)
    if args.testnet or args.mainnet:
        ends = TESTNET if args.testnet else MAINNET
        return ends.api, ends.explorer, signs_for_testnet(ends.api, args.testnet, args.network)
    raise UsageError("no exchange given: pass --url URL (for example what `xtui sim` prints), --testnet or --mainnet")


def _base_url(text: str) -> str:
    from tui.api.endpoints import check_base_url

    try:
        return check_base_url(text)
    except ValueError as exc:
        raise UsageError(f"--url: {exc}") from None


def _check_theme(theme: str) -> None:
    """``--theme`` names one of xtui's themes or the user's (Textual's own are still taken, and not offered)."""
    from tui.cli.theme_names import theme_names

    names = theme_names()
    if theme in names:
        return
    from textual.theme import BUILTIN_THEMES  # only for a name that is none of xtui's: the dashboard loads it next

    if theme not in BUILTIN_THEMES:
        raise UsageError(f"--theme: unknown theme {theme!r} (xtui's: {', '.join(names)})")


def _warn(message: str) -> None:
    sys.stderr.write(f"xtui: warning: {printable(message, lines=True)}\n")
    sys.stderr.flush()


async def _call(args: argparse.Namespace) -> Any:
    from tui.api.http import HttpClient

    base, explorer, testnet = _target(args)
    signer = None
    if args.command == "exchange":
        params = action_fields(args.params)
        signer = _signer_from_env(args.key_env)
    else:
        params = parse_pairs(args.params)
    async with HttpClient(base, explorer_url=explorer, signer=signer, testnet=testnet, dialect=args.dialect) as c:
        c.on_network_mismatch = _warn
        if args.command == "info":
            return await c.info(args.method, **params)
        if args.command == "explorer":
            return await c.explorer(args.method, **params)
        from tui.api import wire

        spec = wire.resolve_action(args.action)
        if spec is None:
            raise UsageError(f"unknown action {args.action!r}; known: {', '.join(sorted(wire.ACTIONS))}")
        try:
            return await c.exchange(spec.name, params)
        except KeyError as exc:
            raise UsageError(str(exc.args[0])) from None


def _signer_from_env(var: str) -> Any:
    from tui.api.signing import Signer, SigningError

    secret = os.environ.get(var)
    if not secret:
        raise StartupError(f"environment variable {var} is not set (it should hold the private key)")
    try:
        signer = Signer(secret)
    except SigningError as exc:
        raise StartupError(f"{var}: {exc}") from None
    from tui.keys import loaded

    return loaded(signer)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # a key on the command line ends up in shell history and `ps`: refused before anything reads it (a usage error)
    for flag in REFUSED_KEY_FLAGS:
        if any(a == flag or a.startswith(flag + "=") for a in argv):
            refused = f"{flag} is refused: use --key-env VAR, naming an environment variable that holds the key"
            sys.stderr.write(usage_line("xtui", refused + ", or a keystore (a key on the command line is kept in shell"
                                        " history and shown by `ps`)"))  # fmt: skip
            return USAGE_EXIT
    if refusal := refuse_key_argv(argv):
        sys.stderr.write(usage_line("xtui", refusal))
        return USAGE_EXIT
    args = build_parser().parse_args(argv)
    if args.command is None and any(KEY_SHAPE.search(a) for a in argv):  # no dashboard flag takes 64 hex digits
        sys.stderr.write(usage_line("xtui", "a private key on the command line is refused: use --key-env VAR or a"
                                    " keystore"))  # fmt: skip
        return USAGE_EXIT
    try:
        if getattr(args, "url", None):  # every command's --url, checked as a profile's url is
            args.url = _base_url(args.url)
        from tui.config.launch import start_logging

        start_logging(getattr(args, "log_level", None), args.command)
        if args.command in ADMIN_COMMANDS:
            return run_admin(args)
        if args.command in ("info", "explorer", "exchange"):
            import asyncio  # not before the dashboard's built-in exchange is spawned (``tui.ui.run``)

            print_json(asyncio.run(_call(args)))
            return 0
        if args.command == "doctor":
            from tui.cli.doctor import run_doctor

            return run_doctor(args)
        if args.command == "export":
            from tui.cli.export import run_export

            return run_export(args)
        if args.command == "sim":
            from tui.sim.options import run_from_args

            return run_from_args(args)
        if args.command == "bench":
            from tui.bench.figures import run_bench

            return run_bench(quick=args.quick, only=args.only)
        if args.command == "screenshot":
            from tui.ui.screenshots import take_screenshots

            for path in take_screenshots(args.out, seed=args.seed, theme=args.theme):
                sys.stdout.write(f"{path}\n")
            return 0
        if args.theme is not None:
            _check_theme(args.theme)
        from tui.ui.run import run_dashboard

        return run_dashboard(
            args.profile,
            url=args.url,
            testnet=args.testnet,
            mainnet=args.mainnet,
            address=args.address,
            key_env=args.key_env,
            read_only=args.read_only,
            theme=args.theme,
            symbol=args.symbol,
            password_env=args.password_env,
            network=args.network,
            low_bandwidth=args.low_bandwidth,
            seed=args.dashboard_seed,
        )
    except UsageError as exc:
        sys.stderr.write(usage_line(" ".join(("xtui", *([args.command] if args.command else []))), str(exc)))
        return USAGE_EXIT
    except StartupError as exc:
        said = str(exc)
        if "cannot mirror " in said:  # what the paper exchange said of its source (its own process: its words)
            said = f"{said} ({PAPER_WAY_OUT})"
        sys.stderr.write(f"xtui: {printable(said, lines=True)}\n")  # it may quote a file or a server
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        from tui.api.errors import ClientError

        if isinstance(exc, ClientError):
            sys.stderr.write(f"xtui: {printable(str(exc), lines=True)}\n")
            return 1
        raise


if __name__ == "__main__":
    raise SystemExit(main())

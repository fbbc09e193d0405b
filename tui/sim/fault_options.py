"""``xtui sim --faults PRESET`` and its single knobs: read and checked here, at the edge, into a ``FaultPlan``.

A bad value is an argparse error (a clear message, exit 2) before anything starts.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from .arguments import checked, whole
from .server.fault_plan import PRESETS, FaultPlan, parse_latency, parse_rate, parse_seconds, plan_from

__all__ = ["add_fault_arguments", "plan_from_args"]

# the single knobs: (option, the FaultPlan field it sets, its parser, metavar, help)
_KNOBS: tuple[tuple[str, str, Callable[[str], object], str, str], ...] = (
    (
        "--http-latency",
        "http",
        parse_latency,
        "MS|LO~HI",
        "delay before each POST /exchange, /info, /explorer: MS, or LO~HI drawn uniformly (ms)",
    ),
    ("--ws-feed-latency", "ws_feed", parse_latency, "MS|LO~HI", "delay of each subscription push"),
    (
        "--ws-ack-latency",
        "ws_ack",
        parse_latency,
        "MS|LO~HI",
        "delay of each answer to a WebSocket request (subscribe, post, ping)",
    ),
    (
        "--refuse-rate",
        "refuse_rate",
        parse_rate,
        "SHARE",
        "share (0 to 1) of /exchange actions refused unapplied, the refusal saying it is an injected fault",
    ),
    (
        "--ws-drop-every",
        "ws_drop_every_s",
        parse_seconds,
        "S",
        "close each WebSocket connection S seconds after it opened (code 1012; 0: never)",
    ),
    (
        "--info-timeout-rate",
        "info_timeout_rate",
        parse_rate,
        "SHARE",
        "share (0 to 1) of /info requests held 30 s unanswered (then a 504 naming the fault)",
    ),
    (
        "--partial-fill-rate",
        "partial_fill_rate",
        parse_rate,
        "SHARE",
        "share (0 to 1) of placeOrder actions whose IOC and market orders fill half (in lots), the rest cancelled",
    ),
)


def add_fault_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(
        "faults on demand (each says so: on the first line and in every answer's X-Xtui-Faults header)"
    )
    g.add_argument(
        "--faults",
        choices=tuple(PRESETS),
        default="none",
        help="a preset: none (default), realistic, thin-book or brutal; the knobs below override its values",
    )
    g.add_argument(
        "--fault-seed", type=whole, default=None, metavar="N", help="seed of the faults' draws (default: --seed's)"
    )
    for option, field, parse, metavar, what in _KNOBS:
        g.add_argument(option, dest=field, type=checked(parse), metavar=metavar, help=what)


def plan_from_args(args: argparse.Namespace) -> FaultPlan:
    given = {field: value for _, field, *_ in _KNOBS if (value := getattr(args, field)) is not None}
    return plan_from(args.faults, args.fault_seed if args.fault_seed is not None else args.seed, **given)

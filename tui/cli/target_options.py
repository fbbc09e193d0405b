"""The options that name an exchange: ``--url | --testnet | --mainnet`` and ``--network``, declared here once for
the dashboard, the one-shot calls (``info``, ``explorer``, ``exchange``), ``xtui doctor`` and ``xtui export``.

Argparse only: the parser is built on every start of ``xtui``, so nothing heavy is imported here.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import NamedTuple, Protocol

__all__ = [
    "CALL_TARGET",
    "CHECK_TARGET",
    "DASHBOARD_TARGET",
    "EXPORT_TARGET",
    "Flags",
    "Options",
    "TargetHelp",
    "add_doctor_arguments",
    "add_target",
]

NETWORKS = ("testnet", "mainnet")


class Flags(Protocol):
    """Where flags go: a parser, an argument group, a mutually exclusive group."""

    @property
    def add_argument(self) -> Callable[..., argparse.Action]: ...


class Options(Flags, Protocol):
    """A parser or an argument group: flags, and groups of flags of which one at most is given."""

    @property
    def add_mutually_exclusive_group(self) -> Callable[..., Flags]: ...


class TargetHelp(NamedTuple):
    """What each target flag says in one command's ``--help``."""

    url: str
    testnet: str
    mainnet: str
    network: str


DASHBOARD_TARGET = TargetHelp(
    url="base URL of an exchange (the WebSocket is URL/ws/)",
    testnet="the public test network",
    mainnet="the production exchange (real money)",
    network="the network to sign for (default: the profile's; testnet with --url; the built-in exchange plays it)",
)
CALL_TARGET = DASHBOARD_TARGET._replace(  # the same networks, named the same way
    url="base URL of the exchange (e.g. the address `xtui sim` prints)",
    network="the network to sign for (default: testnet, or the network of --testnet/--mainnet)",
)
EXPORT_TARGET = TargetHelp(
    url="read the history from the exchange at this base URL",
    testnet="read it from the public test network",
    mainnet="read it from the production exchange",
    network="the network the account is on (default: the profile's)",
)
CHECK_TARGET = TargetHelp(
    url="check the exchange at this base URL (e.g. what `xtui sim` prints)",
    testnet="check the public test network",
    mainnet="check the production exchange",
    network="the network to sign for (default: the profile's)",
)


def add_target(
    options: Options,
    helps: TargetHelp,
    *,
    one_of: Flags | None = None,
) -> None:
    """``--url | --testnet | --mainnet`` (in ``one_of`` when other flags exclude them too, e.g. ``--profile``),
    then ``--network``, on ``options`` (a parser or an argument group)."""
    g = one_of if one_of is not None else options.add_mutually_exclusive_group()
    g.add_argument("--url", help=helps.url)
    g.add_argument("--testnet", action="store_true", help=helps.testnet)
    g.add_argument("--mainnet", action="store_true", help=helps.mainnet)
    options.add_argument("--network", choices=NETWORKS, help=helps.network)


def add_doctor_arguments(p: argparse.ArgumentParser, *, export: bool = False) -> None:
    """An exchange and an account to look at: ``xtui doctor``, and ``xtui export`` (``export``: its words)."""
    verb, what, helps = (
        ("export", "this profile's account", EXPORT_TARGET) if export else ("check", "this profile", CHECK_TARGET)
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument("--profile", metavar="NAME", help=f"{verb} {what} (default: as the dashboard chooses)")
    add_target(p, helps, one_of=g)
    p.add_argument("--dialect", choices=("seed", "sdk"), help="the wire dialect (default: the profile's)")
    whose = "the account whose history to export" if export else "the account to check"
    p.add_argument("--address", metavar="ADDR", help=f"{whose} (with --key-env: the agent's owner)")
    p.add_argument("--key-env", metavar="VAR", help="environment variable holding the key (read for its address)")
    each = "each request" if export else "each check"
    p.add_argument("--timeout", type=float, default=5.0, help=f"seconds {each} may take (default: 5)")

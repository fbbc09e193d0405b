"""The options that name an exchange and an account to look at, shared by ``xtui doctor`` and ``xtui export``.

Argparse only: the parser is built on every start of ``xtui``, so nothing heavy is imported here.
"""

from __future__ import annotations

import argparse

__all__ = ["add_doctor_arguments"]


def add_doctor_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--profile", metavar="NAME", help="check this profile (default: as the dashboard chooses)")
    g.add_argument("--url", help="check the exchange at this base URL (e.g. what `xtui sim` prints)")
    g.add_argument("--testnet", action="store_true", help="check the public test network")
    g.add_argument("--mainnet", action="store_true", help="check the production exchange")
    p.add_argument("--network", choices=("testnet", "mainnet"), help="the network to sign for (default: the profile's)")
    p.add_argument("--dialect", choices=("seed", "sdk"), help="the wire dialect (default: the profile's)")
    p.add_argument("--address", metavar="ADDR", help="the account to check (with --key-env: the agent's owner)")
    p.add_argument("--key-env", metavar="VAR", help="environment variable holding the key (read for its address)")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds each check may take (default: 5)")

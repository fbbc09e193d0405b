"""``xtui sim faucet ADDR --url URL``: fund an address on a running local exchange (``tui.api.faucet``)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from decimal import Decimal

from tui.api.endpoints import check_base_url
from tui.api.errors import ClientError
from tui.api.faucet import FaucetAnswer

from .arguments import checked


def add_faucet_command(sim: argparse.ArgumentParser, amount: Callable[[str], Decimal]) -> None:
    """``faucet`` under ``xtui sim``; ``amount`` parses an amount (the sim's own decimal grammar)."""
    sub = sim.add_subparsers(dest="sim_command", metavar="faucet", title="commands")
    f = sub.add_parser(
        "faucet",
        help="fund ADDRESS on a running xtui sim (POST /faucet; what --faucet explicit requires before trading)",
        description="Fund ADDRESS on the xtui sim at URL: USDC of derivatives collateral and the demo spot balances.",
    )
    f.add_argument("address", metavar="ADDRESS", help="the 0x… address to fund")
    f.add_argument(
        "--url", required=True, type=checked(check_base_url), help="the exchange's base URL, as `xtui sim` printed it"
    )
    f.add_argument("--amount", type=amount, default=None, help="USDC to give (default: the exchange's --faucet-usdc)")
    f.add_argument("--once", action="store_true", help="only if the faucet never funded this address")


def run_faucet(args: argparse.Namespace) -> int:
    """Ask the exchange at ``args.url`` to fund ``args.address``; say what it did, or why not."""
    from tui.api.http import HttpClient

    async def ask() -> FaucetAnswer:
        async with HttpClient(args.url, timeout=10.0) as client:
            return await client.request_funds(args.address, args.amount, once=args.once)

    try:
        answer = asyncio.run(ask())
    except ClientError as exc:
        sys.stderr.write(f"xtui sim faucet: {exc}\n")
        return 1
    if answer.funded:
        sys.stdout.write(f"funded {answer.address} with {answer.amount} USDC: balance {answer.balance} USDC\n")
    else:
        sys.stdout.write(f"{answer.address} was funded before: nothing given (--once); balance {answer.balance} USDC\n")
    return 0

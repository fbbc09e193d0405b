"""``xtui export fills|orders|funding|transfers``: an account's history as CSV or JSON, for spreadsheets and taxes.

Read-only: it signs nothing and needs no key (the account is ``--address``, or the profile's account or
its key's address, read without unlocking it). Exact decimals as the exchange records them, ISO times,
newest first; ``--since`` stops at a date. The built-in exchange starts empty every run, so it is refused:
point export at an exchange (``--url``, ``--testnet``, ``--mainnet`` or a profile with a url).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import io
import sys
from typing import Any

from tui.config.errors import StartupError

__all__ = ["add_export_arguments", "run_export"]


def add_export_arguments(p: argparse.ArgumentParser) -> None:
    from tui.cli.target_options import add_doctor_arguments

    p.add_argument("kind", choices=("fills", "orders", "funding", "transfers"), help="which history")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--csv", action="store_true", help="comma-separated values with a header row (the default)")
    fmt.add_argument("--json", action="store_true", help="a JSON array of objects")
    p.add_argument("--since", metavar="DATE", help="only records from this date (YYYY-MM-DD, UTC) or ISO time on")
    p.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")
    add_doctor_arguments(p)  # --profile | --url | --testnet | --mainnet, --address, --key-env, ...


def run_export(args: argparse.Namespace) -> int:
    from tui.cli.doctor import launch_for, target_for
    from tui.feed.journal import parse_since

    since = None
    if args.since:
        try:
            since = parse_since(args.since)
        except ValueError as exc:
            raise StartupError(str(exc)) from None
    target = target_for(launch_for(args), args.dialect)
    if target.builtin:
        raise StartupError(
            "the built-in exchange starts empty every run: give --url (for example what `xtui sim` prints), "
            "--testnet, --mainnet or a profile with a url"
        )
    if target.account is None:
        raise StartupError("no account: give --address ADDR, or a profile with an account or a key")
    header, rows = asyncio.run(_read(target, args.kind, since))
    text = _json(header, rows) if args.json else _csv(header, rows)
    if args.out:
        with open(args.out, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        sys.stderr.write(f"{len(rows)} {args.kind} record(s) written to {args.out}\n")
    else:
        sys.stdout.write(text)
    return 0


async def _read(target: Any, kind: str, since: Any) -> tuple[list[str], list[list[str]]]:
    from tui.api.client import Client
    from tui.feed.journal import export_rows, read_history

    ends = target.endpoints
    async with Client(ends.api, explorer_url=ends.explorer, testnet=target.testnet, dialect=target.dialect) as c:
        names: dict[int, str] = {}
        if kind == "funding":
            instruments = await c.instruments()
            names = {p.id: p.name for p in instruments.perps}
        records = await read_history(c, target.account, kind, since)
    return export_rows(kind, records, names)


def _csv(header: list[str], rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def _json(header: list[str], rows: list[list[str]]) -> str:
    import json

    return json.dumps([dict(zip(header, row, strict=True)) for row in rows], indent=2) + "\n"

"""The trade journal and ``xtui export``: an account's history, summed by hand and exported as a user runs it."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal

from tests.test_cli import xtui
from tui.api import wire
from tui.api.client import Client
from tui.feed.journal import journal_of, parse_since, read_history
from tui.sim.server.local_exchange import LocalExchange

D = Decimal


async def trade_a_round_trip(alice: Client, bob: Client, sim: LocalExchange) -> None:
    """Alice buys 0.1 BTC at 100,000 from Bob, holds it over a funding hour, sells it at 101,000 to Bob."""
    await bob.place_order([wire.order_item(1, "s", "100000", "0.1")])
    await alice.place_order([wire.order_item(1, "b", "100000", "0.1", tif="IOC")])
    sim.engine.set_index_price(1, "100050")  # a premium, so that funding is not zero
    sim.step(3_600_000)
    await bob.place_order([wire.order_item(1, "b", "101000", "0.1")])
    await alice.place_order([wire.order_item(1, "s", "101000", "0.1", tif="IOC")])


def address(c: Client) -> str:
    assert c.signer is not None
    return c.signer.address


async def test_the_journal_adds_up_by_hand(alice: Client, bob: Client, sim: LocalExchange) -> None:
    await trade_a_round_trip(alice, bob, sim)
    fills = await read_history(alice, address(alice), "fills")
    funding = await read_history(alice, address(alice), "funding")
    assert len(fills) == 2 and len(funding) >= 1
    j = journal_of(fills, funding, {1: "BTC-PERP"})
    btc = j.by_instrument["BTC-PERP"]
    assert btc.realized == D(100)  # (101,000 - 100,000) x 0.1
    assert btc.fees == sum((f.fee for f in fills), D(0)) and btc.fees > 0  # two taker fees
    assert btc.funding == sum((p.funding_payment for p in funding), D(0)) != 0
    assert btc.net == D(100) - btc.fees + btc.funding
    assert btc.volume == D(20100) and btc.fills == 2  # 10,000 + 10,100 of notional
    assert sum((t.net for t in j.by_day.values()), D(0)) == j.total.net == btc.net
    assert list(j.by_day) == sorted(j.by_day)


async def test_export_fills_and_funding_as_csv_and_json(alice: Client, bob: Client, sim: LocalExchange) -> None:
    await trade_a_round_trip(alice, bob, sim)
    who = address(alice)
    rc, out, err = await xtui("export", "fills", "--csv", "--url", sim.url, "--address", who)
    assert rc == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["side"], r["price"], r["size"], r["closed_pnl"]) for r in rows] == [
        ("sell", "101000", "0.1", "100"),
        ("buy", "100000", "0.1", "0"),
    ]  # newest first, exact decimals
    rc, out, err = await xtui("export", "funding", "--json", "--url", sim.url, "--address", who)
    assert rc == 0, err
    [payment] = json.loads(out)
    assert payment["instrument"] == "BTC-PERP" and D(payment["payment"]) != 0 and payment["size"] == "0.1"


async def test_export_since_a_date_and_refusals(alice: Client, bob: Client, sim: LocalExchange) -> None:
    await trade_a_round_trip(alice, bob, sim)
    who = address(alice)
    day = (await read_history(alice, who, "fills"))[0].block_timestamp[:10]
    later = f"{int(day[:4]) + 1}{day[4:]}"
    rc, out, _ = await xtui("export", "orders", "--url", sim.url, "--address", who, "--since", later)
    assert rc == 0 and out.splitlines() == [out.splitlines()[0]]  # the header only: nothing that new
    rc, out, _ = await xtui("export", "orders", "--url", sim.url, "--address", who, "--since", day)
    assert rc == 0 and len(out.splitlines()) == 1 + 2  # the header and her two orders (Bob's are his)
    for args, said in (
        (("--since", "last week"), "--since: 'last week' is not a date"),
        ((), "no account: give --address ADDR"),
    ):
        extra = () if "--since" not in args else ("--address", who)
        rc, out, err = await xtui("export", "fills", "--url", sim.url, *extra, *args)
        assert rc == 1 and out == "" and said in err, err
    rc, _, err = await xtui("export", "trades", "--url", sim.url, "--address", who)
    assert rc == 2 and "invalid choice: 'trades'" in err  # argparse's own refusal


def test_since_reads_dates_and_times() -> None:
    assert parse_since("2026-11-01").isoformat() == "2026-11-01T00:00:00+00:00"
    assert parse_since("2026-11-01T12:30:00Z").isoformat() == "2026-11-01T12:30:00+00:00"


async def test_export_positions_rebuilt_from_the_fills(alice: Client, bob: Client, sim: LocalExchange) -> None:
    """Alice's round trip (long 0.1 from 100,000 to 101,000, over a funding hour), then she sells 0.2 at 102,000
    (a short of 0.1 opens) and is left short: the export has the closed long, realized (101,000 - 100,000) x 0.1
    = 100, its two fees and its funding as the exchange recorded them; the open short is counted on stderr."""
    await trade_a_round_trip(alice, bob, sim)
    await bob.place_order([wire.order_item(1, "b", "102000", "0.1")])
    await alice.place_order([wire.order_item(1, "s", "102000", "0.1", tif="IOC")])
    who = address(alice)
    fills = await read_history(alice, who, "fills")
    funding = await read_history(alice, who, "funding")
    rc, out, err = await xtui("export", "positions", "--json", "--url", sim.url, "--address", who)
    assert rc == 0, err
    [long] = json.loads(out)
    assert (long["instrument"], long["side"], long["size"], long["entry"], long["exit"]) == (
        "BTC-PERP", "long", "0.1", "100000", "101000",
    )  # fmt: skip
    assert long["realized_pnl"] == "100"
    assert D(long["fees"]) == sum((f.fee for f in fills[1:]), D(0)) > 0  # the two fills of the long
    assert D(long["funding"]) == sum((p.funding_payment for p in funding), D(0)) != 0
    assert D(long["net_pnl"]) == D(100) - D(long["fees"]) + D(long["funding"])
    assert long["duration"] == "3600" and long["fills"] == "2"
    assert "1 position(s) still open, not exported (BTC-PERP)" in err
    rc, out, _ = await xtui("export", "positions", "--csv", "--url", sim.url, "--address", who)
    assert rc == 0 and out.splitlines()[0].startswith("instrument,side,size,peak,entry,exit,realized_pnl")

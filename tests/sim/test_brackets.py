"""Brackets on the local exchange: TP/SL sent with an entry (grouping "normal") wait for it to fill, go with it
when it is cancelled unfilled, and TP/SL of a position go once the position is closed."""

from __future__ import annotations

from decimal import Decimal

from tui.api import wire
from tui.api.client import Client
from tui.sim.server.local_exchange import LocalExchange

D = Decimal


def exits(side: str, tp: str, sl: str, grouping: str) -> list[dict[str, object]]:
    """A take-profit and a stop-loss for 0.1 BTC-PERP, reduce-only trigger market orders."""
    return [
        wire.order_item(1, side, "0", "0.1", tif="IOC", reduce_only=True, trigger_px=px, is_market=True, tpsl=kind,  # type: ignore[arg-type]
                        grouping=grouping)  # type: ignore[arg-type]
        for kind, px in (("tp", tp), ("sl", sl))
    ]  # fmt: skip


async def open_of(c: Client) -> list[tuple[str, str]]:
    assert c.signer is not None
    return [(o.tpsl or "entry", o.state) for o in (await c.open_orders(c.signer.address)).data]


async def test_the_children_wait_for_the_entry_and_go_with_it(sim: LocalExchange, alice: Client) -> None:
    entry = wire.order_item(1, "b", "99000", "0.1")
    await alice.place_order([entry, *exits("s", "101000", "98000", "normal")])
    assert sorted(await open_of(alice)) == [("entry", "open"), ("sl", "open"), ("tp", "open")]
    sim.engine.set_index_price(1, "97000")  # past the stop-loss's trigger: it cannot fire, nothing is filled
    sim.step(1000)
    assert sorted(await open_of(alice)) == [("entry", "open"), ("sl", "open"), ("tp", "open")]
    [resting] = [o for o in (await alice.open_orders(alice.signer.address)).data if not o.tpsl]  # type: ignore[union-attr]
    await alice.cancel_by_oid([(resting.order_id, 1)])
    sim.step(1000)
    assert await open_of(alice) == []  # the entry went unfilled: its TP and SL went too


async def test_after_the_fill_the_take_profit_closes_and_the_stop_goes(
    sim: LocalExchange, alice: Client, bob: Client
) -> None:
    await alice.place_order([wire.order_item(1, "b", "100000", "0.1"), *exits("s", "101000", "99000", "normal")])
    await bob.place_order([wire.order_item(1, "s", "100000", "0.1", tif="IOC")])  # fills the entry
    await bob.place_order([wire.order_item(1, "b", "100900", "1")])  # a bid for the take-profit to sell into
    assert sorted(await open_of(alice)) == [("sl", "open"), ("tp", "open")]
    sim.engine.set_index_price(1, "101500")
    await bob.place_order([wire.order_item(1, "s", "101500", "0.0001")])  # an ask at the index: mark follows
    sim.step(1000)
    assert await open_of(alice) == []  # the take-profit sold the position; the stop-loss went with it
    assert alice.signer is not None
    assert [p for p in await alice.positions(alice.signer.address) if p.size] == []


async def test_a_positions_stop_goes_when_the_position_is_closed(
    sim: LocalExchange, alice: Client, bob: Client
) -> None:
    await bob.place_order([wire.order_item(1, "s", "100000", "0.1")])
    await alice.place_order([wire.order_item(1, "b", "100000", "0.1", tif="IOC")])
    await alice.place_order(exits("s", "105000", "95000", "position"))
    sim.step(1000)
    assert sorted(await open_of(alice)) == [("sl", "open"), ("tp", "open")]  # the position is there: they stay
    await bob.place_order([wire.order_item(1, "b", "100000", "0.1")])
    await alice.place_order([wire.order_item(1, "s", "100000", "0.1", tif="IOC", reduce_only=True)])  # closed by hand
    sim.step(1000)
    assert await open_of(alice) == []

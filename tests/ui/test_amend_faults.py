"""Amend under faults: the cancel goes through and the new order's placeOrder is lost on the way (never reaches
the exchange) or its answer is lost (placed, but the client cannot know), through a proxy in front of the local
exchange; and the funds check of an amend counts what the cancelled order frees."""

from __future__ import annotations

from decimal import Decimal

from tests.conftest import ALICE_KEY
from tests.fault_proxy import FaultProxy
from tests.ui.conftest import dashboard, noted, settle
from tui.api.client import Client
from tui.api.models import Order
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.trading import OrderContext, amend_input, freed_by, validate
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.form import FormScreen

ALICE = Signer(ALICE_KEY)
D = Decimal


async def amend_price(pilot: object, app: object, price: str) -> None:
    await pilot.press("4", "e")  # type: ignore[attr-defined]
    await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the amend form")  # type: ignore[attr-defined]
    app.screen.query_one("#field-price").value = price  # type: ignore[attr-defined]
    await pilot.press("enter")  # type: ignore[attr-defined]


async def test_an_amend_whose_new_order_never_arrives_says_so_and_places_it_again_with_y(
    sim: LocalExchange, clock: FrozenClock, proxied: tuple[FaultProxy, Client]
) -> None:
    """Amend 90,000 → 90,500; the cancel goes, the new placeOrder is dropped before the exchange. The exchange's
    record is read (no such order), the trader is told the old order is cancelled and the new one not placed,
    and asked "Place it again?": y places it, once."""
    proxy, client = proxied
    await client.place_order([order_item(1, "b", "90000", "0.01", cloid="mine-1")])
    app = dashboard(client, sim, clock, ALICE)
    async with noted(app, (140, 40)) as (pilot, notes):
        account = app.feed.state.account
        await settle(pilot, lambda: len(account.open_orders) == 1, what="the order")
        proxy.place_fault = "drop"
        await amend_price(pilot, app, "90500")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), timeout_s=20, what="the offer")
        title = str(app.screen.query_one(".title").render())
        assert "was CANCELLED, its replacement was NOT placed. Place it again?" in title
        assert (await client.open_orders(ALICE.address)).data == []  # the old one gone, nothing new yet
        assert any("was cancelled but the new order was not placed" in m for m in notes.messages)
        await pilot.press("y")
        await settle(pilot, lambda: any(m.startswith("amended") for m in notes.messages), what="placed again")
    [new] = (await client.open_orders(ALICE.address)).data
    assert (new.limit_price, new.size, new.cloid) == (D(90500), D("0.01"), "mine-1")


async def test_an_amend_whose_answer_is_lost_is_read_back_and_not_placed_twice(
    sim: LocalExchange, clock: FrozenClock, proxied: tuple[FaultProxy, Client]
) -> None:
    """Amend 90,000 → 90,500; the new placeOrder reaches the exchange but its answer is lost. The amend reads
    the exchange's record by the order's cloid, finds the new order, reports it amended; no offer to place
    again, and one order on the exchange."""
    proxy, client = proxied
    await client.place_order([order_item(1, "b", "90000", "0.01", cloid="mine-2")])
    app = dashboard(client, sim, clock, ALICE)
    async with noted(app, (140, 40)) as (pilot, notes):
        account = app.feed.state.account
        await settle(pilot, lambda: len(account.open_orders) == 1, what="the order")
        [old] = account.open_orders
        proxy.place_fault = "lose_answer"
        await amend_price(pilot, app, "90500")
        await settle(pilot, lambda: any(m.startswith("amended") for m in notes.messages), timeout_s=20, what="amend")
        assert not isinstance(app.screen, ConfirmScreen)  # nothing to place again
    [new] = (await client.open_orders(ALICE.address)).data
    assert (new.limit_price, new.cloid) == (D(90500), "mine-2") and new.order_id > old.order_id
    [said] = [m for m in notes.messages if m.startswith("amended")]
    assert said.startswith(f"amended oid {old.order_id} → oid {new.order_id} (its answer was lost")


def test_the_amend_funds_check_counts_what_the_cancel_frees() -> None:
    """An order worth most of what the account can hold, amended up a little: against the funds as they are
    (the order's own hold still counted) it is refused; with what the cancel frees it passes."""
    ctx = OrderContext(
        instrument_id=1, symbol="BTC-PERP", kind="perp", tick=D(1), lot=D("0.001"), min_notional=D(10),
        max_leverage=D(10), best_bid=D(89_000), best_ask=D(91_000), mark=D(90_000), available=D(1_000),
    )  # fmt: skip
    order = Order(
        order_id=7, instrument_id=1, instrument="BTC-PERP", side="b", position_side="BOTH", limit_price=D(80_000),
        size=D("0.1"), unfilled=D("0.1"), state="open", cloid="", tif="GTC", post_only=False, reduce_only=False,
        user=ALICE.address, trigger_px=D(0), is_market=False, tpsl="", grouping="", timestamp="",
    )  # fmt: skip
    bigger = amend_input(order, "80000", "", "0.15")  # 12,000 of value; 10,000 can be held now, 18,000 once freed
    refused = validate(bigger, ctx)
    assert not refused.ok and "above available" in " ".join(refused.errors.values())
    assert validate(bigger, freed_by(order, ctx)).ok

"""What the desk makes of a check or an answer, without Textual: a plan's faults as the field error a form shows
(``checked``), the order id of a placeOrder answer from the local exchange and in the nestings the exchange may
use, the refusal inside an answer raised, an open order as a person reads it, and the half-done failures' words."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from tests.conftest import ALICE_KEY
from tui.api.client import Client
from tui.api.errors import ActionRejected, ClientError
from tui.api.models import ExchangeResponse
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.trading import OrderContext, OrderInput, validate
from tui.trading.grammar import FieldError
from tui.trading.outcomes import AmendUnsure, checked, describe_order, first_error, placed_oid, why_failed

ALICE = Signer(ALICE_KEY)
BTC = OrderContext(
    instrument_id=1,
    symbol="BTC-PERP",
    kind="perp",
    tick=D("0.1"),
    lot=D("0.0001"),
    min_notional=D(10),
    max_leverage=D(50),
    best_bid=D(99_000),
    best_ask=D(100_000),
    mark=D(99_500),
    available=D(100_000),
)


def test_a_valid_order_is_its_plan_and_a_fault_is_the_field_error() -> None:
    """A good limit order gives its plan; a price off the tick faults the price field; a fault in a field the
    form does not have lands on the form's first field, so it is shown and never lost."""
    plan = checked(validate(OrderInput(side="buy", price="95000", size="0.01"), BTC), ("price", "size"))
    assert plan.to_wire()["price"] == "95000"
    with pytest.raises(FieldError) as off_tick:
        checked(validate(OrderInput(side="buy", price="95000.05", size="0.01"), BTC), ("price", "size"))
    assert off_tick.value.field == "price" and "tick" in off_tick.value.message
    elsewhere = first_error({"leverage": "above the cap"}, ("size", "price"))
    assert (elsewhere.field, elsewhere.message) == ("size", "above the cap")
    assert first_error({}, ("size",)).message == "cannot be sent"


async def test_the_oid_of_a_real_answer_is_the_resting_order(alice: Client) -> None:
    """Alice rests a bid on the local exchange: the oid read from the answer is the open order's, and that order
    reads as a person says it."""
    resp = await alice.place_order([order_item(1, "b", 95_000, "0.01", reduce_only=False)])
    oid = placed_oid(resp)
    orders = (await alice.open_orders(ALICE.address)).data
    mine = next(o for o in orders if str(o.order_id) == oid)
    assert describe_order(mine) == f"BUY 0.01 {mine.instrument} @ 95,000 (GTC)"


def test_the_oid_however_the_exchange_nests_it() -> None:
    """``statuses``, ``status`` or the data itself, the oid at the top or inside ``resting``/``filled``; a status
    that is an error raises the exchange's refusal with the transaction hash; no oid at all is '?'."""
    shapes = [
        {"statuses": [{"oid": 7}]},
        {"status": {"order_id": 7}},
        {"statuses": [{"resting": {"oid": 7}}]},
        {"statuses": [{"filled": {"oid": 7, "totalSz": "1"}}]},
        [{"oid": 7}],
    ]
    for data in shapes:
        assert placed_oid(ExchangeResponse(tx_hash="0xab", data=data)) == "7", data
    with pytest.raises(ActionRejected) as refused:
        placed_oid(ExchangeResponse(tx_hash="0xab", data={"statuses": [{"error": "post-only would cross"}]}))
    assert refused.value.message == "post-only would cross" and refused.value.tx_hash == "0xab"
    assert placed_oid(ExchangeResponse(tx_hash="0xab", data={"statuses": ["waiting"]})) == "?"


def test_the_failures_say_what_happened_to_the_old_order() -> None:
    """A refusal reads as 'rejected: ...', anything else as itself; an amend stopped half way says whether the
    old order is cancelled and whether the new one may be there."""
    refused = ActionRejected("insufficient margin", {})
    lost = ClientError("timed out")
    assert why_failed(refused) == "rejected: insufficient margin" and why_failed(lost) == "timed out"
    assert str(AmendUnsure(5, lost)).startswith("the cancel of oid 5 did not answer (timed out): nothing was placed")
    assert "new order was not placed (rejected: insufficient margin)" in str(AmendUnsure(5, refused, cancelled=True))
    assert "whether the new order was placed is unknown" in str(AmendUnsure(5, lost, cancelled=True, unknown=True))

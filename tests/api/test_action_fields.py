"""Typing an action's fields from text (the command line's key=value): each value becomes what its field holds."""

from __future__ import annotations

import pytest

from tui.api.action_fields import FieldError, typed_fields


def test_values_take_the_type_of_their_field() -> None:
    fields = typed_fields(
        {"collateralId": "1", "amount": "10", "toDerivativesAccount": "false", "vaultAddress": "0xAbC", "code": "007"}
    )
    assert fields == {
        "collateralId": 1,  # an integer on the wire
        "amount": "10",  # a decimal string on the wire, though typed as a bare number
        "toDerivativesAccount": False,
        "vaultAddress": "0xAbC",  # text stays as typed
        "code": "007",  # a referral code that looks like a number is still text
    }
    assert typed_fields({"amount": "0.250"}) == {"amount": "0.25"}
    assert typed_fields({"noSuchField": "1"}) == {"noSuchField": "1"}  # left for the action to refuse by name


def test_json_fields_are_typed_inside_too() -> None:
    orders = '[{"instrumentId": 1, "side": "b", "price": 95000, "size": "0.01", "tif": "GTC", "ro": false}]'
    fields = typed_fields({"orders": orders, "cancels": '[{"oid": 7, "instrumentId": 1}]'})
    assert fields["orders"] == [
        {"instrumentId": 1, "side": "b", "price": "95000", "size": "0.01", "tif": "GTC", "ro": False}
    ]
    assert fields["cancels"] == [{"oid": 7, "instrumentId": 1}]
    assert typed_fields({"orders": '[{"price": "", "triggerPx": ""}]'})["orders"] == [{"price": "", "triggerPx": ""}]


@pytest.mark.parametrize(
    ("field", "text", "why"),
    [
        ("collateralId", "1.5", "collateralId: a whole number"),  # a fraction where a whole number goes
        ("collateralId", "-1", "collateralId: a whole number"),  # a sign
        ("spot", "yes", "spot: true or false"),  # not a JSON boolean
        ("amount", "ten", "amount: a decimal number"),  # not a number at all
        ("orders", "[{", "orders: not valid JSON"),
        ("orders", '[{"instrumentId": 1.5}]', "orders[0].instrumentId: a whole number"),
        ("orders", '[{"size": "lots"}]', "orders[0].size: a decimal number"),
    ],
)
def test_a_value_that_does_not_fit_its_field_is_refused_by_name(field: str, text: str, why: str) -> None:
    with pytest.raises(FieldError, match=why.replace("[", r"\[").replace("]", r"\]")):
        typed_fields({field: text})


def test_the_command_line_reads_numbers_in_the_one_grammar() -> None:
    for text in ("1e5", "+1", "1 ", "１", "-2", "1,000"):
        with pytest.raises(FieldError, match="plain: no sign, exponent or spaces"):
            typed_fields({"amount": text})
    assert typed_fields({"amount": "1000.5"})["amount"] == "1000.5"

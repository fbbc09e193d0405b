"""Action building: field order, dialects, names and codes."""

from decimal import Decimal

import pytest

from tui.api import wire

SEED_ACTIONS = {
    "placeOrder": ("placeOrder", 1301),
    "cancelByOid": ("cancelByOid", 1302),
    "cancelByCloid": ("cancelByCloid", 1303),
    "cancelByInstrument": ("cancelByInstrument", 1313),
    "derivativeWithdrawRequest": ("derivativeWithdrawRequest", 1003),
    "derivativeBalanceTransferRequest": ("derivativeBalanceTransferRequest", 1052),
    "depositToVault": ("1401", 1401),
}
SDK_CODES = {
    "addAgent": 1201,
    "revokeAgent": 1211,
    "updatePerpInstrumentLeverage": 1203,
    "approveBrokerFee": 1207,
    "createReferralCode": 1208,
    "setReferrer": 1209,
    "claimReferralRewards": 1210,
    "placeOrder": 1301,
    "cancelByOid": 1302,
    "cancelAll": 1311,
    "cancelByCloid": 1312,
    "cancelByInstrument": 1313,
    "spotWithdrawRequest": 1002,
    "derivativeWithdrawRequest": 1003,
    "spotBalanceTransferRequest": 1051,
    "derivativeBalanceTransferRequest": 1052,
    "internalBalanceTransferRequest": 1053,
    "depositToVault": 1401,
    "redeemFromVault": 1402,
}


@pytest.mark.parametrize(("name", "expected"), SEED_ACTIONS.items())
def test_seed_dialect_uses_the_interface_names(name: str, expected: tuple[str, int]) -> None:
    assert (wire.action_type(name, "seed"), wire.tx_type(name, "seed")) == expected


@pytest.mark.parametrize(("name", "code"), SDK_CODES.items())
def test_sdk_dialect_uses_numeric_codes(name: str, code: int) -> None:
    assert wire.action_type(name, "sdk") == str(code)
    assert wire.tx_type(name, "sdk") == code


def test_every_action_is_covered() -> None:
    assert set(SDK_CODES) == set(wire.ACTIONS)


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("placeOrder", "placeOrder"),
        ("1301", "placeOrder"),
        ("1303", "cancelByCloid"),
        ("1312", "cancelByCloid"),
        ("accountDerivativeWithdrawRequest", "derivativeWithdrawRequest"),
        ("1401", "depositToVault"),
        ("CANCELALL", "cancelAll"),
    ],
)
def test_resolve_accepts_every_spelling(spelling: str, name: str) -> None:
    spec = wire.resolve_action(spelling)
    assert spec is not None and spec.name == name


def test_resolve_unknown() -> None:
    assert wire.resolve_action("transferEverything") is None
    assert wire.resolve_action("9999") is None


def test_action_data_orders_fields_and_puts_nonce_last() -> None:
    data = wire.action_data(
        "addAgent",
        {"validUntil": 5, "agent": "0xA", "signature": "0xS", "forAccount": "", "agentName": "bot"},
        42,
    )
    assert list(data) == ["agentName", "agent", "forAccount", "signature", "validUntil", "nonce"]
    assert data["nonce"] == 42


def test_action_data_optional_and_missing_and_unknown() -> None:
    data = wire.action_data("placeOrder", {"orders": [], "expiresAfter": 1}, 2)
    assert list(data) == ["orders", "expiresAfter", "nonce"]  # brokerConfig left out
    with pytest.raises(KeyError, match="instrumentId"):
        wire.action_data("cancelByInstrument", {"expiresAfter": 1}, 2)
    with pytest.raises(KeyError, match="colour"):
        wire.action_data("cancelAll", {"expiresAfter": 1, "colour": "red"}, 2)


def test_order_item_field_order_and_decimals() -> None:
    item = wire.order_item(1, "b", Decimal("65000.50"), "0.0100", cloid="c1", trigger_px=None)
    assert tuple(item) == wire.ORDER_FIELDS
    assert item["price"] == "65000.5" and item["size"] == "0.01" and item["triggerPx"] == ""
    assert wire.order_item(1, "s", 1, 2, trigger_px=Decimal("1E+3"))["triggerPx"] == "1000"
    with pytest.raises(ValueError):
        wire.order_item(0, "b", 1, 1)
    with pytest.raises(ValueError):
        wire.order_item(1, "x", 1, 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        wire.order_item(1, "b", "NaN", 1)


def test_build_body_shape() -> None:
    data = wire.action_data("depositToVault", {"vaultAddress": "0xV", "amount": "10"}, 7)
    body = wire.build_body("depositToVault", data, "0xsig", "seed")
    assert body == {"action": {"data": data, "type": "1401"}, "signature": "0xsig", "nonce": 7}

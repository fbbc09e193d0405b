"""Every exchange action of the SDK takes effect on ``xtui sim``, over HTTP and over the WebSocket, signing
for either network; a refused one raises over the socket and is an envelope that says why over HTTP."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest

COMBOS = [(network, transport) for network in ("testnet", "mainnet") for transport in ("http", "ws")]
TX_TYPES = {
    "leverage": 1203, "add_agent": 1201, "approve_broker_fee": 1207, "create_referral_code": 1208,
    "set_referrer": 1209, "place_order": 1301, "cancel_by_oid": 1302, "place_order.cloid": 1301,
    "cancel_by_cloid": 1312, "place_order.two": 1301, "cancel_by_instrument": 1313, "place_order.broker": 1301,
    "cancel_all": 1311, "trade.maker": 1301, "trade.taker": 1301, "claim_referral_rewards": 1210,
    "internal_transfer": 1053, "spot_transfer": 1051, "derivative_transfer": 1052, "spot_withdraw": 1002,
    "derivative_withdraw": 1003, "deposit_to_vault": 1401, "redeem_from_vault": 1402, "revoke_agent": 1211,
}  # fmt: skip


def D(x: Any) -> Decimal:
    return Decimal(str(x))


@pytest.mark.parametrize(("network", "transport"), COMBOS)
def test_every_action_takes_effect_and_a_refused_one_says_so(
    sim_url: Callable[[str], str], drive: Callable[..., dict[str, Any]], network: str, transport: str
) -> None:
    r = drive("drive_actions.py", sim_url(network), transport, network)
    failed = {k: v["error"] for k, v in r.items() if not v["ok"] and not k.startswith("refused.")}
    assert failed == {}
    assert_effects({k: x["value"] for k, x in r.items() if x["ok"]})
    assert_refusals(r, transport)


def assert_effects(v: dict[str, Any]) -> None:
    addr, me = v["addresses"], v["addresses"]["main"]
    owners = {"set_referrer": addr["other"], "trade.taker": addr["other"]}
    for name, tx_type in TX_TYPES.items():
        envelope = v[name]
        assert (envelope["tx_type"], envelope["address"]) == (tx_type, owners.get(name, me)), name
        assert envelope["tx_hash"].startswith("0x") and envelope.get("error", "") == "", name
        assert envelope.get("success", True) is True, name

    assert v["leverage.after"]["leverage"] == "10"
    assert [(a["agent_address"], a["agent_name"]) for a in v["add_agent.after"]] == [(addr["agent"], "compat-agent")]
    assert [(b["broker"], b["max_fee_rate"]) for b in v["approve_broker_fee.after"]["data"]] == [(addr["dest"], "0.01")]
    assert v["create_referral_code.after"]["codes"] == [v["referral_code"]]
    assert v["set_referrer.after"]["referrer"] == me

    oid = v["place_order"]["data"]["status"]["oid"]
    assert v["place_order.open"] == [oid] and v["cancel_by_oid.open"] == []
    assert v["cancel_by_cloid.open"] == []
    assert v["cancel_by_instrument"]["data"]["orders_cancelled"] == 2 and v["cancel_by_instrument.open"] == []
    assert len(v["place_order.broker.open"]) == 1 and v["cancel_all.open"] == []
    assert [(f["side"], f["size"]) for f in v["trade.fills"]] == [("s", "0.01")]
    assert [p["size"] for p in v["trade.positions"]] == ["-0.01"]
    claimed = v["claim_referral_rewards.after"]
    assert D(claimed["claimed_perp_rewards"]) > 0 and D(claimed["to_claim_perp_rewards"]) == 0

    def moved(name: str, wallet: str) -> Decimal:
        m = v[f"{name}.moved"]
        return D(m["after"][wallet]) - D(m["before"][wallet])

    assert (moved("internal_transfer", "derivative"), moved("internal_transfer", "spot")) == (-100, 100)
    assert moved("spot_transfer", "spot") == -10 and D(v["spot_transfer.moved"]["dest"]["spot"]) == 10
    assert moved("derivative_transfer", "derivative") == -20
    assert D(v["derivative_transfer.moved"]["dest"]["derivative"]) == 20
    assert moved("spot_withdraw", "spot") <= -5 and moved("derivative_withdraw", "derivative") <= -5
    for name in ("spot_withdraw", "derivative_withdraw"):
        assert set(v[name]["data"]) == {"nonce"} and v[name]["data"]["nonce"].isdigit()
    assert {t["type"] for t in v["transfer_history"]} >= {"derivative_withdraw", "spot_withdraw"}

    assert v["deposit_to_vault"]["data"] == {"shares_minted": "100"}
    assert (v["deposit_to_vault.after"]["shares"], v["redeem_from_vault.after"]["shares"]) == ("100", "99")
    assert v["revoke_agent.after"] == []


def assert_refusals(r: dict[str, Any], transport: str) -> None:
    """A refused action raises over the socket; over HTTP the SDK returns the envelope, which says why."""
    me, agent = r["addresses"]["value"]["main"], r["addresses"]["value"]["agent"]
    cancel, claim, revoked = r["refused.cancel_by_oid"], r["refused.claim"], r["refused.revoked_agent"]
    said = f"agent {agent} ('compat-agent') of account {me} was revoked"
    if transport == "ws":  # the SDK raises a JSON-RPC error
        assert not cancel["ok"] and "JSON-RPC Error 422: order 987654321 is not an open order" in cancel["error"]
        assert not claim["ok"] and "JSON-RPC Error 422: no spot referral rewards" in claim["error"]
        assert not revoked["ok"] and f"JSON-RPC Error 422: {said}" in revoked["error"]
    else:  # the SDK returns the envelope (HTTP 200): what was refused, whose, and why
        assert cancel["value"] == {
            "tx_hash": "", "tx_type": 1302, "error": "order 987654321 is not an open order", "success": False,
            "data": {}, "address": me,
        }  # fmt: skip
        assert (claim["value"]["tx_type"], claim["value"]["address"]) == (1210, me)
        assert claim["value"]["error"].startswith("no spot referral rewards")
        assert (revoked["value"]["tx_type"], revoked["value"]["address"]) == (1311, me)
        assert revoked["value"]["error"].startswith(said) and revoked["value"]["tx_hash"] == ""

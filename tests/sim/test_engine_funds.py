"""Money movement, vaults, referrals, agents, the chain, candles and events."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from tui.sim.engine import Rejected

from .engine_support import (
    ALICE,
    BOB,
    BTC,
    BTC_TOKEN,
    CAROL,
    DAVE,
    ETH,
    USDC,
    USDT,
    D,
    assert_conserved,
    make,
    order,
    usdc,
)


# ---------------------------------------------------------------------------------------------- transfers
def test_derivative_transfer_checks_withdrawable_and_creates_the_destination() -> None:
    ex, _ = make(None, ALICE)
    ex.place_order(ALICE, order(BTC, "b", "99000", "9"))  # 89100 of initial margin in use
    with pytest.raises(Rejected, match="insufficient transferable USDC: 20000 requested, 10900 available"):
        ex.transfer_derivative(ALICE, USDC, "20000", DAVE)
    with pytest.raises(Rejected, match="another account"):
        ex.transfer_derivative(ALICE, USDC, "1", ALICE.upper().replace("0X", "0x"))
    with pytest.raises(Rejected, match="not an address"):
        ex.transfer_derivative(ALICE, USDC, "1", "0x1234")
    with pytest.raises(Rejected, match="more than 6 decimals"):
        ex.transfer_derivative(ALICE, USDC, "1.0000001", DAVE)
    r = ex.transfer_derivative(ALICE, USDC, "10000", DAVE)
    assert r.data == {} and r.tx_type == 1052
    assert usdc(ex, DAVE) == D(10000) and usdc(ex, ALICE) == D(90000)
    assert not ex.accounts[DAVE.lower()].fauceted
    (rec,) = ex.transfer_history(DAVE)
    assert rec["type"] == "derivative_balance_transfer" and rec["tx_hash"] == r.tx_hash
    assert rec["from"].lower() == ALICE.lower() and rec["to"].lower() == DAVE.lower() and rec["amount"] == "10000"
    assert ex.transfer_history(ALICE) == [rec]
    ex.ensure_account(DAVE)  # the faucet still comes on Dave's first signed action
    assert usdc(ex, DAVE) == D(110000)
    assert_conserved(ex)


def test_spot_and_internal_transfers() -> None:
    ex, _ = make(None, ALICE)
    ex.transfer_spot(ALICE, BTC_TOKEN, "0.05", BOB)
    assert ex.accounts[BOB.lower()].spot[BTC_TOKEN] == D("0.05")
    with pytest.raises(Rejected, match="not derivatives collateral"):
        ex.transfer_internal(ALICE, BTC_TOKEN, "0.01", True)
    ex.transfer_internal(ALICE, USDC, "4000", True)
    alice = ex.accounts[ALICE.lower()]
    assert alice.spot[USDC] == D(6000) and alice.balances[USDC] == D(104000)
    ex.transfer_internal(ALICE, USDC, "104000", False)
    assert alice.balances[USDC] == 0 and alice.spot[USDC] == D(110000)
    with pytest.raises(Rejected, match="insufficient spot USDC"):
        ex.transfer_internal(ALICE, USDC, "110001", True)
    kinds = [t["type"] for t in ex.transfer_history(ALICE)]
    assert kinds == ["internal_balance_transfer", "internal_balance_transfer", "spot_balance_transfer"]
    assert_conserved(ex)


def test_withdrawals() -> None:
    ex, _ = make(None, ALICE)
    with pytest.raises(Rejected, match="cannot be withdrawn to chain 5"):
        ex.withdraw_derivative(ALICE, USDC, "10", 5)
    r = ex.withdraw_derivative(ALICE, USDC, "1000", 42161, nonce=1767225600000)
    assert r.data == {"nonce": "1767225600000"}
    assert usdc(ex, ALICE) == D(100000) - D(1000) - D(1)  # 1 USDC withdrawal fee
    assert ex.withdrawn[USDC] == D(1000)
    with pytest.raises(Rejected, match="insufficient withdrawable USDC"):
        ex.withdraw_derivative(ALICE, USDC, "98999", 1)
    ex.withdraw_spot(ALICE, BTC_TOKEN, "0.1", 1)
    assert ex.accounts[ALICE.lower()].spot[BTC_TOKEN] == 0
    assert [t["type"] for t in ex.transfer_history(ALICE)] == ["spot_withdraw", "derivative_withdraw"]
    assert_conserved(ex)


def test_usdt_collateral_is_weighted() -> None:
    ex, _ = make(None, ALICE)
    ex.deposit(ALICE, USDT, "1000")
    s = ex.account_summary(ALICE)
    assert s["margin_balance"] == D(100980)  # 1000 USDT at weight 0.98
    assert s["collateral"]["USDT"] == {"balance": D(1000), "withdrawable_balance": D(1000)}


# ---------------------------------------------------------------------------------------------- vaults
def test_vault_deposit_lock_and_redeem() -> None:
    ex, clock = make(None, ALICE)
    xlv, momo = (v["vault_address"] for v in ex.vault_list()["vaults"])
    r = ex.vault_deposit(ALICE, xlv, "1000")
    assert r.data == {"shares_minted": "1000"}
    bal = ex.account_summary(ALICE)["vault_balances"][xlv]
    assert bal == {"withdrawable_shares": 0, "total_shares": D(1000), "amount": D(1000)}
    with pytest.raises(Rejected, match="only 0 shares are unlocked"):
        ex.vault_redeem(ALICE, xlv, "10")
    clock.advance(86_400_000)
    ex.vault_redeem(ALICE, xlv, "400")
    assert usdc(ex, ALICE) == D(99400)
    assert ex.vault_balance(xlv, ALICE)["shares"] == "600"
    assert len(ex.vault_balance(xlv)) == 2  # manager and Alice
    assert [t["type"] for t in ex.transfer_history(ALICE)] == ["vault_withdraw", "vault_deposit"]
    assert len(ex.sub_vaults(xlv)) == 2 and ex.sub_vaults(momo) == []
    with pytest.raises(Rejected, match="cap"):
        ex.deposit(ALICE, USDC, "2000000")
        ex.vault_deposit(ALICE, momo, "800000")
    assert_conserved(ex)


def test_a_vault_deposit_moves_equity_and_does_not_spend_it() -> None:
    """Alice deposits 1,000 USDC in a vault: her total equity is what it was (1,000 less in derivatives, 1,000
    more in the vault); when the vault's equity grows, so does hers."""
    ex, _ = make(None, ALICE, BOB)
    xlv = ex.vault_list()["vaults"][0]["vault_address"]
    before = ex.account_summary(ALICE)
    ex.vault_deposit(ALICE, xlv, "1000")
    after = ex.account_summary(ALICE)
    assert after["derivative_account_equity"] == before["derivative_account_equity"] - 1000
    assert after["total_account_equity"] == before["total_account_equity"]
    ex.transfer_derivative(BOB, USDC, "10000", xlv)  # a gift to the vault: its shares are worth more
    assert ex.account_summary(ALICE)["total_account_equity"] > before["total_account_equity"]


def test_vault_shares_follow_the_vault_equity() -> None:
    ex, _ = make(None, ALICE, BOB)
    xlv = ex.vault_list()["vaults"][0]["vault_address"]
    ex.transfer_derivative(BOB, USDC, "10000", xlv)  # a gift: equity 1,010,000 for 1,000,000 shares
    r = ex.vault_deposit(ALICE, xlv, "1010")
    assert r.data == {"shares_minted": "1000"}


# ---------------------------------------------------------------------------------------------- referrals
def test_referral_codes_commission_and_claim() -> None:
    ex, _ = make(None, ALICE, BOB, CAROL)
    with pytest.raises(Rejected, match="3-20 letters"):
        ex.create_referral_code(ALICE, "a!")
    ex.create_referral_code(ALICE, "alpha")
    with pytest.raises(Rejected, match="taken"):
        ex.create_referral_code(BOB, "ALPHA")
    with pytest.raises(Rejected, match="your own"):
        ex.set_referrer(ALICE, "alpha")
    with pytest.raises(Rejected, match="unknown referral code"):
        ex.set_referrer(BOB, "beta")
    ex.set_referrer(BOB, "Alpha")
    with pytest.raises(Rejected, match="already set"):
        ex.set_referrer(BOB, "alpha")
    ex.place_order(CAROL, order(ETH, "s", "3500", "10"))
    ex.place_order(BOB, order(ETH, "b", "3500", "10"))  # taker fee 17.5, 4% discount -> 16.8
    assert ex.fills(BOB)["data"][0]["fee"] == "16.8"
    summary = ex.referral_summary(ALICE)
    assert summary["to_claim_perp_rewards"] == D("1.68")  # 10% commission
    (user,) = summary["referred_users"].values()
    assert user["code"] == "alpha" and user["perp_volume"]["taker_volume"] == D(35000)
    assert summary["referral_tier"] == {
        "total_referred_volume": 0,
        "fee_discount_rate": D("0.04"),
        "referrer_commission": D("0.10"),
    }
    assert ex.referral_summary(BOB)["referrer"].lower() == ALICE.lower()
    info = ex.account_info(ALICE)
    assert info["rewards"][0]["ClaimAmount"] == "1.68" and info["history"] == []
    with pytest.raises(Rejected, match="no spot referral rewards"):
        ex.claim_referral_rewards(ALICE, USDC, True)
    before = usdc(ex, ALICE)
    ex.claim_referral_rewards(ALICE, USDC, False)
    assert usdc(ex, ALICE) - before == D("1.68")
    info = ex.account_info(ALICE, None, True)
    assert info["rewards"] == [] and info["history"][0]["Amount"] == "1.68"
    assert ex.referral_summary(ALICE)["claimed_perp_rewards"] == D("1.68")
    assert ex.user_fees(BOB)["perp_taker_fee_rate"] == D("0.00048")
    assert_conserved(ex)


# ---------------------------------------------------------------------------------------------- agents
def test_agents_add_expire_and_revoke() -> None:
    ex, clock = make(None, ALICE, BOB)
    events: list[Any] = []
    ex.add_listener(lambda ch, key, p: events.append((key, p["status"])) if ch == "agent" else None)
    now = clock.now_ms()
    agent = "0x" + "7" * 40
    with pytest.raises(Rejected, match="in the past"):
        ex.add_agent(ALICE, "bot", agent, now)
    ex.add_agent(ALICE, "bot", agent, now + 60_000)
    with pytest.raises(Rejected, match="already an agent of another account"):
        ex.add_agent(BOB, "bot", agent, now + 60_000)
    assert ex.owner_of(agent.upper().replace("0X", "0x")) == ALICE.lower()
    (rec,) = ex.all_agents(ALICE)
    assert rec["agent_name"] == "bot" and rec["valid_until_timestamp"] == now + 60_000
    assert ex.owner_of(agent, now + 60_000) is None
    clock.advance(60_000)
    ex.tick()
    assert ex.all_agents(ALICE) == [] and events[-1] == (ALICE.lower(), "expired")
    ex.add_agent(BOB, "other", agent, clock.now_ms() + 1000)
    ex.revoke_agent(BOB, agent)
    assert ex.owner_of(agent) is None and events[-1] == (BOB.lower(), "revoked")
    with pytest.raises(Rejected, match="is not an agent"):
        ex.revoke_agent(BOB, agent)


# ---------------------------------------------------------------------------------------------- chain
def test_transactions_and_blocks() -> None:
    ex, clock = make(None, ALICE, BOB)
    r1 = ex.place_order(ALICE, order(BTC, "s", "100000", "1"))
    r2 = ex.place_order(BOB, order(BTC, "b", "100000", "1"))
    failed = ex.record_tx(BOB, 1301, False)
    assert ex.transaction(r1.tx_hash)["block_height"] == 0  # pending
    clock.advance(1000)
    block = ex.produce_block()
    assert (block["block_height"], block["tx_count"], block["timestamp"]) == (1, 3, clock.now_ms())
    detail = ex.block(block_height=1)
    assert [t["tx_hash"] for t in detail["transactions"]] == [r1.tx_hash, r2.tx_hash, failed]
    assert ex.block(block_hash=block["block_hash"])["block_height"] == 1
    assert detail["parent_hash"] == ex.block(block_height=0)["block_hash"]
    tx = ex.transaction(r2.tx_hash)
    assert (tx["block_height"], tx["tx_type"], tx["success"], tx["account"].lower()) == (1, 1301, True, BOB.lower())
    assert ex.transaction(failed)["success"] is False
    assert ex.fills(BOB)["data"][0]["tx_hash"] == r2.tx_hash
    assert ex.trades("BTC-PERP")[0]["tx_hash"] == r2.tx_hash
    ex.produce_block()
    blocks = ex.blocks(0, 10)
    assert [b["block_height"] for b in blocks["blocks"]] == [2, 1, 0] and blocks["total"] == 3
    mine = ex.transactions(0, 10, account=BOB)
    assert mine["total"] == 2 and mine["transactions"][0]["tx_hash"] == failed
    assert ex.transactions(0, 10, tx_type=1301)["total"] == 3
    assert ex.transactions(1, 1)["transactions"][0]["tx_hash"] == r2.tx_hash
    with pytest.raises(Rejected, match="not found"):
        ex.transaction("0x" + "0" * 64)
    assert len(r1.tx_hash) == 66 and r1.tx_hash != r2.tx_hash


def test_rejected_action_records_nothing() -> None:
    ex, _ = make(None, ALICE)
    with pytest.raises(Rejected):
        ex.transfer_derivative(ALICE, USDC, "1000000", BOB)
    assert ex.chain.pending == [] and BOB.lower() not in ex.accounts


# ---------------------------------------------------------------------------------------------- candles
def test_candles_for_every_resolution() -> None:
    ex, clock = make(None, ALICE, BOB)
    t0 = clock.now_ms()
    for _minute, price in enumerate(("100000", "100500", "99500", "100200")):
        ex.place_order(ALICE, order(BTC, "s", price, "0.1"))
        ex.place_order(BOB, order(BTC, "b", price, "0.1"))
        clock.advance(60_000)
        ex.tick()
    one = ex.chart(BTC, "ltp", "1", t0, clock.now_ms())
    assert [(c["open"], c["close"], c["volume"]) for c in one[:4]] == [
        (D(100000), D(100000), D("0.1")),
        (D(100500), D(100500), D("0.1")),
        (D(99500), D(99500), D("0.1")),
        (D(100200), D(100200), D("0.1")),
    ]
    five = ex.chart(BTC, "ltp", "5", t0, clock.now_ms())
    assert len(five) == 1
    c = five[0]
    assert (c["time"], c["open"], c["high"], c["low"], c["close"]) == (t0, D(100000), D(100500), D(99500), D(100200))
    assert c["volume"] == D("0.4")
    week = ex.chart(BTC, "ltp", "1W", t0 // 1000, clock.now_ms() // 1000)  # seconds work too
    assert week[0]["high"] == D(100500) and week[0]["time"] <= t0
    mark = ex.chart(BTC, "mark", "60", t0, clock.now_ms())
    assert mark[0]["open"] == D(100000)
    with pytest.raises(Rejected, match="resolution"):
        ex.chart(BTC, "ltp", "2", t0, clock.now_ms())


# ---------------------------------------------------------------------------------------------- events
def test_orderbook_events_carry_absolute_sizes_and_sequence_numbers() -> None:
    ex, _ = make(None, ALICE, BOB)
    got: list[tuple[str, str, Any]] = []
    ex.add_listener(lambda ch, key, p: got.append((ch, key, p)))
    snap = ex.orderbook_snapshot("BTC-PERP")
    assert snap["update_type"] == "snapshot" and snap["books"]["sequence_number"] == 0
    ex.place_order(ALICE, order(BTC, "s", "100100", "1"))
    ex.place_order(ALICE, order(BTC, "s", "100100", "2"))
    ex.place_order(ALICE, order(BTC, "b", "99900", "1"))
    ex.flush_events()
    (upd,) = [p for ch, _, p in got if ch == "orderbook"]
    assert upd["books"]["sequence_number"] == 1
    assert upd["books"]["asks"] == [{"price": D("100100.0"), "size": D(3)}]
    assert upd["books"]["bids"] == [{"price": D("99900"), "size": D(1)}]
    got.clear()
    ex.place_order(BOB, order(BTC, "b", "100100", "3"))  # takes the whole level
    ex.flush_events()
    channels = {ch for ch, _, _ in got}
    assert {
        "orderbook",
        "bbo",
        "mids",
        "ticker",
        "trades",
        "fills",
        "orders",
        "position",
        "account_summary",
        "chart",
    } <= channels
    (upd,) = [p for ch, _, p in got if ch == "orderbook"]
    assert upd["books"]["sequence_number"] == 2 and upd["books"]["asks"] == [{"price": D("100100.0"), "size": 0}]
    (trades,) = [p for ch, _, p in got if ch == "trades"]
    assert [t["size"] for t in trades] == [D(1), D(2)] and trades[0]["side"] == "b"
    summaries = [k for ch, k, _ in got if ch == "account_summary"]
    assert ALICE.lower() in summaries and BOB.lower() in summaries
    assert any(k == "1:ltp:1" for ch, k, _ in got if ch == "chart")
    got.clear()
    ex.flush_events()
    assert got == []


def test_no_listener_means_flush_only_clears() -> None:
    ex, _ = make(None, ALICE)
    ex.place_order(ALICE, order(BTC, "b", "99000", "0.1"))
    ex.flush_events()
    assert not ex.market(BTC).book.changed_bids


def test_ids_and_balances_survive_many_actions_exactly() -> None:
    ex, _ = make(None, ALICE, BOB, CAROL)
    for i in range(50):
        ex.place_order(ALICE, order(BTC, "s", str(100000 + i * 10), "0.0123"))
        ex.place_order(BOB, order(BTC, "b", str(100000 + i * 10), "0.0077"))
        ex.place_order(CAROL, order(BTC, "b", str(100000 + i * 10), "0.0046"))
    assert sum((a.positions[BTC].size for a in ex.accounts.values() if BTC in a.positions), Decimal(0)) == 0
    assert_conserved(ex)


def test_interest_filter_skips_unwanted_payloads() -> None:
    ex, _ = make(None, ALICE, BOB)
    got: list[tuple[str, str]] = []
    ex.add_listener(lambda ch, key, p: got.append((ch, key)))
    ex.interest = lambda ch, key: (ch, key) in {("fills", BOB.lower()), ("orderbook", "BTC-PERP")}
    ex.place_order(ALICE, order(BTC, "s", "100100", "1"))
    ex.place_order(BOB, order(BTC, "b", "100100", "0.5"))
    ex.flush_events()
    assert sorted(set(got)) == [("fills", BOB.lower()), ("orderbook", "BTC-PERP")]
    ex.interest = None
    ex.place_order(ALICE, order(BTC, "s", "100200", "1"))
    ex.flush_events()
    assert ("orders", ALICE.lower()) in got and ("account_summary", ALICE.lower()) in got

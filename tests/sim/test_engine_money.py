"""Money that can always move: every balance is a whole number of its token's quantum (``engine.money``), so
after fills at odd prices, funding, fees, commission, broker fees and a liquidation every balance can be
transferred and withdrawn in full, and the ledger is conserved exactly."""

from __future__ import annotations

import pytest

from tui.sim.engine import BrokerConfig, Exchange, Rejected
from tui.sim.engine.money import carried, credit, debit
from tui.sim.engine.records import FILL_LIQUIDATION

from .engine_support import (
    ALICE,
    BOB,
    BTC,
    BTC_SPOT,
    BTC_TOKEN,
    CAROL,
    DAVE,
    ETH,
    ETH_TOKEN,
    HYPE,
    USDC,
    USDT,
    D,
    assert_conserved,
    make,
    order,
    position,
    usdc,
)
from .test_engine_properties import assert_whole_quanta

EVE = "0x" + "e5" * 20
FRANK = "0x" + "f6" * 20  # a deep pocket that takes the other side of every closing trade
SINK = "0x" + "99" * 20
TRADERS = (ALICE, BOB, CAROL, DAVE, EVE)


def test_rounding_rules() -> None:
    q = D("0.000001")
    assert (debit(D("0.4856185"), q), debit(D("-0.0971237"), q)) == (D("0.485619"), D("-0.097123"))
    assert (credit(D("50.2750001"), q), credit(D("-50.2750001"), q)) == (D("50.275"), D("-50.275001"))
    assert credit(D("1.5"), q) == D("1.5") and debit(D("1.5"), q) == D("1.5")  # exact amounts are untouched
    # an order's fees round up once: three fills of an exact 0.0000004 each pay 0.000001, 0, 0.000001
    paid, carry = [], D(0)
    for _ in range(3):
        fee, carry = carried(D("0.0000004"), carry, q)
        paid.append(fee)
    assert paid == [q, 0, q] and sum(paid) == debit(D("0.0000012"), q) and 0 <= carry < q


def test_a_taker_fill_by_hand() -> None:
    ex, _ = make(None, ALICE, BOB, CAROL)
    ex.place_order(BOB, order(BTC, "s", "97123.7", "0.01"))
    ex.place_order(ALICE, order(BTC, "b", "97123.7", "0.01"))
    # notional = 0.01 * 97,123.7 = 971.237 USDC
    # Alice's taker fee = 971.237 * 0.0005 = 0.4856185, rounded up against the payer       -> 0.485619
    # Bob's maker rebate = 971.237 * 0.0001 = 0.0971237, rounded down (toward zero)         -> 0.097123
    # the fee account keeps 0.485619 - 0.097123                                              = 0.388496
    assert ex.fills(ALICE)["data"][0]["fee"] == "0.485619"
    assert ex.fills(BOB)["data"][0]["fee"] == "-0.097123"
    assert usdc(ex, ALICE) == D("99999.514381") and usdc(ex, BOB) == D("100000.097123")
    assert ex.fee_account.balances[USDC] == D("0.388496")
    # Alice closes as a maker at 97,251.3: PnL 0.01 * (97,251.3 - 97,123.7) = 1.276,
    # rebate 972.513 * 0.0001 = 0.0972513 -> 0.097251; balance 100,000 - 0.485619 + 1.276 + 0.097251
    ex.place_order(ALICE, order(BTC, "s", "97251.3", "0.01"))
    ex.place_order(CAROL, order(BTC, "b", "97251.3", "0.01"))
    close = ex.fills(ALICE)["data"][0]
    assert (close["closed_pnl"], close["fee"]) == ("1.276", "-0.097251")
    assert usdc(ex, ALICE) == D("100000.887632")
    summary = ex.account_summary(ALICE)["collateral"]["USDC"]
    assert summary == {"balance": D("100000.887632"), "withdrawable_balance": D("100000.887632")}
    ex.withdraw_derivative(ALICE, USDC, "99999.887632", 1)  # all of it, less the 1 USDC withdrawal fee
    assert usdc(ex, ALICE) == 0
    assert_conserved(ex)


def test_spot_buy_pays_what_it_reserved() -> None:
    """A resting spot buy reserves its notional and broker fee rounded up; its fills spend no more than that."""
    ex, _ = make(None, ALICE, BOB)
    ex.approve_broker_fee(ALICE, DAVE, "0.0007")
    ex.place_order(ALICE, order(BTC_SPOT, "b", "100123.7", "0.00037"), BrokerConfig(DAVE, D("0.0007")))
    alice = ex.accounts[ALICE.lower()]
    # 0.00037 * 100,123.7 = 37.045769; broker fee 0.0259320383 -> 0.025933 (the maker rate is a rebate)
    assert alice.spot_locked[USDC] == D("37.045769") + D("0.025933")
    for size in ("0.00011", "0.00013", "0.00013"):
        ex.place_order(BOB, order(BTC_SPOT, "s", "100123.7", size))
        assert 0 <= alice.spot_locked[USDC] <= alice.spot[USDC]
    assert alice.spot_locked[USDC] == 0 and ex.open_orders(ALICE)["total_count"] == 0
    broker_fees = [D(f["broker_fee"]) for f in ex.fills(ALICE)["data"]]
    assert sum(broker_fees) == D("0.025933")  # rounded up once over the order's three fills
    assert ex.accounts[DAVE.lower()].spot[USDC] == D("0.025933")
    assert_whole_quanta(ex)
    assert_conserved(ex)


def trade(ex: Exchange, buyer: str, seller: str, inst: int, price: str, size: str, **kw: object) -> None:
    """``seller`` rests, ``buyer`` takes."""
    ex.place_order(seller, order(inst, "s", price, size))
    ex.place_order(buyer, order(inst, "b", price, size), **kw)  # type: ignore[arg-type]


def busy_day() -> Exchange:
    """Fills at odd prices (partial closes, a flip), referral commission, broker fees, spot, an isolated
    position, a day of hourly funding at marks with many digits, and a liquidation with bad debt."""
    ex, clock = make(None, *TRADERS, FRANK)
    ex.deposit(FRANK, USDC, "50000000")
    ex.create_referral_code(CAROL, "carol")
    ex.set_referrer(BOB, "carol")
    ex.approve_broker_fee(ALICE, DAVE, "0.0007")
    broker = BrokerConfig(DAVE, D("0.0007"))
    trade(ex, ALICE, BOB, BTC, "100000.3", "0.0123", broker=broker)
    trade(ex, ALICE, CAROL, BTC, "100200.7", "0.0077")
    trade(ex, BOB, ALICE, BTC, "100411.9", "0.0071")  # Alice releases 71/200 of her cost basis
    trade(ex, DAVE, ALICE, BTC, "99987.3", "0.0213")  # Alice flips short
    trade(ex, ALICE, DAVE, ETH, "3499.97", "1.337")
    trade(ex, BOB, ALICE, ETH, "3512.43", "0.451")
    trade(ex, CAROL, DAVE, HYPE, "40.123", "13.37")  # isolated
    trade(ex, DAVE, CAROL, HYPE, "40.567", "4.21")
    trade(ex, ALICE, BOB, BTC_SPOT, "100123.7", "0.00037", broker=broker)
    trade(ex, BOB, ALICE, BTC_SPOT, "100311.1", "0.00029")
    ex.deposit(DAVE, USDT, "1234.567891")
    # Eve: 100.003 ETH at 50x, wiped out below by a fall to a mark with seven decimals
    ex.set_leverage(EVE, ETH, 50)
    trade(ex, EVE, FRANK, ETH, "3500.01", "100.003")
    for hour in range(1, 25):
        clock.advance(3_600_000)
        wobble = D(hour * 7919 % 1000) / 1000
        ex.set_index_price(BTC, D("100123.4567891") + wobble * 37)
        ex.set_index_price(ETH, D("3501.2345679") + wobble)
        ex.set_index_price(HYPE, D("40.2345671") + wobble / 10)
        ex.tick()
    assert position(ex, EVE, ETH) == D("100.003")
    ex.set_index_price(ETH, "2500.1234567")
    ex.tick()
    assert position(ex, EVE, ETH) == 0
    assert ex.fills(EVE)["data"][0]["fill_type"] == FILL_LIQUIDATION
    assert usdc(ex, ex.backstop.addr) < 0  # Eve's bad debt
    assert all(len(ex.funding_history(who)["data"]) >= 20 for who in (ALICE, BOB, CAROL, DAVE))
    return ex


def flatten(ex: Exchange) -> None:
    """Close every trader's positions against Frank at a tick price near the mark, cancel every order."""
    for who in TRADERS:
        ex.cancel_all(who)
        for inst, pos in list(ex.accounts[who.lower()].positions.items()):
            if not pos.size:
                continue
            m = ex.market(inst)
            px = str((m.mark / m.tick).to_integral_value() * m.tick)
            size = str(abs(pos.size))
            short = pos.size < 0
            ex.place_order(FRANK, order(inst, "s" if short else "b", px, size))
            ex.place_order(who, order(inst, "b" if short else "s", px, size, reduce_only=True))
            assert position(ex, who, inst) == 0


def test_after_a_busy_day_every_balance_moves_in_full() -> None:
    ex = busy_day()
    assert_whole_quanta(ex)
    assert_conserved(ex)
    flatten(ex)
    assert_whole_quanta(ex)
    alice, bob, carol, dave, eve = (ex.accounts[w.lower()] for w in TRADERS)
    # the summary's withdrawable is the whole balance, once nothing is at stake
    for acct in (alice, bob, carol, dave, eve):
        s = ex.account_summary(acct.addr)
        for sym, entry in (*s["collateral"].items(), *s["spot_collateral"].items()):
            assert entry["withdrawable_balance"] == max(entry["balance"], 0), (acct, sym)

    # Alice: derivatives to spot (internal), then every spot balance withdrawn
    ex.transfer_internal(ALICE, USDC, alice.balances[USDC], False)
    ex.withdraw_spot(ALICE, USDC, alice.spot[USDC] - 1, 1)
    for token in (BTC_TOKEN, ETH_TOKEN):
        ex.withdraw_spot(ALICE, token, alice.spot[token], 1)
    # Bob: everything to the sink, derivatives and spot
    ex.transfer_derivative(BOB, USDC, bob.balances[USDC], SINK)
    for token, bal in list(bob.spot.items()):
        ex.transfer_spot(BOB, token, bal, SINK)
    # Carol: claims her commission, parks everything in a vault, redeems every share, withdraws
    for _cid, spot in list(carol.rewards):  # commission from Alice's perp and spot trades
        ex.claim_referral_rewards(CAROL, USDC, spot)
    assert carol.rewards == {} and len(carol.claimed_rewards) == 2
    momo = ex.vault_list()["vaults"][1]["vault_address"]
    ex.transfer_derivative(FRANK, USDC, "1234.567891", momo)  # a gift: shares are no longer 1 USDC each
    ex.vault_deposit(CAROL, momo, carol.balances[USDC])
    assert carol.balances[USDC] == 0
    shares = ex.vault_balance(momo, CAROL)["shares"]
    ex.vault_redeem(CAROL, momo, shares)
    ex.withdraw_derivative(CAROL, USDC, carol.balances[USDC] - 1, 1)
    ex.transfer_internal(CAROL, USDC, carol.spot[USDC], True)
    ex.withdraw_derivative(CAROL, USDC, carol.balances[USDC] - 1, 1)
    for token in (BTC_TOKEN, ETH_TOKEN):
        ex.transfer_spot(CAROL, token, carol.spot[token], SINK)
    # Dave: broker fees (spot and derivatives), USDT collateral and USDC, all withdrawn
    ex.withdraw_derivative(DAVE, USDT, dave.balances[USDT] - 1, 1)
    ex.withdraw_derivative(DAVE, USDC, dave.balances[USDC] - 1, 1)
    for token, bal in list(dave.spot.items()):
        ex.withdraw_spot(DAVE, token, bal - (1 if token == USDC else 0), 1)
    # Eve, liquidated: whatever the backstop left her
    if eve.balances[USDC]:
        ex.transfer_derivative(EVE, USDC, eve.balances[USDC], SINK)
    for token, bal in list(eve.spot.items()):
        ex.transfer_spot(EVE, token, bal, SINK)

    for acct in (alice, bob, carol, dave, eve):
        assert all(not v for v in acct.balances.values()), (acct, acct.balances)
        assert all(not v for v in acct.spot.values()), (acct, acct.spot)
    sink = ex.accounts[SINK.lower()]
    ex.withdraw_derivative(SINK, USDC, sink.balances[USDC] - 1, 1)
    for token, bal in list(sink.spot.items()):
        ex.withdraw_spot(SINK, token, bal - (1 if token == USDC else 0), 1)
    assert not any(sink.balances.values()) and not any(sink.spot.values())
    assert_whole_quanta(ex)
    assert_conserved(ex)


def test_amounts_finer_than_the_token_are_still_refused() -> None:
    ex, _ = make(None, ALICE)
    with pytest.raises(Rejected, match="more than 6 decimals"):
        ex.withdraw_derivative(ALICE, USDC, "1.0000001", 1)
    with pytest.raises(Rejected, match="more than 8 decimals"):
        ex.transfer_spot(ALICE, BTC_TOKEN, "0.000000001", BOB)

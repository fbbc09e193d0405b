"""Engine properties on random streams of actions from several accounts (hypothesis).

After every action: the book never rests crossed; every level is FIFO by order id (time priority) and its
total is the sum of its orders; a trade never happens at a price worse than the taker's limit; money is
conserved exactly per token (``Exchange.audit``: balances + isolated margin + upnl + unclaimed rewards ==
minted - withdrawn, with positions summing to zero per instrument); every balance, isolated margin and
reward is a whole number of its token's quantum; no order fills beyond its size; a reduce-only order never
increases or flips a position; spot reservations stay within balances; and an action that is rejected
changes nothing at all. At the end, what each account summary calls withdrawable can be transferred.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tui.sim.engine import Exchange, OrderRequest, Rejected, default_config
from tui.sim.engine.values import decimals_of

from .engine_support import ALICE, BOB, BTC, BTC_SPOT, CAROL, DAVE, ETH, HYPE, USDC, make

TRADERS = (ALICE, BOB, CAROL, DAVE)
# instrument -> (reference price in ticks, tick, lot, lots range)
SPECS = {
    BTC: (1_000_000, Decimal("0.1"), Decimal("0.0001"), (1, 300)),
    ETH: (350_000, Decimal("0.01"), Decimal("0.001"), (3, 3000)),
    HYPE: (40_000, Decimal("0.001"), Decimal("0.01"), (25, 5000)),
    BTC_SPOT: (1_000_000, Decimal("0.1"), Decimal("0.00001"), (10, 300)),
}

place_op = st.tuples(
    st.just("place"),
    st.integers(0, 3),  # trader
    st.sampled_from(sorted(SPECS)),
    st.booleans(),  # buy
    st.integers(-40, 40),  # price offset in ticks from the reference
    st.integers(0, 10_000),  # size selector
    st.sampled_from(["GTC", "GTC", "GTC", "IOC", "FOK"]),
    st.sampled_from(["plain", "plain", "plain", "ro", "po", "market", "trigger"]),
)
# a resting order and an opposite order from another trader that may cross it: guarantees trades
pair_op = st.tuples(
    st.just("pair"),
    st.integers(0, 3),
    st.integers(1, 3),  # the other trader is (first + this) % 4
    st.sampled_from(sorted(SPECS)),
    st.booleans(),
    st.integers(-20, 20),
    st.integers(-3, 20),  # how far the second order reaches through the first
    st.integers(0, 10_000),
    st.integers(0, 10_000),
    st.sampled_from(["GTC", "IOC", "FOK", "market", "ro"]),
)
cancel_op = st.tuples(st.just("cancel"), st.integers(0, 3), st.integers(0, 50))
index_op = st.tuples(st.just("index"), st.sampled_from([BTC, ETH, HYPE]), st.integers(-600, 600), st.booleans())
time_op = st.tuples(st.just("time"), st.sampled_from([1_000, 60_000, 3_600_000]))
money_op = st.tuples(st.just("money"), st.integers(0, 3), st.integers(0, 3), st.integers(1, 200_000))
leverage_op = st.tuples(st.just("leverage"), st.integers(0, 3), st.sampled_from([BTC, ETH]), st.integers(1, 60))
# half the actions are crossing pairs, so that most examples trade
ops = st.lists(
    st.tuples(pair_op, st.one_of(place_op, index_op, cancel_op, time_op, money_op, leverage_op)),
    min_size=3,
    max_size=25,
).map(lambda pairs: [op for two in pairs for op in two])


def fingerprint(ex: Exchange) -> Any:
    """Everything a rejected action must leave untouched."""
    accounts = tuple(
        sorted(
            (
                a.addr,
                tuple(sorted(a.balances.items())),
                tuple(sorted(a.spot.items())),
                tuple(sorted(a.spot_locked.items())),
                tuple(
                    (i, p.size, p.cost, p.iso_margin, p.buy_notional, p.sell_notional, p.leverage)
                    for i, p in sorted(a.positions.items())
                    if p.size or p.buy_notional or p.sell_notional
                ),
                tuple((o.oid, o.unfilled, o.state) for o in a.orders.values()),
                len(a.fills),
                len(a.transfers),
            )
            for a in ex.accounts.values()
        )
    )
    return accounts, len(ex.chain.pending), ex.core.next_oid, ex.core.next_trade


def assert_whole_quanta(ex: Exchange) -> None:
    """Every amount the ledger holds has at most its token's decimals (``engine.money``)."""
    places = {cid: c.decimals for cid, c in ex.collaterals.items()}
    for a in ex.accounts.values():
        for book in (a.balances, a.spot, a.spot_locked):
            for cid, amount in book.items():
                assert decimals_of(amount) <= places[cid], (a, cid, amount)
        for (cid, _spot), amount in a.rewards.items():
            assert decimals_of(amount) <= places[cid], (a, "reward", amount)
        for p in a.positions.values():
            assert decimals_of(p.iso_margin) <= places[USDC] and decimals_of(p.realized) <= places[USDC]
            assert decimals_of(p.funding) <= places[USDC], (a, p.spec.name, p.funding)
        for f in a.fills:
            assert decimals_of(f.fee) <= places[USDC] and decimals_of(f.closed_pnl) <= places[USDC], f


def check_invariants(ex: Exchange) -> None:
    assert all(v == 0 for v in ex.audit().values()), ex.audit()
    assert_whole_quanta(ex)
    for m in ex.markets.values():
        book = m.book
        bid, ask = book.best_bid(), book.best_ask()
        assert bid is None or ask is None or bid < ask, f"{m.name} crossed: {bid} >= {ask}"
        for bids in (True, False):
            levels = book.levels(bids, 10_000)
            prices = [lv.price for lv in levels]
            assert prices == sorted(prices, reverse=bids)
            for lv in levels:
                oids = [o.oid for o in lv.orders]
                assert oids == sorted(oids), "time priority broken within a level"
                assert lv.total == sum((o.unfilled for o in lv.orders), Decimal(0))
                assert all(o.unfilled > 0 and o.live and o.is_buy == bids for o in lv.orders)
        if m.is_perp:
            sizes = [a.positions[m.id].size for a in ex.accounts.values() if m.id in a.positions]
            assert sum(sizes, Decimal(0)) == 0
    filled: dict[int, Decimal] = {}
    for a in ex.accounts.values():
        for token, locked in a.spot_locked.items():
            assert 0 <= locked <= a.spot.get(token, Decimal(0))
        for f in a.fills:
            o = f.order
            if o is None:
                continue
            filled[id(o)] = filled.get(id(o), Decimal(0)) + f.size
            assert (f.price <= o.price) if o.is_buy else (f.price >= o.price), "traded through the limit"
            if o.reduce_only:
                signed = f.size if f.is_buy else -f.size
                assert f.start_size and (f.start_size > 0) != (signed > 0), "reduce-only opened a position"
                assert abs(signed) <= abs(f.start_size), "reduce-only flipped a position"
    for a in ex.accounts.values():
        for o in (*a.orders.values(), *a.order_history):
            assert 0 <= o.unfilled <= o.size
            done = filled.get(id(o), Decimal(0))
            # fills account for exactly what left the order (a fired reduce-only trigger may also be clipped)
            assert done == o.size - o.unfilled or (o.reduce_only and o.trigger_px and done < o.size - o.unfilled)


def build(op: tuple[Any, ...]) -> OrderRequest:
    _, _, inst, buy, offset, sel, tif, flag = op
    ref, tick, lot, (lo, hi) = SPECS[inst]
    price = Decimal(ref + offset) * tick
    size = Decimal(lo + sel % (hi - lo + 1)) * lot
    kw: dict[str, Any] = {"tif": tif}
    if flag == "ro":
        kw["reduce_only"] = True
    elif flag == "po":
        kw.update(post_only=True, tif="GTC")
    elif flag == "market":
        kw["is_market"] = True
        price = Decimal(0) if offset % 2 else price
    elif flag == "trigger":
        kw.update(trigger_px=Decimal(ref - offset) * tick, reduce_only=sel % 3 == 0, tpsl="sl")
    return OrderRequest(inst, buy, price, size, **kw)


def attempt(ex: Exchange, action: Any) -> None:
    """Run one action; if it is rejected, nothing may have changed."""
    before = fingerprint(ex)
    try:
        action()
    except Rejected:
        assert fingerprint(ex) == before, "a rejected action changed state"


def apply(ex: Exchange, clock: Any, op: tuple[Any, ...]) -> None:
    kind = op[0]
    if kind == "place":
        ex.place_order(TRADERS[op[1]], build(op))
    elif kind == "pair":
        _, first, step, inst, buy, offset, reach, size1, size2, style = op
        second = (first + step) % 4
        ex.place_order(TRADERS[first], build(("place", first, inst, buy, offset, size1, "GTC", "plain")))
        through = offset + (-reach if buy else reach)
        flag = {"market": "market", "ro": "ro"}.get(style, "plain")
        tif = style if style in ("GTC", "IOC", "FOK") else "IOC"
        attempt(
            ex,
            lambda: ex.place_order(TRADERS[second], build(("place", second, inst, not buy, through, size2, tif, flag))),
        )
    elif kind == "cancel":
        live = sorted(ex.accounts[TRADERS[op[1]].lower()].orders.values(), key=lambda o: o.oid)
        if live:
            o = live[op[2] % len(live)]
            ex.cancel_by_oid(TRADERS[op[1]], [(o.oid, o.inst_id)])
        else:
            ex.cancel_all(TRADERS[op[1]])
    elif kind == "index":
        m = ex.market(op[1])
        if op[3]:  # a mark with more digits than any balance (funding, liquidation at the mark)
            ex.set_index_price(op[1], (m.index * (1 + Decimal(op[2]) / 10_000)).quantize(Decimal("1e-7")))
        else:
            ex.set_index_price(op[1], m.index + m.index * Decimal(op[2]) / 10_000 // m.tick * m.tick)
        ex.tick()
    elif kind == "time":
        clock.advance(op[1])
        ex.tick()
    elif kind == "money":
        src, dst = TRADERS[op[1]], TRADERS[op[2]]
        ex.transfer_derivative(src, USDC, Decimal(op[3]) / 100, dst)
    elif kind == "leverage":
        ex.set_leverage(TRADERS[op[1]], op[2], op[3])


def move_everything_withdrawable(ex: Exchange) -> None:
    """Each trader sends away exactly what its account summary calls withdrawable, derivatives and spot."""
    sink = "0x" + "99" * 20
    for who in TRADERS:
        s = ex.account_summary(who)
        for c in ex.collaterals.values():
            for wallet, move in (("collateral", ex.transfer_derivative), ("spot_collateral", ex.transfer_spot)):
                entry = s[wallet].get(c.symbol)
                if entry and entry["withdrawable_balance"] > 0:
                    move(who, c.id, entry["withdrawable_balance"], sink)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops)
def test_random_streams_keep_the_invariants(stream: list[tuple[Any, ...]]) -> None:
    # small accounts (Dave is the deep pocket), so that index moves liquidate
    ex, clock = make(replace(default_config(), faucet_usdc=Decimal(3000)), *TRADERS)
    ex.deposit(DAVE, USDC, "5000000")
    for op in stream:
        attempt(ex, lambda op=op: apply(ex, clock, op))
        check_invariants(ex)
    move_everything_withdrawable(ex)
    check_invariants(ex)
    fills = [f for a in ex.accounts.values() for f in a.fills]
    event(f"trades: {min(len(fills) // 2, 10)}{'+' if len(fills) >= 20 else ''}")
    if any(f.fill_type == 1 for f in fills):
        event("liquidation")
    if any(
        o.trigger_px and o.state != "cancelled" and not o.waiting_trigger
        for a in ex.accounts.values()
        for o in (*a.order_history, *a.orders.values())
    ):
        event("trigger fired")
    if any(a.funding for a in ex.accounts.values()):
        event("funding paid")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.booleans(), st.integers(-5, 5), st.integers(1, 40)), max_size=60))
def test_crossing_streams_on_one_book(stream: list[tuple[int, bool, int, int]]) -> None:
    """A dense stream around one price: many trades, partial fills and self-trade cancels."""
    ex, _ = make(None, *TRADERS)
    for who, buy, offset, lots in stream:
        req = OrderRequest(BTC, buy, Decimal(1_000_000 + offset) * Decimal("0.1"), Decimal(lots) * Decimal("0.001"))
        with contextlib.suppress(Rejected):
            ex.place_order(TRADERS[who], req)
        check_invariants(ex)
    trades = sum(len(a.fills) for a in ex.accounts.values()) // 2
    assert trades == len(ex.market(BTC).trades) or len(ex.market(BTC).trades) == ex.config.trades_kept

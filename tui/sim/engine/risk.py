"""What the passage of time does: marks, trigger orders, liquidations, funding, account-history points.

``tick()`` (the server calls it on a timer, tests call it after stepping a ``FrozenClock``) runs, in order:
refresh every mark; sample the funding premium; fire triggers whose condition the mark meets; liquidate;
settle funding for every funding boundary crossed; record account-history points.

Triggers: armed when placed; an order whose trigger price is at or above the mark then fires when
mark >= trigger, otherwise when mark <= trigger (so tp/sl and plain stops all mean "when the mark crosses
the trigger"). A fired order becomes ``triggered`` and runs as a market order (IOC, bounded by its price or
by mark +- slippage) or as a limit order at its price (a GTC remainder rests, still ``triggered``). If its
checks fail then (no position for reduce-only, margin, no liquidity) it is cancelled.

Liquidation: the exchange's backstop account takes the positions over at the mark price, no penalty, with
``fill_type`` = FILL_LIQUIDATION on both sides. A cross account (margin_balance < maintenance_margin) loses
all its perp positions and perp orders; an isolated position (iso_margin + upnl < maintenance) only itself.
A loss beyond what the account (or the isolated margin) holds is bad debt, paid by the backstop (rounded up
to the USDC quantum, so the account is left at zero or just above).

Funding, every ``funding_interval_ms``: rate = clamp(mean premium / 8 + interest, -cap, cap), rounded to
1e-8, where premium = (mark - index) / index is sampled at every tick. Each position receives
``-size * mark * rate`` (longs pay when the rate is positive), from or to the fee account, rounded down to
the USDC quantum (``money.credit``: a payer pays its share rounded up, a receiver gets its share rounded
down). Sizes sum to zero, so the fee account's net is what the rounding left: never negative, under one
quantum per position.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from .accounts import CANCELLED, TRIGGERED, Account, Position
from .core import TX_FUNDING, TX_LIQUIDATION, TX_TRIGGER, ExchangeCore
from .errors import Rejected
from .fills import Settlement
from .instruments import USDC_ID
from .markets import Market
from .money import credit, debit
from .records import FILL_LIQUIDATION
from .trading import Trading
from .values import FIGURE_Q, ZERO, dstr, iso_ms

EIGHT = Decimal(8)


class Risk:
    """Clock-driven processes."""

    def __init__(self, core: ExchangeCore, settlement: Settlement, trading: Trading) -> None:
        self.core = core
        self.settlement = settlement
        self.trading = trading
        now = self.core.clock.now_ms()
        self._last_funding_slot = now // self.core.config.funding_interval_ms
        self._last_history_slot = now // self.core.config.history_interval_ms

    def tick(self, now_ms: int | None = None) -> None:
        """Advance everything that depends on time to ``now_ms`` (default: the clock)."""
        core = self.core
        now = core.clock.now_ms() if now_ms is None else now_ms
        cfg = core.config
        hour = now // 3_600_000
        for m in core.markets.values():
            if hour not in m.volume_marks:
                m.volume_marks[hour] = m.notional_total
                for h in [h for h in m.volume_marks if h < hour - 25]:
                    del m.volume_marks[h]
            core.refresh_mark(m, now)
            core.candles.roll(m.id, "mark", now, m.mark)
            core.candles.roll(m.id, "index", now, m.index)
            if m.is_perp:
                m.premium_sum += (m.mark - m.index) / m.index
                m.premium_n += 1
                rate = self._funding_rate(m)
                if rate != m.funding_rate:
                    m.funding_rate = rate
                    core.dirty_markets.add(m)
        for m in core.markets.values():
            if m.triggers:
                self._fire_triggers(m, now)
        self._check_liquidations(now)
        slot = now // cfg.funding_interval_ms
        if slot > self._last_funding_slot:
            for s in range(max(self._last_funding_slot + 1, slot - 23), slot + 1):
                self._settle_funding(s * cfg.funding_interval_ms)
            self._last_funding_slot = slot
        hslot = now // cfg.history_interval_ms
        if hslot > self._last_history_slot:
            self._last_history_slot = hslot
            self._record_history(now)

    # ----------------------------------------------------------------- triggers
    def _grouped(self, m: Market, now: int) -> set[int]:
        """TP/SL orders with a grouping: those whose entry has not filled yet (they cannot fire: returned),
        and those that go: the entry ended unfilled, or the position they protect is closed."""
        waiting: set[int] = set()
        for o in [o for o in m.triggers.values() if o.tpsl and o.grouping in ("normal", "position")]:
            parent = o.parent
            if parent is not None and parent.unfilled == parent.size:
                if parent.live:
                    waiting.add(o.oid)
                    continue
                gone = True  # the entry was cancelled (or expired) with nothing filled
            else:
                pos = o.account.positions.get(m.id)
                gone = pos is None or not pos.size
            if gone:
                del m.triggers[o.oid]
                self.trading.close_order(o, CANCELLED, now)
        return waiting

    def _fire_triggers(self, m: Market, now: int) -> None:
        core = self.core
        mark = m.mark
        waiting = self._grouped(m, now) if m.triggers else set()
        due = [
            o
            for o in m.triggers.values()
            if o.oid not in waiting and (mark >= o.trigger_px if o.trigger_above else mark <= o.trigger_px)
        ]
        for o in sorted(due, key=lambda o: o.oid):
            del m.triggers[o.oid]
            acct = o.account
            o.state = TRIGGERED
            o.updated_ms = now
            if core.listeners:
                self.settlement.order_event(o)
            tx = core.tx(acct, TX_TRIGGER, now)
            if o.is_market and not o.price:
                o.price = self.trading.slippage_bound(m, o.is_buy)
            if o.reduce_only:
                cap = self.trading.reduce_cap(acct, m, o.is_buy)
                o.unfilled = min(o.unfilled, cap)
                if not cap:
                    self.trading.close_order(o, CANCELLED, now)
                    continue
            try:
                self.trading.check_executable(acct, m, o)
            except Rejected:
                self.trading.close_order(o, CANCELLED, now)
                continue
            self.trading.execute(acct, m, o, tx, now)
        if due and m.triggers:
            self._grouped(m, now)  # a TP or SL that just closed the position takes its sibling with it

    # ----------------------------------------------------------------- liquidation
    def _check_liquidations(self, now: int) -> None:
        core = self.core
        holders: set[Account] = set()
        for m in core.markets.values():
            if m.is_perp:
                holders.update(m.holders)
        holders.discard(core.backstop)
        for acct in sorted(holders, key=lambda a: a.addr):
            ms = acct.margin(core.collaterals, core.coll_prices)
            if ms.maintenance > 0 and ms.margin_balance < ms.maintenance:
                self._liquidate(acct, [p for p in acct.positions.values() if p.size and not p.isolated], now)
            for p in list(acct.positions.values()):
                if p.isolated and p.size and p.iso_margin + p.upnl() < p.maintenance():
                    self._liquidate(acct, [p], now)

    def _liquidate(self, acct: Account, positions: list[Position], now: int) -> None:
        core = self.core
        settlement = self.settlement
        if not positions:
            return
        tx = core.tx(acct, TX_LIQUIDATION, now)
        ids = {p.spec.id for p in positions}
        isolated = positions[0].isolated
        for o in [
            o for o in acct.orders.values() if o.inst_id in ids or (not isolated and core.markets[o.inst_id].is_perp)
        ]:
            self.trading.cancel(o, now)
        before = acct.balances.get(USDC_ID, ZERO)
        for p in positions:
            m = core.markets[p.spec.id]  # the position's market (``p.market`` is typed by what a position reads)
            q, close_buys = abs(p.size), p.size < 0
            trade_id = core.next_trade
            core.next_trade += 1
            settlement.perp_fill(acct, m, close_buys, q, m.mark, ZERO, None, True, tx, trade_id, now, FILL_LIQUIDATION)
            settlement.perp_fill(
                core.backstop, m, not close_buys, q, m.mark, ZERO, None, False, tx, trade_id, now, FILL_LIQUIDATION
            )
        if isolated:
            deficit = before - acct.balances.get(USDC_ID, ZERO)  # isolated loss beyond the position's margin
        else:
            deficit = -acct.margin(core.collaterals, core.coll_prices).margin_balance
        if deficit > 0:
            deficit = debit(deficit, settlement.quanta[USDC_ID])
            core.credit(acct, USDC_ID, deficit)
            core.credit(core.backstop, USDC_ID, -deficit)

    # ----------------------------------------------------------------- funding
    def _funding_rate(self, m: Market) -> Decimal:
        cfg = self.core.config
        premium = m.premium_sum / m.premium_n if m.premium_n else (m.mark - m.index) / m.index
        rate = premium / EIGHT + cfg.funding_interest
        rate = max(-cfg.funding_cap, min(cfg.funding_cap, rate))
        return rate.quantize(FIGURE_Q)

    def _settle_funding(self, ts: int) -> None:
        core = self.core
        tx = None
        for m in core.markets.values():
            if not m.is_perp:
                continue
            rate = self._funding_rate(m)
            m.premium_sum, m.premium_n = ZERO, 0
            if not rate or not m.holders:
                continue
            if tx is None:
                tx = core.tx(core.fee_account, TX_FUNDING, ts)
            mark = m.mark
            quantum = self.settlement.quanta[USDC_ID]
            for acct in sorted(m.holders, key=lambda a: a.addr):
                pos = acct.positions[m.id]
                payment = credit(-pos.size * mark * rate, quantum)
                if pos.isolated:
                    pos.iso_margin += payment
                else:
                    core.credit(acct, USDC_ID, payment)
                core.credit(core.fee_account, USDC_ID, -payment)
                pos.funding += payment
                record = {
                    "user": acct.display,
                    "instrument_id": m.id,
                    "settlement_currency": USDC_ID,
                    "funding_payment": dstr(payment),
                    "funding_rate": dstr(rate),
                    "mark_price": dstr(mark),
                    "size": dstr(pos.size),
                    "timestamp": iso_ms(ts),
                }
                acct.funding.append(record)
                core.dirty_accounts.add(acct)
                if core.wants("funding_payments", acct.addr):
                    core.emit("funding_payments", acct.addr, record)

    # ----------------------------------------------------------------- history
    def account_value(self, acct: Account) -> tuple[Decimal, Decimal]:
        """(account value = derivatives + spot equity, total PnL) at the current marks."""
        core = self.core
        ms = acct.margin(core.collaterals, core.coll_prices)
        value = ms.upnl
        for cid, bal in acct.balances.items():
            value += bal * core.coll_prices[cid]
        for cid, bal in acct.spot.items():
            value += bal * core.coll_prices[cid]
        realised = funding = iso = ZERO
        for p in acct.positions.values():
            realised += p.realized
            funding += p.funding
            iso += p.iso_margin
        return value + iso, realised + ms.upnl + funding - acct.fees_paid

    def _record_history(self, now: int) -> None:
        core = self.core
        stamp = iso_ms(now)
        system = (core.fee_account, core.backstop)
        for acct in core.accounts.values():
            if acct in system or not (acct.balances or acct.spot or acct.positions):
                continue
            value, pnl = self.account_value(acct)
            if pnl > acct.peak_pnl:
                acct.peak_pnl = pnl
            acct.max_drawdown = max(acct.max_drawdown, acct.peak_pnl - pnl)
            point: dict[str, Any] = {
                "address": acct.display,
                "total_pnl": dstr(pnl.quantize(FIGURE_Q)),
                "total_volume": int(acct.total_volume),
                "account_value": dstr(value.quantize(FIGURE_Q)),
                "created_at": stamp,
            }
            acct.history.append(point)

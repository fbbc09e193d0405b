"""Settling trades into accounts: positions, realised PnL, fees, rebates, broker fees, referral commission.

Fees are charged in USDC (the quote token on spot) on notional: ``fee = notional * rate``, where a negative
maker rate is a rebate paid by the fee account and shown as a negative fee. A referred user pays positive
fees reduced by its referrer's tier ``fee_discount``; the referrer earns ``commission`` of the fee paid,
moved from the fee account to its claimable rewards. A broker approved for the order earns
``notional * broker fee`` on every fill of it, paid by the trader on top of the exchange fee.

Every amount is rounded to the token's quantum by the rules of ``money``: an order's fees and broker fees
are rounded up once over its fills (a rebate toward zero), the commission down, the realised PnL down (the
fee account keeps the rest). On spot the buyer pays the notional rounded up and the seller receives it
rounded down (the fee account keeps the difference; none when ``tick * lot`` is a whole number of quanta,
as in the default market). A resting spot buy reserves its notional and fees each rounded up, exactly what
its fills may charge, and each fill releases what it spent.

Fill ``direction``: openLong / openShort when the fill only adds; closeLong / closeShort when it reduces;
a fill that flips the position is ONE fill with the close direction (``closed_pnl`` is the PnL of the
closed part, ``start_size`` shows the flip). Spot fills use ``buy`` / ``sell``.

Isolated positions: opening ``q`` at ``P`` moves ``q*P/leverage`` from the USDC balance into the position's
``iso_margin`` (rounded up); reducing releases the same fraction of ``iso_margin`` it closes (rounded down;
all of it on a full close).
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

from .accounts import Account, Order, Position
from .chain import Tx
from .core import ExchangeCore
from .instruments import USDC_ID, ReferralTier
from .markets import Market
from .money import carried, credit, debit
from .records import FILL_TRADE, Fill, Trade
from .values import ONE, ZERO
from .views import order_event

DAY_MS = 86_400_000


class Settlement:
    """Turns matched quantities into fills and ledger movements."""

    def __init__(self, core: ExchangeCore) -> None:
        self.core = core
        #: token id -> its smallest amount (``Collateral.quantum``), read on every fill
        self.quanta: dict[int, Decimal] = {cid: c.quantum for cid, c in self.core.collaterals.items()}
        #: order id -> (fee carry, broker fee carry) of a live order whose fills paid above their exact fees
        self.carries: dict[int, tuple[Decimal, Decimal]] = {}

    def trade(self, m: Market, taker: Order, maker: Order, px: Decimal, q: Decimal, tx: Tx, now: int) -> None:
        """Execute ``q`` at the maker's price ``px`` (the caller updates the book level)."""
        core = self.core
        trade_id = core.next_trade
        core.next_trade = trade_id + 1
        maker.unfilled -= q
        taker.unfilled -= q
        maker.updated_ms = taker.updated_ms = now
        mk = maker.account
        if m.is_perp:
            if not maker.reduce_only:
                pos = mk.positions[m.id]
                if maker.is_buy:
                    pos.buy_notional -= px * q
                else:
                    pos.sell_notional -= px * q
            fees = core.config.fees
            self.perp_fill(mk, m, maker.is_buy, q, px, fees.perp_maker, maker, False, tx, trade_id, now, FILL_TRADE)
            fill = self.perp_fill(
                taker.account, m, taker.is_buy, q, px, fees.perp_taker, taker, True, tx, trade_id, now, FILL_TRADE
            )
        else:
            maker_rate, taker_rate = self.spot_rates(m)
            spent = self._spot_fill(maker, m, q, px, maker_rate, False, tx, trade_id, now)[1]
            self.unlock_spot(maker, m, min(maker.lock, spent) if maker.unfilled else maker.lock)
            fill = self._spot_fill(taker, m, q, px, taker_rate, True, tx, trade_id, now)[0]
        m.last = px
        m.notional_total += px * q
        trade = Trade(fill, mk.display)
        m.trades.append(trade)
        if core.listeners:
            m.pending_trades.append(trade)
        core.candles.update(m.id, "ltp", now, px, q)

    def perp_fill(
        self,
        acct: Account,
        m: Market,
        is_buy: bool,
        q: Decimal,
        px: Decimal,
        rate: Decimal,
        order: Order | None,
        crossed: bool,
        tx: Tx,
        trade_id: int,
        now: int,
        fill_type: int,
    ) -> Fill:
        """Apply one side of a perp trade to ``acct`` and record its fill (the trade hot path)."""
        core = self.core
        pos = acct.positions.get(m.id) or core.position(acct, m)
        acct.free_cache = None
        start_size = pos.size
        start_cost = pos.cost
        signed = q if is_buy else -q
        quantum = self.quanta[USDC_ID]
        notional = px * q
        value = notional.quantize(quantum, ROUND_HALF_EVEN)  # the fill's worth to both sides
        if not start_size or (start_size > 0) == is_buy:  # opening or adding: no PnL
            pos.cost = start_cost + (value if is_buy else -value)
            pos.size = new_size = start_size + signed
            close = pnl = ZERO
        else:
            close, pnl = pos.apply_fill(signed, value, quantum)
            new_size = pos.size
        fee = bfee = ZERO
        if rate or order is not None:
            fee, bfee = self._charge_fees(acct, order, notional, rate, USDC_ID, False)
        delta = pnl - fee - bfee
        if pos.isolated:
            delta += self._isolated_margin(pos, start_size, signed, close, px, quantum)
        bal = acct.balances
        bal[USDC_ID] = bal.get(USDC_ID, ZERO) + delta
        acct.fees_paid += fee
        if start_size > 0 or new_size > 0:
            m.open_interest += (new_size if new_size > 0 else ZERO) - (start_size if start_size > 0 else ZERO)
        if not new_size:
            m.holders.discard(acct)
        elif not start_size:
            m.holders.add(acct)
        pos.updated_ms = now
        acct.total_volume += notional
        if acct.referrer is None:  # _count_volume, inlined for the hot path
            dkey = ("perp", now // DAY_MS)
            daily = acct.daily_volume
            daily[dkey] = daily.get(dkey, ZERO) + notional
        else:
            self._count_volume(acct, "perp", notional, not crossed, now)
        fill = Fill(
            m.id,
            m.name,
            acct.display,
            order,
            trade_id,
            is_buy,
            bool(close),
            px,
            q,
            pnl,
            start_size,
            start_cost,
            fee,
            bfee,
            crossed,
            tx,
            fill_type,
            now,
            False,
        )
        acct.fills.append(fill)
        core.dirty_accounts.add(acct)
        core.dirty_positions.add(pos)
        if core.listeners and core.wants("fills", acct.addr):
            core.emit("fills", acct.addr, fill.event())
        return fill

    def _isolated_margin(
        self, pos: Position, start_size: Decimal, signed: Decimal, close: Decimal, px: Decimal, quantum: Decimal
    ) -> Decimal:
        """Move isolated margin for a fill; returns what flows back to (+) or out of (-) the balance."""
        delta = ZERO
        if close:
            release = (
                pos.iso_margin
                if not pos.size or close == -start_size
                else credit(pos.iso_margin * abs(close) / abs(start_size), quantum)
            )
            pos.iso_margin -= release
            delta += release
        opened = signed - close
        if opened:
            add = debit(abs(opened) * px * pos.imr, quantum)
            pos.iso_margin += add
            delta -= add
        return delta

    def _spot_fill(
        self,
        order: Order,
        m: Market,
        q: Decimal,
        px: Decimal,
        rate: Decimal,
        crossed: bool,
        tx: Tx,
        trade_id: int,
        now: int,
    ) -> tuple[Fill, Decimal]:
        """Apply one side of a spot trade; returns (its fill, what it spent of what the order reserved)."""
        core = self.core
        acct = order.account
        spec = m.spot
        base, quote = spec.base_asset, spec.quote_asset
        quantum = self.quanta[quote]
        notional = px * q
        start = acct.spot.get(base, ZERO)
        fee, bfee = self._charge_fees(acct, order, notional, rate, quote, True)
        if order.is_buy:
            paid = debit(notional, quantum)
            if paid != notional:  # the seller receives it rounded down: the fee account keeps the difference
                core.credit_spot(core.fee_account, quote, paid - credit(notional, quantum))
            core.credit_spot(acct, quote, -(paid + fee + bfee))
            core.credit_spot(acct, base, q)
            spent = paid + (fee if fee > 0 else ZERO) + bfee
        else:
            core.credit_spot(acct, base, -q)
            core.credit_spot(acct, quote, credit(notional, quantum) - fee - bfee)
            spent = q
        kind = "stable_spot" if spec.stable_pair else "spot"
        if spec.stable_pair:
            acct.stable_spot_volume += notional
        else:
            acct.spot_volume += notional
        self._count_volume(acct, kind, notional, not crossed, now)
        fill = Fill(
            m.id,
            m.name,
            acct.display,
            order,
            trade_id,
            order.is_buy,
            False,
            px,
            q,
            ZERO,
            start,
            ZERO,
            fee,
            bfee,
            crossed,
            tx,
            FILL_TRADE,
            now,
            True,
        )
        acct.fills.append(fill)
        core.dirty_accounts.add(acct)
        if core.listeners and core.wants("fills", acct.addr):
            core.emit("fills", acct.addr, fill.event())
        return fill, spent

    def _charge_fees(
        self, acct: Account, order: Order | None, notional: Decimal, rate: Decimal, token: int, spot: bool
    ) -> tuple[Decimal, Decimal]:
        """(fee, broker fee) a fill of ``order`` owes, paid out to the fee account (less the referrer's
        commission) and to the broker; the caller takes both from ``acct``. Rounded as ``money`` says."""
        core = self.core
        exact = notional * rate
        ref = acct.referrer
        tier = self.referral_tier(ref) if ref is not None and exact > 0 else None
        if tier is not None:
            exact *= ONE - tier.fee_discount
        quantum = self.quanta[token]
        broker = order.broker if order is not None else None
        if order is None:
            fee, bfee = debit(exact, quantum), ZERO
        else:
            carry, bcarry = self.carries.pop(order.oid, (ZERO, ZERO))
            fee, carry = carried(exact, carry, quantum)
            bfee = ZERO
            if broker is not None and order.broker_rate:
                bfee, bcarry = carried(notional * order.broker_rate, bcarry, quantum)
            if carry or bcarry:
                self.carries[order.oid] = (carry, bcarry)
        commission = ZERO
        if tier is not None and ref is not None:
            commission = credit(fee * tier.commission, quantum)
            key = (token, spot)
            ref.rewards[key] = ref.rewards.get(key, ZERO) + commission
            ukey = (acct.addr, spot)
            ref.referred_rewards[ukey] = ref.referred_rewards.get(ukey, ZERO) + commission
        credit_to = core.credit_spot if spot else core.credit
        if fee:
            credit_to(core.fee_account, token, fee - commission)
        if bfee and broker is not None:
            credit_to(broker, token, bfee)
        return fee, bfee

    def _count_volume(self, acct: Account, kind: str, notional: Decimal, maker: bool, now: int) -> None:
        """Daily volume per kind (user_fees) and, for a referred user, its referrer's maker/taker split."""
        day = (kind, now // DAY_MS)
        daily = acct.daily_volume
        daily[day] = daily.get(day, ZERO) + notional
        ref = acct.referrer
        if ref is not None:
            rkey = (acct.addr, kind, maker)
            ref.referred_volume[rkey] = ref.referred_volume.get(rkey, ZERO) + notional
            ref.referred_total += notional
            rday = ("referred", now // DAY_MS)
            ref.daily_volume[rday] = ref.daily_volume.get(rday, ZERO) + notional

    def referral_tier(self, referrer: Account) -> ReferralTier:
        """The tier a referrer's total referred volume reaches."""
        tiers = self.core.config.referral_tiers
        chosen = tiers[0] if tiers else ReferralTier(ZERO, ZERO, ZERO)
        for t in tiers:
            if referrer.referred_total >= t.volume:
                chosen = t
        return chosen

    def spot_rates(self, m: Market) -> tuple[Decimal, Decimal]:
        """(maker, taker) fee rates of a spot market."""
        f = self.core.config.fees
        return (f.stable_spot_maker, f.stable_spot_taker) if m.spot.stable_pair else (f.spot_maker, f.spot_taker)

    def spot_reserve(self, m: Market, order: Order, rate: Decimal) -> tuple[int, Decimal]:
        """(token, amount) the rest of a spot order may spend: a buy's notional, fee at ``rate`` (if
        positive) and broker fee, each rounded up as its fills round them; a sell's base size."""
        spec = m.spot
        if not order.is_buy:
            return spec.base_asset, order.unfilled
        quantum = self.quanta[spec.quote_asset]
        notional = order.unfilled * order.price
        amount = debit(notional, quantum) + debit(notional * order.broker_rate, quantum)
        if rate > 0:
            amount += debit(notional * rate, quantum)
        return spec.quote_asset, amount

    def lock_spot(self, acct: Account, m: Market, order: Order) -> None:
        """Reserve what a resting spot order may spend (``_spot_reserve`` at the maker rate)."""
        token, lock = self.spot_reserve(m, order, self.spot_rates(m)[0])
        order.lock = lock
        acct.spot_locked[token] = acct.spot_locked.get(token, ZERO) + lock

    def unlock_spot(self, order: Order, m: Market, amount: Decimal) -> None:
        if not amount:
            return
        token = m.spot.quote_asset if order.is_buy else m.spot.base_asset
        order.lock -= amount
        locked = order.account.spot_locked
        locked[token] -= amount

    def order_event(self, order: Order) -> None:
        core = self.core
        key = order.account.addr
        if core.wants("orders", key):
            core.emit("orders", key, order_event(order, core.markets[order.inst_id].name))

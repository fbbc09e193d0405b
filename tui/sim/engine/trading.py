"""Order placement, matching, cancels and leverage.

A bracket: in one placeOrder, an entry followed by TP/SL orders with grouping "normal" (as the exchange's SDK
sends them): each TP/SL waits until the entry has filled (it cannot fire before), is cancelled if the entry
ends with nothing filled, and like any TP/SL with a grouping ("normal" or "position") is cancelled once
the position it protects is closed (see ``risk``).

placeOrder with several orders: every order is first validated on its own (instrument, tick, lot, notional,
flags); under the ``all-or-nothing`` batch rule (the default, ``rules``) any failure there rejects the whole action,
under ``per-order`` that order gets its error slot. The orders are then executed in turn; an order that
fails a check that depends on state (margin, post-only would cross, FOK/IOC without liquidity, reduce-only
without a position, a duplicate cloid under ``duplicate_cloid="refuse"``) gets ``{"error": message}`` in its
``status`` slot while the others proceed. If every order fails the action is ``Rejected`` and nothing changed. A
single order is therefore all-or-nothing.

Matching is price-time priority. Self-trade prevention cancels the resting order of the same account
("cancel resting") and matching continues. A resting reduce-only order that can no longer reduce is
cancelled when the matcher reaches it. Market orders are IOC (FOK if asked) bounded by their ``price``,
or by mark * (1 +- market_slippage) rounded to the tick when the price is 0 or empty. Untriggered trigger
orders reserve no margin; their checks run when they fire (see ``risk``).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from .accounts import CANCELLED, FILLED, OPEN, Account, Order
from .chain import Tx
from .core import ExchangeCore
from .errors import Rejected
from .fills import Settlement
from .markets import Market
from .requests import ActionResult, BrokerConfig, OrderRequest
from .values import ONE, ZERO, dstr, q8

MAX_ORDERS_PER_ACTION = 50


class Trading:
    """Orders: place, match, rest, cancel (cancelling by reference and leverage are ``Controls``)."""

    def __init__(self, core: ExchangeCore, settlement: Settlement) -> None:
        self.core = core
        self.settlement = settlement
        # ``xtui sim --faults``: while set, an IOC or market order matches at most this share of its size (in
        # whole lots, one at least) and the rest is cancelled, as when the book was thinner than it looked
        self.partial_share: Decimal | None = None

    # ------------------------------------------------------------------ place
    def place_order(
        self,
        account: str,
        order: OrderRequest,
        broker: BrokerConfig | None = None,
        *,
        tx_type: int = 1301,
        any_notional: bool = False,
    ) -> ActionResult:
        """Place one order; ``data`` is ``{"status": {"oid": n}}``; ``Rejected`` changes nothing. ``any_notional``:
        an exchange-owned order below the minimum notional (a mirror's queue model fills what the source traded)."""
        core = self.core
        acct = (core.accounts.get(account.lower()) if isinstance(account, str) else None) or core.account(account)
        now = core.clock.now_ms()
        m = self._check_static(order, any_notional)
        broker_acct, broker_rate = self._check_broker(acct, broker) if broker is not None else (None, ZERO)
        o = self._prepare(acct, m, order, now, broker_acct, broker_rate)
        tx = core.tx(acct, tx_type, now)
        self._submit(acct, m, o, tx, now)
        return ActionResult(tx, tx_type, None, True, o.oid)

    def place_orders(
        self, account: str, orders: Sequence[OrderRequest], broker: BrokerConfig | None = None, *, tx_type: int = 1301
    ) -> ActionResult:
        """Place orders (see the module docstring for batch semantics).

        ``data["status"]`` is ``{"oid": n}`` for a single order, else a list with one ``{"oid": n}`` or
        ``{"error": message}`` per order.
        """
        core = self.core
        if not orders:
            raise Rejected("placeOrder needs at least one order")
        if len(orders) > MAX_ORDERS_PER_ACTION:
            raise Rejected(f"at most {MAX_ORDERS_PER_ACTION} orders per action")
        if len(orders) == 1:
            return self.place_order(account, orders[0], broker, tx_type=tx_type)
        acct = core.account(account)
        now = core.clock.now_ms()
        markets = [self._checked(o) for o in orders]
        broker_acct, broker_rate = self._check_broker(acct, broker)
        tx: Tx | None = None
        statuses: list[dict[str, object]] = []
        first_error = ""
        entry: Order | None = None  # the batch's last order that is not a TP/SL: a bracket's entry
        for req, m in zip(orders, markets, strict=True):
            try:
                if isinstance(m, Rejected):  # the per-order batch rule: its own check failed, the others go on
                    raise m
                order = self._prepare(acct, m, req, now, broker_acct, broker_rate)
            except Rejected as e:
                statuses.append({"error": e.message})
                first_error = first_error or e.message
                continue
            if tx is None:
                tx = core.tx(acct, tx_type, now)
            if req.tpsl and req.grouping == "normal" and entry is not None and entry.inst_id == m.id:
                order.parent = entry  # waits for the entry to fill; goes if the entry goes unfilled
            elif not req.tpsl:
                entry = order
            self._submit(acct, m, order, tx, now)
            statuses.append({"oid": order.oid})
        if tx is None:
            raise Rejected(first_error)
        return ActionResult(tx, tx_type, {"status": statuses})

    def _checked(self, req: OrderRequest) -> Market | Rejected:
        """A batch's order checked on its own: under ``per-order`` its refusal is kept for its slot, else raised."""
        try:
            return self._check_static(req)
        except Rejected as e:
            if self.core.config.batch == "all-or-nothing":
                raise
            return e

    def _check_static(self, req: OrderRequest, any_notional: bool = False) -> Market:
        """Checks that need no account state."""
        core = self.core
        m = core.markets.get(req.instrument_id) or core.market(req.instrument_id)
        size, price = req.size, req.price
        if size % m.lot:
            raise Rejected(f"size {dstr(size)} is not a multiple of lot size {dstr(m.lot)}")
        if price % m.tick:
            raise Rejected(f"price {dstr(price)} is not a multiple of tick size {dstr(m.tick)}")
        if size > m.max_size:
            raise Rejected(f"size {dstr(size)} is too large")
        if m.delisted:
            raise Rejected(f"{m.name} is delisted")
        if req.trigger_px or req.tpsl or req.reduce_only or req.post_only or req.position_side != "BOTH":
            self._check_flags(req, m)
        if price and not req.reduce_only and not any_notional and price * size < m.min_notional:
            raise Rejected(f"order notional {dstr(price * size)} is below the minimum {dstr(m.min_notional)}")
        return m

    def _check_flags(self, req: OrderRequest, m: Market) -> None:
        if req.position_side != "BOTH":
            raise Rejected("hedge mode is off: positionSide must be BOTH")
        if req.trigger_px:
            if not m.is_perp:
                raise Rejected("trigger orders are only for perps")
            if req.trigger_px % m.tick:
                raise Rejected(f"trigger price {dstr(req.trigger_px)} is not a multiple of tick size {dstr(m.tick)}")
        elif req.tpsl:
            raise Rejected("a tp/sl order needs a triggerPx")
        if not m.is_perp and req.reduce_only:
            raise Rejected("reduce-only applies to perps only")
        if req.post_only and (req.is_market or req.tif != "GTC"):
            raise Rejected("post-only orders must be GTC limit orders")

    def _check_broker(self, acct: Account, broker: BrokerConfig | None) -> tuple[Account | None, Decimal]:
        if broker is None:
            return None, ZERO
        approval = acct.brokers.get(broker.broker.lower())
        if approval is None:
            raise Rejected(f"broker {broker.broker} is not approved by this account")
        if broker.fee > approval[0]:
            raise Rejected(f"broker fee {dstr(broker.fee)} exceeds the approved maximum {dstr(approval[0])}")
        return self.core.account(broker.broker), broker.fee

    def _prepare(
        self, acct: Account, m: Market, req: OrderRequest, now: int, broker: Account | None, broker_rate: Decimal
    ) -> Order:
        """The order to submit, after every check that depends on state; mutates nothing."""
        size = req.size
        if req.cloid and self.core.config.duplicate_cloid == "refuse":
            same = next((o for o in acct.orders.values() if o.cloid == req.cloid and o.live), None)
            if same is not None:
                raise Rejected(f"cloid {req.cloid[:64]!r} is already used by open order {same.oid}")
        if m.is_perp and req.reduce_only and not req.trigger_px:
            size = self.reduce_cap(acct, m, req.is_buy)
            if not size:
                raise Rejected(
                    f"reduce-only order would not reduce: no {'short' if req.is_buy else 'long'} position in {m.name}"
                )
            size = min(size, req.size)
        price, tif, mark = req.price, req.tif, m.mark
        if req.is_market:
            tif = "FOK" if tif == "FOK" else "IOC"
            if not price and not req.trigger_px:  # a trigger order takes its bound when it fires
                price = self.slippage_bound(m, req.is_buy)
        elif not req.trigger_px and not m.band_lo <= price <= m.band_hi:
            raise Rejected(f"price {dstr(price)} is outside the allowed band {dstr(m.band_lo)}..{dstr(m.band_hi)}")
        if not req.price and not req.reduce_only and mark * size < m.min_notional:
            raise Rejected(f"order notional {dstr(q8(mark * size))} is below the minimum {dstr(m.min_notional)}")
        order = Order(
            0,
            acct,
            m.id,
            req.is_buy,
            price,
            size,
            tif,
            now,
            req.cloid,
            req.post_only,
            req.reduce_only,
            req.is_market,
            req.trigger_px,
            req.tpsl,
            req.grouping,
            broker,
            broker_rate,
        )
        if req.trigger_px:
            order.trigger_above = req.trigger_px >= mark
        elif m.is_perp and tif == "GTC" and not req.post_only and not req.reduce_only:
            self._check_margin(acct, m, order)  # the common case of _check_executable, without the call
        else:
            self.check_executable(acct, m, order)
        return order

    def slippage_bound(self, m: Market, is_buy: bool) -> Decimal:
        slip = self.core.config.market_slippage
        if is_buy:
            return (m.mark * (ONE + slip) / m.tick).to_integral_value(ROUND_FLOOR) * m.tick
        return max(m.tick, (m.mark * (ONE - slip) / m.tick).to_integral_value(ROUND_CEILING) * m.tick)

    def check_executable(self, acct: Account, m: Market, order: Order) -> None:
        """Post-only, FOK/IOC liquidity, then margin (perps) or balance (spot)."""
        book = m.book
        if order.post_only:
            best = book.best_ask() if order.is_buy else book.best_bid()
            if best is not None and (order.price >= best if order.is_buy else order.price <= best):
                raise Rejected(
                    f"post-only order would cross the book (best {'ask' if order.is_buy else 'bid'} {dstr(best)})"
                )
        elif order.tif != "GTC":
            fillable = self._fillable(m, order)
            if order.tif == "FOK" and fillable < order.unfilled:
                raise Rejected(
                    f"FOK order cannot fill in full: {dstr(fillable)} available at {dstr(order.price)} or better"
                )
            if not fillable:
                raise Rejected(
                    f"no liquidity at {dstr(order.price)} or better: the "
                    f"{'market' if order.is_market else 'IOC'} order would not fill"
                )
        if m.is_perp:
            if not order.reduce_only:
                self._check_margin(acct, m, order)
        else:
            self._check_spot_funds(acct, m, order)

    def reduce_cap(self, acct: Account, m: Market, is_buy: bool) -> Decimal:
        """How much a reduce-only order on ``is_buy`` side may fill now."""
        pos = acct.positions.get(m.id)
        if pos is None or not pos.size or (pos.size > 0) == is_buy:
            return ZERO
        return abs(pos.size)

    def _fillable(self, m: Market, order: Order) -> Decimal:
        """Size the matcher would fill right now (skips own orders, caps reduce-only makers)."""
        want, limit, acct = order.unfilled, order.price, order.account
        caps: dict[Account, Decimal] = {}
        total = ZERO
        for level in m.book.iter_levels(not order.is_buy):
            if (level.price > limit) if order.is_buy else (level.price < limit):
                break
            for o in level.orders:
                if o.account is acct:
                    continue
                cap = o.unfilled
                if o.reduce_only:
                    left = caps.get(o.account)
                    if left is None:
                        left = self.reduce_cap(o.account, m, o.is_buy)
                    cap = min(cap, left)
                    caps[o.account] = left - cap
                total += cap
                if total >= want:
                    return want
        return total

    def _check_margin(self, acct: Account, m: Market, order: Order) -> None:
        """Reject an order whose worst-case exposure breaks the leverage tier or the free margin.

        Fast path: the order's extra initial margin is at most notional * imr, and the worst exposure at
        most |position| + the larger side; when the cached free margin covers the first and the second
        stays below the first restrictive tier, the order passes and the cache is lowered by the bound
        (conservative). Otherwise the exact figures decide, and a rejection always uses a fresh free margin.
        """
        core = self.core
        pos = acct.positions.get(m.id) or core.position(acct, m)
        nb, ns = pos.buy_notional, pos.sell_notional
        add = order.price * order.unfilled
        bound = add * pos.imr
        free = acct.free_cache
        if free is not None and acct.free_epoch == core.epoch and free >= bound:
            side, other = (nb + add, ns) if order.is_buy else (ns + add, nb)
            if abs(pos.size) * m.mark + (side if side > other else other) < pos.lev_cap:
                acct.free_cache = free - bound
                return
        if order.is_buy:
            new_nb, new_ns = nb + add, ns
        else:
            new_nb, new_ns = nb, ns + add
        size = pos.size
        if not size:  # flat: order IM is the larger side
            old = nb if nb > ns else ns
            worst = new_nb if new_nb > new_ns else new_ns
            delta = (worst - old) * pos.imr
        else:
            e = size * m.mark
            ae = abs(e)
            a, b = abs(e + nb), abs(e - ns)
            old = (a if a > b else b) - ae
            a, b = abs(e + new_nb), abs(e - new_ns)
            worst = a if a > b else b
            new = worst - ae
            delta = ((new if new > 0 else ZERO) - (old if old > 0 else ZERO)) * pos.imr
        if worst >= pos.lev_cap and worst > pos.notional():
            tier = pos.spec.tier(worst)
            raise Rejected(
                f"a {m.name} position of notional {dstr(q8(worst))} allows at most "
                f"{tier.max_leverage}x leverage (yours is {pos.leverage}x)"
            )
        if delta > 0:
            free = core.free_margin(acct)
            if free < delta:
                acct.free_cache = None  # the cache may be conservative: decide on the exact figure
                free = core.free_margin(acct)
            if free < delta:
                raise Rejected(
                    f"insufficient margin: the order needs {dstr(q8(delta))} USDC of initial margin, "
                    f"{dstr(q8(max(free, ZERO)))} available"
                )
            # right if the order rests in full; a fill, a cancel or an unfilled IOC end invalidates it
            acct.free_cache = free - delta

    def _check_spot_funds(self, acct: Account, m: Market, order: Order) -> None:
        settlement = self.settlement
        token, need = settlement.spot_reserve(m, order, settlement.spot_rates(m)[1])
        avail = acct.spot.get(token, ZERO) - acct.spot_locked.get(token, ZERO)
        if avail < need:
            sym = self.core.collaterals[token].symbol
            raise Rejected(f"insufficient {sym} spot balance: need {dstr(need)}, available {dstr(avail)}")

    # ------------------------------------------------------------------ submit
    def _submit(self, acct: Account, m: Market, order: Order, tx: Tx, now: int) -> None:
        """Give the order an id and run it: arm a trigger, or match and rest/cancel the rest."""
        core = self.core
        oid = order.oid = core.next_oid
        core.next_oid = oid + 1
        acct.orders[oid] = order
        core.dirty_accounts.add(acct)
        if order.trigger_px and order.state == OPEN:
            m.triggers[order.oid] = order
            if core.listeners:
                self.settlement.order_event(order)
            return
        self.execute(acct, m, order, tx, now)

    def execute(self, acct: Account, m: Market, order: Order, tx: Tx, now: int) -> None:
        """Match a checked order, then rest a GTC remainder or cancel an IOC/FOK/market remainder."""
        settlement = self.settlement
        book = m.book
        hold = ZERO if self.partial_share is None else self._held_back(m, order)
        if order.is_buy:
            if book.ask_keys and -book.ask_keys[-1] <= order.price:
                self._match(acct, m, order, tx, now, hold)
        elif book.bid_keys and book.bid_keys[-1] >= order.price:
            self._match(acct, m, order, tx, now, hold)
        if not order.unfilled:
            self.close_order(order, FILLED, now)
        elif order.reduce_only and not self.reduce_cap(acct, m, order.is_buy):
            self.close_order(order, CANCELLED, now)  # nothing left to reduce: never rest a dead order
        elif order.tif == "GTC" and not order.is_market:
            book.add(order)
            if m.is_perp:
                if not order.reduce_only:
                    pos = acct.positions[m.id]
                    if order.is_buy:
                        pos.buy_notional += order.price * order.unfilled
                    else:
                        pos.sell_notional += order.price * order.unfilled
            else:
                settlement.lock_spot(acct, m, order)
            if self.core.listeners:
                settlement.order_event(order)
        else:
            acct.free_cache = None
            self.close_order(order, CANCELLED, now)

    def _held_back(self, m: Market, order: Order) -> Decimal:
        """What a partial fill (``partial_share``) leaves unmatched of an IOC or market order: 0 for others."""
        if order.tif != "IOC" or self.partial_share is None or order.unfilled <= m.lot:
            return ZERO
        share = max(m.lot, (order.unfilled * self.partial_share / m.lot).to_integral_value(ROUND_FLOOR) * m.lot)
        return order.unfilled - share if share < order.unfilled else ZERO

    def _match(self, acct: Account, m: Market, taker: Order, tx: Tx, now: int, hold: Decimal = ZERO) -> None:
        core = self.core
        settlement = self.settlement
        book = m.book
        is_buy = taker.is_buy
        limit = taker.price
        keys, levels = (book.ask_keys, book.asks) if is_buy else (book.bid_keys, book.bids)
        while taker.unfilled > hold and keys:
            px = -keys[-1] if is_buy else keys[-1]
            if (px > limit) if is_buy else (px < limit):
                break
            level = levels[px]
            maker = level.orders[0]
            if maker.account is acct:
                self.cancel(maker, now)
                continue
            want = taker.unfilled - hold
            q = want if want < maker.unfilled else maker.unfilled
            if maker.reduce_only:
                cap = self.reduce_cap(maker.account, m, maker.is_buy)
                if not cap:
                    self.cancel(maker, now)
                    continue
                q = min(q, cap)
            if taker.reduce_only:
                cap = self.reduce_cap(acct, m, is_buy)
                if not cap:
                    break
                q = min(q, cap)
            settlement.trade(m, taker, maker, px, q, tx, now)
            book.consumed(level, not is_buy, q)
            if not maker.unfilled:
                self.close_order(maker, FILLED, now)
            elif core.listeners:
                settlement.order_event(maker)
        core.dirty_markets.add(m)

    def close_order(self, order: Order, state: str, now: int) -> None:
        """Finish an order that is no longer in the book or the trigger list."""
        core = self.core
        settlement = self.settlement
        order.state = state
        order.updated_ms = now
        acct = order.account
        acct.orders.pop(order.oid, None)
        settlement.carries.pop(order.oid, None)
        acct.order_history.append(order)
        core.dirty_accounts.add(acct)
        if core.listeners:
            settlement.order_event(order)

    def cancel(self, order: Order, now: int) -> None:
        """Cancel a live order: take it out of the book (or trigger list) and release what it reserved."""
        m = self.core.markets[order.inst_id]
        order.account.free_cache = None
        if order.waiting_trigger:
            m.triggers.pop(order.oid, None)
        else:
            m.book.remove(order)
            if m.is_perp:
                if not order.reduce_only:
                    pos = order.account.positions[m.id]
                    if order.is_buy:
                        pos.buy_notional -= order.price * order.unfilled
                    else:
                        pos.sell_notional -= order.price * order.unfilled
            else:
                self.settlement.unlock_spot(order, m, order.lock)
        self.close_order(order, CANCELLED, now)

"""The account's controls over its orders and positions: cancels (by oid, cloid, instrument, all) and leverage.

Cancel actions report per item (``{"success": {"success": "order N cancelled"}}`` or ``{"error": ...}``)
and are ``Rejected`` only when nothing at all could be cancelled; cancelling by instrument or everything
succeeds with a count, even zero. ``set_leverage`` checks 1..max_leverage, the margin tier of the worst
exposure of the position and its resting orders, and that the account can afford the new initial margin;
for an isolated position it moves the difference between the new required margin (entry notional /
leverage) and the current isolated margin.
"""

from __future__ import annotations

from collections.abc import Sequence

from .accounts import Account, Order
from .core import ExchangeCore
from .errors import Rejected
from .instruments import USDC_ID
from .requests import ActionResult
from .trading import Trading
from .values import LEDGER_Q, ZERO, dstr, parse_int, q8


class Controls:
    """Cancels and leverage."""

    def __init__(self, core: ExchangeCore, trading: Trading) -> None:
        self.core = core
        self.trading = trading

    # ------------------------------------------------------------------ cancels
    def cancel_by_oid(self, account: str, cancels: Sequence[tuple[int, int]], *, tx_type: int = 1302) -> ActionResult:
        """Cancel orders by (oid, instrument id). Per-item status; ``Rejected`` only if none could be cancelled."""
        acct = self.core.account(account)
        return self._cancel_items(
            acct, [(acct.orders.get(parse_int(o, "oid")), i, f"order {o}") for o, i in cancels], tx_type
        )

    def cancel_by_cloid(self, account: str, cancels: Sequence[tuple[str, int]], *, tx_type: int = 1303) -> ActionResult:
        """Cancel orders by (cloid, instrument id); like ``cancel_by_oid``."""
        acct = self.core.account(account)
        items: list[tuple[Order | None, int, str]] = []
        for cloid, inst in cancels:
            found = [o for o in acct.orders.values() if o.cloid == cloid and o.inst_id == inst] if cloid else []
            items.extend((o, inst, f"cloid {cloid!r}") for o in found)
            if not found:
                items.append((None, inst, f"cloid {cloid!r}"))
        return self._cancel_items(acct, items, tx_type)

    def _cancel_items(self, acct: Account, items: list[tuple[Order | None, int, str]], tx_type: int) -> ActionResult:
        core = self.core
        if not items:
            raise Rejected("cancels is empty")
        now = core.clock.now_ms()
        statuses: list[dict[str, object]] = []
        errors: list[str] = []
        todo: list[Order] = []
        for order, inst, label in items:
            if order is None or not order.live:
                msg = f"{label} is not an open order"
            elif order.inst_id != inst:
                msg = f"{label} is not on instrument {inst}"
            elif order in todo:
                msg = f"{label} is listed twice"
            else:
                todo.append(order)
                statuses.append({"success": {"success": f"order {order.oid} cancelled"}})
                continue
            errors.append(msg)
            statuses.append({"error": msg})
        if not todo:
            raise Rejected(errors[0])
        tx = core.tx(acct, tx_type, now)
        for order in todo:
            self.trading.cancel(order, now)
        return ActionResult(tx, tx_type, {"status": statuses}, success=not errors)

    def cancel_by_instrument(self, account: str, instrument_id: int, *, tx_type: int = 1313) -> ActionResult:
        """Cancel every live order of one instrument; ``data`` = {success, orders_cancelled}."""
        core = self.core
        m = core.market(instrument_id)
        return self._cancel_where(core.account(account), tx_type, m.id)

    def cancel_all(self, account: str, *, tx_type: int = 1311) -> ActionResult:
        """Cancel every live order of the account; ``data`` = {success, orders_cancelled}."""
        return self._cancel_where(self.core.account(account), tx_type, None)

    def _cancel_where(self, acct: Account, tx_type: int, inst_id: int | None) -> ActionResult:
        core = self.core
        now = core.clock.now_ms()
        tx = core.tx(acct, tx_type, now)
        todo = [o for o in acct.orders.values() if inst_id is None or o.inst_id == inst_id]
        for o in todo:
            self.trading.cancel(o, now)
        return ActionResult(tx, tx_type, {"success": f"cancelled {len(todo)} orders", "orders_cancelled": len(todo)})

    # ------------------------------------------------------------------ leverage
    def set_leverage(
        self, account: str, instrument_id: int, leverage: int | str, *, tx_type: int = 1203
    ) -> ActionResult:
        """Set the account's leverage on a perp (1..max, and within the tier of its position and orders)."""
        core = self.core
        m = core.market(instrument_id)
        if not m.is_perp:
            raise Rejected(f"{m.name} is spot: leverage applies to perps")
        lev = parse_int(leverage, "leverage")
        spec = m.perp
        if not 1 <= lev <= spec.max_leverage:
            raise Rejected(f"leverage must be between 1 and {spec.max_leverage} for {m.name}, got {lev}")
        acct = core.account(account)
        pos = core.position(acct, m)
        worst = pos.worst_notional(pos.buy_notional, pos.sell_notional)
        tier = spec.tier(worst)
        if lev > tier.max_leverage:
            raise Rejected(
                f"a {m.name} position of notional {dstr(q8(worst))} allows at most {tier.max_leverage}x leverage"
            )
        old = pos.leverage
        acct.free_cache = None
        before = acct.free_margin(core.collaterals, core.coll_prices)
        iso_delta = ZERO
        if pos.isolated and pos.size:
            iso_delta = (abs(pos.cost) / lev).quantize(LEDGER_Q) - pos.iso_margin
            if iso_delta < 0 and pos.iso_margin + iso_delta + pos.upnl() < pos.maintenance():
                raise Rejected("raising leverage would leave the isolated position below maintenance margin")
        pos.set_leverage(lev)
        after = acct.free_margin(core.collaterals, core.coll_prices) - iso_delta
        if after < 0 and after < before:
            pos.set_leverage(old)
            raise Rejected(f"insufficient margin for {lev}x: {dstr(q8(-after))} USDC short")
        now = core.clock.now_ms()
        if iso_delta:
            pos.iso_margin += iso_delta
            core.credit(acct, USDC_ID, -iso_delta)
        pos.leverage_ms = now
        core.dirty_accounts.add(acct)
        core.dirty_positions.add(pos)
        return ActionResult(core.tx(acct, tx_type, now), tx_type, {})

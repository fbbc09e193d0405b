"""The /info answers about one account: summary, positions, orders, fills, funding, transfers, history, fees.

A query for an unknown address answers as for an empty account and creates nothing. History lists are
newest first. Account summary formulas (USDC; see ``accounts`` for margin):

- collateral[sym].balance = derivatives balance; withdrawable_balance = min(balance, free / (price*weight))
  where free = margin_balance - initial_margin (the most that can leave without breaching initial margin),
  rounded down to the token's quantum: exactly what a withdrawal or transfer accepts
- spot_collateral[sym]: balance, withdrawable = balance - reserved by resting spot orders
- vault_balances[vault].amount = the USDC the depositor's shares redeem for now (rounded down to the quantum)
- derivative_account_equity = sum of derivatives balances * price (unweighted) + upnl + isolated margins
- spot_account_equity = sum of spot balances * price; total_account_equity = derivative + spot + the
  vault_balances' amounts (money in a vault is still the account's: a deposit moves it, it does not spend it)
- transfer_margin_req = initial_margin; staked_collateral = 0
- total_pnl = realised PnL + upnl + net funding - fees paid (perps); max_drawdown = the largest fall of
  total_pnl from its running peak, sampled at account-history points (USDC)
- withdrawable_balance_notional = the most USDC value successive withdrawals can take out: every margin token
  in turn, the lowest collateral weight first (it frees the most value per unit of free margin), each as far
  as the free margin the earlier ones left allows
- perp_volume = the perp notional the account traded (total_volume counts perps only, spot_volume spot)
- vault_summary (null unless the account is a vault's): shares outstanding, lock_in_period (ms), equity_daily =
  the vault account's value at each day's last history point, daily_nav_changes = each day's change of
  total_pnl over the previous day's value (deposits and withdrawals move the value, not the NAV per
  share), apr = their mean * 365
- utilisations = margin / margin_balance (1 when margin_balance <= 0 and the margin is not zero)
- liquidation_price: the mark at which, other marks fixed, margin_balance = maintenance_margin (cross)
  or iso_margin + upnl = maintenance (isolated), with the current tier; 0 when no positive price does.
"""

from __future__ import annotations

from decimal import Decimal
from itertools import pairwise
from typing import Any

from .accounts import Account, MarginState, Position
from .core import ExchangeCore
from .errors import Rejected
from .fills import Settlement
from .funds import Funds
from .instruments import USDC_ID
from .money import credit
from .values import ONE, ZERO, dstr, num
from .views import (
    balance_entry,
    envelope,
    order_event,
    order_record,
    paginate,
    plain,
    position_leg,
    position_record,
)

DAY_MS = 86_400_000


class AccountQueries:
    """Account-scoped /info methods."""

    def __init__(self, core: ExchangeCore, settlement: Settlement, funds: Funds) -> None:
        self.core = core
        self.settlement = settlement
        self.funds = funds

    # ------------------------------------------------------------------ summary
    def account_summary(self, user: str) -> dict[str, Any]:
        """``account_summary`` (see the module docstring for every formula)."""
        core = self.core
        acct = core.view(user)
        ms = acct.margin(core.collaterals, core.coll_prices)
        free = ms.free if ms.free > 0 else ZERO
        usdc_q = self.settlement.quanta[USDC_ID]
        collateral: dict[str, Any] = {}
        spot: dict[str, Any] = {}
        deriv_raw = spot_eq = ZERO
        now = core.clock.now_ms()
        for c in core.collaterals.values():
            price = core.coll_prices[c.id]
            if c.is_margin:
                bal = acct.balances.get(c.id, ZERO)
                deriv_raw += bal * price
                collateral[c.symbol] = balance_entry(bal, self.funds.withdrawable_of(bal, free, c))
            sbal = acct.spot.get(c.id, ZERO)
            spot_eq += sbal * price
            spot[c.symbol] = balance_entry(sbal, self.funds.spot_free(acct, c))
        deriv_eq = deriv_raw + ms.upnl + sum((p.iso_margin for p in acct.positions.values()), ZERO)
        perp_positions = {
            p.spec.name: {
                "position_type": "oneWay",
                "legs": [position_leg(p)],
                "liquidation_price": num(self._liquidation_price(acct, p, ms)),
                "mm": num(p.maintenance()),
                "im": num(p.margin()),
                "upnl": num(p.upnl()),
            }
            for p in acct.positions.values()
            if p.size
        }
        vaults = self._vault_balances(acct, now, usdc_q)
        vault_eq = sum((v["amount"] for v in vaults.values()), ZERO)
        return {
            "address": acct.display,
            "margin_mode": "cross",
            "multi_asset_mode": False,
            "hedge_mode": False,
            "spot_collateral": spot,
            "collateral": collateral,
            "vault_balances": vaults,
            "staked_collateral": ZERO,
            "perp_positions": perp_positions,
            "initial_margin_utilization": num(_ratio(ms.initial_margin, ms.margin_balance)),
            "maintenance_margin_utilization": num(_ratio(ms.maintenance, ms.margin_balance)),
            "upnl": num(ms.upnl),
            "total_account_equity": num(deriv_eq + spot_eq + vault_eq),
            "margin_balance": num(ms.margin_balance),
            "initial_margin": num(ms.initial_margin),
            "maintenance_margin": num(ms.maintenance),
            "total_volume": acct.total_volume,
            "total_pnl": num(self._total_pnl(acct, ms.upnl)),
            "available_balance": num(free),
            "transfer_margin_req": num(ms.initial_margin),
            "max_drawdown": num(acct.max_drawdown),
            "spot_account_equity": num(spot_eq),
            "derivative_account_equity": num(deriv_eq),
            "spot_volume": acct.spot_volume + acct.stable_spot_volume,
            "perp_volume": acct.total_volume,
            "withdrawable_balance_notional": num(self._withdrawable_notional(acct, free)),
            "vault_summary": self._vault_summary(acct),
        }

    def _withdrawable_notional(self, acct: Account, free: Decimal) -> Decimal:
        core = self.core
        total = ZERO
        margin_tokens = [(c, acct.balances.get(c.id, ZERO)) for c in core.collaterals.values() if c.is_margin]
        for c, bal in sorted(margin_tokens, key=lambda cb: ONE if cb[0].id == USDC_ID else cb[0].weight(cb[1])):
            out = self.funds.withdrawable_of(bal, free, c)
            if not out:
                continue
            price = core.coll_prices[c.id]
            total += out * price
            free -= out if c.id == USDC_ID else out * price * c.weight(bal)
        return total

    def _vault_summary(self, acct: Account) -> dict[str, Any] | None:
        vault = self.funds.vaults.get(acct.addr)
        if vault is None:
            return None
        days: dict[str, tuple[Decimal, Decimal]] = {}  # day -> (value, total_pnl) at its last history point
        for point in acct.history:
            days[point["created_at"][:10]] = (Decimal(point["account_value"]), Decimal(point["total_pnl"]))
        daily = list(days.values())
        changes = [(pnl - pnl_before) / before for (before, pnl_before), (_, pnl) in pairwise(daily) if before > 0]
        return {
            "apr": num(sum(changes, ZERO) / len(changes) * 365) if changes else ZERO,
            "lock_in_period": vault.spec.lock_in_ms,
            "shares": vault.total_shares,
            "equity_daily": [num(value) for value, _ in daily],
            "daily_nav_changes": [num(c) for c in changes],
        }

    def _total_pnl(self, acct: Account, upnl: Decimal) -> Decimal:
        realised = funding = ZERO
        for p in acct.positions.values():
            realised += p.realized
            funding += p.funding
        return realised + upnl + funding - acct.fees_paid

    def _liquidation_price(self, acct: Account, pos: Position, ms: MarginState) -> Decimal:
        size = pos.size
        tier = pos.spec.tier(pos.notional())
        if pos.isolated:
            base, other_mm = pos.iso_margin, ZERO
        else:
            base = ms.margin_balance - pos.upnl()
            other_mm = ms.maintenance - pos.maintenance()
        denom = size - abs(size) * tier.mmr
        if not denom:
            return ZERO
        price = (other_mm - tier.mmd - base + pos.cost) / denom
        return price if price > 0 else ZERO

    def _vault_balances(self, acct: Account, now: int, usdc_q: Decimal) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for v in self.funds.vaults.values():
            h = v.holdings.get(acct.addr)
            if h is None or not h.lots:
                continue
            total = h.total
            out[v.address] = {
                "withdrawable_shares": h.unlocked(now),
                "total_shares": total,
                "amount": plain(credit(self.funds.vault_equity(v) * total / v.total_shares, usdc_q))
                if v.total_shares
                else ZERO,
            }
        return out

    # ------------------------------------------------------------------ lists
    def positions(self, user: str, instrument: str | None = None) -> list[dict[str, Any]]:
        """Open positions (non-zero size), optionally of one instrument."""
        core = self.core
        acct = core.view(user)
        only = core.market(instrument).id if instrument else None
        return [
            position_record(acct.display, p)
            for p in acct.positions.values()
            if p.size and (only is None or p.spec.id == only)
        ]

    def open_orders(
        self, user: str, page: Any = None, limit: Any = None, instrument: str | None = None
    ) -> dict[str, Any]:
        """Live orders (resting, waiting for a trigger, or triggered and resting), newest first."""
        core = self.core
        acct = core.view(user)
        only = core.market(instrument).id if instrument else None
        items = sorted(
            (o for o in acct.orders.values() if only is None or o.inst_id == only), key=lambda o: o.oid, reverse=True
        )
        chunk, meta = paginate(items, page, limit)
        return envelope([order_record(o, core.markets[o.inst_id].name) for o in chunk], meta)

    def open_order_events(self, user: str) -> list[dict[str, Any]]:
        """Live orders as ``orders`` WebSocket payloads, oldest first (a new subscriber's first picture)."""
        core = self.core
        acct = core.view(user)
        return [order_event(o, core.markets[o.inst_id].name) for o in sorted(acct.orders.values(), key=lambda o: o.oid)]

    def order_history(self, user: str, page: Any = None, limit: Any = None) -> dict[str, Any]:
        """Every kept order, live and finished, newest first."""
        core = self.core
        acct = core.view(user)
        items = sorted([*acct.orders.values(), *acct.order_history], key=lambda o: o.oid, reverse=True)
        chunk, meta = paginate(items, page, limit)
        return envelope([order_record(o, core.markets[o.inst_id].name) for o in chunk], meta)

    def fills(self, user: str, page: Any = None, limit: Any = None) -> dict[str, Any]:
        acct = self.core.view(user)
        chunk, meta = paginate(list(reversed(acct.fills)), page, limit)
        # the TypeScript SDK's ITradeHistoryResponse spells three of the envelope's fields in camelCase
        camel = {"totalPages": meta["total_pages"], "hasNext": meta["has_next"], "hasPrev": meta["has_prev"]}
        return envelope([f.record() for f in chunk], meta) | camel

    def funding_history(self, user: str, page: Any = None, limit: Any = None) -> dict[str, Any]:
        acct = self.core.view(user)
        chunk, meta = paginate(list(reversed(acct.funding)), page, limit)
        return envelope(list(chunk), meta)

    def transfer_history(self, user: str, page: Any = None, limit: Any = None) -> list[dict[str, Any]]:
        """Transfer records newest first (an array; ``page``/``limit`` select a slice when given)."""
        acct = self.core.view(user)
        items = list(reversed(acct.transfers))
        if page is None and limit is None:
            return items
        chunk, _ = paginate(items, page, limit)
        return list(chunk)

    def account_history(self, user: str) -> list[dict[str, Any]]:
        """Account value points (one per ``history_interval_ms`` while the account is active), newest first."""
        return list(reversed(self.core.view(user).history))

    def instrument_leverage(self, user: str, symbol: str) -> dict[str, Any]:
        core = self.core
        acct = core.view(user)
        m = core.market(symbol)
        if not m.is_perp:
            raise Rejected(f"{m.name} is spot: leverage applies to perps")
        pos = acct.positions.get(m.id)
        spec = m.perp
        lev = pos.leverage if pos else min(core.config.default_leverage, spec.max_leverage)
        isolated = pos.isolated if pos else spec.only_isolated
        return {
            "address": acct.display,
            "instrument_id": m.id,
            "instrument": m.name,
            "margin_type": "isolated" if isolated else "cross",
            "leverage": str(lev),
            "updated_at": (pos.leverage_ms if pos else core.genesis_ms) // 1000,
        }

    def user_fees(self, user: str) -> dict[str, Any]:
        """Rolling 14/30-day volumes and the fee rates that apply."""
        core = self.core
        acct = core.view(user)
        f = core.config.fees
        today = core.clock.now_ms() // DAY_MS
        out: dict[str, Any] = {"account": acct.display}
        for kind in ("spot", "stable_spot", "perp", "option"):
            for days in (14, 30):
                v = sum((acct.daily_volume.get((kind, d), ZERO) for d in range(today - days + 1, today + 1)), ZERO)
                out[f"{kind}_volume_{days}d"] = dstr(v)
        out["total_volume_threshold"] = f.total_volume_threshold
        rates = {
            "perp": (f.perp_maker, f.perp_taker),
            "spot": (f.spot_maker, f.spot_taker),
            "stable_spot": (f.stable_spot_maker, f.stable_spot_taker),
            "option": (f.option_maker, f.option_taker),
        }
        discount = self.settlement.referral_tier(acct.referrer).fee_discount if acct.referrer is not None else ZERO
        for kind, (maker, taker) in rates.items():
            out[f"{kind}_maker_fee_rate"] = maker
            out[f"{kind}_taker_fee_rate"] = taker * (ONE - discount) if taker > 0 else taker
        return out


def _ratio(part: Decimal, whole: Decimal) -> Decimal:
    if whole > 0:
        return part / whole
    return ONE if part else ZERO

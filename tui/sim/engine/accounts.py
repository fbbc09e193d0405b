"""Accounts, their orders and positions, and the margin arithmetic. An order and its account name each other, so
they stand in one module; a position reads its market through ``types.Marked``.

Position bookkeeping (one-way mode, ``position_side`` BOTH):

- ``size`` is signed (negative = short); ``cost`` is the exact signed cost basis, the sum of
  ``signed size * price`` of the fills that opened it. ``entry_price = cost / size`` is derived for display.
- A fill of ``q`` at ``P`` is worth ``V = q*P`` rounded to the USDC quantum (``money.share``; exact at any
  tick price, so only a liquidation at a mark with many digits rounds), the same ``V`` for both sides.
- On a reduce of ``c`` (signed, opposite to ``size``), the released cost is ``cost * |c| / |size|``
  (rounded to the quantum; all of it on a full close) and the realised PnL is ``-(value of c + released)``.
  So ``collateral - cost`` moves by exactly ``-(signed V)`` per fill, the two sides of a trade cancel, and
  money is conserved exactly: see ``Exchange.audit``. Cost bases and realised PnL stay whole quanta.
- ``upnl = size*mark - cost``.

Margin (all USDC; ``mark`` per instrument; ``lev`` the account's leverage on the instrument):

- collateral_value = sum over margin tokens of balance * price * weight(balance)
- cross upnl = sum of upnl over cross positions
- margin_balance = collateral_value + cross upnl                                  (the cross equity)
- position IM (cross) = |size| * mark / lev; isolated positions carry their own ``iso_margin`` instead
- order IM per instrument: with ``e = size*mark`` and resting buy/sell notionals ``NB``/``NS`` (non
  reduce-only), worst = max(|e + NB|, |e - NS|) and order IM = max(0, worst - |e|) / lev. Resting orders
  of isolated instruments reserve cross margin the same way.
- initial_margin = cross position IM + order IM of all instruments
- maintenance margin of a position = |size|*mark*mmr - mmd of its margin tier; maintenance_margin = the
  sum over cross positions
- available_balance = max(0, margin_balance - initial_margin)
- a cross account is liquidated when maintenance_margin > 0 and margin_balance < maintenance_margin; an
  isolated position when iso_margin + upnl < its maintenance margin.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from .instruments import USDC_ID, Collateral, PerpSpec
from .money import share
from .records import Fill
from .values import ONE, ZERO

if TYPE_CHECKING:
    from .types import Marked

INFINITY = Decimal("Infinity")


# Order states (order records, ``orders`` events).
OPEN = "open"
FILLED = "filled"
CANCELLED = "cancelled"
TRIGGERED = "triggered"


class Order:
    """One order, live or finished. ``unfilled`` is what is left; ``size`` never changes after placement."""

    __slots__ = (
        "account",
        "broker",
        "broker_rate",
        "cloid",
        "created_ms",
        "grouping",
        "inst_id",
        "is_buy",
        "is_market",
        "lock",
        "oid",
        "parent",
        "post_only",
        "price",
        "reduce_only",
        "size",
        "state",
        "tif",
        "tpsl",
        "trigger_above",
        "trigger_px",
        "unfilled",
        "updated_ms",
    )

    def __init__(
        self,
        oid: int,
        account: Account,
        inst_id: int,
        is_buy: bool,
        price: Decimal,
        size: Decimal,
        tif: str,
        now_ms: int,
        cloid: str,
        post_only: bool,
        reduce_only: bool,
        is_market: bool,
        trigger_px: Decimal,
        tpsl: str,
        grouping: str,
        broker: Account | None,
        broker_rate: Decimal,
    ) -> None:
        # positional only: this runs once per order on the hot path
        self.oid = oid
        self.account = account
        self.inst_id = inst_id
        self.is_buy = is_buy
        self.price = price
        self.size = size
        self.unfilled = size
        self.tif = tif
        self.cloid = cloid
        self.post_only = post_only
        self.reduce_only = reduce_only
        self.is_market = is_market
        self.trigger_px = trigger_px
        self.trigger_above = False  # set when the trigger is armed: fire when mark >= trigger_px
        self.tpsl = tpsl
        self.grouping = grouping
        self.broker = broker
        self.broker_rate = broker_rate
        self.state = OPEN
        self.created_ms = now_ms
        self.updated_ms = now_ms
        self.lock = ZERO  # spot: the balance this resting order reserves
        self.parent: Order | None = None  # a bracket's TP/SL (grouping "normal"): the entry it waits for

    @property
    def live(self) -> bool:
        """Open (resting or waiting for its trigger) or triggered and resting."""
        return self.state == OPEN or self.state == TRIGGERED

    @property
    def waiting_trigger(self) -> bool:
        """A trigger order that has not fired yet."""
        return self.state == OPEN and bool(self.trigger_px)

    def __repr__(self) -> str:
        side = "buy" if self.is_buy else "sell"
        return f"Order({self.oid} {side} {self.unfilled}/{self.size}@{self.price} {self.state})"


class Position:
    """An account's position in one perp, with its leverage setting and the notional of its resting orders."""

    __slots__ = (
        "buy_notional",
        "cost",
        "funding",
        "imr",
        "iso_margin",
        "isolated",
        "lev_cap",
        "leverage",
        "leverage_ms",
        "market",
        "owner",
        "realized",
        "sell_notional",
        "size",
        "spec",
        "updated_ms",
    )

    def __init__(self, owner: Account, market: Marked, leverage: int, isolated: bool, now_ms: int) -> None:
        self.owner = owner
        self.market = market
        self.spec: PerpSpec = market.perp
        self.size = ZERO
        self.cost = ZERO
        self.leverage = leverage
        self.imr = ONE / leverage
        self.lev_cap = _lev_cap(self.spec, leverage)
        self.isolated = isolated
        self.iso_margin = ZERO
        self.buy_notional = ZERO  # sum of price*unfilled of resting non reduce-only buys
        self.sell_notional = ZERO
        self.realized = ZERO  # realised PnL credited to the balance
        self.funding = ZERO  # net funding received
        self.updated_ms = now_ms
        self.leverage_ms = now_ms

    def set_leverage(self, leverage: int) -> None:
        self.leverage = leverage
        self.imr = ONE / leverage
        self.lev_cap = _lev_cap(self.spec, leverage)

    @property
    def entry_price(self) -> Decimal:
        return self.cost / self.size if self.size else ZERO

    def upnl(self) -> Decimal:
        return self.size * self.market.mark - self.cost

    def notional(self) -> Decimal:
        return abs(self.size) * self.market.mark

    def margin(self) -> Decimal:
        """The margin the position holds: its ``iso_margin`` when isolated, else its cross IM ``|size|*mark/lev``."""
        return self.iso_margin if self.isolated else self.notional() * self.imr

    def maintenance(self) -> Decimal:
        """Maintenance margin from the tier of the current notional (never negative)."""
        n = abs(self.size) * self.market.mark
        if not n:
            return ZERO
        t = self.spec.tier(n)
        mm = n * t.mmr - t.mmd
        return mm if mm > 0 else ZERO

    def order_im(self, buy_notional: Decimal, sell_notional: Decimal) -> Decimal:
        """Initial margin the resting orders need on top of the position (see the module docstring)."""
        if not buy_notional and not sell_notional:
            return ZERO
        e = self.size * self.market.mark
        a = abs(e + buy_notional)
        b = abs(e - sell_notional)
        worst = a if a > b else b
        extra = worst - abs(e)
        return extra * self.imr if extra > 0 else ZERO

    def worst_notional(self, buy_notional: Decimal, sell_notional: Decimal) -> Decimal:
        """The largest notional the position could reach if every resting order on one side filled."""
        e = self.size * self.market.mark
        a = abs(e + buy_notional)
        b = abs(e - sell_notional)
        return a if a > b else b

    def apply_fill(self, qty: Decimal, value: Decimal, quantum: Decimal) -> tuple[Decimal, Decimal]:
        """Apply a signed fill of ``qty`` worth ``value`` (its notional, rounded to ``quantum``).

        Returns (closed size (signed, opposite to the old position), realised PnL).
        """
        size = self.size
        signed_value = value if qty > 0 else -value
        if not size or (size > 0) == (qty > 0):
            self.cost += signed_value
            self.size = size + qty
            return ZERO, ZERO
        close = qty if abs(qty) <= abs(size) else -size
        close_value = signed_value if close == qty else share(signed_value, abs(close), abs(qty), quantum)
        released = self.cost if close == -size else share(self.cost, abs(close), abs(size), quantum)
        pnl = -(close_value + released)
        self.cost -= released
        rest = qty - close
        self.size = size + close
        if rest:
            self.cost += signed_value - close_value
            self.size += rest
        self.realized += pnl
        return close, pnl


def _lev_cap(spec: PerpSpec, leverage: int) -> Decimal:
    """The smallest notional whose tier does not allow ``leverage`` (Infinity if none)."""
    for t in spec.tiers:
        if t.max_leverage < leverage:
            return t.threshold
    return INFINITY


@dataclass(slots=True)
class MarginState:
    """The margin figures of one account at the current marks (see the module docstring)."""

    collateral_value: Decimal
    cross_upnl: Decimal
    upnl: Decimal
    margin_balance: Decimal
    iso_equity: Decimal
    position_im: Decimal
    order_im: Decimal
    maintenance: Decimal

    @property
    def initial_margin(self) -> Decimal:
        return self.position_im + self.order_im

    @property
    def free(self) -> Decimal:
        """margin_balance - initial_margin (may be negative)."""
        return self.margin_balance - self.position_im - self.order_im


class Account:
    """Everything the exchange keeps about one address. ``addr`` is lower-case; ``display`` is EIP-55."""

    __slots__ = (
        "addr",
        "agents",
        "balances",
        "brokers",
        "claimed_rewards",
        "codes",
        "created_ms",
        "daily_volume",
        "display",
        "fauceted",
        "fees_paid",
        "fills",
        "free_cache",
        "free_epoch",
        "funding",
        "history",
        "max_drawdown",
        "order_history",
        "orders",
        "peak_pnl",
        "positions",
        "refer_ms",
        "referred",
        "referred_rewards",
        "referred_total",
        "referred_volume",
        "referrer",
        "referrer_code",
        "reward_history",
        "rewards",
        "spot",
        "spot_locked",
        "spot_volume",
        "stable_spot_volume",
        "total_volume",
        "transfers",
        "vault_shares",
    )

    def __init__(self, addr: str, display: str, now_ms: int, max_history: int) -> None:
        self.addr = addr
        self.display = display
        self.created_ms = now_ms
        self.fauceted = False
        # free margin cached for the order-placement hot path: valid while free_epoch equals the engine's
        # price epoch; anything that changes balances, positions or order margin sets it to None
        self.free_cache: Decimal | None = None
        self.free_epoch = -1
        self.balances: dict[int, Decimal] = {}  # derivatives collateral by token id
        self.spot: dict[int, Decimal] = {}  # spot balances by token id
        self.spot_locked: dict[int, Decimal] = {}  # reserved by resting spot orders
        self.positions: dict[int, Position] = {}
        self.orders: dict[int, Order] = {}  # live orders by oid
        self.order_history: deque[Order] = deque(maxlen=max_history)  # finished orders, oldest first
        self.fills: deque[Fill] = deque(maxlen=max_history)
        self.funding: deque[dict[str, Any]] = deque(maxlen=max_history)
        self.transfers: deque[dict[str, Any]] = deque(maxlen=max_history)
        self.history: deque[dict[str, Any]] = deque(maxlen=max_history)
        self.total_volume = ZERO  # perp notional traded
        self.spot_volume = ZERO
        self.stable_spot_volume = ZERO
        self.daily_volume: dict[tuple[str, int], Decimal] = {}  # (kind, day number) -> notional
        self.fees_paid = ZERO  # perp fees paid (negative for net rebates)
        self.peak_pnl = ZERO
        self.max_drawdown = ZERO
        # referrals
        self.referrer: Account | None = None
        self.referrer_code = ""
        self.refer_ms = 0
        self.codes: list[str] = []
        self.referred: dict[str, int] = {}  # referred user addr -> joined ms
        self.referred_rewards: dict[tuple[str, bool], Decimal] = {}  # (user, spot) -> commission earned
        self.referred_total = ZERO  # volume of all referred users (sets the referral tier)
        self.referred_volume: dict[tuple[str, str, bool], Decimal] = {}  # (user, kind, maker) -> notional
        self.rewards: dict[tuple[int, bool], Decimal] = {}  # (collateral id, spot) -> claimable
        self.claimed_rewards: dict[tuple[int, bool], Decimal] = {}
        self.reward_history: deque[dict[str, Any]] = deque(maxlen=max_history)
        # permissions
        self.agents: dict[str, Any] = {}
        self.brokers: dict[str, tuple[Decimal, int]] = {}  # broker addr -> (max fee rate, updated ms)
        self.vault_shares: dict[str, Any] = {}

    def keep_history(self, n: int) -> None:
        """Keep the last ``n`` of each history (finished orders, fills, funding, transfers, rewards) from now on."""
        for name in ("order_history", "fills", "funding", "transfers", "history", "reward_history"):
            setattr(self, name, deque(getattr(self, name), maxlen=n))

    def __repr__(self) -> str:
        return f"Account({self.display})"

    def margin(self, collaterals: dict[int, Collateral], prices: dict[int, Decimal]) -> MarginState:
        """The margin figures at the current marks."""
        cv = ZERO
        for cid, bal in self.balances.items():
            if bal:
                c = collaterals[cid]
                cv += bal if cid == USDC_ID else bal * prices[cid] * (c.weight(bal) if bal > 0 else ONE)
        cross_upnl = upnl = iso_eq = pim = oim = mm = ZERO
        for p in self.positions.values():
            size = p.size
            if size:
                u = p.upnl()
                upnl += u
                if p.isolated:
                    iso_eq += p.iso_margin + u
                else:
                    cross_upnl += u
                    pim += abs(size) * p.market.mark * p.imr
                    mm += p.maintenance()
            if p.buy_notional or p.sell_notional:
                oim += p.order_im(p.buy_notional, p.sell_notional)
        return MarginState(cv, cross_upnl, upnl, cv + cross_upnl, iso_eq, pim, oim, mm)

    def free_margin(self, collaterals: dict[int, Collateral], prices: dict[int, Decimal]) -> Decimal:
        """margin_balance - initial_margin, in one pass (the order-placement hot path)."""
        free = ZERO
        for cid, bal in self.balances.items():
            if bal:
                if cid == USDC_ID:
                    free += bal
                else:
                    free += bal * prices[cid] * (collaterals[cid].weight(bal) if bal > 0 else ONE)
        for p in self.positions.values():
            size = p.size
            if size and not p.isolated:
                mark = p.market.mark
                free += size * mark - p.cost - abs(size) * mark * p.imr
            if p.buy_notional or p.sell_notional:
                free -= p.order_im(p.buy_notional, p.sell_notional)
        return free

"""The engine's shared state and the primitives the other parts use: accounts, ledger, prices, events, chain.

``Exchange`` holds one ``ExchangeCore`` and the parts that act on it, each given what it uses when made (no
part inherits another; each keeps its own state):

- ``ExchangeCore`` (this module): accounts, markets, prices, ledger primitives, listeners, chain
- ``Settlement`` (fills; core): trades into positions, PnL, fees, referral commission
- ``Trading`` (trading; core, settlement): order entry, validation, matching
- ``Controls`` (controls; core, trading): cancels, leverage
- ``Risk`` (risk; core, settlement, trading): the clock tick: triggers, liquidation, funding, account history
- ``Funds`` (funds; core, settlement): deposits, withdrawals, transfers, and the vaults it holds
- ``Relations`` (relations; core, settlement): referrals, brokers, and the agents and codes it holds
- ``AccountQueries`` (core, settlement, funds) / ``MarketQueries`` (core): the /info and /explorer answers
- ``Events`` (events; core, the queries): what each flush emits

Money conservation, exact for every token ``t`` (checked by ``audit``)::

    sum over accounts of (derivatives balance[t] + spot balance[t])
    + [t is USDC] * (sum over positions of (iso_margin + size*mark - cost) + unclaimed referral rewards)
    == minted[t] - withdrawn[t]

Fees, rebates, funding and bad debt move between ordinary accounts (the fee account and the backstop
account included), so they never break it; since every instrument's sizes sum to zero the upnl term
equals ``-sum(cost)`` and the identity holds at any mark.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from tui.api.signing import SigningError, checksum_address, keccak256
from tui.sim.clock import Clock, SystemClock
from tui.sim.grammar import int_text

from .accounts import Account, Position
from .candles import CandleStore
from .chain import Chain, Tx
from .errors import Rejected
from .instruments import USDC_ID, Collateral, MarketConfig, PerpSpec, SpotSpec, default_config
from .markets import Market
from .values import ONE, ZERO, parse_decimal

#: fn(channel, key, payload): see ``Exchange`` for channels, keys and payloads.
Listener = Callable[[str, str, Any], None]

# Engine-internal transaction types (not client actions): shown in the explorer.
TX_TRIGGER = 1304
TX_LIQUIDATION = 1501
TX_FUNDING = 1601
TX_DEPOSIT = 1001


def derived_address(label: str) -> str:
    """A fixed, reproducible address for an exchange-owned account (lower-case hex)."""
    return "0x" + keccak256(b"xtui-sim:" + label.encode())[-20:].hex()


class ExchangeCore:
    """The state every part reads and the primitives that change it; ``Exchange`` holds it with its parts."""

    def __init__(self, config: MarketConfig | None = None, clock: Clock | None = None) -> None:
        self.config = cfg = config or default_config()
        self.clock: Clock = clock or SystemClock()
        now = self.clock.now_ms()
        self.genesis_ms = now
        self.collaterals: dict[int, Collateral] = {c.id: c for c in cfg.collaterals}
        self.coll_by_symbol: dict[str, Collateral] = {c.symbol.upper(): c for c in cfg.collaterals}
        self.markets: dict[int, Market] = {}
        self.by_name: dict[str, Market] = {}
        specs: list[PerpSpec | SpotSpec] = [*cfg.perps, *cfg.spots]
        for spec in specs:
            m = Market(spec, cfg.trades_kept, now, cfg.price_band)
            self.markets[m.id] = m
            self.by_name[m.name.upper()] = m
        # token id -> its price in USDC, from the index of the spot pair <token>/USDC
        self.coll_prices: dict[int, Decimal] = {USDC_ID: ONE}
        self._price_source: dict[int, int] = {}  # spot market id -> token id it prices
        for s in cfg.spots:
            if s.quote_asset == USDC_ID:
                self._price_source[s.id] = s.base_asset
                self.coll_prices[s.base_asset] = s.initial_price
        for c in cfg.collaterals:
            self.coll_prices.setdefault(c.id, ONE)
        self.accounts: dict[str, Account] = {}
        self.minted: dict[int, Decimal] = {c.id: ZERO for c in cfg.collaterals}
        self.withdrawn: dict[int, Decimal] = {c.id: ZERO for c in cfg.collaterals}
        self.chain = Chain(cfg.seed, now, cfg.max_blocks, cfg.max_txs)
        self.candles = CandleStore(cfg.max_candles)
        for m in self.markets.values():
            for kind in ("mark", "index", "ltp"):
                self.candles.update(m.id, kind, now, m.index)
        self.candles.dirty.clear()
        self.listeners: list[Listener] = []
        #: Optional filter ``interest(channel, key) -> bool`` (e.g. the WebSocket hub's "has a subscriber"):
        #: when set, payloads nobody wants are not even built. ``agent`` events are always emitted.
        self.interest: Callable[[str, str], bool] | None = None
        self.dirty_markets: set[Market] = set()
        self.dirty_accounts: set[Account] = set()
        self.dirty_positions: set[Position] = set()
        self.dirty_index: set[Market] = set()  # index prices set since the last flush
        self.next_oid = 1
        self.epoch = 0  # +1 whenever a mark or a collateral price changes (invalidates free-margin caches)
        self.next_trade = 1
        self.fee_account = self.account(derived_address("fees"))
        self.backstop = self.account(derived_address("backstop"))

    # ----------------------------------------------------------------- events
    def add_listener(self, fn: Listener) -> None:
        """Call ``fn(channel, key, payload)`` on every state change (see ``Exchange``)."""
        self.listeners.append(fn)

    def wants(self, channel: str, key: str) -> bool:
        """True if an event on (channel, key) has a listener that may want it."""
        if not self.listeners:
            return False
        interest = self.interest
        return interest is None or interest(channel, key)

    def emit(self, channel: str, key: str, payload: Any) -> None:
        for fn in self.listeners:
            fn(channel, key, payload)

    # ----------------------------------------------------------------- lookups
    def market(self, ref: int | str) -> Market:
        """An instrument by id, name (any case) or id as a string; ``Rejected`` if unknown."""
        if isinstance(ref, int) and not isinstance(ref, bool):
            m = self.markets.get(ref)
        elif isinstance(ref, str):
            m = self.by_name.get(ref.strip().upper())
            ident = int_text(ref)
            if m is None and ident is not None:
                m = self.markets.get(ident)
        else:
            m = None
        if m is None:
            raise Rejected(f"unknown instrument {ref!r}"[:120])
        return m

    def collateral(self, ref: int | str) -> Collateral:
        """A token by id or symbol (any case); ``Rejected`` if unknown."""
        c = self.collaterals.get(ref) if isinstance(ref, int) else self.coll_by_symbol.get(str(ref).upper())
        if c is None:
            raise Rejected(f"unknown collateral {ref!r}"[:120])
        return c

    def peek(self, address: str) -> Account | None:
        """The account of ``address`` if it exists (queries never create accounts)."""
        return self.accounts.get(address.lower()) if isinstance(address, str) else None

    def view(self, user: str) -> Account:
        """The account of ``user`` for a query, or a blank one (not stored) for an unknown address."""
        acct = self.peek(user)
        if acct is None:
            try:
                display = checksum_address(user)
            except (SigningError, TypeError, AttributeError):
                raise Rejected(f"not an address: {user!r}") from None
            acct = Account(display.lower(), display, self.genesis_ms, 1)
        return acct

    def account(self, address: str) -> Account:
        """The account of ``address``, created empty if new."""
        acct = self.accounts.get(address.lower()) if isinstance(address, str) else None
        if acct is None:
            try:
                display = checksum_address(address)
            except SigningError:
                raise Rejected(f"not an address: {address!r}") from None
            acct = Account(display.lower(), display, self.clock.now_ms(), self.config.max_history)
            self.accounts[acct.addr] = acct
        return acct

    def position(self, acct: Account, m: Market) -> Position:
        """The account's position record in perp ``m`` (created flat, at the default leverage)."""
        pos = acct.positions.get(m.id)
        if pos is None:
            spec = m.perp
            pos = Position(
                acct, m, min(self.config.default_leverage, spec.max_leverage), spec.only_isolated, self.clock.now_ms()
            )
            acct.positions[m.id] = pos
        return pos

    # ----------------------------------------------------------------- ledger
    def ensure_account(self, address: str) -> bool:
        """Called by the server on an address's signed actions under the ``auto`` faucet: the first time, fund it.

        The faucet is ``config.faucet_usdc`` USDC of derivatives collateral plus ``config.faucet_spot``
        spot balances. It is given once per address, even to an address that already received a transfer.
        Returns True if the faucet was credited now.
        """
        return self.faucet(address, once=True)

    def faucet(self, address: str, usdc: Decimal | None = None, *, once: bool = False) -> bool:
        """Fund ``address`` (created if new) with ``usdc`` USDC of derivatives collateral (default
        ``config.faucet_usdc``) and the ``config.faucet_spot`` spot balances; ``once``: only if the faucet never
        funded it. Returns True if it was funded now."""
        acct = self.account(address)
        if once and acct.fauceted:
            return False
        acct.fauceted = True
        cfg = self.config
        amount = cfg.faucet_usdc if usdc is None else usdc
        if amount:
            self.mint(acct, USDC_ID, amount, spot=False)
        for cid, spot_amount in cfg.faucet_spot:
            self.mint(acct, cid, spot_amount, spot=True)
        self.dirty_accounts.add(acct)
        return True

    def mint(self, acct: Account, token: int, amount: Decimal, *, spot: bool) -> None:
        acct.free_cache = None
        book = acct.spot if spot else acct.balances
        book[token] = book.get(token, ZERO) + amount
        self.minted[token] += amount

    def credit(self, acct: Account, token: int, amount: Decimal) -> None:
        """Add (or with a negative amount, take) derivatives collateral."""
        acct.free_cache = None
        bal = acct.balances
        bal[token] = bal.get(token, ZERO) + amount

    def credit_spot(self, acct: Account, token: int, amount: Decimal) -> None:
        bal = acct.spot
        bal[token] = bal.get(token, ZERO) + amount

    def audit(self) -> dict[int, Decimal]:
        """Per token, holdings minus (minted - withdrawn): all zero when money is conserved (see module doc)."""
        held = {cid: ZERO for cid in self.collaterals}
        for acct in self.accounts.values():
            for cid, bal in acct.balances.items():
                held[cid] += bal
            for cid, bal in acct.spot.items():
                held[cid] += bal
            for p in acct.positions.values():
                held[USDC_ID] += p.iso_margin + p.size * p.market.mark - p.cost
            for (cid, _spot), amount in acct.rewards.items():
                held[cid] += amount
        return {cid: held[cid] - (self.minted[cid] - self.withdrawn[cid]) for cid in held}

    # ----------------------------------------------------------------- prices
    def set_index_price(self, instrument: int | str, price: Decimal | str) -> None:
        """Set an instrument's index (oracle) price; the mark follows (see ``markets``)."""
        m = self.market(instrument)
        px = parse_decimal(price, "index price", positive=True)
        now = self.clock.now_ms()
        m.index = px
        m.index_ms = now
        token = self._price_source.get(m.id)
        if token is not None:
            self.coll_prices[token] = px
            self.epoch += 1
        self.candles.update(m.id, "index", now, px)
        self.dirty_markets.add(m)
        self.dirty_index.add(m)
        self.refresh_mark(m, now)

    def set_mark_price(self, instrument: int | str, price: Decimal | str) -> None:
        """Make an instrument's mark ``price`` (another exchange's mark, followed by a mirror) instead of
        median(index, mid, last)."""
        m = self.market(instrument)
        m.external_mark = parse_decimal(price, "mark price", positive=True)
        self.refresh_mark(m, self.clock.now_ms())

    def set_last_price(self, instrument: int | str, price: Decimal | str) -> None:
        """The latest trade's price as another exchange reports it (a mirror): the ticker's last and the
        last-trade chart follow it, with no volume, since no trade happened here."""
        m = self.market(instrument)
        px = parse_decimal(price, "last price", positive=True)
        if px != m.last:
            m.last = px
            self.candles.update(m.id, "ltp", self.clock.now_ms(), px)
            self.dirty_markets.add(m)

    def refresh_mark(self, m: Market, now: int) -> None:
        new = m.compute_mark()
        if new != m.mark:
            self.dirty_markets.add(m)
            m.set_mark(new)
            self.epoch += 1
            self.candles.update(m.id, "mark", now, new)
            if m.holders:
                self.dirty_accounts.update(m.holders)

    # ----------------------------------------------------------------- chain
    def record_tx(self, account: str, tx_type: int, success: bool) -> str:
        """Record a transaction (the server uses this for failed actions); returns its hash."""
        acct = self.peek(account)
        display = acct.display if acct is not None else _display(account)
        return self.chain.record(display, tx_type, success, self.clock.now_ms()).hash

    def tx(self, acct: Account, tx_type: int, now: int) -> Tx:
        return self.chain.record(acct.display, tx_type, True, now)

    def free_margin(self, acct: Account) -> Decimal:
        """margin_balance - initial_margin of ``acct``, from its cache when still valid."""
        if acct.free_cache is not None and acct.free_epoch == self.epoch:
            return acct.free_cache
        free = acct.free_margin(self.collaterals, self.coll_prices)
        acct.free_cache = free
        acct.free_epoch = self.epoch
        return free


def _display(address: str) -> str:
    try:
        return checksum_address(address)
    except SigningError:
        return address

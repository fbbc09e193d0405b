"""``Exchange``: the simulated exchange's engine, the one object the server talks to.

Pure Python, no I/O, deterministic for a config (seed) and a clock. Actions raise ``Rejected`` having
changed nothing, or return an ``ActionResult``; queries return JSON-ready values (``Decimal`` for the
interface's *number* fields, which the server must encode as JSON numbers; see ``views``).

Events: ``add_listener(fn)``; ``fn(channel, key, payload)`` is called

- at once, for: ``orders`` (key: user address, lower-case; payload: protocol-notes 5.4 order),
  ``fills`` (user; 5.4 fill), ``funding_payments`` (user; funding record), ``agent`` (user; agent record
  plus ``status`` added/revoked/expired), ``blocks`` ("" ; block summary) and ``transactions`` ("";
  transaction record), the last two from ``produce_block``;
- from ``flush_events()`` (the server calls it after each action batch and on a timer), once per change
  set, for the costly or chatty ones: ``orderbook`` (symbol; {update_type "update", instrument_name,
  books {bids, asks, sequence_number, timestamp}}: absolute sizes of the changed levels, size 0 deletes,
  sequence_number +1 per update), ``bbo`` (symbol; [bbo record]), ``mids`` (symbol; {symbol, mid_price}),
  ``ticker`` (symbol; 5.4 ticker, numbers), ``trades`` (symbol; array of 5.4 trades), ``chart`` (key
  ``f"{instrument_id}:{chart_type}:{resolution}"``; the open candle), ``index`` (""; array of
  {symbol, index_price, ts} of the instruments whose index moved), ``position`` (user; position record),
  ``account_summary`` (user; the full summary) and ``balance`` (user; {account, balances [{asset, wallet,
  total, available, locked}], timestamp}).

A new orderbook subscriber first gets ``orderbook_snapshot(symbol)``; updates follow with the next
sequence numbers (which advance whether or not anyone listens).

Set ``interest`` to a ``(channel, key) -> bool`` filter (the WebSocket hub's "has a subscriber") and the
engine skips building payloads nobody would receive; without it every event is built for the listeners.

Where the rules live: ``Exchange`` holds its parts, each with its own state, given the parts it uses when it is
made: ``core`` (accounts, markets, prices, the ledger primitives, events and chain; money conservation,
``audit``); ``settlement`` (``fills``: fees, rebates, referral commission, fill directions); ``trading`` (order
entry, batches, market orders, self-trade prevention); ``controls`` (cancels, leverage); ``risk`` (triggers,
liquidation, funding); ``funds`` (withdrawable amounts, transfers, vault shares); ``relations`` (referrals,
brokers, agents); ``account_queries`` and ``market_queries`` (the /info and /explorer answers); ``events``
(what each flush emits). Positions and margin formulas are in ``accounts``, the mark price in ``markets``. The
methods callers use are the parts' own, bound on ``Exchange``.

Time: the engine reads its clock for timestamps and never sleeps; ``tick()`` applies what the passage of
time does (the server calls it on a timer; tests step a ``FrozenClock`` and call it).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from tui.sim.clock import Clock

from .account_queries import AccountQueries
from .accounts import Account
from .candles import CandleStore
from .chain import Chain
from .controls import Controls
from .core import ExchangeCore, Listener
from .events import Events
from .fills import Settlement
from .funds import Funds
from .instruments import Collateral, MarketConfig
from .market_queries import MarketQueries
from .markets import Market
from .relations import Agent, Relations
from .risk import Risk
from .trading import Trading
from .values import dstr
from .vaults import Vault


class Exchange:
    """The engine: its parts, and their methods callers use; see the module docstring."""

    def __init__(self, config: MarketConfig | None = None, clock: Clock | None = None) -> None:
        self.core = core = ExchangeCore(config, clock)
        self.settlement = settlement = Settlement(core)
        self.trading = trading = Trading(core, settlement)
        self.controls = controls = Controls(core, trading)
        self.risk = risk = Risk(core, settlement, trading)
        self.funds = funds = Funds(core, settlement)
        self.relations = relations = Relations(core, settlement)
        self.account_queries = accounts_q = AccountQueries(core, settlement, funds)
        self.market_queries = markets_q = MarketQueries(core)
        self.events = events = Events(core, accounts_q, markets_q)
        # state, events and prices
        self.add_listener = core.add_listener
        self.market = core.market
        self.collateral = core.collateral
        self.ensure_account = core.ensure_account
        self.faucet = core.faucet
        self.audit = core.audit
        self.set_index_price = core.set_index_price
        self.set_mark_price = core.set_mark_price
        self.set_last_price = core.set_last_price
        self.record_tx = core.record_tx
        self.produce_block = events.produce_block
        self.orderbook_snapshot = events.orderbook_snapshot
        self.flush_events = events.flush_events
        # actions
        self.place_order = trading.place_order
        self.place_orders = trading.place_orders
        self.cancel_by_oid = controls.cancel_by_oid
        self.cancel_by_cloid = controls.cancel_by_cloid
        self.cancel_by_instrument = controls.cancel_by_instrument
        self.cancel_all = controls.cancel_all
        self.set_leverage = controls.set_leverage
        self.deposit = funds.deposit
        self.withdraw_derivative = funds.withdraw_derivative
        self.withdraw_spot = funds.withdraw_spot
        self.transfer_derivative = funds.transfer_derivative
        self.transfer_spot = funds.transfer_spot
        self.transfer_internal = funds.transfer_internal
        self.vault_deposit = funds.vault_deposit
        self.vault_redeem = funds.vault_redeem
        self.create_referral_code = relations.create_referral_code
        self.set_referrer = relations.set_referrer
        self.claim_referral_rewards = relations.claim_referral_rewards
        self.approve_broker_fee = relations.approve_broker_fee
        self.add_agent = relations.add_agent
        self.revoke_agent = relations.revoke_agent
        # queries
        self.account_value = risk.account_value
        self.withdrawable = funds.withdrawable
        self.vault_equity = funds.vault_equity
        self.vault_list = funds.vault_list
        self.sub_vaults = funds.sub_vaults
        self.vault_balance = funds.vault_balance
        self.referral_tier = settlement.referral_tier
        self.referral_summary = relations.referral_summary
        self.account_info = relations.account_info
        self.brokers_check = relations.brokers_check
        self.owner_of = relations.owner_of
        self.all_agents = relations.all_agents
        self.account_summary = accounts_q.account_summary
        self.positions = accounts_q.positions
        self.open_orders = accounts_q.open_orders
        self.open_order_events = accounts_q.open_order_events
        self.order_history = accounts_q.order_history
        self.fills = accounts_q.fills
        self.funding_history = accounts_q.funding_history
        self.transfer_history = accounts_q.transfer_history
        self.account_history = accounts_q.account_history
        self.instrument_leverage = accounts_q.instrument_leverage
        self.user_fees = accounts_q.user_fees
        self.instruments = markets_q.instruments
        self.supported_collateral = markets_q.supported_collateral
        self.warm_up = markets_q.warm_up
        self.ticker = markets_q.ticker
        self.ticker_event = markets_q.ticker_event
        self.index_record = markets_q.index_record
        self.bbo = markets_q.bbo
        self.mids = markets_q.mids
        self.oracle = markets_q.oracle
        self.orderbook = markets_q.orderbook
        self.trades = markets_q.trades
        self.chart = markets_q.chart
        self.block = markets_q.block
        self.blocks = markets_q.blocks
        self.transaction = markets_q.transaction
        self.transactions = markets_q.transactions

    def tick(self, now_ms: int | None = None) -> None:
        """Advance everything that depends on time to ``now_ms`` (default: the clock): risk, then agents' expiry."""
        self.risk.tick(now_ms)
        self.relations.expire_agents(now_ms)

    # ------------------------------------------------------------ the state callers read (held by ``core``)
    @property
    def config(self) -> MarketConfig:
        return self.core.config

    @config.setter
    def config(self, config: MarketConfig) -> None:
        self.core.config = config

    @property
    def interest(self) -> Callable[[str, str], bool] | None:
        """The ``(channel, key) -> bool`` filter of events worth building (see the module docstring)."""
        return self.core.interest

    @interest.setter
    def interest(self, interest: Callable[[str, str], bool] | None) -> None:
        self.core.interest = interest

    @property
    def clock(self) -> Clock:
        return self.core.clock

    @property
    def genesis_ms(self) -> int:
        return self.core.genesis_ms

    @property
    def listeners(self) -> list[Listener]:
        return self.core.listeners

    @property
    def accounts(self) -> dict[str, Account]:
        return self.core.accounts

    @property
    def markets(self) -> dict[int, Market]:
        return self.core.markets

    @property
    def collaterals(self) -> dict[int, Collateral]:
        return self.core.collaterals

    @property
    def coll_prices(self) -> dict[int, Decimal]:
        return self.core.coll_prices

    @property
    def vaults(self) -> dict[str, Vault]:
        return self.funds.vaults

    @property
    def minted(self) -> dict[int, Decimal]:
        return self.core.minted

    @property
    def withdrawn(self) -> dict[int, Decimal]:
        return self.core.withdrawn

    @property
    def chain(self) -> Chain:
        return self.core.chain

    @property
    def candles(self) -> CandleStore:
        return self.core.candles

    @property
    def fee_account(self) -> Account:
        return self.core.fee_account

    @property
    def backstop(self) -> Account:
        return self.core.backstop

    @property
    def agents(self) -> dict[str, Agent]:
        return self.relations.agents

    @property
    def referral_codes(self) -> dict[str, Account]:
        return self.relations.referral_codes

    def __repr__(self) -> str:
        marks = ", ".join(f"{m.name}={dstr(m.mark)}" for m in self.markets.values())
        return f"Exchange({len(self.accounts)} accounts; {marks})"

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

Where the rules live: order entry, batches, market orders and self-trade prevention in ``trading``;
fees, rebates, referral commission and fill directions in ``fills``; positions and margin formulas in
``accounts``; every account-summary figure in ``account_queries``; mark price in ``markets``; triggers,
liquidation and funding in ``risk``; withdrawable amounts and transfers in ``funds``; vault shares in
``vaults``; referrals, brokers and agents in ``relations``; money conservation (``audit``) in ``core``.

Time: the engine reads its clock for timestamps and never sleeps; ``tick()`` applies what the passage of
time does (the server calls it on a timer; tests step a ``FrozenClock`` and call it).
"""

from __future__ import annotations

from typing import Any

from .candles import RESOLUTIONS
from .market_queries import MarketQueries
from .values import dstr
from .views import balance_update, position_record


class Exchange(MarketQueries):
    """The engine facade; see the module docstring and the layer modules for the rules."""

    def produce_block(self) -> dict[str, Any]:
        """Seal pending transactions into a block (the server calls this every ``block_ms``)."""
        block = self.chain.produce_block(self.clock.now_ms())
        summary = block.summary()
        if self._wants("blocks", ""):
            self._emit("blocks", "", summary)
        if self._wants("transactions", ""):
            for t in block.txs:
                self._emit("transactions", "", t.record())
        return summary

    def orderbook_snapshot(self, symbol: str, depth: int = 50) -> dict[str, Any]:
        """The ``orderbook`` payload a new subscriber gets first."""
        m = self.market(symbol)
        return {
            "update_type": "snapshot",
            "instrument_name": m.name,
            "books": {**self._book_levels(m, depth), "sequence_number": m.seq, "timestamp": self.clock.now_ms()},
        }

    def flush_events(self) -> None:
        """Emit the coalesced events of everything that changed since the last flush."""
        markets = self.markets.values()
        if not self.listeners:
            for m in markets:
                m.book.changed_bids.clear()
                m.book.changed_asks.clear()
                m.pending_trades.clear()
            self._dirty_markets.clear()
            self._dirty_accounts.clear()
            self._dirty_positions.clear()
            self._dirty_index.clear()
            self.candles.dirty.clear()
            return
        now = self.clock.now_ms()
        emit, wants = self._emit, self._wants
        for m in markets:
            book = m.book
            changed = bool(book.changed_bids or book.changed_asks)
            if changed:
                m.seq += 1
                if wants("orderbook", m.name):
                    bids = [
                        {"price": p, "size": book.size_at(True, p)} for p in sorted(book.changed_bids, reverse=True)
                    ]
                    asks = [{"price": p, "size": book.size_at(False, p)} for p in sorted(book.changed_asks)]
                    books = {"bids": bids, "asks": asks, "sequence_number": m.seq, "timestamp": now}
                    emit("orderbook", m.name, {"update_type": "update", "instrument_name": m.name, "books": books})
                book.changed_bids.clear()
                book.changed_asks.clear()
            if changed or m in self._dirty_markets:
                if wants("bbo", m.name):
                    emit("bbo", m.name, self.bbo(m.name))
                if wants("mids", m.name):
                    emit("mids", m.name, self.mids(m.name)[0])
                if wants("ticker", m.name):
                    emit("ticker", m.name, self.ticker_event(m))
            if m.pending_trades:
                if wants("trades", m.name):
                    emit("trades", m.name, [t.event() for t in m.pending_trades])
                m.pending_trades.clear()
        self._dirty_markets.clear()
        if self._dirty_index and wants("index", ""):
            emit("index", "", [self.index_record(m) for m in sorted(self._dirty_index, key=lambda m: m.id)])
        self._dirty_index.clear()
        for inst_id, chart_type in sorted(self.candles.dirty):
            keys = {res: f"{inst_id}:{chart_type}:{res}" for res in RESOLUTIONS}
            wanted = {res for res, key in keys.items() if wants("chart", key)}
            if wanted:
                for res, candle in self.candles.current(inst_id, chart_type):
                    if res in wanted:
                        emit("chart", keys[res], candle.record())
        self.candles.dirty.clear()
        for pos in sorted(self._dirty_positions, key=lambda p: (p.owner.addr, p.spec.id)):
            if wants("position", pos.owner.addr):
                emit("position", pos.owner.addr, position_record(pos.owner.display, pos))
        self._dirty_positions.clear()
        for acct in sorted(self._dirty_accounts, key=lambda a: a.addr):
            summary_wanted, balance_wanted = wants("account_summary", acct.addr), wants("balance", acct.addr)
            if summary_wanted or balance_wanted:
                summary = self.account_summary(acct.addr)
                if summary_wanted:
                    emit("account_summary", acct.addr, summary)
                if balance_wanted:
                    emit("balance", acct.addr, balance_update(summary, now))
        self._dirty_accounts.clear()

    def __repr__(self) -> str:
        marks = ", ".join(f"{m.name}={dstr(m.mark)}" for m in self.markets.values())
        return f"Exchange({len(self.accounts)} accounts; {marks})"

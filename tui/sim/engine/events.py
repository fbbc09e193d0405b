"""The engine's events: blocks and transactions as they are sealed, and the coalesced changes of each flush.

Channels, keys and payloads are listed in ``exchange``; listeners and the ``interest`` filter live in ``core``.
"""

from __future__ import annotations

from typing import Any

from .account_queries import AccountQueries
from .candles import RESOLUTIONS
from .core import ExchangeCore
from .market_queries import MarketQueries
from .views import balance_update, position_record


class Events:
    """Builds and emits the events of what changed, reading the state and the query answers."""

    def __init__(self, core: ExchangeCore, accounts_q: AccountQueries, markets_q: MarketQueries) -> None:
        self.core = core
        self.accounts_q = accounts_q
        self.markets_q = markets_q

    def produce_block(self) -> dict[str, Any]:
        """Seal pending transactions into a block (the server calls this every ``block_ms``)."""
        core = self.core
        block = core.chain.produce_block(core.clock.now_ms())
        summary = block.summary()
        if core.wants("blocks", ""):
            core.emit("blocks", "", summary)
        if core.wants("transactions", ""):
            for t in block.txs:
                core.emit("transactions", "", t.record())
        return summary

    def orderbook_snapshot(self, symbol: str, depth: int = 50) -> dict[str, Any]:
        """The ``orderbook`` payload a new subscriber gets first."""
        core = self.core
        m = core.market(symbol)
        return {
            "update_type": "snapshot",
            "instrument_name": m.name,
            "books": {
                **self.markets_q.book_levels(m, depth),
                "sequence_number": m.seq,
                "timestamp": core.clock.now_ms(),
            },
        }

    def flush_events(self) -> None:
        """Emit the coalesced events of everything that changed since the last flush."""
        core = self.core
        markets = core.markets.values()
        if not core.listeners:
            for m in markets:
                m.book.changed_bids.clear()
                m.book.changed_asks.clear()
                m.pending_trades.clear()
            core.dirty_markets.clear()
            core.dirty_accounts.clear()
            core.dirty_positions.clear()
            core.dirty_index.clear()
            core.candles.dirty.clear()
            return
        now = core.clock.now_ms()
        emit, wants = core.emit, core.wants
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
            if changed or m in core.dirty_markets:
                if wants("bbo", m.name):
                    emit("bbo", m.name, self.markets_q.bbo(m.name))
                if wants("mids", m.name):
                    emit("mids", m.name, self.markets_q.mids(m.name)[0])
                if wants("ticker", m.name):
                    emit("ticker", m.name, self.markets_q.ticker_event(m))
            if m.pending_trades:
                if wants("trades", m.name):
                    emit("trades", m.name, [t.event() for t in m.pending_trades])
                m.pending_trades.clear()
        core.dirty_markets.clear()
        if core.dirty_index and wants("index", ""):
            emit("index", "", [self.markets_q.index_record(m) for m in sorted(core.dirty_index, key=lambda m: m.id)])
        core.dirty_index.clear()
        for inst_id, chart_type in sorted(core.candles.dirty):
            keys = {res: f"{inst_id}:{chart_type}:{res}" for res in RESOLUTIONS}
            wanted = {res for res, key in keys.items() if wants("chart", key)}
            if wanted:
                for res, candle in core.candles.current(inst_id, chart_type):
                    if res in wanted:
                        emit("chart", keys[res], candle.record())
        core.candles.dirty.clear()
        for pos in sorted(core.dirty_positions, key=lambda p: (p.owner.addr, p.spec.id)):
            if wants("position", pos.owner.addr):
                emit("position", pos.owner.addr, position_record(pos.owner.display, pos))
        core.dirty_positions.clear()
        for acct in sorted(core.dirty_accounts, key=lambda a: a.addr):
            summary_wanted, balance_wanted = wants("account_summary", acct.addr), wants("balance", acct.addr)
            if summary_wanted or balance_wanted:
                summary = self.accounts_q.account_summary(acct.addr)
                if summary_wanted:
                    emit("account_summary", acct.addr, summary)
                if balance_wanted:
                    emit("balance", acct.addr, balance_update(summary, now))
        core.dirty_accounts.clear()

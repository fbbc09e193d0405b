"""The /info answers about markets (instruments, collateral, tickers, books, trades, candles, oracle) and
the /explorer answers (blocks and transactions).

Ticker figures: ``mid_price`` is the book mid, or the mark when a side is empty; ``volume_24h`` is the
traded notional (USDC) of the last 24 hours; ``change_24h`` is the relative change of the mark over
24 hours (0.0123 = +1.23%); ``max/min_trading_price`` bound limit prices (mark +- price_band);
``funding_rate`` is the rate the next settlement would apply. Missing best bid/ask read as ``0``.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any

from .candles import CHART_TYPES, RESOLUTIONS, bucket_of
from .core import ExchangeCore
from .errors import Rejected
from .markets import Market
from .values import ZERO, dstr, num, parse_int

MAX_DEPTH = 1000
DEFAULT_DEPTH = 50


class MarketQueries:
    """Market-wide /info methods and the explorer."""

    def __init__(self, core: ExchangeCore) -> None:
        self.core = core

    def _markets(self, symbol: str | None) -> list[Market]:
        core = self.core
        if symbol is None or (isinstance(symbol, str) and symbol.lower() == "all"):
            return list(core.markets.values())
        return [core.market(symbol)]

    # ------------------------------------------------------------------ static data
    def instruments(self, type: str = "all") -> dict[str, Any]:
        """``instruments``: {perps: [...], spot: [...]}; ``type`` perps|spot|all (the other list is empty)."""
        core = self.core
        if type not in ("perps", "spot", "all"):
            raise Rejected(f"type must be perps, spot or all, got {type!r}")
        perps = (
            [
                {
                    "id": s.id,
                    "name": s.name,
                    "price_index": s.price_index,
                    "lot_size": s.lot,
                    "tick_size": s.tick,
                    "settlement_currency": s.settlement_currency,
                    "only_isolated": s.only_isolated,
                    "delisted": s.delisted,
                    "max_leverage": s.max_leverage,
                    "min_notional_usd": s.min_notional,
                    "margin_tiers": [
                        {
                            "notional_usd_threshold": dstr(t.threshold),
                            "max_leverage": t.max_leverage,
                            "mmr": t.mmr,
                            "mmd": t.mmd,
                        }
                        for t in s.tiers
                    ],
                    "listed_at_block_timestamp": core.genesis_ms,
                }
                for s in core.config.perps
            ]
            if type in ("perps", "all")
            else []
        )
        spot = (
            [
                {
                    "id": s.id,
                    "name": s.name,
                    "price_index": s.price_index,
                    "lot_size": s.lot,
                    "tick_size": s.tick,
                    "base_asset": s.base_asset,
                    "quote_asset": s.quote_asset,
                    "stable_pair": s.stable_pair,
                    "min_size_in_quote_asset": s.min_quote,
                    "listed_at_block_timestamp": core.genesis_ms,
                }
                for s in core.config.spots
            ]
            if type in ("spot", "all")
            else []
        )
        return {"perps": perps, "spot": spot}

    def supported_collateral(self, symbol: str = "all") -> list[dict[str, Any]]:
        core = self.core
        coll = list(core.collaterals.values()) if symbol.lower() == "all" else [core.collateral(symbol)]
        return [
            {
                "id": c.id,
                "symbol": c.symbol,
                "name": c.name,
                "decimals": c.decimals,
                "default_coll_weight": c.default_weight,
                "price_index": c.price_index,
                "type": c.type,
                "bridge_by_chain": [
                    {
                        "bridge_chain_type": b.chain_type,
                        "bridge_chain_id": b.chain_id,
                        "token_address": b.token_address,
                        "bridge_contract_address": b.contract_address,
                        "enabled": b.enabled,
                        # the TypeScript SDK's type names them in camelCase: both spellings, same values
                        "bridgeChainType": b.chain_type,
                        "bridgeChainId": b.chain_id,
                        "tokenAddress": b.token_address,
                        "bridgeContractAddress": b.contract_address,
                    }
                    for b in c.bridges
                ],
                "coll_risk": {
                    "weight_tiers": [{"amount": t.amount, "weight": t.weight} for t in c.weight_tiers],
                    "max_margin_cap": c.max_margin_cap,
                    "stale_price_guard_weight": c.stale_price_guard_weight,
                    "enabled": c.is_margin,
                },
                "transfer_notional_fee": c.transfer_notional_fee,
                "withdrawal_fee": c.withdrawal_fee,
                "added_at_block": core.genesis_ms,
            }
            for c in coll
        ]

    # ------------------------------------------------------------------ prices
    def _ticker_values(self, m: Market) -> dict[str, Decimal]:
        book = m.book
        bid, ask = book.best_bid(), book.best_ask()
        mid = book.mid()
        now = self.core.clock.now_ms()
        hour = now // 3_600_000
        since = [h for h in m.volume_marks if h >= hour - 24]
        volume = m.notional_total - (m.volume_marks[min(since)] if since else ZERO)
        ref = self._mark_24h_ago(m, now)
        return {
            "mark_price": m.mark,
            "mid_price": mid if mid is not None else m.mark,
            "index_price": m.index,
            "best_bid_price": bid if bid is not None else ZERO,
            "best_ask_price": ask if ask is not None else ZERO,
            "best_bid_size": book.bids[bid].total if bid is not None else ZERO,
            "best_ask_size": book.asks[ask].total if ask is not None else ZERO,
            "funding_rate": m.funding_rate if m.is_perp else ZERO,
            "open_interest": m.open_interest,
            "volume_24h": volume,
            "change_24h": num((m.mark - ref) / ref) if ref else ZERO,
            "max_trading_price": (m.band_hi / m.tick).to_integral_value(ROUND_FLOOR) * m.tick,
            "min_trading_price": (m.band_lo / m.tick).to_integral_value(ROUND_CEILING) * m.tick,
            "last_price": m.last if m.last is not None else ZERO,
        }

    def _mark_24h_ago(self, m: Market, now: int) -> Decimal:
        candles = self.core.candles.query(m.id, "mark", "60", now - 86_400_000, now)
        return candles[0].open if candles else m.mark

    def warm_up(self) -> Iterator[None]:
        """The work of a first ``ticker``, done ahead, a market per step: each market's mark a day ago, which
        reads the synthetic past of its mark chart (~3 ms a market)."""
        for m in self._markets(None):
            self._mark_24h_ago(m, self.core.clock.now_ms())
            yield

    def ticker(self, symbol: str = "all") -> list[dict[str, Any]]:
        """``ticker`` records (decimal strings)."""
        now = self.core.clock.now_ms()
        out = []
        for m in self._markets(symbol):
            rec: dict[str, Any] = {"type": "perp" if m.is_perp else "spot", "symbol": m.name}
            rec.update({k: dstr(v) for k, v in self._ticker_values(m).items()})
            rec["last_updated"] = now
            out.append(rec)
        return out

    def ticker_event(self, m: Market) -> dict[str, Any]:
        """``ticker`` WebSocket payload (numbers, plus premium)."""
        values = self._ticker_values(m)
        return {
            "instrument_name": m.name,
            "instrument_id": m.id,
            "symbol": m.name,
            **values,
            "premium": num((m.mark - m.index) / m.index),
        }

    @staticmethod
    def index_record(m: Market) -> dict[str, Any]:
        """An ``index`` WebSocket record: the instrument's index (oracle) price and when it was set."""
        return {"symbol": m.name, "index_price": m.index, "ts": m.index_ms}

    def bbo(self, symbol: str = "all") -> list[dict[str, Any]]:
        out = []
        for m in self._markets(symbol):
            b = m.book
            bid, ask = b.best_bid(), b.best_ask()
            out.append(
                {
                    "symbol": m.name,
                    "best_bid_price": dstr(bid) if bid is not None else "0",
                    "best_ask_price": dstr(ask) if ask is not None else "0",
                    "best_bid_size": dstr(b.bids[bid].total) if bid is not None else "0",
                    "best_ask_size": dstr(b.asks[ask].total) if ask is not None else "0",
                }
            )
        return out

    def mids(self, symbol: str = "all") -> list[dict[str, Any]]:
        out = []
        for m in self._markets(symbol):
            mid = m.book.mid()
            out.append({"symbol": m.name, "mid_price": dstr(mid if mid is not None else m.mark)})
        return out

    def oracle(self, symbol: str) -> dict[str, Any]:
        """Index and mark of an instrument, named by instrument or by base asset (``BTC`` = BTC-PERP)."""
        core = self.core
        key = symbol.strip().upper() if isinstance(symbol, str) else ""
        m = core.by_name.get(key) or core.by_name.get(f"{key}-PERP") or core.by_name.get(key.replace("/USD", "-PERP"))
        if m is None:
            raise Rejected(f"unknown oracle symbol {symbol!r}")
        return {
            "symbol": symbol,
            "index_price": dstr(m.index),
            "ext_mark_price": dstr(m.mark),
            "updated_at": m.index_ms,
        }

    # ------------------------------------------------------------------ book, trades, candles
    def orderbook(self, symbol: str, depth: Any = None) -> dict[str, Any]:
        """``orderbook``: levels {price, size} as numbers, best first; ``depth`` levels a side (default 50)."""
        core = self.core
        m = core.market(symbol)
        n = DEFAULT_DEPTH if depth is None else parse_int(depth, "depth")
        if not 1 <= n <= MAX_DEPTH:
            raise Rejected(f"depth must be between 1 and {MAX_DEPTH}")
        return {
            "instrument_name": m.name,
            **self.book_levels(m, n),
            "sequence_number": m.seq,
            "timestamp": core.clock.now_ms(),
        }

    def book_levels(self, m: Market, depth: int) -> dict[str, Any]:
        return {
            "bids": [{"price": lv.price, "size": lv.total} for lv in m.book.levels(True, depth)],
            "asks": [{"price": lv.price, "size": lv.total} for lv in m.book.levels(False, depth)],
        }

    def trades(self, symbol: str, limit: Any = None) -> list[dict[str, Any]]:
        """Recent public trades, newest first (``limit`` default 100)."""
        core = self.core
        m = core.market(symbol)
        n = 100 if limit is None else parse_int(limit, "limit")
        if not 1 <= n <= core.config.trades_kept:
            raise Rejected(f"limit must be between 1 and {core.config.trades_kept}")
        out = []
        for t in reversed(m.trades):
            out.append(t.record())
            if len(out) >= n:
                break
        return out

    def chart(
        self, instrument: int | str, chart_type: str, resolution: str, from_ms: int, to_ms: int
    ) -> list[dict[str, Any]]:
        """Candles with ``time`` in ms. ``from``/``to`` below 10**11 are taken as seconds (the SDKs send seconds)."""
        core = self.core
        m = core.market(instrument)
        if chart_type not in CHART_TYPES:
            raise Rejected(f"chart_type must be one of {', '.join(CHART_TYPES)}")
        res = str(resolution)
        if res not in RESOLUTIONS:
            raise Rejected(f"resolution must be one of {', '.join(RESOLUTIONS)}")
        lo, hi = (parse_int(v, n) for v, n in ((from_ms, "from"), (to_ms, "to")))
        lo, hi = (v * 1000 if 0 <= v < 10**11 else v for v in (lo, hi))
        if lo > hi:
            raise Rejected("from must not be after to")
        lo = max(lo, bucket_of(hi, RESOLUTIONS[res]) - RESOLUTIONS[res] * core.config.max_candles)
        return [c.record() for c in core.candles.query(m.id, chart_type, res, lo, hi)]

    # ------------------------------------------------------------------ explorer
    def block(self, block_height: int | None = None, block_hash: str | None = None) -> dict[str, Any]:
        """Block detail by height or hash."""
        if block_height is None and block_hash is None:
            raise Rejected("give block_height or block_hash")
        b = self.core.chain.block(None if block_height is None else parse_int(block_height, "block_height"), block_hash)
        if b is None:
            raise Rejected("block not found")
        return b.detail()

    def blocks(self, offset: Any = 0, limit: Any = 20) -> dict[str, Any]:
        core = self.core
        off, n = self._window(offset, limit)
        return {
            "blocks": [b.summary() for b in core.chain.list_blocks(off, n)],
            "total": core.chain.height + 1,
            "limit": n,
            "offset": off,
        }

    def transaction(self, tx_hash: str) -> dict[str, Any]:
        t = self.core.chain.tx(tx_hash) if isinstance(tx_hash, str) else None
        if t is None:
            raise Rejected("transaction not found")
        return t.record()

    def transactions(
        self, offset: Any = 0, limit: Any = 20, account: str | None = None, tx_type: int | None = None
    ) -> dict[str, Any]:
        """Sealed transactions, newest first, optionally of one account and/or type."""
        off, n = self._window(offset, limit)
        kind = None if tx_type is None else parse_int(tx_type, "tx_type")
        txs, total = self.core.chain.list_txs(off, n, account, kind)
        return {"transactions": [t.record() for t in txs], "total": total, "limit": n, "offset": off}

    @staticmethod
    def _window(offset: Any, limit: Any) -> tuple[int, int]:
        off = 0 if offset is None else parse_int(offset, "offset")
        n = 20 if limit is None else parse_int(limit, "limit")
        if off < 0 or not 1 <= n <= 1000:
            raise Rejected("offset must be >= 0 and limit between 1 and 1000")
        return off, n

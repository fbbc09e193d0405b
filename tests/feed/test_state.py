"""Merging pushes and polls: a poll never undoes a newer push; candles and fills without duplicates."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tui.api.models import Candle, Fill, Order, WsFill, WsOrder, decode
from tui.feed.book import BookState
from tui.feed.state import AccountState, MarketState

D = Decimal
USER = "0x" + "ab" * 20


def ws_order(oid: int, state: str = "open", unfilled: str = "1") -> WsOrder:
    return decode(
        {
            "instrument_id": 1, "instrument": "BTC-PERP", "account": USER, "tif": "GTC", "order_id": oid,
            "cloid": "", "side": "b", "position_side": "BOTH", "limit_price": "99000", "size": "1",
            "unfilled": unfilled, "state": state, "reduce_only": False, "post_only": False,
            "timestamp": 1_767_225_600_000,
        },
        WsOrder,
    )  # fmt: skip


def order(oid: int, unfilled: str = "1") -> Order:
    return decode(
        {
            "order_id": oid, "user": USER, "instrument_id": 1, "instrument": "BTC-PERP", "side": "b",
            "position_side": "BOTH", "limit_price": "99000", "size": "1", "unfilled": unfilled, "state": "open",
            "cloid": "", "tif": "GTC", "post_only": False, "reduce_only": False, "trigger_px": "0",
            "is_market": False, "tpsl": "", "grouping": "", "timestamp": "2026-01-01T00:00:00.000Z",
        },
        Order,
    )  # fmt: skip


def fill_fields(trade_id: int) -> dict[str, Any]:
    return {
        "instrument_id": 1, "instrument": "BTC-PERP", "account": USER, "order_id": 7, "cloid": "",
        "trade_id": trade_id, "side": "b", "position_side": "BOTH", "direction": "openLong", "price": "99000",
        "size": "0.5", "closed_pnl": "0", "fee": "1", "broker_fee": "0", "fee_token_id": 1, "crossed": True,
        "tx_hash": "0x01", "fill_type": 0,
    }  # fmt: skip


def test_a_poll_sent_before_a_push_does_not_undo_it() -> None:
    account = AccountState(address=USER)
    account.reconcile_orders([order(1), order(2)], since=0.0)
    assert not account.apply_order(ws_order(3), now=5.0)  # placed: not held, and no row is made from a push
    assert account.apply_order(ws_order(1, "cancelled"), now=5.0)  # cancelled
    assert account.apply_order(ws_order(2, unfilled="0.4"), now=5.0)  # partly filled
    assert [(o.order_id, o.unfilled) for o in account.open_orders] == [(2, D("0.4"))]
    # a poll sent at 4.0 (before those pushes) still lists 1 and 2 unchanged
    account.reconcile_orders([order(2), order(1)], since=4.0)
    assert [(o.order_id, o.unfilled) for o in account.open_orders] == [(2, D("0.4"))]
    # a poll sent after them is the truth, order 3 with every field the exchange records
    account.reconcile_orders([order(3), order(2, unfilled="0.3")], since=6.0)
    assert [(o.order_id, o.unfilled) for o in account.open_orders] == [(3, D(1)), (2, D("0.3"))]


def test_an_accepted_cancel_takes_the_row_out_at_once_and_an_older_poll_cannot_bring_it_back() -> None:
    account = AccountState(address=USER)
    account.reconcile_orders([order(1), order(2)], since=0.0)
    assert account.cancelled([1, 9], now=5.0)  # 9 was never held: nothing else happens to it
    assert [o.order_id for o in account.open_orders] == [2]
    assert account.order_status(1) == ("cancelled", D(0))
    assert not account.cancelled([1], now=5.5)  # already out
    account.reconcile_orders([order(2), order(1)], since=4.0)  # sent before the answer: it still listed 1
    assert [o.order_id for o in account.open_orders] == [2]
    account.reconcile_orders([order(2), order(1)], since=6.0)  # sent after: the exchange's word is the truth
    assert [o.order_id for o in account.open_orders] == [2, 1]


def test_pushed_fills_give_way_to_the_polled_records() -> None:
    account = AccountState(address=USER)
    pushed = decode({**fill_fields(5), "original_size": "1", "original_price": "99000", "block_timestamp": 0}, WsFill)
    assert account.apply_fill(pushed) and not account.apply_fill(pushed)
    assert account.fills[0].notional_value == D(49500) and account.fills[0].block_timestamp.startswith("1970")
    polled = decode(
        {
            **fill_fields(5), "start_size": "0.2", "start_price": "98000", "notional_value": "49500",
            "block_timestamp": "2026-01-01T00:00:00.000Z",
        },
        Fill,
    )  # fmt: skip
    account.merge_fills([polled])
    assert list(account.fills) == [polled]


def candle(t: int, close: int, volume: str = "1") -> Candle:
    return Candle(open=D(close), high=D(close), low=D(close), close=D(close), volume=D(volume), time=t)


def test_candles_replace_by_time_and_history_merges_under_them() -> None:
    market = MarketState(instruments={}, tickers={}, selected="BTC-PERP", book=BookState("BTC-PERP"))
    market.apply_candle(candle(120, 1))
    market.apply_candle(candle(120, 2))  # same minute: replaces
    market.apply_candle(candle(180, 3))  # next minute: appends
    market.apply_candle(candle(60, 4))  # late: goes in order
    assert [(c.time, c.close) for c in market.candles] == [(60, 4), (120, 2), (180, 3)]
    market.merge_candles([candle(0, 9), candle(60, 8), candle(120, 7)])
    assert [(c.time, c.close) for c in market.candles] == [(0, 9), (60, 8), (120, 7), (180, 3)]

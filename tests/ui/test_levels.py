"""What the chart says about a position, without Textual: its TP and SL are what the protection model says
(``tests/trading/test_protection.py``); every resting order of the instrument is a line named by side, size and
kind (stale and pending ones so named); other instruments' are not. And a
new tick rewrites only the live candle's columns of a row a level is drawn on."""

from __future__ import annotations

from decimal import Decimal

import msgspec

from tests.conftest import ALICE_KEY
from tui.api.models import Candle, Order, Position
from tui.api.signing import Signer
from tui.ui.widgets.chart import _changed_span  # private: the columns a tick rewrites, tried without Textual
from tui.ui.widgets.chart_layout import Level, draw
from tui.ui.widgets.levels import chart_levels

ALICE = Signer(ALICE_KEY)
TICK, LOT = Decimal("0.1"), Decimal("0.0001")


def pos(size: str, entry: str = "100000", name: str = "BTC-PERP") -> Position:
    record = {
        "user": ALICE.address, "instrument_id": 1, "instrument": name, "position_side": "BOTH", "size": size,
        "entry_price": entry, "position_value": "0", "margin_mode": "isolated", "leverage": "10", "updated_at": 0,
    }  # fmt: skip
    return msgspec.convert(record, Position, strict=False)


def order(oid: int = 1, **kw: object) -> Order:
    record: dict[str, object] = {
        "order_id": oid, "instrument_id": 1, "instrument": "BTC-PERP", "side": "s", "position_side": "BOTH",
        "size": "0.5", "unfilled": "0.5", "state": "open", "cloid": "", "tif": "GTC", "post_only": False,
        "reduce_only": False, "user": ALICE.address, "grouping": "", "timestamp": "2026-01-01T00:00:00.000Z",
        "trigger_px": "0", "is_market": False, "tpsl": "", "limit_price": "100500",
    }  # fmt: skip
    return msgspec.convert(record | kw, Order, strict=False)


def test_after_a_reverse_the_old_exits_are_drawn_stale_not_as_tp_sl() -> None:
    """A short with the old long's reduce-only sells resting: they are lines "stale sell", never TP or SL; a bracket
    leg waiting for its entry is "pending"."""
    orders = [
        order(1, trigger_px="110000", reduce_only=True, is_market=True, limit_price="0", unfilled="0.01"),
        order(2, side="b", limit_price="99000", cloid="bk17-1"),
        order(3, trigger_px="98000", tpsl="sl", grouping="normal", is_market=True, limit_price="0", cloid="bk17-2"),
    ]
    levels = chart_levels("BTC-PERP", [pos("-0.5")], orders, Decimal(100000), None, tick=TICK, lot=LOT)
    assert [lv.label for lv in levels] == [
        "entry short 0.5000", "stale sell 0.0100", "buy 0.5000", "pending SL sell 0.5000"
    ]  # fmt: skip


def test_every_order_of_the_instrument_is_a_named_line() -> None:
    """Entry, TP and SL of a long; a resting sell, a stop buy; an ETH order left out. No summary: no liq line."""
    orders = [
        order(1, trigger_px="110000", reduce_only=True, is_market=True, limit_price="0"),
        order(2, trigger_px="95000", tpsl="sl", grouping="position", is_market=True, limit_price="0"),
        order(3, limit_price="100500", unfilled="0.2"),
        order(4, side="b", trigger_px="101000", is_market=True, limit_price="0"),
        order(5, instrument="ETH-PERP", limit_price="3000"),
    ]
    levels = chart_levels("BTC-PERP", [pos("0.5")], orders, None, None, tick=TICK, lot=LOT)
    assert [(lv.label, lv.price, lv.role) for lv in levels] == [
        ("entry long 0.5000", Decimal(100000), "lv-entry"),
        ("TP", Decimal(110000), "lv-sell"),
        ("SL", Decimal(95000), "lv-sell"),
        ("sell 0.2000", Decimal(100500), "lv-sell"),
        ("stop buy 0.5000", Decimal(101000), "lv-buy"),
    ]


def test_a_tick_rewrites_only_the_live_candles_columns_of_a_level_row() -> None:
    """Lines at 101 and 99 (inside the range); the live candle's close moves within its range: on every row a level
    is drawn on, the cells that change start at the live candle (then the price axis, whose labels give way to the
    last price's), so the line's label and dashes are not written to the terminal again."""
    t0 = 1_700_000_040_000
    base = [
        Candle(Decimal(100), Decimal(103), Decimal(97), Decimal(100 + i % 3), Decimal(1), t0 + i * 60_000)
        for i in range(30)
    ]
    moved = [*base[:-1], msgspec.structs.replace(base[-1], close=Decimal("100.4"))]
    levels = [Level(Decimal(101), "sell 0.5000", "lv-sell"), Level(Decimal(99), "entry long 0.5000", "lv-entry")]
    width, slot = 60, 2
    before = draw(base, width, 20, slot=slot, tick=TICK, resolution="1", levels=levels).lines
    after = draw(moved, width, 20, slot=slot, tick=TICK, resolution="1", levels=levels).lines
    # the legend, on the last line, shows each kind of line's colour: it is not a line
    rows = [y for y, line in enumerate(before[:-1]) if any(role.startswith("lv-") for _, role in line)]
    assert len(rows) == 2
    plot = width - len(" ┤ 103.0 ") + 1  # the price axis is at the right: the live candle is just left of it
    spans = [_changed_span(before[y], after[y]) for y in rows]
    assert any(start != end for start, end in spans)  # the live candle's body left the row at 101
    for start, end in spans:
        assert start == end or start >= plot - slot - 1, (start, end)  # the live candle and the axis only

"""The line across the trade tape where the socket was lost: placed above the trades that came after it."""

from __future__ import annotations

from decimal import Decimal

from tui.api.models import Trade
from tui.feed.state import TapeMark
from tui.ui.widgets.tape import COLUMNS, mark_cells, with_marks


def trade(trade_id: int) -> Trade:
    return Trade(
        instrument_id=1, instrument="BTC-PERP", trade_id=trade_id, tx_hash="0x", side="b",
        price=Decimal(100), size=Decimal(1), maker="0x", taker="0x", timestamp=0,
    )  # fmt: skip


def test_a_mark_sits_above_the_newest_trade_held_when_the_socket_fell_silent() -> None:
    trades = [trade(i) for i in (9, 8, 7, 5, 4)]  # newest first
    mark = TapeMark(after_trade_id=7, at_ms=1_767_225_724_000, gap_s=5.24)
    rows = with_marks(trades, [mark], 10)
    assert [r.trade_id if isinstance(r, Trade) else "mark" for r in rows] == [9, 8, "mark", 7, 5, 4]
    assert with_marks(trades, [mark], 3) == rows[:3]  # the pane's height cuts marks and trades alike
    old = TapeMark(after_trade_id=2, at_ms=0, gap_s=1)
    assert old not in with_marks(trades, [mark, old], 10)  # scrolled away with its trades
    quiet = TapeMark(after_trade_id=9, at_ms=0, gap_s=1)  # nothing traded since the reconnect
    assert with_marks(trades, [quiet], 10)[0] == quiet


def test_a_mark_reads_as_one_ruled_line_across_the_columns() -> None:
    cells = mark_cells(TapeMark(after_trade_id=7, at_ms=1_767_225_724_000, gap_s=5.24))
    assert [len(c) for c in cells] == [w for _, _, w in COLUMNS]
    assert "".join(cells) == "reconnected 00:02:04 (5.2s)─"
    long_gap = "".join(mark_cells(TapeMark(after_trade_id=7, at_ms=0, gap_s=600)))
    assert long_gap.startswith("reconnected 00:00:00 (10m)") and long_gap.endswith("──")

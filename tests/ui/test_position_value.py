"""A position's Value is its size at the mark the row shows, not the exchange's figure from whenever the
position was last read (seen: mark 99,985.0, value 4,999.84 for 0.05 BTC, from a mark of 99,996.8)."""

from __future__ import annotations

from decimal import Decimal as D

from tui.api.models import Position
from tui.ui.widgets.positions import position_view


def _position(size: str, value: str) -> Position:
    return Position("0xa", 1, "BTC-PERP", "BOTH", D(size), D(100_000), D(value), "cross", D(10), 0)


def test_the_value_is_the_size_at_the_mark_shown_long_or_short() -> None:
    for size in ("0.05", "-0.05"):
        view = position_view(_position(size, "4999.84"), D("99985.0"), None)
        assert view.mark == D("99985.0") and view.value == D("4999.250")
        assert view.upnl == (D("99985.0") - D(100_000)) * D(size)


def test_without_a_mark_the_value_is_the_exchange_s() -> None:
    assert position_view(_position("-0.05", "-4999.84"), None, None).value == D("4999.84")

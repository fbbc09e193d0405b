"""How numbers, ages and directions are written in the panes. Decimal in, text out."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from tui.api.decimals import decimal_places

__all__ = [
    "DOWN",
    "UNKNOWN",
    "UP",
    "fit",
    "fmt_age",
    "fmt_compact",
    "fmt_money",
    "fmt_money_short",
    "fmt_pct",
    "fmt_price",
    "fmt_rate",
    "fmt_size",
    "short_address",
]

UP = "▲"
DOWN = "▼"
UNKNOWN = "—"  # a figure not known yet (never shown as 0); "-" is a figure that does not apply


def _places(step: Decimal | None) -> int:
    return 2 if step is None else decimal_places(step)


def fmt_price(value: Decimal | None, tick: Decimal | None = None) -> str:
    """A price with the tick's decimal places and thousands separators: 100,039.3."""
    if value is None:
        return "-"
    return f"{value:,.{_places(tick)}f}"


def fmt_size(value: Decimal | None, lot: Decimal | None = None) -> str:
    """A size with the lot's decimal places: 0.0150."""
    if value is None:
        return "-"
    return f"{value:,.{_places(lot)}f}"


def fmt_money(value: Decimal | None, places: int = 2) -> str:
    """Money with thousands separators: 99,739.28."""
    if value is None:
        return "-"
    return f"{value:,.{places}f}"


def fmt_pct(fraction: Decimal | None, places: int = 2, signed: bool = True) -> str:
    """A fraction as a percentage: 0.000192 -> +0.02%."""
    if fraction is None:
        return "-"
    pct = fraction * 100
    return f"{pct:+.{places}f}%" if signed else f"{pct:.{places}f}%"


def fmt_rate(fraction: Decimal | None) -> str:
    """A funding rate, small by nature: 0.00001253 -> 0.0013%."""
    return fmt_pct(fraction, places=4, signed=False) if fraction is not None and fraction >= 0 else fmt_pct(fraction, 4)


def fmt_compact(value: Decimal | None) -> str:
    """Large amounts short: 4,451.6 -> 4.45K, 12,500,000 -> 12.5M."""
    if value is None:
        return "-"
    size = abs(value)
    for limit, suffix in ((Decimal(10) ** 9, "B"), (Decimal(10) ** 6, "M"), (Decimal(10) ** 3, "K")):
        if size >= limit:
            return f"{value / limit:,.2f}{suffix}"
    return f"{value:,.2f}"


MONEY_UNITS = ((Decimal(1), ""), (Decimal(10) ** 3, "k"), (Decimal(10) ** 6, "M"), (Decimal(10) ** 9, "B"))
TENTH = Decimal("0.1")
CENT = Decimal("0.01")


def fmt_money_short(value: Decimal | None) -> str:
    """Money for a line with no room for the full figure: under a thousand in cents as everywhere (12.34, -0.25:
    a position row beside it reads the same), above in one decimal and a unit: 4,000 -> 4.0k, 999.995 -> 1.0k
    (rounded first, then given the unit it reaches), -1,234,567 -> -1.2M."""
    if value is None:
        return "-"
    cents = value.quantize(CENT, ROUND_HALF_UP) + 0  # + 0: no "-0.00"
    if abs(cents) < 1000:
        return f"{cents:,.2f}"
    for limit, suffix in MONEY_UNITS[1:]:
        shown = (value / limit).quantize(TENTH, ROUND_HALF_UP) + 0
        if abs(shown) < 1000 or suffix == MONEY_UNITS[-1][1]:
            return f"{shown:,.1f}{suffix}"
    raise AssertionError("unreachable: the last unit takes every value")


def fit(text: str, value: Decimal | None, width: int) -> str:
    """``text`` if it fits in ``width`` characters, else ``value`` in short form (12.35M), else cut with …"""
    if len(text) <= width:
        return text
    short = fmt_compact(value)
    return short if len(short) <= width else short[: width - 1] + "…"


def fmt_age(seconds: float) -> str:
    """An age in one unit: 0s, 12s, 3m, 2h, 4d."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        return f"{s // 3600}h"
    return f"{s // 86400}d"


def short_address(address: str | None) -> str:
    """0x1234…abcd."""
    if not address:
        return "-"
    return f"{address[:6]}…{address[-4:]}" if len(address) > 12 else address

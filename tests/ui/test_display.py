"""Figures that do not fit their column are shortened, never cut into a different number; colours are solid."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

from tui.ui.widgets.display import fit, fmt_compact, fmt_price
from tui.ui.widgets.palette import Palette


def test_a_figure_too_wide_for_its_column_is_shown_short() -> None:
    liq = Decimal("123456789012.5")  # a cross position's liquidation price far away
    assert fit(fmt_price(liq, Decimal("0.1")), liq, 11) == "123.46B"
    assert fit(fmt_price(Decimal("98147.5"), Decimal("0.1")), Decimal("98147.5"), 11) == "98,147.5"
    assert fmt_compact(Decimal("-12500000")) == "-12.50M"
    huge = Decimal(10) ** 15
    assert fit(f"{huge:,}", huge, 7) == "1,000,…"  # even short it is too wide: cut visibly, marked with …


def test_translucent_theme_colours_become_the_solid_colour_they_show_as() -> None:
    variables = {"surface": "#1E1E1E", "foreground-muted": "#E0E0E099", "bid": "#E0E0E0", "ask": "grey50"}
    palette = Palette.of(SimpleNamespace(theme_variables=variables))  # type: ignore[arg-type]  # a theme's variables
    assert palette.muted == "#929292"  # the foreground at 60% over the surface
    assert palette.bid == "#E0E0E0"
    assert palette.ask == "grey50"  # a Rich name passes as it is

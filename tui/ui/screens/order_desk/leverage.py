"""Changing the leverage in force on a perp from an order form: a number, a confirmation (default No), then
``updatePerpInstrumentLeverage``, and the setting read again so the form's figures follow."""

from __future__ import annotations

from collections.abc import Callable

from tui.trading import fmt_decimal
from tui.trading.desk import TradingDesk
from tui.trading.grammar import parse_whole
from tui.ui.widgets.display import short_address

from ..form import FormField, FormScreen
from .base import ScreenPort


def change_leverage(desk: TradingDesk, port: ScreenPort, symbol: str, then: Callable[[], object]) -> None:
    """Ask for the new leverage on ``symbol``, confirm, send; ``then`` once the setting is read again."""
    if desk.refuse("leverage change"):
        return
    info = desk.state.market.instruments.get(symbol)
    if info is None or info.kind != "perp":
        port.notify(f"{symbol}: leverage applies to perps only.", severity="warning", markup=False)
        return
    current = desk.leverage.get(symbol)
    now = f"{fmt_decimal(current.leverage)}x" if current is not None else "not read yet"

    def check(values: dict[str, str]) -> int:
        return parse_whole("leverage", values["leverage"], lo=1, hi=info.max_leverage, what="leverage")

    def entered(lev: int | None) -> None:
        if lev is None:
            return
        lines = [
            f"Instrument      {symbol} (max {info.max_leverage}x)",
            f"Leverage        {now} -> {lev}x",
            "The exchange refuses it if a position or orders need more margin than it allows.",
        ]

        async def call() -> str:
            resp = await desk.client.set_leverage(info.id, lev)
            desk.read_risk(symbol, then)
            return f"{symbol} leverage set to {lev}x · tx {short_address(resp.tx_hash)}"

        desk.ask(f"Set {symbol} leverage to {lev}x?", lines, lambda: desk.run("Leverage", call))

    fields = [FormField("leverage", "Leverage (x)", "", placeholder=f"1 to {info.max_leverage}")]
    notes = [f"Now {now} ({current.margin_type})." if current is not None else f"Now {now}."]
    form = FormScreen(f"Leverage on {symbol}", fields, check, notes=notes, enter="Enter: review")
    port.push(form, entered)

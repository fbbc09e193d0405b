"""The trailing stop of a position: its form, and stopping it (``tui.trading.trailing`` runs it, without Textual).

One key on a position: with no trail on it, the form (a distance in price or percent, from the mark or the last
price); with one, the question whether to stop moving it (its stop stays on the exchange). The stop is the
position's whole size (resized when the position grows or shrinks; until it is, the trail says the position is not
covered); the runner places it, moves it and ends it, and says each step as a notification. Its words follow the
side: the peak behind a long, the trough above a short.
"""

from __future__ import annotations

from decimal import Decimal

from tui.api.models import Position
from tui.trading import OrderContext, fmt_decimal
from tui.trading.desk import TradingDesk
from tui.trading.grammar import FieldError
from tui.trading.outcomes import first_error
from tui.trading.trail_plan import SOURCES, Source, TrailSpec, stop_plan, trail_spec
from tui.trading.trailing import Trail, TrailRunner

from ..form import FormField, FormScreen
from .base import DeskActions, ScreenPort

__all__ = ["STAYS", "TrailingStops"]

STAYS = "If xtui stops (quit, crash, lost connection), the last stop stays on the exchange where it is."


class TrailingStops(DeskActions):
    """Start a trailing stop on the selected position, or stop the one running on it."""

    def __init__(self, desk: TradingDesk, port: ScreenPort, runner: TrailRunner | None) -> None:
        super().__init__(desk, port)
        self.runner = runner

    def trail(self, position: Position | None) -> None:
        if self.desk.refuse("trailing stop"):
            return
        if position is None or not position.size:
            self.port.notify("No position selected: a trailing stop follows a position.", severity="warning")
            return
        runner = self.runner
        if runner is None:
            self.port.notify("Trailing stops need a key to trade with.", severity="warning")
            return
        symbol = position.instrument
        running = next((t for t in runner.active if t.spec.symbol == symbol), None)
        if running is not None:
            self._offer_stop(runner, running)
            return
        self._form(runner, symbol, position)

    def _offer_stop(self, runner: TrailRunner, trail: Trail) -> None:
        lines = [trail.progress(), "Stopping leaves its last stop on the exchange (x on its row cancels it)."]
        if trail.uncovered:  # stopped now, nothing would cover the rest of the position
            lines.insert(1, f"Its stop is NOT for the whole position: {trail.uncovered}.")
        self.desk.ask(f"Stop trailing {trail.spec.symbol}?", lines, lambda: runner.stop(trail), yes="Stop (y)")

    def _price(self, symbol: str, source: Source) -> Decimal | None:
        ticker = self.desk.state.market.tickers.get(symbol)
        if ticker is None:
            return None
        return (ticker.mark_price if source == "mark" else ticker.last_price) or None

    def _form(self, runner: TrailRunner, symbol: str, position: Position) -> None:
        def check(values: dict[str, str]) -> tuple[TrailSpec, Decimal, OrderContext]:
            ctx = self.desk.context(symbol)
            if ctx is None:
                raise FieldError("distance", f"no {symbol} data")
            source = values["source"].strip().lower()
            price = self._price(symbol, "last" if source == "last" else "mark") if source in SOURCES else None
            spec, first, errors = trail_spec(ctx, values["distance"], values["source"], price)
            if spec is None or first is None:
                raise first_error(errors, ("distance", "source"))
            return spec, first, ctx

        def preview(values: dict[str, str]) -> list[str]:
            try:
                spec, first, ctx = check(values)
            except FieldError as exc:
                return [f"first stop — ({exc.message})"]
            now = self._price(symbol, spec.source)  # where the peak (a long's) or the trough (a short's) starts
            return [
                f"first stop {spec.side.upper()} {fmt_decimal(abs(ctx.position))} at {fmt_decimal(first)}"
                f" · {spec.source} {fmt_decimal(now)} · moves only {'up' if spec.side == 'sell' else 'down'}"
            ]

        def entered(answer: tuple[TrailSpec, Decimal, OrderContext] | None) -> None:
            if answer is None:
                return
            spec, first, ctx = answer
            plan = stop_plan(ctx, spec, first, abs(ctx.position), "")
            if self.desk.guarded([plan]):
                return
            if self.desk.armed:
                runner.start(spec, first)
                return
            lines = [spec.describe(), f"first stop: {plan.describe()}", STAYS]
            self.desk.ask("Start the trailing stop?", lines, lambda: runner.start(spec, first), yes="Start (y)")

        held = "long" if position.size > 0 else "short"
        fields = [
            FormField("distance", "Distance", "", placeholder="price distance (500) or percent (1%)"),
            FormField("source", "Follow", "mark", placeholder="mark or last"),
        ]
        notes = [
            f"{symbol} {held} {fmt_decimal(abs(position.size))}: a reduce-only stop for the whole position rests",
            "on the exchange at all times; xtui moves it as the price runs your way, never back.",
            STAYS,
        ]
        form = FormScreen(f"Trailing stop · {symbol}", fields, check, notes=notes, preview=preview)
        self.port.push(form, entered)

"""The chase and OCO screen: every chase and one-cancels-other pair of this session with what it has done; n starts
a chase, o links an OCO on the selected instrument's position, x cancels the selected one. They run in the app
(``Session.chases`` / ``Session.ocos``), so leaving this screen leaves them running; they run only while xtui runs
(quitting withdraws a chase's order, and leaves what rests of an OCO on the exchange, unlinked, saying so)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Label

from tui.trading import OrderContext, OrderPlan, fmt_decimal
from tui.trading.chase import Chase, ChaseRunner, ChaseSpec
from tui.trading.exit_outcome import ExitOutcome, exit_lines, exit_outcome
from tui.trading.grammar import FieldError
from tui.trading.oco import Oco, OcoRunner
from tui.trading.tool_forms import chase_from_form, oco_from_form, oco_stop, oco_take_profit
from tui.ui.widgets.record_table import RecordTable

from .data_screen import DataScreen
from .form import FormField, FormScreen, side_field
from .order_desk import OrderDesk

__all__ = ["CHASE_NOTES", "OCO_NOTES", "ChaseScreen"]

CHASE_NOTES = [
    "A post-only limit order kept at the best bid (buy) or ask (sell),",
    "moved as it moves until filled, never past the limit (it waits there).",
    "Each move cancels it and reads its fills from the exchange first:",
    "it never fills more than its size. Runs only while xtui runs;",
    "quitting withdraws its order.",
]
OCO_NOTES = [
    "A reduce-only take-profit limit and stop market on the position:",
    "a fill of one cancels the other; a part fill reduces the other.",
    "Set for all of the position, both follow its size. xtui links them,",
    "so only while xtui runs: on quit what rests of them stays on the",
    "exchange, unlinked, and xtui says so.",
]


class ChaseScreen(DataScreen):
    NOTICES_IN_LINE = True  # a toast would sit over the rows being read
    SCREEN_TITLE = "Chase and OCO"
    SIGNED_ACTIONS: ClassVar[frozenset[str]] = frozenset({"new_chase", "new_oco", "cancel"})

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new_chase", "New chase", id="chase.new",
                tooltip="Chase: a post-only order kept at the best bid or ask until filled, up to a limit"),
        Binding("o", "new_oco", "New OCO", id="chase.oco",
                tooltip="OCO: a take-profit and a stop on the selected instrument's position, one cancels the other"),
        Binding("x", "cancel", "Cancel", id="chase.cancel",
                tooltip="Cancel the selected chase (its order withdrawn) or OCO (both orders withdrawn)"),
    ]  # fmt: skip

    DEFAULT_CSS = """
    ChaseScreen #chase-note {
        width: 100%;
    }
    """

    @property
    def chases(self) -> ChaseRunner | None:
        return self.ctx.chases

    @property
    def ocos(self) -> OcoRunner | None:
        return self.ctx.ocos

    def compose_body(self) -> ComposeResult:
        yield Label("", id="chase-note", classes="screen-note")
        columns = [("id", "#"), ("what", "What"), ("state", "State"), ("done", "Done"), ("why", "Now / why")]
        yield RecordTable(columns, id="chase-table")

    async def fetch(self) -> None:
        self.show()

    def show(self) -> None:
        rows: list[tuple[str, list[str]]] = []
        for c in reversed(self.chases.chases if self.chases is not None else []):
            now = c.unconfirmed or c.reason or (f"resting at {fmt_decimal(c.price)}" if c.cloid else "placing")
            limit = f" limit {fmt_decimal(c.spec.limit)}" if c.spec.limit is not None else ""
            what = f"{c.spec.side.upper()} {fmt_decimal(c.spec.size)} {c.spec.symbol}{limit}"
            done = f"{fmt_decimal(c.done)} of {fmt_decimal(c.spec.size)}"
            rows.append((f"c{c.id}", [f"chase {c.id}", what, c.state, done, now]))
        for o in reversed(self.ocos.ocos if self.ocos is not None else []):
            legs = " / ".join(leg.describe() for leg in o.legs)
            now = o.unconfirmed or o.reason or "watching both"
            done = f"{fmt_decimal(o.filled)} of {fmt_decimal(o.size)}"
            rows.append((f"o{o.id}", [f"OCO {o.id}", f"{o.symbol}: {legs}", o.state, done, now]))
        self.query_one("#chase-table", RecordTable).show(rows)
        note = (
            "n new chase · o new OCO on the selected instrument's position · x cancel. Both run only while xtui runs: "
            "on quit a chase's order is withdrawn, what rests of an OCO stays on the exchange, unlinked."
        )
        if self.chases is None:
            note = "Chase and OCO need a key to trade with (watch-only and read-only cannot send orders)."
        self.query_one("#chase-note", Label).update(note)

    def _desk(self) -> OrderDesk | None:
        desk = getattr(getattr(self.app, "main", None), "desk", None)
        return desk if isinstance(desk, OrderDesk) else None

    def _desk_context(self, symbol: str) -> OrderContext | None:
        desk = self._desk()
        return desk.context(symbol) if desk is not None else None

    def action_new_chase(self) -> None:
        runner = self.chases
        if self.refuse("Chase") or runner is None:
            return
        symbol = self.ctx.feed.state.market.selected
        if self._desk_context(symbol) is None:
            self.notify("No instrument data yet.", severity="warning")
            return
        fields = [
            side_field(),
            FormField("size", "Size", "", placeholder=f"in {symbol.split('-')[0].split('/')[0]}"),
            FormField("limit", "Limit price", "", placeholder="optional: never bid above / offer below it"),
        ]

        def check(values: dict[str, str]) -> tuple[ChaseSpec, OrderPlan]:
            ctx = self._desk_context(symbol)
            if ctx is None:
                raise FieldError("size", f"no {symbol} data to price it")
            return chase_from_form(values, ctx)

        def entered(result: tuple[ChaseSpec, OrderPlan] | None) -> None:
            if result is not None:
                self._select(f"c{runner.start(result[0]).id}")

        form: FormScreen[tuple[ChaseSpec, OrderPlan]] = FormScreen(
            f"Chase · {symbol}", fields, check, notes=CHASE_NOTES, focus="size", enter="Enter: start the chase"
        )
        self.app.push_screen(form, entered)

    def action_new_oco(self) -> None:
        runner = self.ocos
        if self.refuse("OCO") or runner is None:
            return
        symbol = self.ctx.feed.state.market.selected
        ctx = self._desk_context(symbol)
        if ctx is None:
            self.notify("No instrument data yet.", severity="warning")
            return
        held = fmt_decimal(abs(ctx.position)) if ctx.position else ""
        fields = [
            FormField("size", "Size", held, placeholder="of the position (all of it by default)"),
            FormField("take_profit", "Take-profit", "", placeholder="limit price"),
            FormField("stop", "Stop trigger", "", placeholder="stop market, bounded by the slippage limit"),
        ]

        def check(values: dict[str, str]) -> tuple[OrderPlan, OrderPlan]:
            now = self._desk_context(symbol) or ctx
            return oco_from_form({**values, "size": values["size"].replace(",", "")}, now)

        def entered(result: tuple[OrderPlan, OrderPlan] | None) -> None:
            if result is not None:
                self._select(f"o{runner.start(*result).id}")

        def preview(values: dict[str, str]) -> list[str]:
            desk = self._desk()
            now = desk.context(symbol) if desk is not None else None
            if desk is None or now is None:
                return []
            inputs = desk.risk(symbol)
            clean = {**values, "size": values["size"].replace(",", "")}

            def leg(plan_of: Callable[[dict[str, str], OrderContext], OrderPlan]) -> ExitOutcome | None:
                try:
                    plan = plan_of(clean, now)
                except FieldError:
                    return None
                return exit_outcome(plan, inputs.entry if inputs is not None else None, now, inputs)

            return exit_lines([("TP", leg(oco_take_profit)), ("stop", leg(oco_stop))], now.tick, rr=True)

        side = "long" if ctx.position > 0 else "short" if ctx.position else "no position"
        form: FormScreen[tuple[OrderPlan, OrderPlan]] = FormScreen(
            f"OCO · {symbol} ({side})", fields, check, notes=OCO_NOTES, focus="take_profit",
            enter="Enter: place both and link them", preview=preview,
        )  # fmt: skip
        self.app.push_screen(form, entered)
        desk = self._desk()
        if desk is not None:
            desk.read_risk(symbol, form.show_preview)  # the fee rates, for the PnL

    def _select(self, key: str) -> None:
        """Show the rows with the one just started under the cursor, so x acts on it."""
        self.show()
        table = self.query_one("#chase-table", RecordTable)
        keys = [str(row.key.value) for row in table.ordered_rows]
        if key in keys:
            table.move_cursor(row=keys.index(key), animate=False)

    def _selected(self) -> Chase | Oco | None:
        key = self.query_one("#chase-table", RecordTable).selected_key() or ""
        if key.startswith("c") and self.chases is not None:
            return next((c for c in self.chases.chases if f"c{c.id}" == key), None)
        if key.startswith("o") and self.ocos is not None:
            return next((o for o in self.ocos.ocos if f"o{o.id}" == key), None)
        return None

    def action_cancel(self) -> None:
        chosen = self._selected()
        if isinstance(chosen, Chase) and self.chases is not None and chosen.active:
            self.chases.cancel(chosen)
        elif isinstance(chosen, Oco) and self.ocos is not None and chosen.active:
            self.ocos.cancel(chosen)
        else:
            self.notify("No running chase or OCO selected.", severity="warning")
            return
        self.show()

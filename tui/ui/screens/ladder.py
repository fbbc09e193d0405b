"""The ladder screen (``D`` on the dashboard, for depth of market, or the palette): the price ladder of the selected
instrument, with keys to move its cursor a level, jump to the best bid or ask, recentre on the mid, buy or sell at
the cursor for the ladder's size, and cancel your orders on the cursor's level.

Every order goes through the desk (``order_desk.ladder``): checked as the order form checks, the profile's guards,
the confirmation rules or armed mode, settled by cloid. The header says who trades where; a red line says when
armed mode is on. At 100 columns and more a side panel lists the keys; the ladder itself needs 70 columns and 10
lines, and shows as many levels as there are lines (42 at 160x48, 24 at 120x30, 18 at 80x24); smaller, its top
line says what it needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Static

from tui.trading import fmt_decimal
from tui.trading.ladder import orders_at
from tui.ui.widgets.armed_banner import ArmedBanner
from tui.ui.widgets.footer import Footer
from tui.ui.widgets.ladder import LADDER_WIDTH, LadderPane
from tui.ui.widgets.pane import FeedLine

from .context import DashboardContext
from .live_screen import LiveScreen
from .prompt import PromptScreen

if TYPE_CHECKING:
    from tui.feed.state import FeedState

    from .order_desk import OrderDesk

__all__ = ["LADDER_BINDINGS", "LadderScreen"]

LADDER_BINDINGS: list[BindingType] = [
    Binding("plus,equals_sign", "move(1)", "Tick up", id="ladder.up", tooltip="Ladder: the cursor a level up"),
    Binding("minus", "move(-1)", "Tick down", id="ladder.down", tooltip="Ladder: the cursor a level down"),
    Binding("c", "recentre", "Centre", id="ladder.recentre", tooltip="Ladder: recentre the price axis on the mid"),
    Binding("comma", "to_best('bids')", "Best bid", id="ladder.best_bid", show=False,
            tooltip="Ladder: the cursor to the best bid"),
    Binding("full_stop", "to_best('asks')", "Best ask", id="ladder.best_ask", show=False,
            tooltip="Ladder: the cursor to the best ask"),
    Binding("j", "join('buy')", "Join bid", id="ladder.join_bid",
            tooltip="Ladder: buy at the best bid (join the bid) for the ladder's size"),
    Binding("k", "join('sell')", "Join ask", id="ladder.join_ask",
            tooltip="Ladder: sell at the best ask (join the ask) for the ladder's size"),
    Binding("b", "order('buy')", "Buy", id="ladder.buy", tooltip="Ladder: buy at the cursor's price (limit, GTC)"),
    Binding("s", "order('sell')", "Sell", id="ladder.sell",
            tooltip="Ladder: sell at the cursor's price (limit, GTC)"),
    Binding("x", "cancel", "Cancel", id="ladder.cancel", tooltip="Ladder: cancel your orders on the cursor's level"),
    Binding("z", "size", "Size", id="ladder.size", tooltip="Ladder: the size its orders are sent for"),
    Binding("g", "grouping", "Group", id="ladder.grouping", show=False,
            tooltip="Ladder: levels 1x, 10x, 100x the tick apart"),
]  # fmt: skip

MIN_LINES = 10  # the header, the ladder's line, the footer, its borders and column header, and a few levels

KEYS_HELP = """\
keys
 ↑ ↓ + -   the cursor a level
 pgup pgdn  a page
 , .       the cursor to the best bid, ask
 c         recentre on the mid
 b s       buy, sell at the cursor
 j k       join the best bid, ask
 x         cancel yours at the cursor
 z         the size (ladder_notional)
 g         group 1x 10x 100x the tick
 esc       back to the dashboard

Limit GTC orders, checked as the order
form checks them; the profile's guards
hold; asked first as the form asks
(armed: not asked)."""


class LadderLine(FeedLine):
    """What the ladder trades with: the instrument, the size (and its key), the position, your orders on it."""

    TOPICS: ClassVar[frozenset[str]] = frozenset({"positions", "orders", "markets"})

    DEFAULT_CSS = """
    LadderLine {
        height: 1;
        padding: 0 1;
        background: $boost;
    }
    """

    def __init__(self, state: FeedState, desk: OrderDesk, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.desk = desk
        self.too_small: str | None = None  # what the ladder needs, when the terminal is smaller

    def refresh_state(self) -> None:
        if self.too_small is not None:
            self.show(Content.styled(self.too_small, "bold $warning"))
            return
        symbol = self.state.market.selected
        size = self.desk.ladder.size(symbol)
        held = next((p for p in self.state.account.positions if p.instrument == symbol and p.size), None)
        position = "flat"
        if held is not None:
            position = f"{'long' if held.size > 0 else 'short'} {fmt_decimal(abs(held.size))}"
        mine = sum(1 for o in self.state.account.open_orders if o.instrument == symbol)
        self.show(
            Content.assemble(
                ("Ladder ", "bold"),
                (symbol, "bold $accent"),
                "  size ",
                (size, "bold") if size else ("none", "bold $warning"),
                " (z)  position ",
                (position, "bold"),
                f"  {mine} open order(s) on {symbol}",
            )
        )


class LadderScreen(LiveScreen):
    SCOPE: ClassVar[str] = "ladder"
    BINDINGS: ClassVar[list[BindingType]] = LADDER_BINDINGS
    AUTO_FOCUS = "#ladder-lines"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012 (Textual declares them so)

    DEFAULT_CSS = """
    LadderScreen {
        layout: vertical;
    }
    LadderScreen #ladder-header {
        height: 1;
    }
    LadderScreen #ladder-body {
        height: 1fr;
    }
    LadderScreen #ladder-keys {
        width: 1fr;
        padding: 1 2;
        color: $foreground-muted;
    }
    LadderScreen.-narrow #ladder-keys {
        display: none;
    }
    """

    def __init__(self, context: DashboardContext, *, refresh_s: float) -> None:
        super().__init__(context, refresh_s=refresh_s)
        self.desk = context.orders

    def compose(self) -> ComposeResult:
        yield ArmedBanner(id="ladder-armed")
        yield self.context.header("ladder-header")
        yield LadderLine(self.context.state, self.desk, id="ladder-line")
        with Horizontal(id="ladder-body"):
            yield LadderPane(self.context.state, id="ladder")
            yield Static(KEYS_HELP, id="ladder-keys", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(ArmedBanner).arm(self.context.desk.armed)
        self.on_resize()

    def on_resize(self) -> None:
        width, height = self.size
        small = width < LADDER_WIDTH or height < MIN_LINES
        words = f"The ladder needs {LADDER_WIDTH} columns and {MIN_LINES} lines; this terminal is {width}x{height}."
        line = self.query_one(LadderLine)
        if (words if small else None) != line.too_small:
            line.too_small = words if small else None
            line.redraw_soon()
            line.flush(tick=False)

    @property
    def ladder(self) -> LadderPane:
        return self.query_one(LadderPane)

    # ---- the cursor -----------------------------------------------------------------------------

    def action_move(self, levels: int) -> None:
        self.ladder.move_cursor(levels)

    def action_recentre(self) -> None:
        if not self.ladder.recentre():
            self.notify("No price to centre on yet.", severity="warning")

    def action_to_best(self, side: str) -> None:
        if self.ladder.cursor_to_best(side) is None:
            self.notify(f"No {'bid' if side == 'bids' else 'ask'} in the book.", severity="warning")

    def action_grouping(self) -> None:
        self.notify(f"Ladder levels {self.ladder.cycle_grouping()}x the tick apart", timeout=2)

    # ---- orders ---------------------------------------------------------------------------------

    def action_order(self, side: str) -> None:
        price = self.ladder.cursor
        if price is None:
            self.notify("No cursor yet: the book has no price.", severity="warning")
            return
        self.desk.ladder.place_at("buy" if side == "buy" else "sell", price)

    def action_join(self, side: str) -> None:
        price = self.ladder.cursor_to_best("bids" if side == "buy" else "asks")
        if price is None:
            self.notify(f"No {'bid' if side == 'buy' else 'ask'} to join.", severity="warning")
            return
        self.desk.ladder.place_at("buy" if side == "buy" else "sell", price)

    def action_cancel(self) -> None:
        ladder = self.ladder
        if ladder.cursor is None or ladder.axis is None:
            return
        state = self.context.state
        mine = orders_at(state.account.open_orders, state.market.selected, ladder.cursor, ladder.axis.step)
        self.desk.ladder.cancel_at(mine, ladder.cursor)

    def action_size(self) -> None:
        symbol = self.context.state.market.selected
        now = self.desk.ladder.size(symbol)

        def entered(text: str | None) -> None:
            if text is None:
                return
            problem = self.desk.ladder.set_size(symbol, text)
            if problem is not None:
                self.notify(f"{problem}. The size is still {now or 'not set'}.", severity="warning", markup=False)
                return
            self.query_one(LadderLine).redraw_soon()
            self.query_one(LadderLine).flush(tick=False)

        hint = f"in {symbol.split('-')[0]}, a multiple of the lot · Enter to set · Escape to keep {now or 'none'}"
        self.app.push_screen(PromptScreen(f"Ladder size on {symbol}:", placeholder=now or "", hint=hint), entered)

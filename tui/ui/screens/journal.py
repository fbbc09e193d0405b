"""The trade journal screen: realized PnL, fees and funding per day and per instrument, and the running net.

Read from the account's own fills and funding payments (``tui.feed.journal``), back ``days`` days (``[``
and ``]`` halve and double it, from a week to a year). Sends nothing, so it works read-only and
watch-only. The same figures leave xtui with ``xtui export``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.containers import Horizontal
from textual.widgets import Label

from tui.feed.journal import Journal, Totals, journal_of, read_history
from tui.ui.widgets.display import fmt_money
from tui.ui.widgets.money_axis import money_axis
from tui.ui.widgets.palette import Palette
from tui.ui.widgets.record_table import RecordTable

from .account_chart import plot_class
from .data_screen import DataScreen, ScreenContext

if TYPE_CHECKING:
    from textual_plotext import PlotextPlot

__all__ = ["JournalScreen", "draw_journal"]

DAYS = (7, 30, 90, 365)
MIN_DAYS_WIDE = 7.0  # the chart is at least a week wide: fewer days are bars of a day's width, not blocks
COLUMNS = [
    ("fills", "Fills"), ("volume", "Volume"), ("realized", "Realized"), ("fees", "Fees"), ("funding", "Funding"),
    ("net", "Net"),
]  # fmt: skip


def _money(value: Decimal) -> str:
    return f"{value:,.2f}"


def _cells(t: Totals) -> list[str]:
    return [str(t.fills), _money(t.volume), _money(t.realized), _money(t.fees), _money(t.funding), _money(t.net)]


class JournalScreen(DataScreen):
    SCREEN_TITLE = "Journal"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left_square_bracket", "days(-1)", "Fewer days", id="journal.fewer_days", tooltip="Look back less"),
        Binding("right_square_bracket", "days(1)", "More days", id="journal.more_days", tooltip="Look back further"),
    ]

    DEFAULT_CSS = """
    JournalScreen #journal-total {
        height: 1;
        padding: 0 1;
    }
    JournalScreen Horizontal {
        height: 1fr;
    }
    JournalScreen #journal-days {
        width: 3fr;
    }
    JournalScreen #journal-instruments {
        width: 2fr;
    }
    JournalScreen PlotextPlot {
        height: 1fr;
        min-height: 8;
    }
    """

    def __init__(self, ctx: ScreenContext, *, days: int = 30) -> None:
        super().__init__(ctx)
        self.days = days
        self.journal: Journal | None = None
        self._names: dict[int, str] = {}

    def compose_body(self) -> ComposeResult:
        yield Label("", id="journal-total")
        with Horizontal():
            yield RecordTable([("day", "Day (UTC)"), *COLUMNS, ("running", "Running net")], id="journal-days")
            yield RecordTable([("instrument", "Instrument"), *COLUMNS], id="journal-instruments")
        yield plot_class()(id="journal-chart")

    @property
    def polls(self) -> bool:
        return False  # history changes slowly: r reloads

    def action_days(self, step: int) -> None:
        i = DAYS.index(self.days) if self.days in DAYS else 1
        self.days = DAYS[max(0, min(len(DAYS) - 1, i + step))]
        self.reload()

    async def fetch(self) -> None:
        account = self.account
        if account is None:
            self.query_one("#journal-total", Label).update("No account: start with a key or --address")
            return
        c = self.ctx.client
        if not self._names:
            instruments = await c.instruments()
            self._names = {p.id: p.name for p in instruments.perps}
        now = dt.datetime.fromtimestamp(self.ctx.now_ms() / 1000, dt.UTC)  # the app's wall clock
        since = now - dt.timedelta(days=self.days)
        since = since.replace(hour=0, minute=0, second=0, microsecond=0)
        fills, funding = await asyncio.gather(
            read_history(c, account, "fills", since), read_history(c, account, "funding", since)
        )
        self.show(journal_of(fills, funding, self._names))

    def show(self, j: Journal) -> None:
        self.journal = j
        t = j.total
        self.query_one("#journal-total", Label).update(
            f"Last {self.days} days · net {_money(t.net)} USDC = realized {_money(t.realized)} − fees "
            f"{_money(t.fees)} + funding {_money(t.funding)} · {t.fills} fills · [ ] days · r reload · "
            "`xtui export` for spreadsheets"
        )
        running = Decimal(0)
        rows = []
        for day, totals in j.by_day.items():
            running += totals.net
            rows.append((day.isoformat(), [day.isoformat(), *_cells(totals), _money(running)]))
        self.query_one("#journal-days", RecordTable).show(list(reversed(rows)))  # newest first
        by_net = sorted(j.by_instrument.items(), key=lambda kv: kv[1].net)
        self.query_one("#journal-instruments", RecordTable).show([(n, [n, *_cells(t)]) for n, t in by_net])
        self._draw(j)

    def _draw(self, j: Journal) -> None:
        draw_journal(self.query_one("#journal-chart", plot_class()), j, self.app, self.days)


def draw_journal(plot: PlotextPlot, j: Journal, app: Any, days_back: int) -> None:
    """Net PnL a day as bars (gains up, losses down) and the running net as a line, on an axis of money; a few
    days are bars a day wide in a week's room."""
    plt = plot.plt
    plt.clear_data()
    plt.clear_figure()
    if not j.by_day:
        plt.title(f"No fills or funding in the last {days_back} days")
        plot.refresh()
        return
    colours = Palette.of(app)
    days = list(j.by_day)
    nets = [float(t.net) for t in j.by_day.values()]
    running, total = [], 0.0
    for n in nets:
        total += n
        running.append(total)
    xs = [float(i) for i in range(len(days))]
    up, down = Color.parse(colours.up).rgb, Color.parse(colours.down).rgb
    # the bars hang from zero: a line there, labelled on the axis (a day's loss alone hung from nowhere); the title
    # says what is drawn (plotext's legend stood over the top left of the plot, where the first bar starts)
    plt.hline(0.0, Color.parse(colours.muted).rgb)
    plt.bar(xs, [max(n, 0.0) for n in nets], color=up)
    plt.bar(xs, [min(n, 0.0) for n in nets], color=down)
    plt.plot(xs, running, color=Color.parse(colours.accent).rgb)
    # a few days are bars among empty days' room (one day alone was a bar as wide as the chart), on an
    # axis of money from below the lowest (or 0) to above the highest
    plt.xlim(-1.0, max(float(len(days)), MIN_DAYS_WIDE))
    exact = [t.net for t in j.by_day.values()]
    axis = money_axis([*exact, *itertools.accumulate(exact)], include_zero=True)
    plt.ylim(*axis.limits)
    plt.yticks(*_with_zero(axis.ticks, axis.labels))
    step = max(1, len(days) // 8)
    plt.xticks(xs[::step], [d.isoformat()[5:] for d in days[::step]])
    plt.title(f"Net PnL a day (bars: gain, loss) and running (line), USDC · {len(days)} day(s)")
    plot.refresh()


def _with_zero(ticks: list[float], labels: list[str]) -> tuple[list[float], list[str]]:
    """The axis's ticks with one at zero, where the bars start (a tick less than half a step from it gives way)."""
    if 0.0 in ticks or len(ticks) < 2:
        return ticks, labels
    half = (ticks[-1] - ticks[0]) / (len(ticks) - 1) / 2
    kept = [(t, label) for t, label in zip(ticks, labels, strict=True) if abs(t) >= half]
    both = sorted([*kept, (0.0, fmt_money(Decimal(0), 2))])
    return [t for t, _ in both], [label for _, label in both]

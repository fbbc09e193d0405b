"""The price alerts screen: every alert with the price it watches now; add, edit, delete, arm and disarm.

Alerts are the app's (``XtuiApp.alerts``, a ``tui.feed.alerts.AlertBook`` kept on disk per profile): the
dashboard checks them on every ticker update and says so in a notice (and the bell, per alert). Nothing
here is sent to the exchange, so read-only and watch-only can use it.
"""

from __future__ import annotations

from typing import ClassVar

from msgspec.structs import replace
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Label

from tui.feed.alerts import CONDITIONS, SOURCES, Alert, AlertBook
from tui.trading.grammar import FieldError, parse_positive, parse_whole
from tui.ui.widgets.record_table import RecordTable

from .data_screen import DataScreen
from .form import FormField, FormScreen

__all__ = ["AlertsScreen", "alert_from_form"]


def alert_from_form(values: dict[str, str], alert_id: int, symbols: set[str]) -> Alert:
    """The alert a form describes; ``FieldError`` on the first field that is wrong."""
    symbol = values["symbol"].strip().upper()
    if symbol not in symbols:
        known = ", ".join(sorted(symbols)[:8])
        raise FieldError("symbol", f"{symbol or 'nothing'} is not an instrument (e.g. {known})")
    source = values["source"].strip().lower()
    if source not in SOURCES:
        raise FieldError("source", f"one of {', '.join(SOURCES)}")
    condition = values["condition"].strip().lower()
    if condition not in CONDITIONS:
        raise FieldError("condition", f"one of {', '.join(CONDITIONS)}")
    level = parse_positive("level", values["level"].removesuffix("%"), "level")  # the order form's grammar
    if condition == "move" and level > 100:
        raise FieldError("level", "a move's percentage is at most 100")
    window_s = 0
    if condition == "move":
        minutes = parse_whole("window", values.get("window", ""), lo=1, hi=7 * 24 * 60, what="window in minutes")
        window_s = minutes * 60
    bell = values.get("bell", "yes").strip().lower()
    if bell not in ("yes", "no"):
        raise FieldError("bell", "yes or no")
    return Alert(alert_id, symbol, source, condition, level, window_s, bell == "yes")


class AlertsScreen(DataScreen):
    SCREEN_TITLE = "Alerts"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "add", "Add", id="alerts.add", tooltip="Add a price alert (above, below, or a % move)"),
        Binding("e", "edit", "Edit", id="alerts.edit", tooltip="Edit the selected alert (it is armed again)"),
        Binding("d", "delete", "Delete", id="alerts.delete", tooltip="Delete the selected alert"),
        Binding("space", "arm", "Arm/disarm", id="alerts.toggle", tooltip="Arm or disarm the selected alert"),
    ]

    DEFAULT_CSS = """
    AlertsScreen RecordTable {
        height: 1fr;
    }
    """

    @property
    def book(self) -> AlertBook:
        return self.ctx.alerts

    def compose_body(self) -> ComposeResult:
        yield Label("", id="alerts-note", classes="screen-note")
        columns = [("id", "#"), ("alert", "Alert"), ("now", "Now"), ("armed", "Armed"), ("bell", "Bell")]
        yield RecordTable(columns, id="alerts-table")

    async def fetch(self) -> None:
        self.show()

    def show(self) -> None:
        book = self.book
        tickers = self.ctx.feed.state.market.tickers
        rows = []
        for a in book.alerts:
            t = tickers.get(a.symbol)
            prices = {} if t is None else {"last": t.last_price, "mark": t.mark_price, "index": t.index_price}
            price = prices.get(a.source)
            now = "-" if price is None else f"{price.normalize():,f}"
            armed, bell = ("yes" if a.armed else "no"), ("yes" if a.bell else "no")
            rows.append((str(a.id), [str(a.id), a.describe(), now, armed, bell]))
        self.query_one("#alerts-table", RecordTable).show(rows)
        note = f"{len(rows)} alert(s), kept in {book.path}. a add · e edit · d delete · space arm/disarm"
        if book.problem:
            note = f"{book.problem}\n{note}"
        self.query_one("#alerts-note", Label).update(note)

    def _selected(self) -> Alert | None:
        key = self.query_one("#alerts-table", RecordTable).selected_key() if self.book.alerts else None
        return next((a for a in self.book.alerts if str(a.id) == key), None)

    def _form(self, title: str, alert: Alert | None) -> None:
        symbols = set(self.ctx.feed.state.market.instruments)
        alert_id = alert.id if alert else self.book.next_id()
        selected = self.ctx.feed.state.market.selected
        fields = [
            FormField("symbol", "Instrument", alert.symbol if alert else selected),
            FormField("source", "Price", alert.source if alert else "last", placeholder="last, mark or index"),
            FormField("condition", "When", alert.condition if alert else "above", placeholder="above, below or move"),
            FormField(
                "level",
                "Level",
                f"{alert.level.normalize():f}" if alert else "",
                placeholder="a price, or % for a move",
            ),
            FormField("window", "Window (min)", str(alert.window_s // 60) if alert and alert.window_s else "60"),
            FormField("bell", "Bell", "yes" if alert is None or alert.bell else "no", placeholder="yes or no"),
        ]

        def saved(new: Alert | None) -> None:
            if new is None:
                return
            try:
                self.book.put(new)
            except (OSError, ValueError) as exc:
                self.notify(f"Alert not saved: {exc}", severity="error", markup=False)
                return
            self.show()
            self.notify(f"Alert {new.id}: {new.describe()}", title="Alert saved", markup=False)

        notes = ["Above/below: fires once when the price is at or past the level, then disarms.",
                 "Move: fires when the price moves that % within the window (minutes)."]  # fmt: skip
        form: FormScreen[Alert] = FormScreen(
            title, fields, lambda values: alert_from_form(values, alert_id, symbols), notes=notes, focus="level"
        )
        self.app.push_screen(form, saved)

    def action_add(self) -> None:
        self._form("New price alert", None)

    def action_edit(self) -> None:
        alert = self._selected()
        if alert is None:
            self.notify("No alert selected.", severity="warning")
            return
        self._form(f"Edit alert {alert.id}", replace(alert, armed=True))

    def action_delete(self) -> None:
        alert = self._selected()
        if alert is None:
            return
        try:
            self.book.remove(alert.id)
        except OSError as exc:  # the book is as it was: what is shown is what is kept
            self.notify(f"Alert {alert.id} not deleted: it could not be saved ({exc})", severity="error", markup=False)
            return
        self.show()
        self.notify(f"Alert {alert.id} deleted: {alert.describe()}", markup=False)

    def action_arm(self) -> None:
        alert = self._selected()
        if alert is None:
            return
        try:
            now = self.book.toggle(alert.id)
        except (OSError, ValueError) as exc:
            self.notify(f"Alert {alert.id} not changed: {exc}", severity="error", markup=False)
            return
        self.show()
        if now is not None:
            self.notify(f"Alert {now.id} {'armed' if now.armed else 'disarmed'}", timeout=3)

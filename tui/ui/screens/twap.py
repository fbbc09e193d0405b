"""The TWAP screen: every TWAP of this session with its progress (filled, average price, next slice); n starts
one, p pauses, u resumes, x cancels. The slices run in the app (``XtuiApp.twaps``), so leaving this
screen leaves them running; quitting xtui asks first and cancels them."""

from __future__ import annotations

from decimal import Decimal
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Label

from tui.trading import OrderInput, fmt_decimal, validate
from tui.trading.grammar import FieldError, is_multiple, parse_positive, parse_whole
from tui.trading.twap import Twap, TwapRunner, TwapSpec
from tui.ui.widgets.display import short_address
from tui.ui.widgets.record_table import RecordTable

from .data_screen import DataScreen
from .form import FormField, FormScreen, side_field
from .order_desk import OrderDesk

__all__ = ["TwapScreen", "twap_from_form"]

MAX_SLICES = 500
INTERVAL_S = (5, 3600)


def twap_from_form(values: dict[str, str], symbol: str, lot: Decimal) -> TwapSpec:
    """The TWAP a form describes; ``FieldError`` on the first field that is wrong."""
    side = values["side"].strip().lower()
    if side not in ("buy", "sell"):
        raise FieldError("side", "buy or sell")
    total = parse_positive("size", values["size"], "total size")  # the order form's grammar
    if not is_multiple(total, lot):
        raise FieldError("size", f"a multiple of the lot size {fmt_decimal(lot)}")
    slices = parse_whole("slices", values["slices"], lo=2, hi=MAX_SLICES, what="number of slices")
    if total / slices < lot:
        raise FieldError("slices", f"{fmt_decimal(total)} in {slices} slices is under one lot a slice")
    interval = parse_whole(
        "interval", values["interval"], lo=INTERVAL_S[0], hi=INTERVAL_S[1], what="interval in seconds"
    )
    return TwapSpec(symbol, side, total, slices, float(interval))  # type: ignore[arg-type]


class TwapScreen(DataScreen):
    NOTICES_IN_LINE = True  # a toast would sit over the rows being read
    SCREEN_TITLE = "TWAP"
    SIGNED_ACTIONS: ClassVar[frozenset[str]] = frozenset({"new", "pause", "resume", "cancel"})

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new", "New TWAP", id="twap.new", tooltip="Start a TWAP on the selected instrument"),
        Binding("p", "pause", "Pause", id="twap.pause", tooltip="Pause the selected TWAP before its next slice"),
        Binding("u", "resume", "Resume", id="twap.resume", tooltip="Resume the selected TWAP"),
        Binding("x", "cancel", "Cancel", id="twap.cancel", tooltip="Cancel the selected TWAP (slices sent stay)"),
    ]

    @property
    def runner(self) -> TwapRunner | None:
        return self.ctx.twaps

    def compose_body(self) -> ComposeResult:
        yield Label("", id="twap-note", classes="screen-note")
        columns = [("id", "#"), ("twap", "TWAP"), ("state", "State"), ("progress", "Done"), ("next", "Next slice")]
        yield RecordTable([*columns, ("why", "Stopped because")], id="twap-table")

    @property
    def polls(self) -> bool:
        return True  # the "next slice" countdown

    async def fetch(self) -> None:
        self.show()

    def _runners(self) -> list[tuple[str, TwapRunner, str]]:
        """(row key prefix, runner, whose) of this account's TWAPs, then of the accounts switched away from while a
        TWAP of theirs ran (``XtuiApp.sessions``): those go on as their own account, and are shown here."""
        mine = self.runner
        own = [("", mine, "")] if mine is not None else []
        sessions = getattr(self.app, "sessions", None)
        earlier = sessions()[:-1] if sessions else []
        kept = [(s.twaps, f"as {s.profile} {short_address(s.account)}") for s in earlier if s.twaps is not None]
        return own + [(f"{n}-", runner, whose) for n, (runner, whose) in enumerate(kept, 1)]

    def show(self) -> None:
        rows = []
        for prefix, each, whose in self._runners():
            for t in reversed(each.twaps):
                nxt = f"in {max(0.0, t.next_at - each.clock()):.0f} s" if t.active else "-"
                nxt = "paused" if t.state == "paused" else nxt
                nxt = t.unconfirmed or nxt  # nothing more goes until the exchange says what the last slice did
                what = f"{t.spec.describe()} {whose}".strip()
                rows.append((prefix + str(t.id), [str(t.id), what, t.state, t.progress(), nxt, t.reason or "-"]))
        self.query_one("#twap-table", RecordTable).show(rows)
        note = (
            "Each slice is a market order bounded by the slippage limit, counted from the exchange's record before "
            "the next; a slice whose outcome is unknown holds the TWAP until the exchange says. It stops at the "
            "first refusal. "
            "n new · p pause · u resume · x cancel"
        )
        if self.runner is None:
            note = "TWAP needs a key to trade with (watch-only and read-only cannot send orders)."
            if rows:  # kept from the accounts switched away from
                note += " Those listed trade as the account they started in: p pause · u resume · x cancel"
        self.query_one("#twap-note", Label).update(note)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Pausing, resuming and cancelling sign nothing: offered wherever a TWAP is listed, a kept one of another
        account's included (watch-only here); a new one needs this account's key."""
        if action in ("pause", "resume", "cancel"):
            return bool(self._runners())
        return super().check_action(action, parameters)

    def _selected(self) -> tuple[TwapRunner, Twap] | None:
        key = self.query_one("#twap-table", RecordTable).selected_key()
        every = ((runner, t) for _, runner, _ in self._runners() for t in runner.twaps)
        return next(((r, t) for r, t in every if self._key(r, t) == key), None)

    def _key(self, runner: TwapRunner, twap: Twap) -> str:
        prefix = next(p for p, r, _ in self._runners() if r is runner)
        return prefix + str(twap.id)

    def action_new(self) -> None:
        runner = self.runner
        if self.refuse("TWAP") or runner is None:
            return
        market = self.ctx.feed.state.market
        symbol = market.selected
        info = market.instruments.get(symbol)
        if info is None:
            self.notify("No instrument data yet.", severity="warning")
            return
        fields = [
            side_field(),
            FormField("size", "Total size", "", placeholder=f"in {symbol.split('-')[0].split('/')[0]}"),
            FormField("slices", "Slices", "10"),
            FormField("interval", "Every (s)", "30", placeholder=f"{INTERVAL_S[0]} to {INTERVAL_S[1]} seconds"),
        ]

        def entered(spec: TwapSpec | None) -> None:
            if spec is not None:
                runner.start(spec)
                self.show()

        notes = [f"{symbol}: each slice a market order (IOC) at most the slippage limit beyond the best price,",
                 "sent about every interval (±20%); the last slice takes what is left."]  # fmt: skip

        def preview(values: dict[str, str]) -> list[str]:
            """The risk of the whole TWAP as one market order at today's price (the slices go at theirs)."""
            desk = getattr(getattr(self.app, "main", None), "desk", None)
            ctx = desk.context(symbol) if isinstance(desk, OrderDesk) else None
            if ctx is None or not isinstance(desk, OrderDesk):
                return []
            try:
                spec = twap_from_form(values, symbol, info.lot_size)
            except FieldError as exc:
                return desk.risk_preview(None, ctx, exc.message)
            order = OrderInput(side=spec.side, kind="market", size=format(spec.total, "f"))
            result = validate(order, ctx)
            lines = desk.risk_preview(result.plan, ctx, next(iter(result.errors.values()), ""))
            return [f"{line} (all of it at today's price)" if line.startswith("liq") else line for line in lines]

        form: FormScreen[TwapSpec] = FormScreen(
            f"TWAP · {symbol}",
            fields,
            lambda v: twap_from_form(v, symbol, info.lot_size),
            notes=notes,
            focus="size",
            enter="Enter: start the TWAP",
            preview=preview,
        )
        self.app.push_screen(form, entered)
        main_desk = getattr(getattr(self.app, "main", None), "desk", None)
        if isinstance(main_desk, OrderDesk):
            main_desk.read_risk(symbol, form.show_preview)

    def _act(self, what: str) -> None:
        selected = self._selected()
        if selected is None:
            self.notify("No TWAP selected.", severity="warning")
            return
        runner, twap = selected
        getattr(runner, what)(twap)
        self.show()

    def action_pause(self) -> None:
        self._act("pause")

    def action_resume(self) -> None:
        self._act("resume")

    def action_cancel(self) -> None:
        self._act("cancel")

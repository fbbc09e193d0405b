"""Positions: size, entry, mark, value, uPnL, liquidation price and distance, leverage, margin mode."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import ClassVar

import msgspec
from rich.text import Text

from tui.api.models import AccountSummary, Position
from tui.feed.funding import FundingPaid, funding_paid
from tui.feed.risk import Liquidation, liquidation
from tui.feed.state import FeedState, InstrumentInfo
from tui.trading import fmt_decimal
from tui.trading.protection import Cover, Guarded, protection

from .display import DOWN, UP, fit, fmt_money, fmt_pct, fmt_price, fmt_size
from .pane import TablePane

__all__ = ["PositionView", "PositionsPane", "position_view"]

# (key, label, widest allowed): columns are as wide as their cells (see TablePane)
COLUMNS = (
    ("market", "Market", 12),
    ("side", "Side", 7),  # "▲ long"
    ("size", "Size", 12),
    ("entry", "Entry", 12),
    ("mark", "Mark", 12),
    ("value", "Value", 12),
    ("upnl", "uPnL", 12),
    ("roe", "uPnL%", 9),
    ("funding", "Funding", 11),  # received (+) or paid (-) since the position opened
    ("liq", "Liq.", 12),
    ("dist", "Liq.dist", 8),
    ("tp", "TP", 12),  # what protects the position on the exchange: ``tui.trading.protection``
    ("sl", "SL", 12),  # "none" with no stop-loss; "0.01/0.03⚠" when it covers a part
    ("lev", "Lev", 5),
    ("mode", "Mode", 8),
)
ESTIMATE = "≈"  # before a liquidation price derived here, not given by the exchange
WARN = "⚠"  # protection in part, or a tool that could not keep it


def protection_notes(guarded: Guarded | None) -> list[str]:
    """What the pane's title says of a position's protection when it is not whole: covered in part, a tool that
    could not keep it, orders that cannot protect it, legs waiting for an entry."""
    if guarded is None:
        return []
    name = guarded.instrument
    notes = [f"{WARN} {name} {c.words(n)}" for c, n in ((guarded.tp, "TP"), (guarded.sl, "SL")) if c and not c.whole]
    if guarded.uncovered:
        notes.append(f"{WARN} {name} {guarded.uncovered}")
    if guarded.stale:
        notes.append(f"{WARN} {len(guarded.stale)} reduce-only order(s) on {name} cannot protect the {guarded.side}")
    if guarded.pending:
        notes.append(f"{name}: {len(guarded.pending)} TP/SL wait for an entry (not protection)")
    return notes


class PositionView(msgspec.Struct, frozen=True):
    """A position with what the summary adds: the mark, uPnL (and % of margin), liquidation price."""

    position: Position
    mark: Decimal | None
    upnl: Decimal | None
    upnl_pct: Decimal | None
    liquidation: Liquidation
    liq_distance: Decimal | None  # fraction of the mark
    value: Decimal  # |size| x the mark shown beside it; the exchange's figure (from its own mark) without one


def position_view(p: Position, mark: Decimal | None, summary: AccountSummary | None) -> PositionView:
    """Join a position with its ticker mark and the account summary's perp_positions entry (see
    ``tui.feed.risk`` for the liquidation price)."""
    leg = summary.perp_positions.get(p.instrument) if summary is not None else None
    upnl = leg.upnl if leg is not None else (mark - p.entry_price) * p.size if mark is not None else None
    margin = leg.im if leg is not None and leg.im else p.margin
    if not margin and p.leverage:
        margin = abs(p.size) * p.entry_price / p.leverage
    pct = upnl / margin if upnl is not None and margin else None
    liq = liquidation(p, mark, summary)
    dist = abs(mark - liq.price) / mark if liq.price is not None and mark else None
    value = abs(p.size) * mark if mark is not None else abs(p.position_value)
    return PositionView(p, mark, upnl, pct, liq, dist, value)


def position_key(p: Position) -> str:
    return f"{p.instrument}:{p.position_side}"


class PositionsPane(TablePane):
    TOPICS: ClassVar[frozenset[str]] = frozenset({"positions", "account", "markets", "orders"})
    AGE_TOPIC: ClassVar[str | None] = "positions"
    # once a second at most while marks keep moving (mark, value, uPnL of every row); a change after a quiet
    # spell (a fill) is drawn at once
    PACE_S: ClassVar[float | None] = 1.0  # the account bar's: their uPnL come from one summary (``one_summary``)
    COLUMNS = COLUMNS
    TABLE_ID = "positions-table"
    # at 80x24 the pane is ~40 columns: the signed size says the side; the stop-loss (or "none") before the rest, so
    # that what protects the position is in view at every size
    PRIORITY = (
        "market",
        "size",
        "mark",
        "sl",
        "liq",
        "side",
        "upnl",
        "entry",
        "tp",
        "roe",
        "dist",
        "funding",
        "value",
        "lev",
        "mode",
    )
    LEFT = frozenset({"market", "side", "mode"})

    DEFAULT_CSS = """
    PositionsPane {
        height: 7;
    }
    """

    def __init__(
        self, state: FeedState, *, uncovered: Callable[[], Mapping[str, str]] | None = None, id: str | None = None
    ) -> None:
        super().__init__(state, id=id)
        self.border_title = "Positions"
        self._uncovered = uncovered  # instrument -> what a tool (a trailing stop) could not keep covered, in words

    def selected(self) -> Position | None:
        """The position under the cursor (the first when there is one and no cursor yet)."""
        held = [p for p in sorted(self.state.account.positions, key=lambda x: x.instrument_id) if p.size]
        key = self.cursor_key()
        return next((p for p in held if position_key(p) == key), held[0] if held and key is None else None)

    summary_drawn: object = None  # the account summary the rows were last drawn from (their uPnL is its)

    def refresh_state(self) -> None:
        account = self.state.account
        self.summary_drawn = account.summary
        market = self.state.market
        rows = []
        notes: dict[str, None] = {}
        marks = {name: t.mark_price for name, t in market.tickers.items()}
        model = protection(account.positions, account.open_orders, marks, self._uncovered() if self._uncovered else {})
        for p in sorted(account.positions, key=lambda x: x.instrument_id):
            t = market.tickers.get(p.instrument)
            view = position_view(p, t.mark_price if t else None, account.summary)
            info = market.instruments.get(p.instrument)
            paid = funding_paid(p, account.fills, account.funding)
            guarded = model.of(p.instrument)
            rows.append((position_key(p), self._cells(view, info, paid, guarded)))
            notes.update(dict.fromkeys(protection_notes(guarded)))
            if paid.estimate and paid.payments:
                notes[f"{ESTIMATE} funding since the oldest fill held"] = None
            if view.liquidation.reason:
                notes[f"liq. none: {view.liquidation.reason}"] = None
            elif view.liquidation.estimate:
                notes[f"{ESTIMATE} estimated liq."] = None
        self.sync(rows)
        keys = ["c close · a TP/SL"] if self.offers("close_position") else []  # none where nothing can be sent
        self.show_account_titles("Positions", len(rows), " · ".join([*keys, *notes]))

    def _cells(
        self, v: PositionView, info: InstrumentInfo | None, paid: FundingPaid, guarded: Guarded | None
    ) -> list[str | Text]:
        c = self.colours
        p = v.position
        tick = info.tick_size if info else None
        lot = info.lot_size if info else None
        long = p.size > 0
        pnl_style = c.move(v.upnl >= 0) if v.upnl is not None else ""
        return [
            Text(p.instrument),
            Text(f"{UP if long else DOWN} {'long' if long else 'short'}", style=c.side(long)),
            _r(fit(fmt_size(p.size, lot), p.size, 12)),  # signed: a short's is negative
            _r(fit(fmt_price(p.entry_price, tick), p.entry_price, 12)),
            _r(fit(fmt_price(v.mark, tick), v.mark, 12)),
            _r(fit(fmt_money(v.value), v.value, 12)),
            _r(fit(fmt_money(v.upnl), v.upnl, 12), pnl_style),
            _r(fmt_pct(v.upnl_pct), pnl_style),
            self._funding_cell(paid),
            self._liq_cell(v.liquidation, tick),
            _r(fmt_pct(v.liq_distance, places=1, signed=False)),
            self._cover_cell(guarded.tp if guarded else None, tick, lot, "-"),
            self._cover_cell(
                guarded.sl if guarded else None, tick, lot, "none", warn=bool(guarded and guarded.uncovered)
            ),
            _r(f"{p.leverage.normalize():f}x"),
            Text(p.margin_mode),
        ]

    def _cover_cell(
        self, cover: Cover | None, tick: Decimal | None, lot: Decimal | None, empty: str, *, warn: bool = False
    ) -> Text:
        c = self.colours
        if cover is None:
            return _r(empty, c.warning if empty == "none" else c.muted)
        if not cover.whole:  # the part covered, where the trader looks; the price is on the chart and in the note
            part = f"{fmt_decimal(cover.covered)}/{fmt_decimal(cover.held)}{WARN}"  # 0.01/0.03⚠: no lot's zeros
            return _r(part if len(part) <= 12 else f"{cover.covered / cover.held:.0%} of it{WARN}", c.warning)
        text = fit(fmt_price(cover.price, tick), cover.price, 12 - (1 if warn else 0))
        return _r(text + WARN, c.warning) if warn else _r(text)

    def _funding_cell(self, paid: FundingPaid) -> Text:
        if not paid.payments:
            return _r("0.00", self.colours.muted)
        mark = ESTIMATE if paid.estimate else ""
        return _r(mark + fmt_money(paid.amount), self.colours.move(paid.amount >= 0))

    def _liq_cell(self, liq: Liquidation, tick: Decimal | None) -> Text:
        if liq.price is None:
            return _r("none" if liq.reason else "-", self.colours.muted)
        mark = ESTIMATE if liq.estimate else ""
        return _r(mark + fit(fmt_price(liq.price, tick), liq.price, 12 - len(mark)))


def _r(text: str, style: str = "") -> Text:
    return Text(text, style=style, justify="right")

"""Positions: size, entry, mark, value, uPnL, liquidation price and distance, leverage, margin mode."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, ClassVar

import msgspec
from rich.text import Text

from tui.api.models import Position
from tui.feed.funding import FundingPaid, funding_paid
from tui.feed.risk import Liquidation, liquidation

from .display import DOWN, UP, fit, fmt_money, fmt_pct, fmt_price, fmt_size
from .levels import Exits, position_exits
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
    ("tp", "TP", 12),  # the open reduce-only trigger orders on the instrument (see ``levels.position_exits``)
    ("sl", "SL", 12),
    ("lev", "Lev", 5),
    ("mode", "Mode", 8),
)
ESTIMATE = "≈"  # before a liquidation price derived here, not given by the exchange


class PositionView(msgspec.Struct, frozen=True):
    """A position with what the summary adds: the mark, uPnL (and % of margin), liquidation price."""

    position: Position
    mark: Decimal | None
    upnl: Decimal | None
    upnl_pct: Decimal | None
    liquidation: Liquidation
    liq_distance: Decimal | None  # fraction of the mark
    value: Decimal  # |size| x the mark shown beside it; the exchange's figure (from its own mark) without one


def position_view(p: Position, mark: Decimal | None, summary: Any) -> PositionView:
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
    # twice a second at most while marks keep moving (mark, value, uPnL of every row); a change after a quiet
    # spell (a fill) is drawn at once
    PACE_S: ClassVar[float | None] = 0.5
    COLUMNS = COLUMNS
    TABLE_ID = "positions-table"
    # at 80x24 the pane is ~40 columns: the signed size says the side, so the mark and liquidation price fit
    PRIORITY = (
        "market",
        "size",
        "mark",
        "liq",
        "side",
        "upnl",
        "entry",
        "tp",
        "sl",
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

    def __init__(self, state: Any, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.border_title = "Positions"

    def selected(self) -> Position | None:
        """The position under the cursor (the first when there is one and no cursor yet)."""
        held = [p for p in sorted(self.state.account.positions, key=lambda x: x.instrument_id) if p.size]
        key = self.cursor_key()
        return next((p for p in held if position_key(p) == key), held[0] if held and key is None else None)

    def refresh_state(self) -> None:
        account = self.state.account
        market = self.state.market
        rows = []
        notes: dict[str, None] = {}
        for p in sorted(account.positions, key=lambda x: x.instrument_id):
            t = market.tickers.get(p.instrument)
            view = position_view(p, t.mark_price if t else None, account.summary)
            info = market.instruments.get(p.instrument)
            paid = funding_paid(p, account.fills, account.funding)
            exits = position_exits(p, account.open_orders)
            rows.append((position_key(p), self._cells(view, info, paid, exits)))
            if paid.estimate and paid.payments:
                notes[f"{ESTIMATE} funding since the oldest fill held"] = None
            if view.liquidation.reason:
                notes[f"liq. none: {view.liquidation.reason}"] = None
            elif view.liquidation.estimate:
                notes[f"{ESTIMATE} estimated liq."] = None
        self.sync(rows)
        keys = ["c close · a TP/SL"] if self.offers("close_position") else []  # none where nothing can be sent
        self.show_account_titles("Positions", len(rows), " · ".join([*keys, *notes]))

    def _cells(self, v: PositionView, info: Any, paid: FundingPaid, exits: Exits) -> list[str | Text]:
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
            _r(fit(fmt_price(exits.tp, tick), exits.tp, 12)),
            _r(fit(fmt_price(exits.sl, tick), exits.sl, 12)),
            _r(f"{p.leverage.normalize():f}x"),
            Text(p.margin_mode),
        ]

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

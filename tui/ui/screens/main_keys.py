"""The dashboard's keys: trading, view and focus. Every binding has an id (a keymap may remap it) and a
tooltip; the help screen and the command palette list them all."""

from __future__ import annotations

from collections.abc import Iterable

from textual.binding import Binding, BindingType

__all__ = ["MAIN_BINDINGS", "TRADING_ACTIONS", "locked_key_words"]

# the keys that send: not offered when nothing can be sent (watch-only, read-only)
TRADING_ACTIONS: frozenset[str] = frozenset({
    "buy", "sell", "amend_order", "cancel_order", "cancel_instrument", "cancel_everything", "scale", "cancel_group",
    "bracket", "attach_exits", "cancel_cloid", "close_position", "reverse_position", "panic", "toggle_armed",
    "trail",
})  # fmt: skip

# the number keys: pane, title, tooltip (1 focuses the first)
_FOCUS_KEYS = (
    ("markets", "Markets", "Focus the markets"),
    ("book", "Book", "Focus the order book"),
    ("positions", "Positions", "Focus the positions"),
    ("orders", "Orders", "Show and focus the open orders"),
    ("fills", "Fills", "Show and focus your fills (the tab beside the open orders)"),
)

MAIN_BINDINGS: list[BindingType] = [
    Binding("b", "buy", "Buy", id="buy", tooltip="Order form to buy at the best ask or the picked price"),
    Binding("s", "sell", "Sell", id="sell", tooltip="Order form to sell at the best bid or the picked price"),
    Binding("x", "cancel_order", "Cancel", id="cancel_order", tooltip="Cancel the selected open order"),
    Binding("e", "amend_order", "Amend", id="amend_order", show=False,
            tooltip="Amend the selected open order: new price, trigger or size (cancel and replace)"),
    Binding("X", "cancel_instrument", "Cancel all", id="cancel_instrument", show=False,
            tooltip="Cancel every open order on the selected instrument"),
    Binding("C", "cancel_everything", "Cancel every order", id="cancel_all", show=False,
            tooltip="Cancel every open order on every instrument (asks first; positions stay)"),
    Binding("o", "bracket", "Bracket", id="bracket_order", show=False,
            tooltip="Bracket order: an entry with a take-profit and/or stop-loss that wait for it to fill"),
    Binding("a", "attach_exits", "TP/SL", id="position_tpsl", show=False,
            tooltip="Take-profit and/or stop-loss for the selected position (they go when it closes)"),
    Binding("l", "trail", "Trail", id="trailing_stop", show=False,
            tooltip="Trailing stop for the selected position: a real reduce-only stop xtui moves as the price runs "
            "your way (by a distance or %, from mark or last); again to stop it. If xtui stops, the last stop stays"),
    Binding("S", "scale", "Scale", id="scale_order", show=False,
            tooltip="Scale order: N limit orders between two prices, equal or weighted, previewed, one placeOrder"),
    Binding("K", "cancel_group", "Cancel group", id="cancel_group", show=False,
            tooltip="Cancel every order of the selected order's scale group"),
    Binding("k", "cancel_cloid", "Cancel by cloid", id="cancel_cloid", show=False,
            tooltip="Cancel an order by its client order id"),
    Binding("c", "close_position", "Close", id="close_position",
            tooltip="Close all or part of the selected position, at market or at a limit price"),
    Binding("ctrl+r", "reverse_position", "Reverse", id="reverse_position", show=False,
            tooltip="Reverse the selected position: one IOC market order of twice its size the other way (asks first)"),
    Binding("P", "panic", "PANIC", id="panic",
            tooltip="PANIC: cancel every open order and close every position (asks first)"),
    Binding("exclamation_mark", "toggle_armed", "Arm", id="toggle_armed", show=False,
            tooltip="Armed mode: orders go without confirmation (guards, protective cancels, reversals and PANIC "
            "still ask); a red banner says so; again to disarm"),
    Binding("slash", "filter_markets", "Filter", id="filter_markets", show=False,
            tooltip="Filter the markets by typing"),
    Binding("g", "cycle_grouping", "Group", id="book_grouping", show=False,
            tooltip="Group the book by 1x, 10x, 100x the tick"),
    Binding("right_square_bracket", "resolution(1)", "Res+", id="chart_next_resolution", show=False,
            tooltip="Next chart resolution (1m 5m 15m 30m 1h 4h 1D 1W)"),
    Binding("left_square_bracket", "resolution(-1)", "Res-", id="chart_prev_resolution", show=False,
            tooltip="Previous chart resolution"),
    Binding("t", "chart_type", "Chart type", id="chart_type", show=False,
            tooltip="Chart last trade, mark or index price"),
    Binding("plus,equals_sign", "chart_zoom(1)", "Zoom in", id="chart_zoom_in", show=False,
            tooltip="Chart: fewer, wider candles"),
    Binding("minus", "chart_zoom(-1)", "Zoom out", id="chart_zoom_out", show=False,
            tooltip="Chart: more, thinner candles"),
    Binding("i", "chart_indicators", "Indicators", id="chart_indicators", show=False,
            tooltip="Chart indicators: none, SMA 20/50, EMA 20/50, VWAP, volume profile, RSI 14 alone, all (kept per "
            "profile; the palette turns each on or off)"),
    Binding("F", "funding_view", "Funding", id="funding_view", show=False,
            tooltip="Funding rates per period (0.0013%/1h), per 8 hours, or annualised (APR)"),
    Binding("r", "refresh_account", "Refresh", id="refresh_account", show=False,
            tooltip="Poll the account now"),
    Binding("D", "open_ladder", "Ladder", id="open_ladder", show=False,
            tooltip="Price ladder: a fixed price axis, your orders on their levels; buy, sell, cancel at the cursor"),
    Binding("h", "open_heatmap", "Heatmap", id="open_heatmap", show=False,
            tooltip="Book heatmap: the book's depth over the last minutes (time across, price down), trades over it"),
    Binding("v", "cycle_panes", "Panes", id="cycle_panes",
            tooltip="Where the book, the tape and the chart share a place (a small terminal): show the next"),
    Binding("z", "zoom_pane", "Zoom pane", id="zoom_pane", show=False,
            tooltip="The focused pane (Tab to the chart) fills the screen; z or Escape puts it back"),
    *(
        Binding(str(n), f"focus_pane('{pane}')", title, id=f"focus_{pane}", show=False, tooltip=tooltip)
        for n, (pane, title, tooltip) in enumerate(_FOCUS_KEYS, start=1)
    ),
]  # fmt: skip


def locked_key_words(
    bindings: Iterable[Binding], trading: frozenset[str], *, read_only: bool, watch_only: bool
) -> str | None:
    """What a key bound to a trading action says when nothing can be sent (None: it is not such a key, or
    trading is open): the key is not offered then, and a key that does nothing at all would leave a trader
    wondering."""
    if not (read_only or watch_only) or not any(b.action in trading for b in bindings):
        return None
    if read_only:
        return "read-only: trading is disabled (--read-only or read_only = true in the profile)"
    return "watch-only: no key loaded (start with --key-env VAR or a profile's keystore)"

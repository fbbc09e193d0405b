"""The order form's keys: one key per decision from any field (send, side, market or limit, the next type, the
book's bid, ask or mid into the price, leverage, size presets), each with an id, in the one key table."""

from textual.binding import Binding, BindingType

__all__ = ["ORDER_FORM_KEYS"]

ORDER_FORM_KEYS: list[BindingType] = [
    Binding("escape", "cancel", "Cancel", id="form.cancel"),
    Binding("enter", "submit", "Send", id="form.submit", show=False,
            tooltip="Send the order, from any field (a choice's list opens on space)"),
    Binding("ctrl+t", "toggle_side", "Buy/sell", id="form.toggle_side"),
    Binding("ctrl+n", "market_limit", "Market/limit", id="form.market_limit",
            tooltip="Market <-> limit, from any field (from stop / TP / SL: limit)"),
    Binding("ctrl+y", "next_kind", "Type", id="form.next_kind",
            tooltip="The next order type: limit, market, stop, take-profit, stop-loss, from any field"),
    Binding("ctrl+b", "book_price('bid')", "Bid", id="form.price_bid",
            tooltip="The best bid into the price (a market order becomes a limit)"),
    Binding("ctrl+a", "book_price('ask')", "Ask", id="form.price_ask", priority=True,
            tooltip="The best ask into the price (a market order becomes a limit); Home goes to a field's start"),
    Binding("ctrl+g", "book_price('mid')", "Mid", id="form.price_mid",
            tooltip="The mid into the price, on the tick (down for a buy, up for a sell)"),
    Binding("ctrl+l", "change_leverage", "Leverage", id="form.change_leverage",
            tooltip="Change the leverage in force on this instrument (asks first)"),
    Binding("ctrl+o", "size_preset", "Size preset", id="form.size_preset",
            tooltip="Size: 25, 50, 75, 100% of the position (an order against it) or of buying power, in turn"),
]  # fmt: skip

"""The ladder's orders: a limit order at the cursor's price for the ladder's size, and a cancel of the orders on the
cursor's level. Each goes the way every desk order goes: refused when read-only or watch-only, checked as the
order form checks (``tui.trading.ladder.ladder_order``), refused by the profile's guards, asked first when the
confirmation rules (armed: only the questions that stay) say so, then sent and settled by cloid."""

from __future__ import annotations

from decimal import Decimal

from tui.api.models import Order
from tui.trading import Side, fmt_decimal
from tui.trading.desk import TradingDesk
from tui.trading.grammar import FieldError, is_multiple, parse_positive
from tui.trading.ladder import ladder_order, ladder_size
from tui.trading.outcomes import describe_order
from tui.ui.widgets.display import short_address
from tui.ui.widgets.orders import is_protective

from .base import DeskActions, ScreenPort
from .orders import SingleOrders

__all__ = ["LadderOrders"]


class LadderOrders(DeskActions):
    """Orders at a price picked on the ladder, for the size the ladder holds per instrument."""

    def __init__(self, desk: TradingDesk, port: ScreenPort, single: SingleOrders) -> None:
        super().__init__(desk, port)
        self.single = single

    def size(self, symbol: str) -> str | None:
        """The ladder's size on ``symbol``: the last one set with the ladder's size key, else the profile's
        ``ladder_notional`` at the mid (else twice the minimum order), taken once and kept so it does not drift with the
        price; never the order form's (a form's 15 ETH is no ladder click). None while there is no price."""
        kept = self.desk.order_sizes.get(symbol)
        if kept is not None:
            return kept
        ctx = self.desk.context(symbol)
        size = ladder_size(ctx, self.desk.ladder_notional) if ctx is not None else None
        if size is None:
            return None
        self.desk.order_sizes[symbol] = fmt_decimal(size)
        return self.desk.order_sizes[symbol]

    def set_size(self, symbol: str, text: str) -> str | None:
        """Take ``text`` as the ladder's size on ``symbol``; why not (a message), or None when taken."""
        try:
            size = parse_positive("size", text.strip())
        except FieldError as exc:
            return exc.message
        info = self.desk.state.market.instruments.get(symbol)
        if info is not None and not is_multiple(size, info.lot_size):
            return f"size: {fmt_decimal(size)} is not a multiple of the lot size {fmt_decimal(info.lot_size)}"
        self.desk.order_sizes[symbol] = fmt_decimal(size)
        return None

    def place_at(self, side: Side, price: Decimal) -> None:
        """A GTC limit order on the selected instrument at ``price`` for the ladder's size, through every check."""
        desk = self.desk
        what = f"{side} at {fmt_decimal(price)}"
        if desk.refuse(f"{what} order"):
            return
        symbol = desk.state.market.selected
        size = self.size(symbol)
        if size is None:
            self.port.notify(
                f"No size for {symbol} yet (no price to size it at): z sets the ladder's size.",
                severity="warning",
                markup=False,
            )
            return
        ctx = desk.context(symbol)
        if ctx is None:
            self.port.notify("No instrument data yet.", severity="warning")
            return
        result = ladder_order(side, price, size, ctx)
        if result.plan is None:
            why = "; ".join(f"{field}: {text}" for field, text in result.errors.items())
            self.port.notify(f"{what}: {why}. Nothing was sent.", title="Not sent", severity="warning", markup=False)
            return
        desk.confirm_then_place(result.plan, ctx, title=f"{side.capitalize()} {size} {symbol} at the ladder's price?")

    def cancel_at(self, orders: list[Order], price: Decimal) -> None:
        """Cancel ``orders`` (those resting on the cursor's level ``price``): one as the open orders pane cancels
        it (a protective one asks first); several in one cancel, asked first."""
        desk = self.desk
        if desk.refuse("cancel"):
            return
        if not orders:
            self.port.notify(f"No order of yours at {fmt_decimal(price)}.", severity="warning", markup=False)
            return
        if len(orders) == 1:
            self.single.cancel_order(orders[0])
            return

        async def call() -> str:
            resp = await desk.client.cancel_by_oid([(o.order_id, o.instrument_id) for o in orders])
            desk.cancel_answered(resp, [o.order_id for o in orders])
            return f"cancelled {len(orders)} orders at {fmt_decimal(price)} · tx {short_address(resp.tx_hash)}"

        lines = [f"oid {o.order_id}: {describe_order(o)}" for o in orders[:8]]
        lines += [f"and {len(orders) - 8} more"] if len(orders) > 8 else []
        if any(is_protective(o) for o in orders):
            lines.append("A take-profit or stop-loss among them: the position is left without it.")
        desk.ask(f"Cancel your {len(orders)} orders at {fmt_decimal(price)}?", lines, lambda: desk.run("Cancel", call))

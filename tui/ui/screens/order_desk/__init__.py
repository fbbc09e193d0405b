"""What the trading keys do: open the form, send orders and cancels in workers, report the outcome.

A key handler never awaits the network: it starts a worker and returns. Each outcome is a notification
(the order id and transaction hash, or the exchange's error), and the account is polled right after.
In read-only mode (or watch-only, with no key) every trading key says why it does nothing.

``OrderDesk`` holds the session's desk (``tui.trading.desk.TradingDesk``: the client, the feed's state, the guards;
refusing, sending, reporting, asking first), the dashboard's port to it (``base.ScreenPort``) and the groups of
actions that use both, split by what they send: ``orders`` (one order
at a time), ``multi`` (several in one placeOrder), ``amend``, ``reverse``, ``panic``, ``trailing`` (a position's
trailing stop) and ``ladder`` (at the ladder's cursor). What they decide without Textual is ``tui.trading``.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from tui.api.models import Order
from tui.trading import ConfirmPolicy
from tui.trading.desk import TradingDesk
from tui.trading.trailing import TrailRunner
from tui.ui.widgets.orders import OpenOrdersPane

from .amend import Amends
from .base import ScreenPort
from .ladder import LadderOrders
from .multi import MultiOrders
from .orders import SingleOrders
from .panic import Panic
from .reverse import Reversal
from .trailing import TrailingStops

__all__ = ["OrderDesk", "ScreenPort"]


class OrderDesk:
    """The trading actions of ``desk`` against its client, told and asked through ``port``."""

    def __init__(self, desk: TradingDesk, port: ScreenPort, trails: TrailRunner | None = None) -> None:
        self._desk = desk
        self.port = port
        single, multi, amends = SingleOrders(desk, port, trails), MultiOrders(desk, port), Amends(desk, port)
        panic = Panic(desk, port, trails)
        self.open_form = single.open_form
        self.cancel_order = single.cancel_order
        self.cancel_instrument = single.cancel_instrument
        self.cancel_by_cloid = single.cancel_by_cloid
        self.cancel_everything = single.cancel_everything
        self.close_position = single.close_position
        self.bracket = multi.bracket
        self.attach_exits = multi.attach_exits
        self.scale = multi.scale
        self.cancel_group = multi.cancel_group
        self.amend_order = amends.amend_order
        self.panic = panic.panic
        self.reverse_position = Reversal(desk, port).reverse
        self.trail = TrailingStops(desk, port, trails).trail
        self.context = desk.context
        self.risk_preview = desk.risk_preview  # a form's lines for an order's risk (the TWAP form uses it)
        self.read_risk = desk.read_risk
        self.risk = desk.risk  # what a form's risk and exit PnL need of the account (the OCO form uses it)
        self.ladder = LadderOrders(desk, port, single)  # orders at the ladder's cursor

    def on_row(self, pane: OpenOrdersPane, act: Callable[[Order | None], None]) -> None:
        """``act`` on the order under ``pane``'s cursor; a row whose order has left (not redrawn yet) says so and
        nothing is done."""
        gone = pane.vanished()
        if gone is not None:
            self.port.notify(f"Order {gone} is no longer open (filled or cancelled): nothing sent.")
            return
        act(pane.selected())

    @property
    def policy(self) -> ConfirmPolicy:
        """When the desk asks before sending."""
        return self._desk.policy

    @property
    def in_flight(self) -> int:
        """Submissions whose outcome is not yet shown."""
        return self._desk.in_flight

    @in_flight.setter
    def in_flight(self, count: int) -> None:
        self._desk.in_flight = count

    @property
    def picked(self) -> Decimal | None:
        """The price picked in the book for the next order form; None for the best price."""
        return self._desk.picked

    @picked.setter
    def picked(self, price: Decimal | None) -> None:
        self._desk.picked = price

"""What the trading keys do: open the form, send orders and cancels in workers, report the outcome.

A key handler never awaits the network: it starts a worker and returns. Each outcome is a notification
(the order id and transaction hash, or the exchange's error), and the account is polled right after.
In read-only mode (or watch-only, with no key) every trading key says why it does nothing.

The desk is split by what the actions send: ``base`` (the market an order needs to know, sending, reporting,
asking first), ``orders`` (one order at a time), ``multi`` (several in one placeOrder), ``amend`` and ``panic``.
"""

from __future__ import annotations

from .amend import Amends
from .base import describe_order, order_context
from .multi import MultiOrders
from .orders import SingleOrders
from .panic import Panic

__all__ = ["OrderDesk", "describe_order", "order_context"]


class OrderDesk(SingleOrders, MultiOrders, Amends, Panic):
    """The trading actions of ``screen`` against ``client``; ``refresh`` polls the account afterwards."""

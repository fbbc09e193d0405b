"""Messages between the feed, the panes and the screens."""

from __future__ import annotations

from decimal import Decimal

from textual.message import Message

__all__ = ["FeedChanged", "InstrumentChosen", "PricePicked", "WatchToggled"]


class FeedChanged(Message):
    """The feed's state changed for ``topics`` (coalesced: at most one a frame, ~50 a second)."""

    def __init__(self, topics: frozenset[str]) -> None:
        super().__init__()
        self.topics = topics


class PricePicked(Message):
    """A price was picked in the order book: the next order form starts from it."""

    def __init__(self, price: Decimal) -> None:
        super().__init__()
        self.price = price


class InstrumentChosen(Message):
    """An instrument was chosen in the markets pane."""

    def __init__(self, symbol: str) -> None:
        super().__init__()
        self.symbol = symbol


class WatchToggled(Message):
    """The trader asked to watch ``symbol`` (or stop watching it) in the watchlist."""

    def __init__(self, symbol: str) -> None:
        super().__init__()
        self.symbol = symbol

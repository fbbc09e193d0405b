"""The feed: WebSocket pushes and /info polls merged into one state the UI reads (no Textual here)."""

from .book import BookState
from .state import TOPICS, AccountState, FeedState, FeedStatus, InstrumentInfo, MarketState
from .worker import Feed

__all__ = [
    "TOPICS",
    "AccountState",
    "BookState",
    "Feed",
    "FeedState",
    "FeedStatus",
    "InstrumentInfo",
    "MarketState",
]

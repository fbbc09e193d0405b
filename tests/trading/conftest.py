"""Feeds on the local exchange for what trading reads of the market (the fixture of ``tests/feed``)."""

from tests.feed.conftest import make_feed

__all__ = ["make_feed"]

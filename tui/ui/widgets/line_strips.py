"""The strips a widget that draws its own lines keeps: those of the lines it shows, and of the ones it showed last."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

from textual.cache import LRUCache
from textual.strip import Strip

__all__ = ["LineStrips"]

_FEWEST = 16  # kept even before the widget has a height
K = TypeVar("K", bound=Hashable)


class LineStrips(LRUCache[K, Strip]):
    """Drawn lines by what they show, at most twice as many as the widget has lines.

    A line is drawn once while it stays the same; one that comes back a draw later (the tape's rows moving down, a
    price level returning) is still found. A fixed 1,024 kept a busy book's past for minutes, at ~1 KB a strip.
    """

    def __init__(self) -> None:
        super().__init__(_FEWEST)

    def drawn(self, key: K, draw: Callable[[], Strip], height: int) -> Strip:
        """The strip for ``key``, drawn by ``draw`` if it is not kept; ``height``: the widget's lines now."""
        strip = self.get(key)
        if strip is None:
            self.maxsize = max(_FEWEST, 2 * height)
            strip = self[key] = draw()
        return strip

"""Textual keeps what a widget drew after the widget is gone: ``StylesCache.get_inner_outer`` is an ``lru_cache``
on a method, so each of its 1,024 entries holds a widget's ``StylesCache``, and that every line the widget drew.
The order form's 57 widgets kept ~0.55 MB each time it closed, until 1,024 entries had piled up (~10 MB).
``forget_gone_widgets`` empties that cache: the widgets shown fill it again as they draw (two colours added)."""

from __future__ import annotations

from textual._styles_cache import StylesCache

__all__ = ["forget_gone_widgets"]


def forget_gone_widgets() -> None:
    StylesCache.get_inner_outer.cache_clear()

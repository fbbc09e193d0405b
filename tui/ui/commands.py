"""The command palette's provider: every command calls the same ``action_*`` method its key does, so the palette
and the keys never disagree."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.markup import escape

from tui.feed.indicators import INDICATORS
from tui.ui.bindings import key_catalogue
from tui.ui.screens.catalogue import screen_classes
from tui.ui.screens.data_screen import DataScreen
from tui.ui.screens.live_screen import LiveScreen
from tui.ui.screens.main import MainScreen
from tui.ui.widgets.book import OrderBookPane
from tui.ui.widgets.markets import MarketsPane

__all__ = ["XtuiCommands"]


class XtuiCommands(Provider):
    """The dashboard's actions and the app's, by the same names the footer and help show."""

    def _commands(self) -> list[tuple[str, str, Callable[[], Any]]]:
        app = self.app
        main = next((s for s in app.screen_stack if isinstance(s, MainScreen)), None)
        # the data screen on top (under the palette), whose own actions are listed too
        data = next((s for s in reversed(app.screen_stack) if isinstance(s, DataScreen)), None)
        kinds = screen_classes().items()
        data_scopes = {"data screens", *(n for n, cls in kinds if type(data) is cls)} if data else set()
        live = next((s for s in reversed(app.screen_stack) if isinstance(s, LiveScreen)), None)
        markets = next(iter(main.query(MarketsPane)), None) if main is not None else None  # its own keys (*, esc)
        keymap: Mapping[str, str] = getattr(app, "keymap", {})
        out: list[tuple[str, str, Callable[[], Any]]] = []
        for item in key_catalogue(app, app.BINDINGS, keymap):
            if not item.action:
                continue
            targets: dict[str, Any] = {"global": app, "dashboard": main, "markets": markets}
            targets.update(dict.fromkeys(data_scopes, data))
            targets["order book"] = main.query_one(OrderBookPane) if main is not None else None
            if live is not None:  # the ladder's or the heatmap's own keys, while it is open
                targets[live.SCOPE] = targets["ladder, heatmap"] = live
            target = targets.get(item.scope)
            if target is None:
                continue
            title = item.tooltip or item.description
            help_text = escape(f"key {item.keys} · {item.description} · id {item.id}")
            out.append((title, help_text, partial(app.run_action, item.action, target)))
        if main is not None:  # each indicator on or off (i steps through them)
            for name in INDICATORS:
                title = f"Chart indicator {main.context.session.indicators.title(name)}: on or off"
                help_text = escape("key i steps through them · id chart_indicators")
                out.append((title, help_text, partial(main.action_toggle_indicator, name)))
        return out

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(escape(title), callback, help=help_text)

    async def search(self, query: str) -> Hits:
        """The commands whose title holds every word typed; only with none of those, the fuzzy matches (the
        fuzzy "quit" alone also found "Scale order: … equal or weighted", which a trader did not ask for)."""
        matcher = self.matcher(query)
        words = query.lower().split()
        scored = [(matcher.match(title), title, help_text, run) for title, help_text, run in self._commands()]
        found = [hit for hit in scored if hit[0] > 0]
        whole = [hit for hit in found if all(w in hit[1].lower() for w in words)]
        for score, title, help_text, run in whole or found:
            yield Hit(score, matcher.highlight(title), run, help=help_text)

"""Switching layouts: ``Y`` goes from the dashboard's own layout to each saved one in turn and back; the palette lists
them, keeps the current one under a name, and lays out several markets side by side (the selected instrument and
the watchlist's). The saved layouts are the session's ``LayoutBook`` (``tui.feed.layouts``)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.markup import escape

from tui.feed.layouts import MAX_INSTRUMENTS, Layout, PaneSpot, default_layout
from tui.ui.screens.data_screen import DataScreen
from tui.ui.screens.layout_screen import LayoutScreen
from tui.ui.screens.prompt import PromptScreen

if TYPE_CHECKING:
    from tui.ui.shell import Shell

__all__ = ["LayoutCommands", "next_layout", "save_layout", "show_layout", "side_by_side"]

DASHBOARD = "dashboard"  # the dashboard's own layout, by terminal size (not a saved one)
SIDE_BY_SIDE = 3  # instruments "side by side" shows at most (each a column: ~40 columns at 120)


def _current(app: Shell) -> LayoutScreen | None:
    return next((s for s in reversed(app.screen_stack) if isinstance(s, LayoutScreen)), None)


def _free(app: Shell) -> bool:
    """Whether a layout may replace what is shown: the dashboard or a layout on top (not a form or a dialog)."""
    top = app.screen
    return top is app.main or isinstance(top, LayoutScreen)


async def show_layout(app: Shell, layout: Layout | None) -> None:
    """Show ``layout`` (None: the dashboard's own) in place of the one shown (and of a data screen over it); not
    over a form or a question, whose typing would be lost."""
    if not (_free(app) or isinstance(app.screen, DataScreen)):
        app.notify("Close the form or question first: a layout would replace it.", severity="warning")
        return
    while len(app.screen_stack) > 1 and app.screen is not app.main:
        await app.pop_screen()
    if layout is not None:  # its bar names it
        await app.push_screen(LayoutScreen(layout, app.dashboard))
    else:
        app.notify("The dashboard's own layout (Y: the next)", timeout=2)


def next_layout(app: Shell) -> None:
    """The next saved layout after the one shown; after the last, the dashboard's own."""
    if not _free(app):
        return
    book = app.session.layouts
    if not book.layouts:
        app.notify(
            "No saved layout yet: the palette's 'Layout: save the current one' keeps one, and 'Layout: markets side "
            f"by side' shows several at once. They are kept in {book.path}.",
            timeout=8,
            markup=False,
        )
        return
    shown = _current(app)
    names = [DASHBOARD, *book.names()]
    at = names.index(shown.plan.name) if shown is not None and shown.plan.name in names else 0
    following = names[(at + 1) % len(names)]
    app.run_worker(show_layout(app, book.get(following)), group="layout", exclusive=True, exit_on_error=False)


def side_by_side(app: Shell) -> Layout:
    """The selected instrument and the watchlist's first (else the next listed), a column each: ticker, chart
    and book; the positions and open orders across the bottom."""
    market = app.session.feed.state.market
    picks = [market.selected, *app.session.watchlist.symbols, *market.instruments]
    symbols = list(dict.fromkeys(s for s in picks if not market.instruments or s in market.instruments))
    symbols = symbols[: min(SIDE_BY_SIDE, MAX_INSTRUMENTS)]
    n = len(symbols)
    panes = [PaneSpot(kind, row, col, instrument=s) for col, s in enumerate(symbols)
             for row, kind in enumerate(("ticker", "chart", "book"))]  # fmt: skip
    panes += [PaneSpot("positions", 3, 0, cols=max(1, n - 1)), PaneSpot("orders", 3, n - 1)] if n > 1 else []
    rows = ("4", "1fr", "1fr", "6") if n > 1 else ("4", "1fr", "1fr")
    return Layout("side by side", ("1fr",) * n, rows, tuple(panes))


def save_layout(app: Shell) -> None:
    """Ask a name, and keep the layout shown under it (the dashboard's: as drawn at this terminal's size)."""
    if not _free(app):
        return
    shown = _current(app)
    layout = shown.plan if shown is not None else default_layout(app.size.width, app.size.height)
    book = app.session.layouts

    def named(name: str | None) -> None:
        if name is None:
            return
        try:
            replaced = book.keep(layout.with_name(name))
        except (OSError, ValueError) as exc:
            app.notify(f"Layout not saved: {exc}", severity="error", markup=False)
            return
        verb = "replaced" if replaced else "saved"
        app.notify(f"Layout {name!r} {verb} in {book.path} (Y switches to it)", timeout=5, markup=False)

    hint = f"1-32 letters, digits, spaces, _.:+- · kept in {book.path} · Enter to save · Escape to cancel"
    app.push_screen(PromptScreen("Save the current layout as:", placeholder=layout.name, hint=hint), named)


class LayoutCommands(Provider):
    """The palette's layout commands: each saved layout, the dashboard's own, saving, markets side by side."""

    def _commands(self) -> list[tuple[str, str, Any]]:
        app = cast("Shell", self.app)  # the provider runs in xtui's app only
        run = partial(app.run_worker, group="layout", exclusive=True, exit_on_error=False)
        out: list[tuple[str, str, Any]] = [
            ("Layout: the dashboard's own", "key Y cycles the layouts", lambda: run(show_layout(app, None))),
            ("Layout: save the current one as…", f"kept in {app.session.layouts.path}", partial(save_layout, app)),
            ("Layout: markets side by side", "the selected instrument and the watchlist's, each a column",
             lambda: run(show_layout(app, side_by_side(app)))),
        ]  # fmt: skip
        for layout in app.session.layouts.layouts:
            said = ", ".join(layout.instruments) or "the selected instrument"
            out.append((f"Layout: {layout.name}", f"saved · {said}", partial(_show_saved, app, layout)))
        return out

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(escape(title), callback, help=escape(help_text))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=escape(help_text))


def _show_saved(app: Shell, layout: Layout) -> None:
    app.run_worker(show_layout(app, layout), group="layout", exclusive=True, exit_on_error=False)

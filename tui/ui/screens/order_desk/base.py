"""The dashboard's side of the trading desk (``ScreenPort``): the one port through which the desk
(``tui.trading.desk.TradingDesk``, Textual-free, the session's) tells the trader, asks first and runs in the
background, and through which the desk's groups of actions open their forms. Made by the app; the desk's work runs on
the dashboard's screen (``work_on``), which hears how each ends (its own cancels, a failed worker)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, TypeGuard, TypeVar

from textual.app import App
from textual.dom import DOMNode
from textual.screen import Screen

from tui.trading.desk import Answer, Severity, TradingDesk

from ..confirm import ConfirmScreen

__all__ = ["DeskActions", "ScreenPort"]

T = TypeVar("T")


class ScreenPort:
    """``DeskPort`` on Textual: notices and questions on ``app``, work in a worker of the screen it works on."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self._node: DOMNode = app  # where the work runs until the dashboard is made

    def work_on(self, screen: Screen[Any]) -> None:
        """Run the desk's work on ``screen`` (the dashboard)."""
        self._node = screen

    def notify(
        self, message: str, *, title: str = "", severity: Severity = "information", timeout: float | None = None,
        markup: bool = True,
    ) -> None:  # fmt: skip
        self.app.notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def ask(
        self, title: str, lines: list[str], answered: Callable[[Answer], None], *, yes: str = "Yes (y)",
        also: tuple[str, str] | None = None,
    ) -> None:  # fmt: skip
        self.app.push_screen(ConfirmScreen(title, lines, yes=yes, also=also), answered)

    def run(self, work: Coroutine[Any, Any, None], *, name: str, group: str) -> None:
        self._node.run_worker(work, name=name, group=group, exit_on_error=False)

    def push(self, screen: Screen[Any], then: Callable[[Any], None] | None = None) -> None:
        """Open a form or a prompt over the dashboard; ``then`` is told what it gave back."""
        self.app.push_screen(screen, then)


class DeskActions:
    """A group of the desk's actions: the session's ``TradingDesk``, and the port they tell, ask and open forms on."""

    def __init__(self, desk: TradingDesk, port: ScreenPort) -> None:
        self.desk = desk
        self.port = port  # notices, questions and forms on the dashboard

    def acting_on(self, row: T | None, action: str, missing: str) -> TypeGuard[T]:
        """Whether ``action`` goes ahead on the selected ``row``: the desk does not refuse it (it says why), and a
        row is selected (else ``missing`` is said)."""
        if self.desk.refuse(action):
            return False
        if row is None:
            self.port.notify(missing, severity="warning")
            return False
        return True

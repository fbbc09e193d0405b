"""What the modules beside the app use of it (``Shell``): the session shown, the dashboard, notices, the event log,
dialogs and workers. The app (``tui.ui.app.XtuiApp``) is the one shell; the account watch, the resume offers, the
account switch and the layouts take it by this face, so none of them imports the app that imports them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from textual.geometry import Size
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

    from tui.ui.screens.context import DashboardContext
    from tui.ui.session import Session

__all__ = ["Shell"]

_T = TypeVar("_T")


class Shell(Protocol):
    """The app, as the modules it imports see it."""

    @property
    def session(self) -> Session: ...

    @property
    def main(self) -> Screen[None]: ...  # the dashboard: the bottom of the screen stack

    @property
    def dashboard(self) -> DashboardContext: ...  # what the dashboard and the screens over it are given

    @property
    def screen(self) -> Screen[object]: ...

    @property
    def screen_stack(self) -> list[Screen[Any]]: ...

    @property
    def size(self) -> Size: ...

    def sessions(self) -> list[Session]: ...

    def notify(
        self, message: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...  # fmt: skip

    def log_event(self, kind: str, text: str) -> None: ...

    def push_screen(
        self, screen: Screen[_T], callback: Callable[[_T | None], None] | None = None
    ) -> Awaitable[object]: ...

    async def push_screen_wait(self, screen: Screen[_T]) -> _T | Any: ...

    def pop_screen(self) -> Awaitable[object]: ...

    def run_worker(
        self, work: Coroutine[Any, Any, None], name: str | None = "", group: str = "default", description: str = "",
        exit_on_error: bool = True, start: bool = True, exclusive: bool = False,
    ) -> object: ...  # fmt: skip

    async def stop_tools(self) -> None: ...

    async def switch_session(self, session: Session) -> None: ...

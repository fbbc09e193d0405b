"""What the app watches in the account as the feed changes: once it has loaded, what an earlier run left is offered
(``tui.ui.resume``); on every positions or orders change, each position's protection as the protection model says
it now, a change entered in the event log and a stop-loss covering less than before a notice too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.trading.protection import ProtectionWatch, protection_now

if TYPE_CHECKING:
    from tui.ui.session import Session
    from tui.ui.shell import Shell

__all__ = ["AccountWatch"]


class AccountWatch:
    """One session's watch (a new session starts a new one)."""

    def __init__(self, app: Shell, session: Session) -> None:
        self.app = app
        self.session = session
        self._resume_offered = False
        self._protection = ProtectionWatch()  # what the event log last said of each position's protection

    def changed(self, topics: frozenset[str]) -> None:
        if not self.session.feed.state.account.loaded:
            return
        if not self._resume_offered:
            self._resume_offered = True
            from tui.ui.resume import offer_resume  # once a session: off the start-up path

            self.app.run_worker(offer_resume(self.app, self.session), name="resume", exit_on_error=False)
        if topics & {"positions", "orders"}:
            model = protection_now(self.session.feed.state, self.session.uncovered())
            for _, words, worse in self._protection.changes(model):
                self.app.log_event("protection", words)
                if worse:
                    self.app.notify(words, title="Protection", severity="warning", timeout=10, markup=False)

"""The note a session leaves when it ended with an action whose outcome is unknown, and its showing at the next start.

The note is ``last-session-<profile>.json`` in the data directory: when the session ended, why (the signal, or
quit), and each action as the log showed it. The next start of that profile says so in a notice that stays, and
shows the open orders, so that the trader looks at what the exchange holds before trading again. The note is
removed once shown; a damaged one is set aside, named in the notice.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from tui.edges.bounded_parse import NotRegularFile, read_capped
from tui.feed.kept_files import KeptFile, write_json
from tui.paths import data_dir, profile_file

if TYPE_CHECKING:
    from tui.ui.app import XtuiApp

__all__ = ["LastSession", "note_path", "read_note", "show_note", "write_note"]

log = logging.getLogger(__name__)
MAX_NOTE_BYTES = 64 * 1024
MAX_ACTIONS_SHOWN = 5
READY_WAIT_S = 5.0  # the notice waits this long for the open orders to be read, then shows anyway
NOTICE_S = 120.0


class LastSession(msgspec.Struct, forbid_unknown_fields=True):
    ended: str  # ISO time, UTC
    how: str  # SIGTERM, SIGHUP, SIGINT, or exit (q, the terminal gone)
    unknown: list[str]  # the actions whose outcome is unknown, as the log shows them


_decode = msgspec.json.Decoder(LastSession).decode  # typed: a nested or odd file fails at once, at any depth


def note_path(profile: str) -> Path:
    return profile_file(data_dir(), "last-session", profile)


def write_note(path: Path, how: str, unknown: list[str]) -> None:
    ended = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    write_json(path, msgspec.to_builtins(LastSession(ended, how, unknown)))
    log.warning("left the note %s: %d action(s) of unknown outcome", path, len(unknown))


def read_note(path: Path) -> tuple[LastSession | None, str | None]:
    """The note (None when there is none) and, for a damaged one, the words that say where it was set aside."""
    try:
        return _decode(read_capped(path, MAX_NOTE_BYTES, follow=False)), None  # a FIFO here is refused, not waited on
    except FileNotFoundError:
        return None, None
    except (ValueError, msgspec.DecodeError, NotRegularFile) as exc:  # FileLimitError (too large) is a ValueError
        kept = KeptFile(path)
        kept.aside(exc)
        return None, kept.problem
    except OSError as exc:
        return None, f"{path} could not be read ({exc.strerror or exc})"


def words(note: LastSession) -> str:
    shown = note.unknown[:MAX_ACTIONS_SHOWN]
    more = len(note.unknown) - len(shown)
    lines = [
        f"The last session ended {note.ended} ({note.how}) with {len(note.unknown)} action(s) whose outcome "
        "is unknown:",
        *(f"• {line}" for line in shown),
        *([f"… and {more} more (see the log)"] if more > 0 else []),
        "Check the open orders (shown) and your fills before trading again.",
    ]
    return "\n".join(lines)


async def show_note(app: XtuiApp, path: Path) -> None:
    """Once the account is read (or after ``READY_WAIT_S``), say what the last session left unknown and show the
    open orders; then remove the note."""
    note, problem = read_note(path)
    if note is None and problem is None:
        return
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(READY_WAIT_S):
            await app.feed.wait_ready()

    def show() -> None:
        if problem is not None:
            app.notify(problem, title="Last session", severity="error", timeout=NOTICE_S, markup=False)
            return
        assert note is not None
        app.notify(words(note), title="Last session", severity="warning", timeout=NOTICE_S, markup=False)
        app.main.action_focus_pane("orders")
        with contextlib.suppress(OSError):
            path.unlink()
        log.info("showed the last-session note %s", path)

    if not app.main.call_later(show):  # behind the main screen's mount, as the queue holds it
        show()

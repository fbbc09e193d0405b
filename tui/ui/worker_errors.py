"""The one handler for failed workers, the app's and every screen's: a notification and a log record, never a
traceback on screen."""

from __future__ import annotations

import logging
from typing import Any

from textual.app import App
from textual.widget import Widget
from textual.worker import Worker, WorkerState

__all__ = ["report_worker_error"]

log = logging.getLogger("tui.ui")


def report_worker_error(node: App[Any] | Widget, event: Worker.StateChanged) -> None:
    """A failed worker, the app's or a screen's: a notification and a log record, never a traceback on screen."""
    if event.state is not WorkerState.ERROR:
        return
    name = event.worker.name or "task"
    log.error("%s failed", name, exc_info=event.worker.error)
    node.notify(f"{name} failed: {event.worker.error}", severity="error", timeout=10, markup=False)

"""The one exception an engine action raises when it refuses a request."""

from __future__ import annotations


class Rejected(Exception):
    """An action the exchange refuses, with a message a user can act on.

    The engine validates before it mutates, so a ``Rejected`` action has changed nothing. The server turns
    it into the exchange envelope's ``error`` string (or ``{"type": "error", "message": ...}`` for queries).
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

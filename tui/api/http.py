"""The client's former name: ``HttpClient`` is ``tui.api.client.Client`` (which holds its transport, not inherits
it); ``NonceManager`` lives in ``tui.api.server_time``. Kept for the callers that import them from here."""

from __future__ import annotations

from .client import DEFAULT_EXPIRY_MS, Client
from .server_time import NonceManager

__all__ = ["DEFAULT_EXPIRY_MS", "HttpClient", "NonceManager"]

HttpClient = Client

"""WebSocket channel names and subscribe parameters (protocol-notes 5.3).

A subscription is keyed by (channel, key): the instrument symbol (or ``"all"``) for market channels, the
lower-case user address for account channels, ``"<instrument_id>:<chart_type>:<resolution>"`` for the
chart and ``""`` for the global index, blocks and transactions. The server echoes ``<channel>@<param>``
as the channel name (the bare channel for the global ones).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tui.api.signing import SigningError, checksum_address

ALIASES = {
    "trade": "trades",
    "positions": "position",
    "agents": "agent",
    "accountSummary": "account_summary",
    "accountOrderUpdates": "orders",
    "order": "orders",
    "fundingPayments": "funding_payments",
    "accountBalanceUpdates": "balance",
}
MARKET = {"ticker", "mids", "bbo", "orderbook", "trades"}
ALL_SYMBOLS = {"ticker", "mids", "bbo"}  # market channels that take symbol "all"
ACCOUNT = {"orders", "position", "fills", "funding_payments", "account_summary", "agent", "balance"}
GLOBAL = {"blocks", "transactions", "index"}
CHANNELS = MARKET | ACCOUNT | GLOBAL | {"chart"}
RESOLUTIONS = ("1", "5", "15", "30", "60", "240", "1D", "1W")

Key = tuple[str, str]


def _is_address(text: str) -> bool:
    try:
        checksum_address(text)
    except SigningError:
        return False
    return True


class SubscribeError(ValueError):
    """A subscription refused; the message quotes at most 200 characters of what was sent."""

    def __init__(self, message: str) -> None:
        super().__init__(message if len(message) <= 200 else message[:197] + "...")


def subscription_key(
    params: dict[str, Any], resolve_symbol: Callable[[Any], str | None], instrument_id: Callable[[str], int]
) -> tuple[Key, str]:
    """(channel, key) and the echoed server channel name for subscribe ``params``."""
    raw = params.get("channel")
    if not isinstance(raw, str):
        raise SubscribeError("params.channel: missing or not a string")
    channel = ALIASES.get(raw, raw)
    if channel not in CHANNELS:
        raise SubscribeError(f"unknown channel {raw!r}")
    if channel in MARKET:
        sym = params.get("symbol", params.get("instrument_id", params.get("instrumentId")))
        if channel in ALL_SYMBOLS and sym == "all":
            return (channel, "all"), f"{channel}@all"
        symbol = resolve_symbol(sym)
        if symbol is None:
            raise SubscribeError(f"params.symbol: unknown instrument {sym!r}")
        return (channel, symbol), f"{channel}@{symbol}"
    if channel in ACCOUNT:
        user = params.get("user", params.get("address"))
        if not isinstance(user, str) or not _is_address(user):
            raise SubscribeError(f"params.user: expected an address, got {user!r}")
        return (channel, user.lower()), f"{channel}@{user}"
    if channel == "chart":
        ident = params.get("instrument_id", params.get("symbol"))
        symbol = resolve_symbol(ident)
        chart_type = params.get("chart_type", "ltp")
        resolution = str(params.get("resolution", "1"))
        if symbol is None:
            raise SubscribeError(f"params.instrument_id: unknown instrument {ident!r}")
        if chart_type not in ("mark", "index", "ltp"):
            raise SubscribeError("params.chart_type: must be mark, index or ltp")
        if resolution not in RESOLUTIONS:
            raise SubscribeError(f"params.resolution: must be {', '.join(RESOLUTIONS[:-1])} or 1W")
        # the engine keys candles by instrument id; the echoed name keeps the readable symbol
        key = f"{instrument_id(symbol)}:{chart_type}:{resolution}"
        return (channel, key), f"chart@{symbol}:{chart_type}:{resolution}"
    return (channel, ""), channel

"""The JSON-RPC WebSocket client (protocol-notes section 5), one module per part.

``client`` (``WsClient``: lifecycle, reconnect, resubscribe, shared subscriptions), ``connection`` (one socket:
request ids, replies, notification routing), ``liveness`` (pings while quiet, stale, dead), ``topics`` (server
subscriptions and the local handles on them), ``protocol`` (limits, states, errors, aliases, the reconnect
schedule, the message limiter). The names below are the package's face: what callers construct and catch.
"""

from .client import WsClient
from .protocol import (
    CHANNEL_ALIASES,
    MAX_MESSAGES_PER_MINUTE,
    MAX_SUBSCRIPTIONS,
    ClientClosed,
    ConnectionLost,
    ConnState,
    MessageRateLimiter,
    ReconnectSchedule,
    RpcError,
    SubscriptionError,
    SubscriptionLimitError,
    WsError,
    WsStatus,
    backoff_delay,
    normalize_channel,
)
from .topics import Subscription

__all__ = [
    "CHANNEL_ALIASES",
    "MAX_MESSAGES_PER_MINUTE",
    "MAX_SUBSCRIPTIONS",
    "ClientClosed",
    "ConnState",
    "ConnectionLost",
    "MessageRateLimiter",
    "ReconnectSchedule",
    "RpcError",
    "Subscription",
    "SubscriptionError",
    "SubscriptionLimitError",
    "WsClient",
    "WsError",
    "WsStatus",
    "backoff_delay",
    "normalize_channel",
]

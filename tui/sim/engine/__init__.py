"""The local exchange's engine: markets, order books and matching, accounts and margin, funding,
liquidation, money movement, vaults, referrals, brokers, agents, chain and history. Pure Python, no I/O.

Start at ``Exchange`` (``exchange.py``).
"""

from .errors import Rejected
from .exchange import Exchange
from .instruments import MarketConfig, default_config
from .requests import ActionResult, BrokerConfig, OrderRequest

#: gc thresholds for a process running the engine: young collections every 50,000 allocations and full ones
#: rarely, instead of (700, 10, 10). Every action leaves an order and a transaction alive, so with the defaults
#: full collections keep re-walking a growing heap (~25% of matching time).
GC_THRESHOLD = (50_000, 20, 100)

__all__ = [
    "GC_THRESHOLD",
    "ActionResult",
    "BrokerConfig",
    "Exchange",
    "MarketConfig",
    "OrderRequest",
    "Rejected",
    "default_config",
]

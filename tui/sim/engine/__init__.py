"""The local exchange's engine: markets, order books and matching, accounts and margin, funding,
liquidation, money movement, vaults, referrals, brokers, agents, chain and history. Pure Python, no I/O.

Start at ``Exchange`` (``exchange.py``).
"""

from .bench import GC_THRESHOLD, bench_engine
from .errors import Rejected
from .exchange import Exchange
from .instruments import MarketConfig, default_config
from .requests import ActionResult, BrokerConfig, OrderRequest

__all__ = [
    "GC_THRESHOLD",
    "ActionResult",
    "BrokerConfig",
    "Exchange",
    "MarketConfig",
    "OrderRequest",
    "Rejected",
    "bench_engine",
    "default_config",
]

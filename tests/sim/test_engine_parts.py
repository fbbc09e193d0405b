"""The local exchange is one object made of parts it holds, not a tower of classes that share every attribute."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from decimal import Decimal

import tui.sim
from tui.sim.clock import FrozenClock
from tui.sim.engine import Exchange, OrderRequest

ALICE = "0x" + "a1" * 20


def _project_ancestors() -> dict[str, int]:
    """Every class defined under ``tui.sim`` (exceptions aside) and how many project classes are above it."""
    found: dict[str, int] = {}
    for info in pkgutil.walk_packages(tui.sim.__path__, "tui.sim."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and not issubclass(cls, BaseException):
                found[cls.__qualname__] = sum(c.__module__.startswith("tui.") for c in cls.__mro__[1:])
    return found


def test_no_class_of_the_local_exchange_stands_on_more_than_three_others() -> None:
    """Walked every module of ``tui.sim`` and counted each class's project ancestors (the exchange had 9)."""
    found = _project_ancestors()
    assert "Exchange" in found and found["Exchange"] == 0
    assert {name: n for name, n in found.items() if n > 3} == {}


def test_the_parts_act_on_one_state() -> None:
    """Deposited, placed an order and read it back: what one part changes, the others and ``Exchange`` see."""
    ex = Exchange(clock=FrozenClock())
    ex.deposit(ALICE, 1, Decimal(1000))
    oid = ex.trading.place_order(ALICE, OrderRequest(1, True, Decimal(60_000), Decimal("0.001"))).oid
    assert [o["order_id"] for o in ex.open_orders(ALICE)["data"]] == [oid]
    assert ex.account_summary(ALICE) == ex.account_queries.account_summary(ALICE)
    assert ex.accounts is ex.core.accounts and ex.funds.vaults is ex.vaults
    assert ex.audit() == {cid: 0 for cid in ex.collaterals}

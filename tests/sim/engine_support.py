"""Builders shared by the engine tests: a fresh exchange on a frozen clock, accounts, orders."""

from __future__ import annotations

from decimal import Decimal

from tui.sim.clock import FrozenClock
from tui.sim.engine import Exchange, OrderRequest
from tui.sim.engine.instruments import MarketConfig, default_config

ALICE = "0x" + "a1" * 20
BOB = "0x" + "b2" * 20
CAROL = "0x" + "c3" * 20
DAVE = "0x" + "d4" * 20

BTC, ETH, SOL, HYPE = 1, 2, 3, 4
BTC_SPOT, ETH_SPOT, USDT_SPOT = 101, 102, 103
USDC, USDT, BTC_TOKEN, ETH_TOKEN = 1, 2, 3, 4


def D(x: str | int) -> Decimal:
    return Decimal(x)


def make(config: MarketConfig | None = None, *funded: str) -> tuple[Exchange, FrozenClock]:
    """An exchange at 2026-01-01 with each of ``funded`` given the faucet."""
    clock = FrozenClock()
    ex = Exchange(config or default_config(), clock)
    for who in funded:
        ex.ensure_account(who)
    return ex, clock


def order(inst: int, side: str, price: str | int, size: str | int, **kw: object) -> OrderRequest:
    """An order request: side 'b' or 's'; ``trigger_px`` may be given as a string."""
    if "trigger_px" in kw:
        kw["trigger_px"] = Decimal(str(kw["trigger_px"]))
    return OrderRequest(inst, side == "b", Decimal(price), Decimal(size), **kw)  # type: ignore[arg-type]


def usdc(ex: Exchange, who: str) -> Decimal:
    acct = ex.accounts[who.lower()]
    return acct.balances.get(USDC, Decimal(0))


def position(ex: Exchange, who: str, inst: int) -> Decimal:
    acct = ex.accounts.get(who.lower())
    if acct is None or inst not in acct.positions:
        return Decimal(0)
    return acct.positions[inst].size


def assert_conserved(ex: Exchange) -> None:
    assert all(v == 0 for v in ex.audit().values()), ex.audit()

"""What ``xtui info``, ``xtui explorer`` and ``xtui exchange`` can ask, for their ``--help``: the /info and
/explorer methods with their parameters, and the /exchange actions with their fields (``tui.api.wire.ACTIONS``).

Read only when one of those helps is shown (``LazyParser``'s fill): nothing here is imported at start.
A test holds these tables to what the local exchange answers (``tui.sim.server.dispatch``).
"""

from __future__ import annotations

import argparse

__all__ = ["EXPLORER_METHODS", "INFO_METHODS", "describe_actions", "describe_methods"]

_USER = "user=ADDR"
_PAGE = "user=ADDR [page=1] [limit=100]"
_SYMBOL = "[symbol=BTC-PERP|all]"

# method -> its key=value parameters ([...]: optional, with its default)
INFO_METHODS: dict[str, str] = {
    "instruments": "[type=perps|spot|all]",
    "supported_collateral": "[symbol=USDC]",
    "ticker": _SYMBOL,
    "bbo": _SYMBOL,
    "mids": _SYMBOL,
    "orderbook": "symbol=BTC-PERP [depth=50]",
    "trades": "symbol=BTC-PERP [limit=100]",
    "chart": "symbol=BTC-PERP (or instrument_id=N) from=T to=T resolution=R [chart_type=ltp]",
    "oracle": "[symbol=BTC-PERP]",
    "account_summary": _USER,
    "account_info": f"{_USER} [collateralID=N] [includeHistory=true]",
    "account_history": _USER,
    "referral_summary": _USER,
    "brokers_check": "[user=ADDR] [broker=ADDR] [page=1] [limit=100]",
    "fills": _PAGE,
    "open_orders": _PAGE,
    "order_history": _PAGE,
    "funding_history": _PAGE,
    "transfer_history": _PAGE,
    "positions": f"{_USER} [instrument=BTC-PERP]",
    "instrument_leverage": f"{_USER} symbol=BTC-PERP",
    "all_agents": _USER,
    "user_fees": _USER,
    "vaults": "",
    "sub_vaults": "vault_address=ADDR",
    "vault_balance": "vault_address=ADDR [user=ADDR]",
}
EXPLORER_METHODS: dict[str, str] = {
    "blocks": "[offset=0] [limit=20]",
    "block": "block_height=N (or block_hash=HASH)",
    "transactions": '[offset=0] [limit=20] [filter={"account": "ADDR", "tx_type": N}]',
    "transaction": "tx_hash=HASH",
}


def describe_methods(table: dict[str, str], endpoint: str) -> str:
    """The epilog of ``xtui info`` or ``xtui explorer``: one method a line, with its parameters."""
    width = max(map(len, table))
    lines = [f"{endpoint} methods (as the local exchange answers them; params as key=value, JSON values allowed):"]
    lines += [f"  {name:<{width}}  {params}".rstrip() for name, params in table.items()]
    return "\n".join(lines)


def describe_actions() -> str:
    """The epilog of ``xtui exchange``: every action, its code and its fields."""
    from tui.api.wire import ACTIONS

    width = max(map(len, ACTIONS))
    lines = ["actions (by name, alias or code; fields as key=value; the nonce, and expiresAfter unless given, added):"]
    for name, spec in ACTIONS.items():
        fields = " ".join(f"[{f}=]" if f in spec.optional or f == "expiresAfter" else f"{f}=" for f in spec.fields)
        lines.append(f"  {name:<{width}}  {spec.sdk_code}  {fields}".rstrip())
    return "\n".join(lines)


def fill_info(p: argparse.ArgumentParser) -> None:
    p.epilog = describe_methods(INFO_METHODS, "/info")


def fill_explorer(p: argparse.ArgumentParser) -> None:
    p.epilog = describe_methods(EXPLORER_METHODS, "/explorer")


def fill_exchange(p: argparse.ArgumentParser) -> None:
    p.epilog = describe_actions()

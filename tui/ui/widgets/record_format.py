"""How the account and explorer screens write exchange records: times, amounts, flags, transaction types."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from tui.api.wire import ACTIONS

__all__ = ["fmt_amount", "fmt_balance", "fmt_iso", "fmt_ms", "fmt_seconds", "fmt_side", "tx_type_name", "yes_no"]

_TX_NAMES = {code: spec.name for spec in ACTIONS.values() for code in spec.codes()}


def fmt_ms(ms: int | None) -> str:
    """Epoch milliseconds as UTC ``2026-01-01 00:00:10``; ``-`` for 0 or None (never set)."""
    if not ms:
        return "-"
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%S")


def fmt_seconds(s: int | None) -> str:
    return fmt_ms(s * 1000 if s else None)


def fmt_iso(text: str) -> str:
    """An ISO 8601 timestamp of the interface written as ``fmt_ms`` writes one."""
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return text
    parsed = parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def fmt_amount(value: Decimal | None, places: int | None = None) -> str:
    """An amount with thousands separators: exact (trailing zeros dropped) unless ``places`` is given."""
    if value is None:
        return "-"
    if places is not None:
        return f"{value:,.{places}f}"
    text = f"{value.normalize():,f}"
    return "0" if text in ("-0", "") else text


def fmt_balance(value: Decimal | None, symbol: str) -> str:
    """A balance of a collateral: a dollar one (USDC, USDT) as money, in cents like every balance and PnL
    (99,837.22); another (BTC, ETH) exact, as it is held (0.00123)."""
    return fmt_amount(value, 2 if symbol.upper().startswith("USD") else None)


def fmt_side(side: str) -> str:
    return {"b": "buy", "s": "sell"}.get(side, side)


def yes_no(flag: bool | None) -> str:
    return "-" if flag is None else "yes" if flag else "no"


def tx_type_name(code: int) -> str:
    """``1301 placeOrder``: the action a transaction type code stands for."""
    name = _TX_NAMES.get(code)
    return f"{code} {name}" if name else str(code)

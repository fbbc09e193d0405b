"""JSON shapes of single records, exactly as the interface tables type them.

Rendering convention (the server only serialises): a field the interface types as *string* is a ``str``
(decimals via ``dstr``: plain notation, no exponent); a field typed *number* is a ``Decimal`` (the server
must encode ``Decimal`` as a JSON number, e.g. ``msgspec.json.Encoder(decimal_format="number")``);
integers, ids and ms/seconds timestamps are ``int``; ISO timestamps are ``"2026-01-01T00:00:00.000Z"``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from .accounts import Order, Position
from .errors import Rejected
from .values import ONE, ZERO, dstr, iso_ms, num

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000


def order_record(o: Order, instrument: str) -> dict[str, Any]:
    """``open_orders`` / ``order_history`` item."""
    return {
        "order_id": o.oid,
        "user": o.account.display,
        "instrument_id": o.inst_id,
        "instrument": instrument,
        "side": "b" if o.is_buy else "s",
        "position_side": "BOTH",
        "limit_price": dstr(o.price),
        "size": dstr(o.size),
        "unfilled": dstr(o.unfilled),
        "state": o.state,
        "cloid": o.cloid,
        "tif": o.tif,
        "post_only": o.post_only,
        "reduce_only": o.reduce_only,
        "trigger_px": dstr(o.trigger_px),
        "is_market": o.is_market,
        "tpsl": o.tpsl,
        "grouping": o.grouping,
        "timestamp": iso_ms(o.created_ms),
    }


def order_event(o: Order, instrument: str) -> dict[str, Any]:
    """``orders`` WebSocket payload (protocol-notes 5.4)."""
    price, size = dstr(o.price), dstr(o.size)
    return {
        "instrument_id": o.inst_id,
        "instrument": instrument,
        "account": o.account.display,
        "tif": o.tif,
        "order_id": o.oid,
        "cloid": o.cloid,
        "side": "b" if o.is_buy else "s",
        "position_side": "BOTH",
        "limit_price": price,
        "size": size,
        "old_price": price,
        "old_size": size,
        "unfilled": dstr(o.unfilled),
        "state": o.state,
        "reduce_only": o.reduce_only,
        "post_only": o.post_only,
        "timestamp": o.updated_ms,
    }


def position_record(user: str, pos: Position) -> dict[str, Any]:
    """``positions`` item (also the ``position`` WebSocket payload)."""
    return {
        "user": user,
        "instrument_id": pos.spec.id,
        "instrument": pos.spec.name,
        "position_side": "BOTH",
        "size": dstr(pos.size),
        "entry_price": dstr(num(pos.entry_price)),
        "position_value": dstr(num(pos.notional())),
        "margin_mode": "isolated" if pos.isolated else "cross",
        "leverage": str(pos.leverage),
        "margin": dstr(num(pos.margin())),
        "updated_at": pos.updated_ms // 1000,
    }


def position_leg(pos: Position) -> dict[str, Any]:
    """``account_summary.perp_positions[].legs[]`` item (numbers)."""
    return {
        "instrument_id": pos.spec.id,
        "instrument_name": pos.spec.name,
        "side": "BOTH",
        "size": pos.size,
        "entry_price": num(pos.entry_price),
        "leverage": {"type": "isolated" if pos.isolated else "cross", "value": Decimal(pos.leverage)},
        "position_value": num(pos.notional()),
    }


def balance_entry(balance: Decimal, withdrawable: Decimal) -> dict[str, Any]:
    """A ``collateral`` / ``spot_collateral`` value: every digit of the balance, no trailing zeros."""
    return {"balance": plain(balance), "withdrawable_balance": plain(withdrawable) if withdrawable > 0 else ZERO}


def plain(d: Decimal) -> Decimal:
    """``d`` for a JSON number field with all its digits: no trailing zeros, no exponent (``1E+2`` is ``100``)."""
    q = d.normalize()
    exp = q.as_tuple().exponent
    return q.quantize(ONE) if isinstance(exp, int) and exp > 0 else q


def balance_update(summary: dict[str, Any], now_ms: int) -> dict[str, Any]:
    """The ``balance`` WebSocket payload, from an account summary: each wallet's collateral balances."""
    balances = [
        {"asset": symbol, "wallet": wallet, "total": b["balance"], "available": b["withdrawable_balance"],
         "locked": b["balance"] - b["withdrawable_balance"]}
        for wallet, entries in (("derivative", summary["collateral"]), ("spot", summary["spot_collateral"]))
        for symbol, b in entries.items()
    ]  # fmt: skip
    return {"account": summary["address"], "balances": balances, "timestamp": now_ms}


def page_params(page: Any, limit: Any) -> tuple[int, int]:
    """Validated (page, limit): page from 1, limit 1..1000 (default 100); None means absent."""
    p = 1 if page is None else page
    n = DEFAULT_LIMIT if limit is None else limit
    if not isinstance(p, int) or isinstance(p, bool) or p < 1:
        raise Rejected(f"page must be an integer >= 1, got {page!r}")
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_LIMIT:
        raise Rejected(f"limit must be an integer between 1 and {MAX_LIMIT}, got {limit!r}")
    return p, n


def paginate(items: list[Any], page: Any, limit: Any) -> tuple[list[Any], dict[str, Any]]:
    """(the page's items, the envelope without ``data``) for newest-first ``items``."""
    p, n = page_params(page, limit)
    total = len(items)
    pages = (total + n - 1) // n
    chunk = items[(p - 1) * n : p * n]
    return chunk, {
        "page": p,
        "limit": n,
        "total_count": total,
        "total_pages": pages,
        "has_next": p < pages,
        "has_prev": p > 1,
    }


def envelope(records: list[dict[str, Any]], meta: dict[str, Any]) -> dict[str, Any]:
    return {"data": records, **meta}

"""The trade journal: what the account made and paid, per day and per instrument, from its own history.

Read from the exchange's account history (fills, funding payments; order history and transfers for
export), newest first, page by page, back to ``since`` (or to the end). Signs as the exchange records
them: a fill's ``closed_pnl`` is realized profit, its ``fee`` and ``broker_fee`` are costs (a maker's
rebate is a negative fee), a funding payment is what was credited (negative when paid). So

    net = realized - fees + funding

Days are UTC days. ``export_rows`` turns any of the four histories into header + rows of plain strings
for ``xtui export`` (exact decimals, ISO times), so a spreadsheet or a tax tool reads the exchange's own
figures.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator, Sequence
from decimal import Decimal
from typing import Any

import msgspec

from tui.api import models as m
from tui.api.client import Client

__all__ = [
    "EXPORT_KINDS",
    "Journal",
    "Totals",
    "export_rows",
    "history_pages",
    "journal_of",
    "parse_since",
    "read_history",
]

EXPORT_KINDS = ("fills", "orders", "funding", "transfers")
PAGE = 100
ZERO = Decimal(0)


class Totals(msgspec.Struct):
    """What one day or one instrument adds up to."""

    realized: Decimal = ZERO
    fees: Decimal = ZERO
    funding: Decimal = ZERO
    volume: Decimal = ZERO  # notional traded
    fills: int = 0

    @property
    def net(self) -> Decimal:
        return self.realized - self.fees + self.funding


class Journal(msgspec.Struct):
    by_day: dict[dt.date, Totals] = msgspec.field(default_factory=dict)  # oldest first
    by_instrument: dict[str, Totals] = msgspec.field(default_factory=dict)  # by name
    total: Totals = msgspec.field(default_factory=Totals)


def parse_since(text: str) -> dt.datetime:
    """``--since``: a date (2026-11-01, UTC midnight) or an ISO time with its offset; a clear error else."""
    try:
        if len(text) == 10:
            return dt.datetime.combine(dt.date.fromisoformat(text), dt.time(), tzinfo=dt.UTC)
        when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"--since: {text!r} is not a date (YYYY-MM-DD) or an ISO time") from None
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


def when(record: Any) -> dt.datetime:
    """A record's time: fills have ``block_timestamp``, the others ``timestamp`` (ISO 8601, UTC)."""
    text = record.block_timestamp if isinstance(record, m.Fill) else record.timestamp
    return dt.datetime.fromisoformat(str(text).replace("Z", "+00:00"))


async def read_history(client: Client, account: str, kind: str, since: dt.datetime | None = None) -> list[Any]:
    """Every record of ``kind`` (one of ``EXPORT_KINDS``) at or after ``since``, newest first. The histories come
    newest first, but a record out of place must not end the reading: it stops at a whole page older than
    ``since``, and what is older is left out."""
    if kind not in EXPORT_KINDS:
        raise ValueError(f"unknown history {kind!r}: one of {', '.join(EXPORT_KINDS)}")
    out: list[Any] = []
    async for page in history_pages(client, account, kind):
        newer = [record for record in page if since is None or when(record) >= since]
        out += newer
        if since is not None and page and not newer:
            break
    return out


async def history_pages(client: Client, account: str, kind: str) -> AsyncIterator[list[Any]]:
    """Each page of ``kind`` as a list, newest first, until the exchange says there are no more."""
    if kind == "transfers":  # a plain list per page: a short page is the last
        page = 1
        while True:
            items = await client.transfer_history(account, page=page, limit=PAGE)
            yield list(items)
            if len(items) < PAGE:
                return
            page += 1
    pages: AsyncIterator[Any]
    if kind == "fills":
        pages = client.iter_pages(m.Fill, "fills", limit=PAGE, user=account)
    elif kind == "orders":
        pages = client.iter_pages(m.Order, "order_history", limit=PAGE, user=account)
    else:
        pages = client.iter_pages(m.FundingRecord, "funding_history", limit=PAGE, user=account)
    batch: list[Any] = []
    async for item in pages:  # a full batch is a whole page: handed on before the next is asked for
        batch.append(item)
        if len(batch) == PAGE:
            yield batch
            batch = []
    yield batch


def journal_of(fills: Sequence[m.Fill], funding: Sequence[m.FundingRecord], names: dict[int, str]) -> Journal:
    """Totals per UTC day and per instrument (``names``: funding's instrument ids to names)."""
    j = Journal()
    rows: list[tuple[dt.date, str, Totals]] = []
    for f in fills:
        t = Totals(f.closed_pnl, f.fee + f.broker_fee, ZERO, f.notional_value or f.price * f.size, 1)
        rows.append((when(f).date(), f.instrument, t))
    for p in funding:
        rows.append(
            (when(p).date(), names.get(p.instrument_id, str(p.instrument_id)), Totals(funding=p.funding_payment))
        )
    for day, name, t in sorted(rows, key=lambda r: r[0]):
        for acc in (j.by_day.setdefault(day, Totals()), j.by_instrument.setdefault(name, Totals()), j.total):
            acc.realized += t.realized
            acc.fees += t.fees
            acc.funding += t.funding
            acc.volume += t.volume
            acc.fills += t.fills
    return j


def export_rows(kind: str, records: Sequence[Any], names: dict[int, str]) -> tuple[list[str], list[list[str]]]:
    """Header and rows (plain strings: exact decimals, ISO times) of ``records`` of ``kind``."""
    if kind == "fills":
        header = [
            "time", "instrument", "side", "direction", "price", "size", "notional", "fee", "broker_fee",
            "closed_pnl", "role", "order_id", "trade_id", "cloid", "tx_hash",
        ]  # fmt: skip
        rows = [
            [
                f.block_timestamp,
                f.instrument,
                _side(f.side),
                f.direction,
                _d(f.price),
                _d(f.size),
                _d(f.notional_value),
                _d(f.fee),
                _d(f.broker_fee),
                _d(f.closed_pnl),
                "taker" if f.crossed else "maker",
                str(f.order_id),
                str(f.trade_id),
                f.cloid,
                f.tx_hash,
            ]
            for f in records
        ]
    elif kind == "orders":
        header = [
            "time", "instrument", "order_id", "side", "type", "limit_price", "trigger_price", "size", "unfilled",
            "state", "tif", "reduce_only", "post_only", "cloid",
        ]  # fmt: skip
        rows = [
            [
                o.timestamp,
                o.instrument,
                str(o.order_id),
                _side(o.side),
                _kind(o),
                "" if o.is_market else _d(o.limit_price),
                _d(o.trigger_px) if o.trigger_px else "",
                _d(o.size),
                _d(o.unfilled),
                o.state,
                o.tif,
                _yes(o.reduce_only),
                _yes(o.post_only),
                o.cloid,
            ]
            for o in records
        ]
    elif kind == "funding":
        header = ["time", "instrument", "size", "mark_price", "funding_rate", "payment"]
        rows = [
            [
                p.timestamp,
                names.get(p.instrument_id, str(p.instrument_id)),
                _d(p.size),
                _d(p.mark_price),
                _d(p.funding_rate),
                _d(p.funding_payment),
            ]
            for p in records
        ]
    elif kind == "transfers":
        header = ["time", "type", "from", "to", "collateral_id", "amount", "tx_hash"]
        rows = [[t.timestamp, t.type, t.from_, t.to, str(t.collateral_id), _d(t.amount), t.tx_hash] for t in records]
    else:
        raise ValueError(f"unknown history {kind!r}: one of {', '.join(EXPORT_KINDS)}")
    return header, rows


def _d(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "") else text


def _side(side: str) -> str:
    return {"b": "buy", "s": "sell"}.get(side, side)


def _yes(flag: bool) -> str:
    return "true" if flag else "false"


def _kind(o: m.Order) -> str:
    if o.tpsl in ("tp", "sl"):
        kind = "take_profit" if o.tpsl == "tp" else "stop_loss"
    elif o.trigger_px:
        kind = "stop"
    else:
        kind = "limit"
    return f"{kind}_market" if o.is_market and kind != "limit" else "market" if o.is_market else kind

"""The history screen: fills, order history, funding, transfers and closed positions, a page at a time, filterable
by instrument.

Positions (5) are rebuilt from the account's fills and funding records (``tui.feed.position_history``), read back
up to ``SCAN_LIMIT`` of each: instrument, side, size, entry, exit, realized PnL, fees, funding, net and how long it
was held, newest close first. A position still open is not shown (the page line counts them).

[ and ] turn the pages of the active tab; f filters by instrument (all tabs but transfers, which name no
instrument). Unfiltered, each page is one request for that page; filtered, the records are read page by
page (up to ``SCAN_LIMIT``) and filtered here, because the interface has no instrument parameter. Enter
or o on a row with a transaction hash (fills, transfers) opens it in the explorer.

Order history shows what each order did, not only what it asked: its filled size and average fill price,
summed from the account's fills (read back to the oldest order on the page, up to ``SCAN_LIMIT``), and a
market order's price as "market" (its protection price is only a bound). Money in USDC (notional, fees,
PnL, funding) is shown in cents, as balances are everywhere; an amount transferred, at its collateral's decimals.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable, Sequence
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any, ClassVar, TypeVar

import msgspec
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Label, TabbedContent, TabPane

from tui.api import models as m
from tui.feed.position_history import PositionRecord, position_book
from tui.ui.widgets.display import fmt_rate, short_address
from tui.ui.widgets.record_format import fmt_amount, fmt_iso, fmt_side
from tui.ui.widgets.record_table import RecordTable

from .data_screen import DataScreen, ScreenContext
from .explorer import ExplorerScreen
from .prompt import PromptScreen

__all__ = ["KINDS", "HistoryScreen"]

T = TypeVar("T")
KINDS = ("fills", "orders", "funding", "transfers", "positions")
SCAN_LIMIT = 5_000  # records read to filter by instrument
FETCH = 100  # records per request while scanning

COLUMNS: dict[str, list[tuple[str, str]]] = {
    "fills": [
        ("time", "Time"), ("instrument", "Instrument"), ("side", "Side"), ("direction", "Direction"),
        ("price", "Price"), ("size", "Size"), ("notional", "Notional"), ("fee", "Fee"), ("pnl", "Closed PnL"),
        ("role", "Role"), ("tx", "Tx"),
    ],
    "orders": [
        ("time", "Time"), ("instrument", "Instrument"), ("oid", "Order id"), ("side", "Side"), ("type", "Type"),
        ("price", "Price"), ("size", "Size"), ("filled", "Filled"), ("avg", "Avg fill"), ("state", "State"),
        ("flags", "Flags"), ("cloid", "Cloid"),
    ],
    "funding": [
        ("time", "Time"), ("instrument", "Instrument"), ("size", "Size"), ("mark", "Mark price"),
        ("rate", "Rate"), ("payment", "Payment"),
    ],
    "transfers": [
        ("time", "Time"), ("type", "Type"), ("from", "From"), ("to", "To"), ("collateral", "Collateral"),
        ("amount", "Amount"), ("tx", "Tx"),
    ],
    "positions": [
        ("closed", "Closed"), ("instrument", "Instrument"), ("side", "Side"), ("size", "Size"), ("entry", "Entry"),
        ("exit", "Exit"), ("pnl", "Realized PnL"), ("fees", "Fees"), ("funding", "Funding"), ("net", "Net"),
        ("held", "Held for"), ("opened", "Opened"),
    ],
}  # fmt: skip


USDC_DECIMALS = 6  # when the collateral list has not said
MONEY_PLACES = 2  # money in USDC is shown in cents everywhere (exact figures: ``xtui export``)


class Filled(msgspec.Struct):
    """What an order's fills add up to."""

    size: Decimal = Decimal(0)
    value: Decimal = Decimal(0)  # sum of price x size

    @property
    def average(self) -> Decimal | None:
        return self.value / self.size if self.size else None


def filled_by_order(fills: Sequence[m.Fill]) -> dict[int, Filled]:
    """Size and value filled per order id."""
    out: dict[int, Filled] = {}
    for f in fills:
        acc = out.setdefault(f.order_id, Filled())
        acc.size += f.size
        acc.value += f.price * f.size
    return out


def fmt_money(value: Decimal, decimals: int) -> str:
    """An amount of a collateral at its decimals (half-even), trailing zeros dropped down to two places."""
    q = value.quantize(Decimal(1).scaleb(-decimals), ROUND_HALF_EVEN) if decimals >= 0 else value
    text = f"{q:,f}"
    if "." in text:
        whole, frac = text.split(".")
        frac = frac.rstrip("0").ljust(2, "0")
        text = f"{whole}.{frac}"
    return "0.00" if text in ("-0.00", "0") else text


def paged(items: Sequence[T], page: int, size: int) -> tuple[list[T], int]:
    """Page ``page`` (from 1) of ``items`` and the number of pages (at least 1)."""
    pages = max(1, -(-len(items) // size))
    start = (min(page, pages) - 1) * size
    return list(items[start : start + size]), pages


class HistoryScreen(DataScreen):
    SCREEN_TITLE = "History"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "tab('fills')", "Fills", id="history.fills", show=False, tooltip="Your fills"),
        Binding("2", "tab('orders')", "Orders", id="history.orders", show=False, tooltip="Your order history"),
        Binding("3", "tab('funding')", "Funding", id="history.funding", show=False, tooltip="Your funding payments"),
        Binding("4", "tab('transfers')", "Transfers", id="history.transfers", show=False, tooltip="Your transfers"),
        Binding(
            "5",
            "tab('positions')",
            "Positions",
            id="history.positions",
            show=False,
            tooltip="Your closed positions, rebuilt from your fills and funding",
        ),
        Binding("left_square_bracket", "page(-1)", "Prev page", id="history.prev_page", tooltip="Previous page"),
        Binding("right_square_bracket", "page(1)", "Next page", id="history.next_page", tooltip="Next page"),
        Binding("f", "filter", "Instrument", id="history.filter", tooltip="Show one instrument only (empty: all)"),
        Binding("o", "open_tx", "Open tx", id="history.open_tx", tooltip="Open the row's transaction in the explorer"),
    ]

    DEFAULT_CSS = """
    HistoryScreen TabbedContent, HistoryScreen TabPane {
        height: 1fr;
    }
    HistoryScreen #page-line {
        height: 1;
        padding: 0 1;
        color: $foreground-muted;
    }
    """

    def __init__(self, ctx: ScreenContext, *, page_size: int = 50) -> None:
        super().__init__(ctx)
        self.page_size = page_size
        self.pages = dict.fromkeys(KINDS, 1)
        self.page_counts = dict.fromkeys(KINDS, 1)
        self.instrument: str | None = None
        self._names: dict[int, str] = {}  # instrument id -> name
        self._ticks: dict[str, Decimal] = {}  # instrument name -> tick size
        self._symbols: dict[int, str] = {}  # collateral id -> symbol
        self._decimals: dict[int, int] = {}  # collateral id -> decimals
        self._filled: dict[int, Filled] = {}  # order id -> its fills, for the orders shown
        self._tx: dict[str, dict[str, str]] = {k: {} for k in KINDS}  # row key -> tx hash, of the rows shown
        self._tab = "fills"  # the tab loaded (the first load is on mount, not on the first tab's activation)
        self._note = ""  # what the page line adds for the tab loaded (positions: those still open)

    def compose_body(self) -> ComposeResult:
        yield Label("", id="page-line")
        with TabbedContent(initial="fills", id="history-tabs"):
            for i, kind in enumerate(KINDS, 1):
                with TabPane(f"{i} {kind.capitalize()}", id=kind):
                    yield RecordTable(COLUMNS[kind], id=f"{kind}-table")

    @property
    def kind(self) -> str:
        return self.query_one(TabbedContent).active or "fills"

    # ---- keys -----------------------------------------------------------------------------------

    def action_tab(self, kind: str) -> None:
        if kind in KINDS:
            self.query_one(TabbedContent).active = kind

    @on(TabbedContent.TabActivated)
    def _tab_changed(self, event: TabbedContent.TabActivated) -> None:
        event.stop()
        if event.pane.id != self._tab:
            self._tab = event.pane.id or "fills"
            self.reload()

    def action_page(self, step: int) -> None:
        kind = self.kind
        page = self.pages[kind] + step
        if not 1 <= page <= self.page_counts[kind]:
            self.notify("No more pages that way.", timeout=2)
            return
        self.pages[kind] = page
        self.reload()

    def action_filter(self) -> None:
        def entered(text: str | None) -> None:
            name = text.upper() if text else None
            known = set(self._names.values())
            if name and known and name not in known:
                self.notify(f"No instrument {name}: one of {', '.join(sorted(known))}", severity="warning")
                return
            self.instrument = name
            self.pages = dict.fromkeys(KINDS, 1)
            self.reload()

        hint = "Enter to filter · empty shows every instrument · Escape to cancel"
        self.app.push_screen(PromptScreen("Show the history of instrument:", placeholder="BTC-PERP", hint=hint),
                             entered)  # fmt: skip

    def action_open_tx(self) -> None:
        kind = self.kind
        key = self.query_one(f"#{kind}-table", RecordTable).selected_key()
        tx = self._tx[kind].get(key or "")
        if not tx:
            self.notify("This row has no transaction hash (fills and transfers have one).", timeout=3)
            return
        self.app.push_screen(ExplorerScreen(self.ctx, tx_hash=tx))

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_tx()

    # ---- loading --------------------------------------------------------------------------------

    async def fetch(self) -> None:
        account = self.account
        if account is None:
            self.query_one("#page-line", Label).update("No account: start with a key or --address")
            return
        c = self.ctx.client
        if not self._names:
            instruments, collateral = await asyncio.gather(c.instruments(), c.supported_collateral())
            self._names = {p.id: p.name for p in instruments.perps} | {s.id: s.name for s in instruments.spot}
            self._ticks = {p.name: p.tick_size for p in instruments.perps} | {
                s.name: s.tick_size for s in instruments.spot
            }
            self._symbols = {x.id: x.symbol for x in collateral}
            self._decimals = {x.id: x.decimals for x in collateral}
        kind = self.kind
        self._note = ""
        rows, total, pages = await self._load(kind, account)
        self.page_counts[kind] = pages
        self.pages[kind] = min(self.pages[kind], pages)
        self.query_one(f"#{kind}-table", RecordTable).show(rows)
        where = f" · instrument {self.instrument}" if self.instrument else ""
        if self.instrument and kind == "transfers":
            where = " · transfers name no instrument: all shown"
        where += self._note
        self.query_one("#page-line", Label).update(
            f"{kind.capitalize()} · page {self.pages[kind]} of {pages} · {total} records{where} · [ ] pages · f filter"
        )

    async def _load(self, kind: str, account: str) -> tuple[list[tuple[str, list[str]]], str, int]:
        c, page, size = self.ctx.client, self.pages[kind], self.page_size
        if kind == "positions":
            closed = await self._positions(account)
            shown, count = paged(closed, page, size)
            return self._rows(kind, shown), str(len(closed)), count
        if kind == "transfers":
            items = await c.transfer_history(account, page=page, limit=size)
            more = len(items) == size
            return self._rows(kind, items), f"{(page - 1) * size + len(items)}{'+' if more else ''}", page + more
        method, record, keep = {
            "fills": ("fills", m.Fill, lambda x: x.instrument),
            "orders": ("order_history", m.Order, lambda x: x.instrument),
            "funding": ("funding_history", m.FundingRecord, lambda x: self._names.get(x.instrument_id)),
        }[kind]
        if self.instrument is None:
            env = await getattr(c, method)(account, page=page, limit=size)
            chunk, total, pages = list(env.data), str(env.total_count), max(1, env.total_pages)
        else:
            wanted = await self._scan(method, record, account, keep)
            chunk, pages = paged(wanted, page, size)
            total = str(len(wanted))
        if kind == "orders":
            self._filled = await self._fills_of(account, chunk)
        return self._rows(kind, chunk), total, pages

    async def _fills_of(self, account: str, orders: Sequence[m.Order]) -> dict[int, Filled]:
        """The fills of ``orders``, read newest first back to the oldest order's time (or ``SCAN_LIMIT``)."""
        if not orders:
            return {}
        oids = {o.order_id for o in orders}
        oldest = min(o.timestamp for o in orders)
        found: list[m.Fill] = []
        seen = 0
        async for f in self.ctx.client.iter_pages(m.Fill, "fills", limit=FETCH, user=account):
            seen += 1
            if f.order_id in oids:
                found.append(f)
            if f.block_timestamp < oldest or seen >= SCAN_LIMIT:
                break
        return filled_by_order(found)

    async def _positions(self, account: str) -> list[PositionRecord]:
        """The closed positions (of the instrument filtered, if any), from up to ``SCAN_LIMIT`` fills and funding
        records; the page line says how many are still open and when the oldest could not be rebuilt."""
        fills, funding = await asyncio.gather(
            self._scan("fills", m.Fill, account, lambda _: self.instrument),
            self._scan("funding_history", m.FundingRecord, account, lambda _: self.instrument),
        )
        book = position_book(fills, funding, self._names)
        mine = [p for p in book.closed if self.instrument is None or p.instrument == self.instrument]
        still = [p for p in book.open if self.instrument is None or p.instrument == self.instrument]
        notes = [f"{len(still)} open, not shown"] if still else []
        if book.unknown_fills or len(fills) >= SCAN_LIMIT:
            notes.append(f"positions opened before the {len(fills)} fills read are left out")
        self._note = "".join(f" · {n}" for n in notes)
        return mine

    def _price(self, instrument: str, price: Decimal | None) -> str:
        """An average price: two places finer than the instrument's tick, trailing zeros dropped."""
        if price is None:
            return "-"
        return fmt_amount(price.quantize(self._ticks.get(instrument, Decimal("0.01")).scaleb(-2)))

    def _tick(self, instrument: str, price: Decimal) -> str:
        """A price at its instrument's tick (as written when the instrument is not known)."""
        tick = self._ticks.get(instrument)
        if tick is None:
            return fmt_amount(price)
        return fmt_amount(price, max(0, -int(tick.normalize().as_tuple().exponent)))

    def _money(self, value: Decimal) -> str:
        """Money (notional, fees, PnL, funding: USDC) in cents, as the balances beside it are."""
        return fmt_money(value, MONEY_PLACES)

    def _amount(self, value: Decimal, collateral_id: int) -> str:
        """An amount moved of a collateral (any token): at the collateral's decimals."""
        return fmt_money(value, self._decimals.get(collateral_id, USDC_DECIMALS))

    async def _scan(self, method: str, record: type[T], account: str, name_of: Callable[[T], str | None]) -> list[T]:
        out: list[T] = []
        seen = 0
        async for item in self.ctx.client.iter_pages(record, method, limit=FETCH, user=account):
            seen += 1
            if name_of(item) == self.instrument:
                out.append(item)
            if seen >= SCAN_LIMIT:
                break
        return out

    # ---- rows -----------------------------------------------------------------------------------

    def _rows(self, kind: str, items: Sequence[Any]) -> list[tuple[str, list[str]]]:
        make: dict[str, Callable[[int, Any], tuple[str, list[str]]]] = {
            "fills": self._fill, "orders": self._order, "funding": self._funding, "transfers": self._transfer,
            "positions": self._position,
        }  # fmt: skip
        rows = [make[kind](i, x) for i, x in enumerate(items)]
        if kind in ("fills", "transfers"):
            self._tx[kind] = {key: x.tx_hash for (key, _), x in zip(rows, items, strict=True)}
        return rows

    def _fill(self, _: int, f: m.Fill) -> tuple[str, list[str]]:
        return f"{f.trade_id}:{f.order_id}:{f.side}", [
            fmt_iso(f.block_timestamp), f.instrument, fmt_side(f.side), f.direction, self._tick(f.instrument, f.price),
            fmt_amount(f.size), self._money(f.notional_value), self._money(f.fee),
            self._money(f.closed_pnl),
            "taker" if f.crossed else "maker", short_address(f.tx_hash),
        ]  # fmt: skip

    def _order(self, _: int, o: m.Order) -> tuple[str, list[str]]:
        flags = " ".join(n for n, on_ in (("reduce-only", o.reduce_only), ("post-only", o.post_only)) if on_)
        kind = "market" if o.is_market else f"limit {o.tif}"
        if o.trigger_px:
            kind += f" trigger {self._tick(o.instrument, o.trigger_px)}" + (f" {o.tpsl}" if o.tpsl else "")
        filled = self._filled.get(o.order_id, Filled())
        return str(o.order_id), [
            fmt_iso(o.timestamp), o.instrument, str(o.order_id), fmt_side(o.side), kind,
            "market" if o.is_market else self._tick(o.instrument, o.limit_price),
            fmt_amount(o.size), fmt_amount(filled.size),
            self._price(o.instrument, filled.average),
            o.state, flags or "-", o.cloid or "-",
        ]  # fmt: skip

    def _funding(self, i: int, f: m.FundingRecord) -> tuple[str, list[str]]:
        name = self._names.get(f.instrument_id, str(f.instrument_id))
        return f"{f.timestamp}:{f.instrument_id}:{i}", [
            fmt_iso(f.timestamp), name, fmt_amount(f.size), self._tick(name, f.mark_price), fmt_rate(f.funding_rate),
            self._money(f.funding_payment),
        ]  # fmt: skip

    def _transfer(self, i: int, t: m.TransferRecord) -> tuple[str, list[str]]:
        return f"{t.tx_hash}:{i}", [
            fmt_iso(t.timestamp), t.type, short_address(t.from_), short_address(t.to),
            self._symbols.get(t.collateral_id, str(t.collateral_id)), self._amount(t.amount, t.collateral_id),
            short_address(t.tx_hash),
        ]  # fmt: skip

    def _position(self, _: int, p: PositionRecord) -> tuple[str, list[str]]:
        return f"{p.instrument}:{p.opened.isoformat()}", [
            fmt_iso(p.closed.isoformat() if p.closed else ""), p.instrument, p.side, fmt_amount(p.size),
            self._price(p.instrument, p.entry), self._price(p.instrument, p.exit), self._money(p.realized),
            self._money(p.fees), self._money(p.funding), self._money(p.net), fmt_duration(p.duration),
            fmt_iso(p.opened.isoformat()),
        ]  # fmt: skip


def fmt_duration(span: dt.timedelta | None) -> str:
    """How long a position was held: '45s', '12m 05s', '3h 07m', '2d 04h'."""
    if span is None:
        return "-"
    total = int(span.total_seconds())
    days, rest = divmod(total, 86_400)
    hours, rest = divmod(rest, 3_600)
    minutes, seconds = divmod(rest, 60)
    if days:
        return f"{days}d {hours:02d}h"
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {seconds:02d}s" if minutes else f"{seconds}s"

"""The markets reference: every instrument (perps and spot) with its tick, lot, leverage, margin tiers and
minimum notional; every supported collateral with its weights, caps and bridges; and the mids, oracle
prices and best bid/offer of everything, polled.

Instruments and collateral are read once (and on r); prices every ``poll_s``.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Label, TabbedContent, TabPane

from tui.api.models import Bbo, Collateral, Instruments, Mid, Oracle, PerpInstrument
from tui.edges.safe_text import printable
from tui.ui.widgets.display import fmt_pct, fmt_price
from tui.ui.widgets.record_format import fmt_amount, fmt_ms, yes_no
from tui.ui.widgets.record_table import RecordTable

from .data_screen import DataScreen, ScreenContext

__all__ = ["ReferenceScreen"]

PERPS = [
    ("id", "Id"), ("name", "Perp"), ("index", "Price index"), ("tick", "Tick"), ("lot", "Lot"),
    ("lev", "Max lev."), ("min", "Min notional"), ("isolated", "Isolated"), ("delisted", "Delisted"),
    ("settle", "Settles in"), ("tiers", "Tiers"), ("listed", "Listed"),
]  # fmt: skip
TIERS = [("from", "From notional"), ("lev", "Max leverage"), ("mmr", "MM rate"), ("mmd", "MM deduction")]
SPOT = [
    ("id", "Id"), ("name", "Spot"), ("index", "Price index"), ("tick", "Tick"), ("lot", "Lot"), ("base", "Base"),
    ("quote", "Quote"), ("stable", "Stable pair"), ("min", "Min size (quote)"), ("listed", "Listed"),
]  # fmt: skip
COLLATERAL = [
    ("id", "Id"), ("symbol", "Symbol"), ("name", "Name"), ("decimals", "Decimals"), ("weight", "Weight"),
    ("type", "Type"), ("cap", "Max margin cap"), ("stale", "Stale weight"), ("enabled", "As margin"),
    ("wfee", "Withdraw fee"), ("tfee", "Transfer fee"),
]  # fmt: skip
BRIDGES = [("chain", "Chain id"), ("type", "Chain type"), ("token", "Token"), ("bridge", "Bridge"), ("on", "Enabled")]
PRICES = [
    ("symbol", "Symbol"), ("mid", "Mid"), ("bid", "Bid"), ("bid_size", "Bid size"), ("ask", "Ask"),
    ("ask_size", "Ask size"), ("spread", "Spread"), ("index", "Oracle index"), ("mark", "Oracle mark"),
    ("updated", "Oracle time"),
]  # fmt: skip
TABS = ("perps", "spot", "collateral", "prices")


class ReferenceScreen(DataScreen):
    SCREEN_TITLE = "Markets reference"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "tab('perps')", "Perps", id="reference.perps", show=False, tooltip="Perpetual instruments"),
        Binding("2", "tab('spot')", "Spot", id="reference.spot", show=False, tooltip="Spot instruments"),
        Binding("3", "tab('collateral')", "Collateral", id="reference.collateral", show=False,
                tooltip="Supported collateral"),
        Binding("4", "tab('prices')", "Prices", id="reference.prices", show=False,
                tooltip="Mid, best bid/offer and oracle of everything"),
    ]  # fmt: skip

    DEFAULT_CSS = """
    ReferenceScreen TabbedContent, ReferenceScreen TabPane {
        height: 1fr;
    }
    ReferenceScreen .detail {
        height: auto;
        max-height: 8;
    }
    """

    def __init__(self, ctx: ScreenContext) -> None:
        super().__init__(ctx)
        self.instruments: Instruments | None = None
        self.collateral: list[Collateral] = []

    def compose_body(self) -> ComposeResult:
        with TabbedContent(initial="perps", id="reference-tabs"):
            with TabPane("1 Perps", id="perps"):
                yield RecordTable(PERPS, id="perps-table")
                yield Label("", id="tiers-title", classes="section", markup=False)
                yield RecordTable(TIERS, id="tiers-table", classes="detail")
            with TabPane("2 Spot", id="spot"):
                yield RecordTable(SPOT, id="spot-table")
            with TabPane("3 Collateral", id="collateral"):
                yield RecordTable(COLLATERAL, id="collateral-table")
                yield Label("", id="bridges-title", classes="section", markup=False)
                yield RecordTable(BRIDGES, id="bridges-table", classes="detail")
            with TabPane("4 Prices", id="prices"):
                yield RecordTable(PRICES, id="prices-table")

    def action_tab(self, tab: str) -> None:
        if tab in TABS:
            self.query_one(TabbedContent).active = tab

    def action_reload(self) -> None:
        self.instruments = None
        self.reload()

    # ---- loading --------------------------------------------------------------------------------

    async def fetch(self) -> None:
        c = self.ctx.client
        instruments = self.instruments
        if instruments is None:
            loaded, self.collateral = await asyncio.gather(c.instruments(), c.supported_collateral())
            instruments = self.instruments = loaded
            self._show_reference()
        perps = [p.name for p in instruments.perps if not p.delisted]
        (mids, bbos), oracles = await asyncio.gather(
            asyncio.gather(c.mids(), c.bbo()), asyncio.gather(*(c.oracle(name) for name in perps))
        )
        self._show_prices(mids, bbos, dict(zip(perps, oracles, strict=True)))

    def _show_reference(self) -> None:
        ins = self.instruments
        if ins is None:
            return
        symbols = {c.id: c.symbol for c in self.collateral}
        self.query_one("#perps-table", RecordTable).show([
            (p.name, [str(p.id), p.name, p.price_index, fmt_amount(p.tick_size), fmt_amount(p.lot_size),
                      f"{p.max_leverage}x", fmt_amount(p.min_notional_usd), yes_no(p.only_isolated), yes_no(p.delisted),
                      symbols.get(p.settlement_currency, str(p.settlement_currency)), str(len(p.margin_tiers)),
                      fmt_ms(p.listed_at_block_timestamp)[:10]])
            for p in ins.perps
        ])  # fmt: skip
        self.query_one("#spot-table", RecordTable).show([
            (s.name, [str(s.id), s.name, s.price_index, fmt_amount(s.tick_size), fmt_amount(s.lot_size),
                      symbols.get(s.base_asset, str(s.base_asset)), symbols.get(s.quote_asset, str(s.quote_asset)),
                      yes_no(s.stable_pair), fmt_amount(s.min_size_in_quote_asset),
                      fmt_ms(s.listed_at_block_timestamp)[:10]])
            for s in ins.spot
        ])  # fmt: skip
        rows = []
        for c in self.collateral:
            risk = c.risk
            figures = ["-", "-", "-"] if risk is None else [
                fmt_amount(risk.max_margin_cap), fmt_amount(risk.stale_price_guard_weight), yes_no(risk.enabled)
            ]  # fmt: skip
            rows.append((c.symbol, [
                str(c.id), c.symbol, c.name, str(c.decimals), fmt_amount(c.default_coll_weight), str(c.type),
                *figures, fmt_amount(c.withdrawal_fee), fmt_amount(c.transfer_notional_fee),
            ]))  # fmt: skip
        self.query_one("#collateral-table", RecordTable).show(rows)
        if ins.perps:
            self._show_tiers(ins.perps[0])
        if self.collateral:
            self._show_bridges(self.collateral[0])

    def _show_tiers(self, p: PerpInstrument) -> None:
        self.query_one("#tiers-title", Label).update(f"Margin tiers of {printable(p.name)}")
        self.query_one("#tiers-table", RecordTable).show([
            (str(i), [fmt_amount(t.notional_usd_threshold), f"{t.max_leverage}x", fmt_pct(t.mmr, signed=False),
                      fmt_amount(t.mmd)])
            for i, t in enumerate(p.margin_tiers)
        ])  # fmt: skip

    def _show_bridges(self, c: Collateral) -> None:
        risk = c.risk
        tiers = (
            " · ".join(f"from {fmt_amount(t.amount)}: {fmt_amount(t.weight)}" for t in risk.weight_tiers)
            if risk
            else ""
        )
        self.query_one("#bridges-title", Label).update(f"{printable(c.symbol)}: weight tiers {tiers or '-'} · bridges")
        self.query_one("#bridges-table", RecordTable).show([
            (str(i), [str(b.bridge_chain_id), str(b.bridge_chain_type), b.token_address, b.bridge_contract_address,
                      yes_no(b.enabled)])
            for i, b in enumerate(c.bridge_by_chain)
        ])  # fmt: skip

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = event.row_key.value
        if self.instruments is None or key is None:
            return
        if event.data_table.id == "perps-table":
            perp = next((p for p in self.instruments.perps if p.name == key), None)
            if perp is not None:
                self._show_tiers(perp)
        elif event.data_table.id == "collateral-table":
            collateral = next((c for c in self.collateral if c.symbol == key), None)
            if collateral is not None:
                self._show_bridges(collateral)

    def _show_prices(self, mids: list[Mid], bbos: list[Bbo], oracles: dict[str, Oracle]) -> None:
        mid_of = {x.symbol: x.mid_price for x in mids}
        bbo_of = {x.symbol: x for x in bbos}
        names = list(mid_of) + [s for s in bbo_of if s not in mid_of]
        ins = self.instruments
        ticks = {p.name: p.tick_size for p in ins.perps} | {s.name: s.tick_size for s in ins.spot} if ins else {}
        rows = []
        for name in names:
            b, o = bbo_of.get(name), oracles.get(name)
            spread = b.best_ask_price - b.best_bid_price if b and b.best_bid_price and b.best_ask_price else None
            tick = ticks.get(name)

            def px(value: Decimal | None, tick: Decimal | None = tick) -> str:
                """A price at the instrument's tick (a mid may be half a tick finer: one place more)."""
                return "-" if value is None else fmt_price(value, tick) if tick else fmt_amount(value)

            mid = mid_of.get(name)
            rows.append((name, [
                name, fmt_price(mid, tick.scaleb(-1)) if mid is not None and tick else fmt_amount(mid),
                px(b.best_bid_price) if b else "-", fmt_amount(b.best_bid_size) if b else "-",
                px(b.best_ask_price) if b else "-", fmt_amount(b.best_ask_size) if b else "-", px(spread),
                px(o.index_price) if o else "-", px(o.ext_mark_price) if o else "-",
                fmt_ms(o.updated_at)[11:] if o else "-",
            ]))  # fmt: skip
        self.query_one("#prices-table", RecordTable).show(rows)

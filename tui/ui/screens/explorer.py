"""The explorer screen: the latest blocks as they are made, recent transactions, and look-ups.

The first picture is loaded over HTTP; then blocks and transactions stream from the ``blocks`` and
``transactions`` channels, gathered and drawn at most every ``DRAW_S`` (readable, and a redraw of both
tables costs tens of milliseconds). Block heights are consecutive, so a block that skips one (the
socket dropped meanwhile) loads the screen again; while the channels are not held (socket down,
refused) the screen polls every ``poll_s`` instead.

Enter on a block shows it with its transactions; Enter on a transaction shows its record. b looks a
block up by height or hash, t a transaction by hash; a and y filter the recent transactions by account
and by type; l goes back to the latest. Until a row is chosen, the detail follows the newest block.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Label

from tui.api.errors import ClientError
from tui.api.models import BlockDetail, BlockSummary, DecodeError, Transaction, decode
from tui.api.signing import checksum_address
from tui.api.wire import resolve_action
from tui.feed.channels import Watch
from tui.feed.frames import payload_items
from tui.trading.grammar import parse_whole
from tui.ui.render.crash_guard import shown_in_place
from tui.ui.widgets.display import short_address
from tui.ui.widgets.record_format import fmt_ms, tx_type_name, yes_no
from tui.ui.widgets.record_table import Facts, RecordTable

from .data_screen import DataScreen, ScreenContext
from .prompt import PromptScreen

__all__ = ["ExplorerScreen", "parse_block_ref", "parse_tx_type"]

BLOCKS = [("height", "Block"), ("time", "Time"), ("txs", "Txs"), ("hash", "Hash")]
TXS = [("time", "Time"), ("block", "Block"), ("type", "Type"), ("account", "Account"), ("ok", "OK"), ("hash", "Hash")]
LATEST = 20
RECENT = 30
DRAW_S = 0.5  # streamed blocks and transactions are drawn together at most this often (a redraw costs ~50 ms)
GAP_RELOAD_S = 2.0  # a skipped block loads the screen again at most this often
_HASH = re.compile(r"0x[0-9a-fA-F]{64}")
MAX_HEIGHT = 2**63 - 1  # the exchange's heights are 64-bit
MAX_TX_TYPE = 65_535


def parse_block_ref(text: str) -> tuple[int | None, str | None]:
    """A block height (digits) or hash (0x + 64 hex digits); ValueError otherwise."""
    raw = text.strip()
    if raw[:2] not in ("0x", "0X"):  # a height: ASCII digits only (a "²" or "٣" is not one)
        return parse_whole("block", raw, lo=0, hi=MAX_HEIGHT, what="block height"), None
    if _HASH.fullmatch(raw):
        return None, raw.lower()
    raise ValueError(f"{raw[:70]!r} is neither a block height nor a block hash")


def parse_tx_type(text: str) -> int:
    """A transaction type: its code (1301) or its action's name (placeOrder); ValueError otherwise."""
    raw = text.strip()
    if raw[:1].isdigit():  # a code: ASCII digits only, bounded
        return parse_whole("type", raw, lo=0, hi=MAX_TX_TYPE, what="transaction type code")
    spec = resolve_action(raw)
    if spec is None:
        raise ValueError(f"{raw[:40]!r} is not a transaction type (a code like 1301, or an action like placeOrder)")
    return spec.seed_code


def block_facts(b: BlockSummary) -> list[tuple[str, str]]:
    return [
        ("Block", str(b.block_height)),
        ("Time", fmt_ms(b.timestamp)),
        ("Transactions", str(b.tx_count)),
        ("Created", fmt_ms(b.created_at * 1000)),
        ("Hash", b.block_hash),
        ("Parent", b.parent_hash),
        ("Change log", b.change_log_hash),
    ]


def tx_facts(t: Transaction) -> list[tuple[str, str]]:
    return [
        ("Transaction", t.tx_hash),
        ("Type", tx_type_name(t.tx_type)),
        ("Account", t.account),
        ("Success", yes_no(t.success)),
        ("Block", f"{t.block_height} {t.block_hash}"),
        ("Time", fmt_ms(t.timestamp)),
    ]


class ExplorerScreen(DataScreen):
    SCREEN_TITLE = "Explorer"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b", "find_block", "Block", id="explorer.block", tooltip="Look a block up by height or hash"),
        Binding("t", "find_tx", "Tx", id="explorer.tx", tooltip="Look a transaction up by hash"),
        Binding("a", "filter_account", "Account", id="explorer.account",
                tooltip="Recent transactions of one account (me: this one; empty: all)"),
        Binding("y", "filter_type", "Type", id="explorer.type",
                tooltip="Recent transactions of one type (code or action name; empty: all)"),
        Binding("l", "latest", "Latest", id="explorer.latest", tooltip="Back to the latest transactions"),
    ]  # fmt: skip

    DEFAULT_CSS = """
    ExplorerScreen #explorer-lists {
        height: 1fr;
    }
    ExplorerScreen #explorer-blocks {
        width: 44;
    }
    ExplorerScreen #explorer-txs {
        width: 1fr;
    }
    ExplorerScreen #detail {
        height: auto;
        min-height: 4;
        border-top: solid $foreground 30%;
    }
    """

    def __init__(self, ctx: ScreenContext, *, tx_hash: str | None = None) -> None:
        super().__init__(ctx)
        self.pinned: BlockDetail | None = None  # a block whose transactions are listed
        self.account_filter: str | None = None
        self.type_filter: int | None = None
        self.detail: Transaction | BlockSummary | None = None
        self.follow = tx_hash is None  # the detail shows the newest block until a row is chosen
        self.blocks: list[BlockSummary] = []  # newest first, as shown
        self.txs: list[Transaction] = []
        self._start_tx = tx_hash  # shown first: the explorer was opened on it (from the history)
        self._new_blocks: list[BlockSummary] = []  # streamed, not yet drawn
        self._new_txs: list[Transaction] = []
        self._draw_due = False
        self._gap_reload_at = float("-inf")
        self._watches: list[Watch] = []

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="explorer-lists"):
            with Vertical(id="explorer-blocks"):
                yield Label("Latest blocks (Enter: its transactions)", classes="section")
                yield RecordTable(BLOCKS, id="blocks")
            with Vertical(id="explorer-txs"):
                yield Label("", id="txs-title", classes="section")
                yield RecordTable(TXS, id="txs")
        yield Facts(columns=1, id="detail")

    def on_mount(self) -> None:  # after DataScreen.on_mount (Textual calls both)
        feed = self.ctx.feed
        self._watches = [feed.watch("blocks", self._on_blocks), feed.watch("transactions", self._on_txs)]
        if self._start_tx:
            self.find_tx(self._start_tx)

    def on_unmount(self) -> None:
        for watch in self._watches:
            watch.close()

    @property
    def streaming(self) -> bool:
        """Both channels are held on a live socket: no polling needed."""
        return self.ctx.feed.state.status.connection == "live" and all(w.held for w in self._watches)

    # ---- loading --------------------------------------------------------------------------------

    @property
    def polls(self) -> bool:
        return not self.streaming

    async def fetch(self) -> None:
        c = self.ctx.client
        latest = c.blocks(0, LATEST)
        if self.pinned is not None:
            blocks = await latest
            txs = self.pinned.transactions  # a sealed block does not change
        else:
            recent = c.transactions(0, RECENT, account=self.account_filter, tx_type=self.type_filter)
            blocks, found = await asyncio.gather(latest, recent)
            txs = found.transactions
        self.blocks = blocks.blocks
        self._show_blocks(self.blocks)
        if self.pinned is None:
            self.txs = txs
        self._show_txs(txs)
        if self.follow and self.blocks:
            self._show_detail(self.blocks[0])

    # ---- streaming --------------------------------------------------------------------------------

    def _on_blocks(self, data: Any) -> None:
        self._new_blocks += decode(payload_items(data), list[BlockSummary])
        self._draw_soon()

    def _on_txs(self, data: Any) -> None:
        self._new_txs += decode(payload_items(data), list[Transaction])
        self._draw_soon()

    def _draw_soon(self) -> None:
        if not self._draw_due and self.is_mounted:
            self._draw_due = True
            self.set_timer(DRAW_S, self._draw_streamed)

    def _draw_streamed(self) -> None:
        self._draw_due = False
        new_blocks, self._new_blocks = self._new_blocks, []
        new_txs, self._new_txs = self._new_txs, []
        if new_blocks:
            top = self.blocks[0].block_height if self.blocks else None
            lowest = min(b.block_height for b in new_blocks)
            if top is not None and lowest > top + 1 and time.monotonic() - self._gap_reload_at >= GAP_RELOAD_S:
                self._gap_reload_at = time.monotonic()
                self.reload()  # blocks were missed (a reconnect): load them
                return
            by_height = {b.block_height: b for b in self.blocks} | {b.block_height: b for b in new_blocks}
            self.blocks = [by_height[h] for h in sorted(by_height, reverse=True)[:LATEST]]
            self._show_blocks(self.blocks)
            if self.follow:
                self._show_detail(self.blocks[0])
        wanted = [t for t in reversed(new_txs) if self._wanted(t)]  # a block's transactions come oldest first
        if wanted and self.pinned is None:
            seen = {t.tx_hash for t in wanted}
            self.txs = (wanted + [t for t in self.txs if t.tx_hash not in seen])[:RECENT]
            self._show_txs(self.txs)

    def _wanted(self, t: Transaction) -> bool:
        """``t`` passes the account and type filters."""
        if self.account_filter is not None and t.account.lower() != self.account_filter.lower():
            return False
        return self.type_filter is None or t.tx_type == self.type_filter

    def _show_blocks(self, blocks: list[BlockSummary]) -> None:
        self.query_one("#blocks", RecordTable).show([
            (str(b.block_height), [str(b.block_height), fmt_ms(b.timestamp)[11:], str(b.tx_count),
                                   short_address(b.block_hash)])
            for b in blocks
        ])  # fmt: skip

    def _show_txs(self, txs: list[Transaction]) -> None:
        if self.pinned is not None:
            title = f"Block {self.pinned.block_height}: {len(txs)} transactions (l: latest)"
        else:
            who = f" of {short_address(self.account_filter)}" if self.account_filter else ""
            kind = f" of type {tx_type_name(self.type_filter)}" if self.type_filter is not None else ""
            title = f"Recent transactions{who}{kind} (Enter: details)"
        self.query_one("#txs-title", Label).update(title)
        self.query_one("#txs", RecordTable).show([
            (t.tx_hash, [fmt_ms(t.timestamp)[11:], str(t.block_height), tx_type_name(t.tx_type),
                         short_address(t.account), yes_no(t.success), short_address(t.tx_hash)])
            for t in txs
        ])  # fmt: skip

    def _show_detail(self, item: Transaction | BlockSummary) -> None:
        self.detail = item
        facts = tx_facts(item) if isinstance(item, Transaction) else block_facts(item)
        self.query_one("#detail", Facts).show(facts)

    # ---- look-ups -------------------------------------------------------------------------------

    def find_tx(self, tx_hash: str) -> None:
        async def look() -> None:
            try:
                tx = await self.ctx.client.transaction(tx_hash)
            except (ClientError, DecodeError) as exc:
                self.show_result(f"Transaction {tx_hash[:20]}…: {exc}", error=True)
                return
            self.follow = False
            self._show_detail(tx)

        self.start_work(look, name="transaction look-up", group="lookup", exclusive=True)

    def find_block(self, height: int | None, block_hash: str | None) -> None:
        async def look() -> None:
            try:
                block = await self.ctx.client.block(height=height, block_hash=block_hash)
            except (ClientError, DecodeError) as exc:
                self.show_result(f"Block {height if height is not None else block_hash}: {exc}", error=True)
                return
            self.pinned = block
            self.follow = False
            self._show_detail(block)
            self._show_txs(block.transactions)

        self.start_work(look, name="block look-up", group="lookup", exclusive=True)

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = event.row_key.value
        if key is None:
            return
        if event.data_table.id == "blocks":
            self.find_block(int(key), None)
        else:
            self.find_tx(key)

    # ---- keys -----------------------------------------------------------------------------------

    def _ask(self, title: str, placeholder: str, then: Any) -> None:
        def entered(text: str | None) -> None:
            try:
                then(text)
            except ValueError as exc:
                self.notify(str(exc), severity="warning", markup=False)
            except Exception as exc:  # a look-up that fails for any other reason is shown, never ends the app
                shown_in_place(self, f"{title.rstrip(':')} failed", exc)

        self.app.push_screen(PromptScreen(title, placeholder=placeholder), entered)

    def action_find_block(self) -> None:
        def then(text: str | None) -> None:
            if text:
                self.find_block(*parse_block_ref(text))

        self._ask("Block height or hash:", "1234 or 0x…", then)

    def action_find_tx(self) -> None:
        def then(text: str | None) -> None:
            if text:
                if not _HASH.fullmatch(text):
                    raise ValueError("a transaction hash is 0x and 64 hex digits")
                self.find_tx(text.lower())

        self._ask("Transaction hash:", "0x…", then)

    def action_filter_account(self) -> None:
        def then(text: str | None) -> None:
            if text and text.lower() == "me" and self.account is None:
                raise ValueError("no account to filter on: give an address")
            account = self.account if text and text.lower() == "me" else text
            self.account_filter = checksum_address(account) if account else None
            self.pinned = None
            self.reload()

        self._ask("Transactions of account (me: this account; empty: all):", "0x… or me", then)

    def action_filter_type(self) -> None:
        def then(text: str | None) -> None:
            self.type_filter = parse_tx_type(text) if text else None
            self.pinned = None
            self.reload()

        self._ask("Transactions of type (code or action; empty: all):", "1301 or placeOrder", then)

    def action_latest(self) -> None:
        self.pinned = None
        self.follow = True
        self.account_filter = None
        self.type_filter = None
        self.reload()

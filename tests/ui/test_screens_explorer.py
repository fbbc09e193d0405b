"""The explorer screen: blocks as they are made, a block's transactions, look-ups and filters."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Seen, dashboard
from tests.ui.screen_steps import cells, result_of, show, until
from tui.api.client import Client
from tui.api.models import Transaction
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.explorer import ExplorerScreen, parse_block_ref, parse_tx_type
from tui.ui.screens.prompt import PromptScreen
from tui.ui.widgets.display import short_address
from tui.ui.widgets.record_table import Facts, RecordTable

ALICE = Signer(ALICE_KEY)
NO_POLLS = {"poll_s": 3600.0, "ws_options": {"backoff_min": 0.05, "backoff_max": 0.2}}  # only the socket moves it


def heights(blocks: RecordTable) -> list[int]:
    return [int(row[0]) for row in cells(blocks)]


async def ask(pilot: Any, key: str, text: str) -> None:
    await pilot.press(key)
    await until(pilot, lambda: isinstance(pilot.app.screen, PromptScreen), f"the prompt of {key}")
    pilot.app.screen.query_one(Input).value = text  # typed key by key, a hash takes seconds
    await pilot.press("enter")


async def test_blocks_stream_and_look_ups(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    resp = await trader.set_leverage(2, 5)
    app = dashboard(trader, sim, clock, ALICE)
    seen = Seen()
    async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
        screen = await show(pilot, seen, "E", ExplorerScreen)
        blocks = screen.query_one("#blocks", RecordTable)
        txs = screen.query_one("#txs", RecordTable)
        top = int(cells(blocks)[0][0])
        sim.step(1000)  # two more blocks
        await until(pilot, lambda: int(cells(blocks)[0][0]) == top + 2, "the new blocks")
        assert blocks.row_count == 20

        await ask(pilot, "t", resp.tx_hash)
        detail = screen.query_one("#detail", Facts)
        await until(pilot, lambda: resp.tx_hash in detail.text, "the transaction")
        text = detail.text
        assert "1203 updatePerpInstrumentLeverage" in text and ALICE.address in text
        assert isinstance(screen.detail, Transaction)
        height = screen.detail.block_height

        await ask(pilot, "b", str(height))
        await until(pilot, lambda: screen.pinned is not None, "the block")
        assert f"Block {height}:" in str(screen.query_one("#txs-title").render())
        await until(pilot, lambda: resp.tx_hash in [str(k.value) for k in txs.rows], "the block's transactions")

        await pilot.press("l")
        await ask(pilot, "a", "me")
        await until(pilot, lambda: txs.row_count and {r[3] for r in cells(txs)} == {"0x5d5c…00D2"}, "mine")
        await ask(pilot, "y", "updatePerpInstrumentLeverage")
        await until(pilot, lambda: [str(k.value) for k in txs.rows] == [resp.tx_hash], "mine of one type")

        txs.focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(screen.detail, Transaction), "the transaction's detail")
        assert isinstance(screen.detail, Transaction) and screen.detail.tx_hash == resp.tx_hash

        await ask(pilot, "b", "0x1234")
        await until(pilot, lambda: isinstance(app.screen, ExplorerScreen), "the prompt to close")
        await ask(pilot, "b", str(10**9))
        await until(pilot, lambda: "block not found" in result_of(screen), "the error")


async def test_blocks_and_transactions_stream_and_a_missed_block_is_loaded(
    sim: LocalExchange, clock: FrozenClock, trader: Client, bob: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE, feed_options=NO_POLLS)
    seen = Seen()
    async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
        status = app.feed.state.status
        screen = await show(pilot, seen, "E", ExplorerScreen)
        await until(pilot, lambda: screen.streaming, "the blocks and transactions channels")
        assert sim.hub.subscribers[("blocks", "")] and sim.hub.subscribers[("transactions", "")]
        blocks, txs = screen.query_one("#blocks", RecordTable), screen.query_one("#txs", RecordTable)
        detail = screen.query_one("#detail", Facts)
        top = heights(blocks)[0]

        sim.step(1000)  # two blocks, streamed (the screen's next poll is an hour away)
        await until(pilot, lambda: heights(blocks)[:3] == [top + 2, top + 1, top], "the streamed blocks")
        assert f"Block: {top + 2}" in detail.text  # the detail follows the newest block

        def keys() -> list[str]:
            return [str(k.value) for k in txs.rows]

        await trader.place_order([order_item(1, "b", "90000", "0.01")])
        sim.step(500)  # sealed into a block with the market's own: streamed in, as the exchange lists them
        recent = [t.tx_hash for t in (await trader.transactions(0, 30)).transactions]
        await until(pilot, lambda: keys() == recent, "the streamed transactions")

        await ask(pilot, "a", "me")  # filtered: Bob's next transaction is not Alice's, hers streams in
        await until(pilot, lambda: {r[3] for r in cells(txs)} == {short_address(ALICE.address)}, "mine only")
        ignored = await bob.cancel_all()
        again = await trader.cancel_all()
        sim.step(500)
        await until(pilot, lambda: keys()[0] == again.tx_hash, "my new transaction")
        assert ignored.tx_hash not in keys() and {r[3] for r in cells(txs)} == {short_address(ALICE.address)}

        # the socket drops and three blocks are made meanwhile: the first block after the reconnect
        # skips them, and the screen loads them over HTTP
        sim.limiter.limits.ws_connections = 0
        for conn in list(sim.hub.connections):
            await conn.ws.close()
        await until(pilot, lambda: status.connection != "live", "the drop")
        assert not screen.streaming
        before = heights(blocks)[0]
        sim.step(1500)
        sim.limiter.limits.ws_connections = 100
        await until(pilot, lambda: status.connection == "live" and screen.streaming, "the reconnect")
        sim.step(500)
        await until(pilot, lambda: heights(blocks)[0] >= before + 4, "the block after the reconnect")
        shown = heights(blocks)
        assert shown == list(range(shown[0], shown[0] - len(shown), -1))  # no height missing

        await pilot.press("escape")  # closing the screen ends its subscriptions
        await until(pilot, lambda: not sim.hub.subscribers.get(("blocks", "")), "the unsubscribes")
        assert not sim.hub.subscribers.get(("transactions", ""))


def test_references_typed_in() -> None:
    assert parse_block_ref(" 42 ") == (42, None)
    assert parse_block_ref("0x" + "Ab" * 32) == (None, "0x" + "ab" * 32)
    assert parse_tx_type("1301") == 1301
    assert parse_tx_type("placeorder") == 1301
    for bad in ("0x12", "block"):
        try:
            parse_block_ref(bad)
        except ValueError:
            continue
        raise AssertionError(bad)

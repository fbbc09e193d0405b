"""What the dashboard says of a position's protection follows the exchange on every change, not only a tool's own
moves: a long with a stop-loss for all of it, then more bought by hand, shows the stop covering a third, in the
positions row, the pane's title, the event log and a notice; a stop for the rest makes it whole again."""

from __future__ import annotations

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, noted, settle
from tests.ui.test_amend_close import buy_through_the_book
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange

ALICE = Signer(ALICE_KEY)


def stop(size: str) -> dict[str, object]:
    return order_item(1, "s", "0", size, tif="IOC", reduce_only=True, trigger_px="90000", is_market=True)


def row(app: object) -> str:
    pane = app.main.query_one("#positions")  # type: ignore[attr-defined]
    return " ".join(str(c) for c in pane.table.get_row_at(0)) if pane.table.row_count else ""


def logged(app: object) -> list[str]:
    return [e.text for e in app.feed.state.account.events.book.entries()]  # type: ignore[attr-defined]


async def test_a_stop_for_part_of_the_position_is_said_everywhere(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    await buy_through_the_book(trader, 1, "BTC-PERP", "0.01")
    await trader.place_order([stop("0.01")])
    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (160, 48)) as (pilot, notes):
        await settle(pilot, lambda: "90,000.0" in row(app), what="the whole stop-loss in the row")
        await buy_through_the_book(trader, 1, "BTC-PERP", "0.02")  # by hand, from another client
        await settle(pilot, lambda: "0.01/0.03⚠" in row(app), what="the part covered, in the row: " + row(app))

        said = "BTC-PERP long 0.03: SL 90,000 covers 0.01 of 0.03"
        await settle(pilot, lambda: said in logged(app), what="the log")
        assert any("covers 0.01 of 0.03" in n for n in notes.messages), notes.messages
        title = str(app.main.query_one("#positions").border_subtitle)
        assert "⚠ BTC-PERP SL 90,000 covers 0.01 of 0.03" in title
        await trader.place_order([stop("0.02")])
        await settle(pilot, lambda: "90,000.0" in row(app) and "⚠" not in row(app), what="whole again")
        await settle(pilot, lambda: "BTC-PERP long 0.03: SL 90,000" in logged(app), what="whole again, in the log")

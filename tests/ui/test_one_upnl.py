"""One uPnL at any moment: the account bar's and the position row's are drawn from one account summary, so with one
position open they read the same figure in every frame while the market moves (the two were paced apart and read up
to 3 USDC apart for a moment)."""

from __future__ import annotations

import re
from decimal import Decimal

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, settle
from tests.ui.test_amend_close import buy_through_the_book
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.widgets.account_bar import AccountBar
from tui.ui.widgets.positions import PositionsPane

ALICE = Signer(ALICE_KEY)


def figure(text: str) -> Decimal:
    return Decimal(text.replace(",", "").replace("+", ""))


async def test_the_account_bar_and_the_position_row_show_one_upnl(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    await buy_through_the_book(trader, 1, "BTC-PERP", "0.01")
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
        await settle(pilot, lambda: account.positions and account.summary, what="the position")
        bar, rows = app.query_one(AccountBar), app.query_one(PositionsPane)
        column = [key for key, *_ in rows.fitting(rows.size.width)].index("upnl")
        pairs: set[tuple[Decimal, Decimal]] = set()
        for i in range(120):
            if i % 4 == 0:
                sim.step(250)  # the market moves on: marks, then the summary's uPnL
            await pilot.pause(0.05)
            said = re.search(r"uPnL (\S+)", str(bar.render()))
            if said is None or not rows.table.row_count:
                continue
            row = figure(str(rows.table.get_row_at(0)[column]).strip())
            pairs.add((figure(said.group(1)), row))
        assert len({bar for bar, _ in pairs}) > 3, pairs  # the figure moved while it was watched
        assert [p for p in pairs if p[0] != p[1]] == []  # and the two never read apart

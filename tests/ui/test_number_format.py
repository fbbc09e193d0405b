"""One number format (issue 43, item 6): prices at the instrument's tick, money in cents, each rate one way.

The test walks the screens a trader reads with a position open (the main screen, the account, every tab of the
history, the TP/SL and close dialogs) and reads every figure on them: none has more decimals than a price at the
tick, a size at the lot or a rate as a percentage may have (4 here). Before, the dialogs wrote the entry as the
exchange averaged it (``entry 100,028.68666667``), the account its USDC at the collateral's six decimals
(``99,837.216209``), and the history's funding tab the rate as a fraction (``0.0000125``, a percentage elsewhere).
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import partial
from typing import Any

from textual.widgets import TabbedContent

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Seen, dashboard, drawn, screen_rows, settle
from tests.ui.screen_steps import cells, show, until
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.account import AccountScreen
from tui.ui.screens.form import FormScreen
from tui.ui.screens.history import HistoryScreen
from tui.ui.widgets.display import fmt_price, fmt_size
from tui.ui.widgets.record_table import RecordTable

ALICE = Signer(ALICE_KEY)
TICK, LOT = Decimal("0.1"), Decimal("0.0001")  # BTC-PERP's
MOST_DECIMALS = 4  # a BTC-PERP size at the lot (0.0150), a funding rate (0.0013%), a fee rate (+0.0500%)
FIGURE = re.compile(r"(?<![\w.])-?\d[\d,]*\.(\d+)(?![\w.])")  # a number with a decimal point, not inside a word
HOUR = 3_600_000


def screen_text(app: Any) -> str:
    """What the screen shows, row by row, and every cell of its tables (a column past the edge included)."""
    rows = screen_rows(app)
    tables = [" | ".join(row) for table in app.screen.query(RecordTable) for row in cells(table)]
    return "\n".join(rows + tables)


def on_tab(history: HistoryScreen, tab: str) -> bool:
    """Whether ``tab`` is the history's tab in view, and its page line says it has been read."""
    line = str(history.query_one("#page-line").render())
    return history.query_one(TabbedContent).active == tab and tab.capitalize() in line


def too_fine(text: str) -> list[str]:
    """The figures of ``text`` with more decimals than any figure may have."""
    return [m.group(0) for m in FIGURE.finditer(text) if len(m.group(1)) > MOST_DECIMALS]


async def test_every_screen_writes_its_figures_one_way(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    first, second = (await trader.orderbook("BTC-PERP", depth=2)).asks
    size = first.size + (second.size / 3).quantize(LOT)  # the best ask and some of the next: an entry off the tick
    await trader.place_order([order_item(1, "b", second.price, size, tif="IOC")])
    sim.step(HOUR + 1000)  # an hour on: a funding payment on the position
    [position] = [p for p in await trader.positions(ALICE.address) if p.size]
    assert position.entry_price != position.entry_price.quantize(TICK)  # what the dialogs used to write whole
    entry = f"(entry {fmt_price(position.entry_price, TICK)})"
    app = dashboard(trader, sim, clock, ALICE)
    seen = Seen()
    async with app.run_test(size=(200, 50), message_hook=seen) as pilot:
        state = app.feed.state
        account = await show(pilot, seen, "A", AccountScreen)
        await until(pilot, lambda: cells(account.query_one("#legs", RecordTable)), "the position's leg")
        usdc = next(r for r in cells(account.query_one("#collateral", RecordTable)) if r[:2] == ["USDC", "derivatives"])
        assert all(re.fullmatch(r"[\d,]+\.\d\d", figure) for figure in usdc[2:]), usdc  # in cents
        seen_text = {"account": screen_text(app)}
        await pilot.press("escape")

        history = await show(pilot, seen, "H", HistoryScreen)
        for key, tab in (("1", "fills"), ("2", "orders"), ("3", "funding"), ("4", "transfers"), ("5", "positions")):
            await pilot.press(key)
            await until(pilot, partial(on_tab, history, tab), f"the {tab} tab, read")
            await drawn(pilot)
            seen_text[f"history {tab}"] = screen_text(app)
        funding = cells(history.query_one("#funding-table", RecordTable))
        assert funding, "no funding payment to read"
        assert all(row[4].endswith("%") for row in funding), funding  # the rate, as the funding pane writes it
        await pilot.press("escape")

        await settle(pilot, lambda: state.account.positions and app.screen is app.main, what="the position")
        seen_text["main"] = screen_text(app)
        for key, what in (("a", "TP/SL"), ("c", "close")):
            await pilot.press("3", key)
            await settle(pilot, lambda: isinstance(app.screen, FormScreen), what=f"the {what} dialog")
            said = screen_text(app)
            assert entry in said and fmt_size(position.size, LOT) in said, (what, said)
            seen_text[what] = said
            await pilot.press("escape")
            await settle(pilot, lambda: app.screen is app.main, what="the main screen again")
    wrong = {where: too_fine(text) for where, text in seen_text.items() if too_fine(text)}
    assert not wrong, wrong

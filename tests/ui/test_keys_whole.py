"""Keys typed after a key that moves the focus, or opens or closes a screen, in the same read, reach where that key
put the focus (issue: Tab then ``7`` from the order form's unit Select lost the 7; ``b0.01`` on the dashboard sent
``0.01`` to the dashboard's table before the order form was up).

The pty tests run the real dashboard through xtui's own driver and parser: a chunk written at once is read at once,
as keys typed during a network stall over SSH arrive. The Pilot tests post a read's keys to the app at once, as
the driver does, and look at the widgets."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Checkbox, DataTable, Input, Select

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, settle
from tests.ui.test_keys_in_order import ENTER, ESC, Dashboard, burst
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.order_form import OrderFormScreen

ALICE = Signer(ALICE_KEY)
TAB = "\t"
CTRL_N = "\x0e"


@pytest.fixture
def dash(tmp_path: Path) -> Iterator[Dashboard]:
    d = Dashboard(tmp_path, (160, 48))
    try:
        d.wait_for("the dashboard", r"live")
        yield d
    finally:
        d.program.close()


def open_buy_form(dash: Dashboard) -> None:
    dash.program.write("b")
    dash.wait_for("the order form", r"BUY BTC-PERP\s")


@pytest.mark.parametrize("reads", [[TAB, TAB + "7.5"], [TAB + TAB + "7.5"]], ids=["tab, then tab 7.5", "one read"])
def test_tab_from_the_unit_select_then_digits_land_in_the_next_field(dash: Dashboard, reads: list[str]) -> None:
    """The order form, Size ``1``: Tab moves to the unit Select; Tab and ``7.5`` in one read (after it, or with it)
    put ``7.5`` in "Risk %", the field after the Select. Textual alone sent the digits to the Select, which dropped
    them."""
    open_buy_form(dash)
    dash.program.write("1")
    dash.wait_for("the 1 in Size", r"Size\s+1\b")
    for chunk in reads:
        dash.program.write(chunk)
    dash.wait_for("7.5 in Risk %", r"Risk %\s+7\.5\b")
    assert "Size     1 " in dash.text()  # nothing went to the size


def test_a_key_that_opens_the_order_form_and_the_order_in_one_read(dash: Dashboard) -> None:
    """``b0.01`` and Enter in one write on the dashboard: ``b`` opens the order form and the rest is typed into it
    once it is up and focused on Size: the order sent is BUY 0.01. Textual alone sent ``0.01`` and Enter to the
    dashboard's table while the form was still mounting."""
    dash.program.write("b0.01" + ENTER)
    dash.wait_for("the order, sent", r"BUY 0\.01 BTC-PERP @")


def test_a_market_buy_typed_as_one_burst(dash: Dashboard) -> None:
    """``b``, ``0.01``, ctrl+n (market) and Enter in one write on the dashboard, as a fast trader types them: the
    form opens, takes the size, turns market and sends: a market BUY of 0.01 is placed."""
    dash.program.write("b0.01" + CTRL_N + ENTER)
    dash.wait_for("the market order, sent", r"BUY 0\.01 BTC-PERP @ market")


def test_escape_then_a_key_that_opens_another_form_then_its_order(dash: Dashboard) -> None:
    """The buy form open: Escape, ``s``, ``0.5`` and Enter in one write. The terminal's Escape with the ``s``
    reads as alt+s; it is both keys: the buy form closes, ``s`` opens the sell form, the sell form gets the size
    and Enter: SELL 0.5 is sent, and no buy."""
    open_buy_form(dash)
    dash.program.write(ESC + "s0.5" + ENTER)
    dash.wait_for("the sell order, sent", r"SELL 0\.5 BTC-PERP @")
    assert "BUY 0.5" not in dash.text()


# ---- the same in Pilot, looking at the widgets ------------------------------------------------------------------


async def test_tabs_digits_and_a_space_in_one_read_act_where_the_focus_is(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """The order form on Size; one read of Tab, Tab, ``5``, four Tabs, a space and a Tab: the focus goes Size >
    unit > Risk %, which takes the 5, then Stop > place stop > TIF > post-only, the space ticks post-only and the
    last Tab moves on to reduce-only. The Selects passed through stay closed and unchanged. Textual alone sent the
    5 to the unit Select, which dropped it."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.focused, Input) and app.focused.id == "size", what="the form")
        form = app.screen
        assert isinstance(form, OrderFormScreen)
        post_only = form.query_one("#post_only", Checkbox)
        assert not post_only.value
        tab = ("tab", "\t")
        burst(app, [tab, tab, ("5", "5"), tab, tab, tab, tab, ("space", " "), tab])
        await settle(pilot, lambda: app.focused is form.query_one("#reduce_only"), what="reduce-only focused")
        assert form.query_one("#risk_pct", Input).value == "5"
        assert post_only.value
        assert not form.query_one("#reduce_only", Checkbox).value
        assert [s.expanded for s in form.query(Select)] == [False] * len(form.query(Select))
        assert form.query_one("#unit", Select).value == "base"
        assert form.query_one("#tif", Select).value == "GTC"


async def test_keys_after_the_key_that_opens_a_form_wait_for_its_focus(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """On the dashboard, one read of ``b``, ``0``, ``.``, ``2``: the order form opens and holds ``0.2`` in Size
    (its focus is set by a callback on the app, queued behind the keys: they wait for it)."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        burst(app, [("b", "b"), ("0", "0"), ("full_stop", "."), ("2", "2")])
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form")
        size = app.screen.query_one("#size", Input)
        await settle(pilot, lambda: size.value == "0.2", what="0.2 in Size")


async def test_an_arrow_after_the_key_that_focuses_a_tabbed_pane_moves_in_that_pane(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """On the dashboard, focus on the markets; one read of ``5`` (the fills pane: its tab is shown, and the pane is
    focused after the next refresh) and Down: Down goes to the fills, the market picked stays. Textual alone moved
    the markets' cursor, so Down picked another market."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        markets = app.main.query_one("#markets-table", DataTable)
        await settle(pilot, lambda: app.focused is markets, what="the markets focused")
        row = markets.cursor_row
        fills = app.main.query_one("#fills-table", DataTable)
        burst(app, [("5", "5"), ("down", None)])
        await settle(pilot, lambda: app.focused is fills, what="the fills focused")
        await pilot.pause()
        assert markets.cursor_row == row

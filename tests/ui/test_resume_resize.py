"""An OCO whose resize was under way when xtui was killed: the kept record names the stop's old order and the new one
it was sending (kept before it was sent). At the next start both rest on the local exchange: the question offers the
pair with the new stop, names the old one as also resting (it stays, unlinked, `x` cancels it), and Enter links the
new one; nothing is placed or cancelled."""

from __future__ import annotations

from decimal import Decimal

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.paths import data_dir
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.trading.tool_book import KeptLeg, KeptOco, KeptResize, ToolBook, tool_book_path
from tui.ui.screens.confirm import ConfirmScreen

ALICE = Signer(ALICE_KEY)
D = Decimal
TP, OLD, NEW = "oc1x1733000000-t1", "oc1x1733000000-s1", "oc1x1733000000-s2"


async def test_a_pair_killed_mid_resize_resumes_with_the_new_stop_and_names_the_old(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    book = await trader.orderbook("BTC-PERP", depth=1)
    await trader.place_order([order_item(1, "b", book.asks[0].price, "0.03", tif="IOC")])
    await trader.place_order([
        order_item(1, "s", "110000", "0.01", reduce_only=True, cloid=TP),
        order_item(1, "s", "88200", "0.01", reduce_only=True, cloid=OLD, trigger_px="90000", is_market=True),
        order_item(1, "s", "88200", "0.03", reduce_only=True, cloid=NEW, trigger_px="90000", is_market=True),
    ])  # fmt: skip
    stop = KeptLeg(OLD, "sell", D(88200), D(90000), D("0.01"), KeptResize(NEW, D("0.03")))
    kept = KeptOco(ALICE.address, 1, "BTC-PERP", 1, True, D("0.01"), KeptLeg(TP, "sell", D(110000), None, D("0.01")),
                   stop)  # fmt: skip
    ToolBook.load(tool_book_path(data_dir(), "LOCAL")).keep_ocos(ALICE.address, [kept])
    before = sorted(o.cloid for o in (await trader.open_orders(ALICE.address)).data)
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
        said = " ".join(str(s.render()) for s in app.screen.query(".reason"))
        assert "SELL 0.03 BTC-PERP" in said and f"({OLD}), the order a resize was replacing" in said, said
        await pilot.press("enter")
        ocos = app.session.ocos
        assert ocos is not None
        await settle(pilot, lambda: len(ocos.active) == 1, what="the pair linked again")
        [oco] = ocos.active
        assert [leg.cloid for leg in oco.legs] == [TP, NEW] and oco.legs[1].plan.size == D("0.03")
    assert sorted(o.cloid for o in (await trader.open_orders(ALICE.address)).data) == before

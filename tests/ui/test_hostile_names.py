"""An exchange that lists instruments whose names hold escape sequences (ESC [2J clears the screen, ESC ]0;...BEL sets
the terminal's title, U+202E reverses what follows): no frame of the dashboard carries one raw.

Tried before: with such a perp listed, choosing it put its name raw into the header and every pane's title (book,
trades, chart), which draw themselves; only the tables escaped it. Such a name is now left out of the instruments
where it enters (``tui.feed.state.instruments_from``): it names nothing a file may name either, and escaped it would
name nothing on the exchange. What the account holds in it is still listed, escaped, in the tables.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import Any

import pytest
from textual.app import App, ComposeResult

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, drawn, feed_ready, screen_rows, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.edges.safe_text import printable
from tui.sim.clock import FrozenClock
from tui.sim.engine.instruments import MarketConfig
from tui.sim.server import dispatch
from tui.sim.server.local_exchange import LocalExchange, SimConfig
from tui.sim.server.ratelimit import Limits
from tui.ui.widgets.record_table import Facts

PERP = "ETH\x1b[2J\x1b]0;x\x07\u202e-PERP"  # id 2, ETH-PERP renamed
SPOT = "ETH\u202e/USDC\x1b]0;x\x07"  # id 102, ETH/USDC renamed
RAW = ("\x1b", "\x07", "\u202e")


@pytest.fixture
def sim_config(monkeypatch: pytest.MonkeyPatch) -> SimConfig:
    """The seeded market, with ETH-PERP and ETH/USDC listed under hostile names."""
    default_config = dispatch.default_config

    def hostile(seed: int = 7) -> MarketConfig:
        config = default_config(seed)
        perps = tuple(dataclasses.replace(p, name=PERP) if p.id == 2 else p for p in config.perps)
        spots = tuple(dataclasses.replace(s, name=SPOT) if s.id == 102 else s for s in config.spots)
        return dataclasses.replace(config, perps=perps, spots=spots)

    monkeypatch.setattr(dispatch, "default_config", hostile)
    return SimConfig(seed=7, market=True, limits=Limits())


def raw_rows(app: App[Any]) -> list[str]:
    """The rows of the frame that carry a control character as it is."""
    return [repr(row) for row in screen_rows(app) if any(c in row for c in RAW)]


async def test_no_frame_carries_an_instrument_s_name_raw(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    book = await trader.orderbook(PERP, depth=5)
    through = (book.asks[-1].price * Decimal("1.01")).quantize(book.asks[0].price)
    await trader.place_order([order_item(2, "b", through, "0.1", tif="IOC")])  # a position and a fill in it
    await trader.place_order([order_item(2, "b", (book.bids[0].price * Decimal("0.9")).quantize(through), "0.1")])
    app = dashboard(trader, sim, clock, Signer(ALICE_KEY))
    async with app.run_test(size=(160, 50)) as pilot:
        await feed_ready(app)
        state = app.feed.state
        await settle(
            pilot,
            lambda: (
                state.market.trades and state.market.candles and state.account.positions and state.account.open_orders
            ),
            what="the tape, the chart, the position and the order",
        )
        assert raw_rows(app) == []
        for name in (PERP, SPOT):  # chosen as the markets pane's Enter or a layout would choose it
            app.main.select(name)
            await pilot.pause(0.2)
            await drawn(pilot)
            assert raw_rows(app) == []
            assert state.market.selected == "BTC-PERP"
        assert PERP not in state.market.instruments and SPOT not in state.market.instruments
        assert {"BTC-PERP", "SOL-PERP", "BTC/USDC"} <= set(state.market.instruments)
        assert [p.instrument for p in state.account.positions] == [PERP]  # held: listed in the tables, escaped
        await pilot.press("3")  # the positions pane, zoomed: the name is shown, escaped
        await drawn(pilot)
        assert printable(PERP)[:8] in "\n".join(screen_rows(app))
        assert raw_rows(app) == []


class _FactsApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Facts(columns=1)


async def test_facts_show_the_exchange_s_words_printable() -> None:
    """A fact may quote the exchange (an account's margin mode, a transaction's fields on the explorer)."""
    app = _FactsApp()
    async with app.run_test(size=(60, 5)) as pilot:
        app.query_one(Facts).show([("Margin mode", f"cross{PERP}")])
        await pilot.pause()
        assert raw_rows(app) == []
        assert "cross" + printable(PERP)[:10] in "\n".join(screen_rows(app))

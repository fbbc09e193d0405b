"""Getting to the data screens: their keys, the command palette, Escape, and keys typed into a form."""

from __future__ import annotations

import pytest
from textual.command import CommandPalette
from textual.widgets import Input

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Seen, dashboard, feed_ready, palette_search
from tests.ui.screen_steps import until
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.catalogue import SCREEN_BINDINGS, screen_classes
from tui.ui.screens.data_screen import DataScreen
from tui.ui.screens.form import FormScreen
from tui.ui.screens.wallet import WalletScreen

ALICE = Signer(ALICE_KEY)


@pytest.mark.long
async def test_keys_palette_and_escape(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    seen = Seen()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await feed_ready(app)
        # every screen has a key (the snapshots open each one with it); one after another replaces the
        # screen shown, so Escape goes straight back to the dashboard
        assert {b.action for b in SCREEN_BINDINGS} == {f"open_screen('{name}')" for name in screen_classes()}
        for key, name in [("A", "account"), ("G", "agents")]:
            await pilot.press(key)
            await until(pilot, lambda name=name: type(app.screen) is screen_classes()[name], f"the {name} screen")
        assert [type(s) for s in app.screen_stack if isinstance(s, DataScreen)] == [screen_classes()["agents"]]
        await pilot.press("escape")
        assert app.screen is app.main

        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await palette_search(pilot, "wallet:", "Wallet:")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, WalletScreen), "the wallet from the palette")
        wallet = app.screen
        await until(pilot, lambda: seen.loads[wallet] >= 1, "the wallet's data")

        # the wallet's own actions are in the palette while it is shown (not the explorer's); one opens its form
        for words, first in [("withdraw collateral", "Withdraw collateral to a chain"), ("look a block up", None)]:
            await pilot.press("ctrl+p")
            await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
            listed = await palette_search(pilot, words, first)
            assert not [t for t in listed if "Look a block up" in t], listed
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is wallet, "back to the wallet")
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await palette_search(pilot, "send collateral", "Send collateral to another address")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the transfer form")

        # screen keys typed into a form are text, not navigation
        app.screen.query_one("#field-destination", Input).focus()
        await pilot.press(*"AH")
        await pilot.pause()
        assert isinstance(app.screen, FormScreen)
        assert app.screen.query_one("#field-destination", Input).value == "AH"
        await pilot.press("escape", "escape")
        assert app.screen is app.main

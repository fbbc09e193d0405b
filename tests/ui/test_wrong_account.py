"""The dashboard says loudly when the exchange plays another network, and when an order went to another account."""

from __future__ import annotations

from textual.widgets import Input

from tests.conftest import ALICE_KEY, client_for
from tests.ui.conftest import dashboard, noted, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.order_form import OrderFormScreen

ALICE = Signer(ALICE_KEY)
NEW_KEY = "0x" + "7a" * 32
UNAPPROVED_AGENT_KEY = "0x" + "8b" * 32


async def test_signing_for_another_network_is_a_loud_warning(sim: LocalExchange, clock: FrozenClock) -> None:
    me = Signer(NEW_KEY)
    async with client_for(sim, NEW_KEY, clock, testnet=False) as client:  # the exchange plays testnet
        app = dashboard(client, sim, clock, me)
        async with noted(app, (120, 40)) as (pilot, notes):
            await settle(pilot, lambda: [m for m in notes.messages if "plays testnet" in m], what="the warning")
            warned = [m for m in notes.messages if "plays testnet" in m]
            assert warned == [
                "the exchange plays testnet but xtui signs for mainnet: your orders would be applied to another "
                "account (sign for testnet with --network testnet, or the profile's network)"
            ]  # once, however many answers say it


async def test_an_order_applied_to_another_account_is_reported_not_shown_as_placed(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """An agent key that Alice never approved is read by the exchange as an account of its own."""
    agent = Signer(UNAPPROVED_AGENT_KEY)
    async with client_for(sim, UNAPPROVED_AGENT_KEY, clock, account=ALICE.address) as client:
        app = dashboard(client, sim, clock, agent, account=ALICE.address)
        async with noted(app, (120, 40)) as (pilot, notes):
            account = app.feed.state.account
            await settle(pilot, lambda: account.summary is not None, what="Alice's account")
            await pilot.press("b")
            await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form")
            app.screen.query_one("#price", Input).value = "90000"
            await pilot.click("#size")
            await pilot.press(*"0.01", "enter")
            await settle(pilot, lambda: [m for m in notes.messages if "was applied" in m], what="the report")
            [report] = [m for m in notes.messages if "was applied" in m]
            assert report.startswith(
                f"Order: placeOrder was applied to account {agent.address}, not to {ALICE.address}"
            )
            assert not [m for m in notes.messages if "oid" in m]  # never shown as placed
            assert (await trader.open_orders(ALICE.address)).data == []

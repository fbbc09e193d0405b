"""Referrals, brokers and agents: each screen's data and its actions, through the keys."""

from __future__ import annotations

import re

import pytest
from textual.widgets import Input

from tests.conftest import ALICE_KEY, BOB_KEY, signs_for
from tests.ui.conftest import Seen, dashboard
from tests.ui.screen_steps import cells, confirm, error_of, fill_form, result_of, show, tx_of, until
from tui import keys
from tui.api.client import Client
from tui.api.errors import AccountMismatch, ActionRejected, ClientError
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.agents import AgentsScreen
from tui.ui.screens.brokers import BrokersScreen
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.referrals import ReferralsScreen
from tui.ui.widgets.display import short_address
from tui.ui.widgets.record_table import Facts, RecordTable

ALICE = Signer(ALICE_KEY)
BOB = Signer(BOB_KEY)


async def test_referrals_code_referred_user_and_claim(
    sim: LocalExchange, clock: FrozenClock, trader: Client, bob: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    seen = Seen()
    async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
        screen = await show(pilot, seen, "R", ReferralsScreen)
        facts = screen.query_one("#referral-facts", Facts)
        assert "My codes: -" in facts.text and "Fee discount of those you refer: 4.00%" in facts.text
        form = await fill_form(pilot, "n", {"code": "a!"})
        await pilot.press("enter")
        assert "letters and digits or _ -" in error_of(form)
        form.query_one("#field-code", Input).value = "ALICE-1"
        await confirm(pilot)
        await until(pilot, lambda: "code ALICE-1 created" in result_of(screen), "the code")
        await until(pilot, lambda: "My codes: ALICE-1" in facts.text, "the code listed")

        form = await fill_form(pilot, "s", {"code": "ALICE-1"})
        await pilot.press("enter")
        assert "own codes" in error_of(form)
        await pilot.press("escape")

        await bob.set_referrer("ALICE-1")
        ask = (await bob.orderbook("BTC-PERP", depth=1)).asks[0].price
        await bob.place_order([order_item(1, "b", ask, "0.01", tif="IOC")])  # a taker fee: Alice's commission
        await pilot.press("r")
        users = screen.query_one("#referred", RecordTable)
        await until(pilot, lambda: users.row_count == 1, "Bob among the referred")
        assert cells(users)[0][:2] == [short_address(BOB.address), "ALICE-1"]
        assert "To claim perp / spot: 0 /" not in facts.text
        await fill_form(pilot, "c", {})
        lines = await confirm(pilot)
        assert any("perp, about" in line for line in lines)
        await until(pilot, lambda: "perp rewards claimed in USDC" in result_of(screen), "the claim")
        assert (await trader.referral_summary(ALICE.address)).to_claim_perp_rewards == 0


async def test_brokers_approve(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    seen = Seen()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        screen = await show(pilot, seen, "B", BrokersScreen)
        table = screen.query_one("#brokers", RecordTable)
        assert table.row_count == 0
        form = await fill_form(pilot, "a", {"broker": BOB.address, "rate": "2"})
        await pilot.press("enter")
        assert "from 0 to 1" in error_of(form)
        form.query_one("#field-rate", Input).value = "0.05%"
        lines = await confirm(pilot)
        assert any("0.0005 (0.0500% of the notional" in line for line in lines)
        await until(pilot, lambda: table.row_count == 1, "the approval")
        assert cells(table)[0][:3] == [BOB.address, "0.0005", "0.0500%"]
        [approval] = (await trader.brokers_check(ALICE.address)).data
        assert approval.broker == BOB.address and str(approval.max_fee_rate) == "0.0005"


async def test_agent_round_trip(
    sim: LocalExchange, clock: FrozenClock, trader: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keys, "SCRYPT_N", 1 << 10)  # the same file format; made in ms, not a second
    app = dashboard(trader, sim, clock, ALICE)
    seen = Seen()
    async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
        screen = await show(pilot, seen, "G", AgentsScreen)
        table = screen.query_one("#agents", RecordTable)
        form = await fill_form(pilot, "a", {"name": "desk", "days": "2", "password": "correct-horse", "again": "x"})
        await pilot.press("enter")
        assert "the two passwords differ" in error_of(form)
        form.query_one("#field-again", Input).value = "correct-horse"
        lines = await confirm(pilot)
        assert any("Keystore   agent-desk" in line for line in lines)
        await until(pilot, lambda: "desk" in result_of(screen), "the agent")
        shown = result_of(screen)
        approved = re.search(r"desk (0x[0-9a-fA-F]{40}) approved until 2026-01-03", shown)
        assert approved is not None and (await trader.transaction(tx_of(shown))).success, shown
        await until(pilot, lambda: table.row_count == 1, "the agent listed")
        row = cells(table)[0]
        assert row[0] == "desk" and row[1] == approved[1] and row[4] == "valid 2d 0h"
        assert row[5] == "agent-desk"

        agent = keys.load("agent-desk", "correct-horse")
        assert agent.address == approved[1]
        async with Client(
            sim.url, signer=agent, clock_ms=clock.now_ms, testnet=signs_for(sim), account=ALICE.address
        ) as bot:
            ack = await bot.place_order([order_item(1, "b", "90000", "0.001", cloid="by-agent")])
            assert ack.address == ALICE.address  # the agent trades for Alice
            assert [o.cloid for o in (await trader.open_orders(ALICE.address)).data] == ["by-agent"]

            table.focus()
            await pilot.press("x")
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation")
            await pilot.press("y")
            await until(pilot, lambda: "revoked" in result_of(screen), "the revocation")
            await until(pilot, lambda: table.row_count == 0, "the agent gone")
            # a revoked agent is refused, or read as a key of its own: either way the order is not Alice's,
            # and xtui says so instead of showing it as placed
            with pytest.raises(ClientError) as refused:
                await bot.place_order([order_item(1, "b", "90000", "0.001")])
            err = refused.value
            if isinstance(err, AccountMismatch):
                assert err.applied_to.lower() == agent.address.lower() and err.acting_for == ALICE.address
            else:
                assert isinstance(err, ActionRejected) and "revoked" in err.message

"""The wallet screen: a transfer to another address end to end, the other moves, and the forms' checks."""

from __future__ import annotations

from decimal import Decimal

import pytest
from textual.widgets import Input

from tests.conftest import ALICE_KEY, BOB_KEY
from tests.ui.conftest import Seen, dashboard
from tests.ui.screen_steps import cells, confirm, error_of, fill_form, result_of, show, tx_of, until
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.trading.grammar import FieldError, parse_address, parse_amount, parse_fraction, parse_text
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.wallet import WalletScreen
from tui.ui.widgets.record_table import RecordTable

ALICE = Signer(ALICE_KEY)
BOB = Signer(BOB_KEY)


async def wallet_of(pilot: object, seen: Seen) -> WalletScreen:
    wallet = await show(pilot, seen, "W", WalletScreen)
    await until(pilot, lambda: wallet.view is not None, "the balances")
    return wallet


async def test_transfer_to_another_address_end_to_end(
    sim: LocalExchange, clock: FrozenClock, trader: Client, bob: Client
) -> None:
    await bob.cancel_all()  # the faucet opens Bob's account
    before = (await bob.account_summary(BOB.address)).collateral["USDC"].balance
    app = dashboard(trader, sim, clock, ALICE)
    seen = Seen()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        wallet = await wallet_of(pilot, seen)
        balances = wallet.query_one("#balances", RecordTable)
        assert cells(balances)[0][:4] == ["USDC", "6", "100,000.00", "100,000.00"]  # in cents, as money

        form = await fill_form(pilot, "t", {"amount": "250.5", "destination": BOB.address.lower()[:-1] + "g"})
        await pilot.press("enter")
        assert "40 hex digits" in error_of(form) and app.screen is form
        form.query_one("#field-destination", Input).value = BOB.address[:2] + BOB.address[2:].swapcase()
        await pilot.press("enter")
        assert "checksum" in error_of(form)
        form.query_one("#field-destination", Input).value = BOB.address
        form.query_one("#field-amount", Input).value = "0.0000001"
        await pilot.press("enter")
        assert "6 decimal places" in error_of(form)
        form.query_one("#field-amount", Input).value = "100000.01"
        await pilot.press("enter")
        assert "more than the 100000 USDC withdrawable" in error_of(form)
        form.query_one("#field-amount", Input).value = "250.5"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation")
        summary = " ".join(str(s.render()) for s in app.screen.query(".reason"))
        assert "250.5 USDC" in summary and BOB.address in summary and "99,749.50 USDC" in summary
        await pilot.press("enter")  # the default is No: nothing is sent
        await until(pilot, lambda: app.screen is wallet, "back to the wallet")
        assert result_of(wallet) == ""

        await fill_form(pilot, "t", {"amount": "250.5", "destination": BOB.address})
        await confirm(pilot)
        await until(pilot, lambda: " · tx 0x" in result_of(wallet), "the transaction hash")
        shown, tx_hash = result_of(wallet), tx_of(result_of(wallet))
        assert shown == f"Transfer: 250.5 USDC sent to {BOB.address} · tx {tx_hash}" and shown in seen.messages
        tx = await trader.transaction(tx_hash)
        assert (tx.tx_type, tx.success, tx.account) == (1052, True, ALICE.address)
        after = (await bob.account_summary(BOB.address)).collateral["USDC"].balance
        assert after - before == Decimal("250.5")
        await until(pilot, lambda: cells(balances)[0][2] == "99,749.50", "the new balance")


async def test_internal_transfer_vault_deposit_redeem_and_withdraw(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    seen = Seen()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        wallet = await wallet_of(pilot, seen)

        lines = await confirm_form(pilot, "i", {"to": "spot", "amount": "1000"})
        assert any("the derivatives balance" in line for line in lines)
        await until(pilot, lambda: "moved from derivatives to spot" in result_of(wallet), "the internal transfer")
        assert (await trader.account_summary(ALICE.address)).spot_collateral["USDC"].balance == Decimal(11000)

        vaults = wallet.query_one("#vault-list", RecordTable)
        vaults.move_cursor(row=1)  # Momentum Vault: no lock-in
        await confirm_form(pilot, "d", {"amount": "500"})
        await until(pilot, lambda: "into Momentum Vault" in result_of(wallet), "the deposit")
        assert "shares minted" in result_of(wallet)
        await until(pilot, lambda: cells(vaults)[1][7] == "500.00", "the holding")
        shares = cells(vaults)[1][9].replace(",", "")

        form = await fill_form(pilot, "v", {"shares": str(Decimal(shares) + 1)})
        await pilot.press("enter")
        assert "more than the" in error_of(form)
        form.query_one("#field-shares", Input).value = shares
        await confirm(pilot)
        await until(pilot, lambda: "shares of Momentum Vault redeemed" in result_of(wallet), "the redeem")
        summary = await trader.account_summary(ALICE.address)
        assert not any(h.total_shares for h in summary.vault_balances.values())

        form = await fill_form(pilot, "o", {"amount": "10", "chain": "5"})
        await pilot.press("enter")
        assert "chains 1, 42161, 11155111" in error_of(form)
        form.query_one("#field-chain", Input).value = "42161"
        lines = await confirm(pilot)
        assert any("1 USDC, on top of the amount" in line for line in lines)
        await until(pilot, lambda: "withdrawn to chain 42161" in result_of(wallet), "the withdrawal")


async def confirm_form(pilot: object, key: str, values: dict[str, str]) -> list[str]:
    await fill_form(pilot, key, values)
    return await confirm(pilot)


async def test_read_only_opens_no_form(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    app = dashboard(trader, sim, clock, ALICE, read_only=True)
    seen = Seen()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        wallet = await wallet_of(pilot, seen)
        await pilot.press("t")
        await pilot.pause()
        assert app.screen is wallet  # read-only says why in a notification instead


def test_field_checks() -> None:
    assert parse_amount("a", "1250.50", decimals=6, maximum=Decimal(2000)) == Decimal("1250.50")
    assert parse_fraction("r", "0.05%") == Decimal("0.0005") and parse_fraction("r", "0") == 0
    assert parse_address("d", BOB.address.lower()) == BOB.address
    for bad, message in [("", "enter an amount"), ("0", "more than 0"), ("abc", "not a plain decimal"),
                         ("1e3", "not a plain decimal"), ("NaN", "not a plain decimal"), ("-1", "not a plain decimal"),
                         (" 1,250.50 ", "not a plain decimal"), ("１", "not a plain decimal"),
                         ("101", "more than the 100")]:  # fmt: skip
        with pytest.raises(FieldError, match=message):
            parse_amount("a", bad, decimals=6, maximum=Decimal(100))
    with pytest.raises(FieldError, match="from 0 to 1"):
        parse_fraction("r", "101%")
    with pytest.raises(FieldError, match="letters and digits"):
        parse_text("n", "a b", max_len=10)

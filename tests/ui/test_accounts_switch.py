"""Accounts switched in place (``@``): the switcher lists the config's profiles, the panes and the header's "trading
as" banner follow the account chosen, a running TWAP keeps the account it started with (kept or stopped, as the
trader answers), and a keystore's wrong password is said and asked again, with nothing lost."""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.widgets import Input, Label

from tests.conftest import ALICE_KEY, BOB_KEY, client_for
from tests.ui.conftest import Notes, feed_ready, noted, palette_search, press_to_quit, settle
from tests.ui.screen_steps import until
from tui import keys
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.config.launch import Identity, Launch, identity
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.trading.twap import TwapSpec
from tui.ui.app import XtuiApp
from tui.ui.last_session import note_path
from tui.ui.run import dashboard_app, prepare
from tui.ui.screens.accounts import AccountsScreen, PasswordScreen, RunningToolsScreen
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.twap import TwapScreen
from tui.ui.signals import SessionEnd
from tui.ui.switch import running_tools
from tui.ui.widgets.display import short_address
from tui.ui.widgets.header import ProfileHeader
from tui.ui.widgets.orders import OpenOrdersPane
from tui.ui.widgets.positions import PositionsPane
from tui.ui.widgets.record_table import RecordTable

ALICE = Signer(ALICE_KEY)
BOB = Signer(BOB_KEY)
CAROL_KEY = "0x" + "c4" * 32
CAROL = Signer(CAROL_KEY)
PASSWORD = "carols-long-password"


def config_text(url: str) -> str:
    return f"""\
[profiles.alice]
url = "{url}"
key_env = "XTUI_TEST_ALICE_KEY"

[profiles.bob-watch]
url = "{url}"
account = "{BOB.address}"

[profiles.carol]
url = "{url}"
keystore = "carol"

[profiles.nobody]
url = "{url}"

[profiles.paper-dead]
mirror = "http://127.0.0.1:9"

[profiles.real-bob]
url = "https://api.hotstuff.trade"
account = "{BOB.address}"
"""


def alice_app(sim: LocalExchange, clock: FrozenClock, trader: Client, monkeypatch: pytest.MonkeyPatch) -> XtuiApp:
    """The dashboard as ``xtui --profile alice`` starts it, from a config of three profiles on ``sim``; a switch
    opens its client on the exchange's frozen clock."""
    Path(os.environ["XTUI_CONFIG"]).write_text(config_text(sim.url))
    monkeypatch.setenv("XTUI_TEST_ALICE_KEY", ALICE_KEY)
    launch = prepare("alice")
    app = dashboard_app(
        launch, identity(launch), client=trader, wall_clock=lambda: clock.now_ms() / 1000, feed_options={"poll_s": 0.5}
    )
    app.feed.state.status.clock_drift_ms = 0
    assert app.accounts is not None

    def make_client(launch: Launch, ident: Identity) -> Client:
        key = ident.signer.secret_hex() if ident.signer is not None else None
        return client_for(sim, key, clock, account=ident.account)

    app.accounts.make_client = make_client
    return app


def header_of(app: XtuiApp) -> str:
    return str(app.main.query_one(ProfileHeader).render())


def rows_of(pane: OpenOrdersPane | PositionsPane) -> list[str]:
    table = pane.table
    return [" ".join(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]


async def choose(pilot: Any, name: str) -> None:
    """``@``, then the profile ``name`` picked with the arrow keys and Enter."""
    app = pilot.app
    await pilot.press("at")
    await until(pilot, lambda: isinstance(app.screen, AccountsScreen), "the switcher")
    names = [c.name for c in app.screen.choices]
    current = next(i for i, c in enumerate(app.screen.choices) if c.current)
    steps = names.index(name) - current
    await pilot.press(*(["down"] * steps if steps > 0 else ["up"] * -steps), "enter")


async def switched_to(pilot: Any, profile: str, address: str) -> None:
    app = pilot.app
    await until(pilot, lambda: app.session.profile == profile and app.screen is app.main, f"{profile} shown")
    await feed_ready(app)
    await settle(pilot, lambda: short_address(address) in header_of(app), what=f"{profile} in the header")


async def test_own_key_to_watch_only_and_back_the_panes_and_banner_follow(
    sim: LocalExchange, clock: FrozenClock, trader: Client, bob: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alice rests a buy at 80,000; Bob rests one at 81,000 and holds a long. Alice's dashboard: @, bob-watch: the
    banner names bob-watch, Bob's address, watch-only, testnet; the orders pane lists Bob's order and not Alice's;
    the positions pane Bob's long; Alice's feed has stopped; an outcome left unknown would now be noted for
    bob-watch's next start, not alice's. @, alice (her key was kept, nothing is asked): her order is back."""
    await trader.place_order([order_item(1, "b", "80000", "0.01", cloid="alice-rest")])
    await bob.cancel_all()  # the faucet
    await bob.place_order([order_item(1, "b", "81000", "0.01", cloid="bob-rest")])
    ask = (await bob.orderbook("BTC-PERP", depth=1)).asks[0].price
    await bob.place_order([order_item(1, "b", ask, "0.01", tif="IOC")])
    app = alice_app(sim, clock, trader, monkeypatch)
    async with app.run_test(size=(140, 40)) as pilot:
        ending = SessionEnd(app, note_path("alice"))
        ending.install()
        await feed_ready(app)
        orders = app.main.query_one(OpenOrdersPane)
        await settle(pilot, lambda: any("80,000" in r or "80000" in r for r in rows_of(orders)), what="Alice's order")
        assert "trading as" in header_of(app) and "own key · testnet" in header_of(app)
        alice_feed = app.feed

        await choose(pilot, "bob-watch")
        await switched_to(pilot, "bob-watch", BOB.address)
        header = header_of(app)
        assert header.startswith("xtui  bob-watch   trading as ") and "watch-only · testnet" in header
        assert short_address(ALICE.address) not in header
        orders, positions = app.main.query_one(OpenOrdersPane), app.main.query_one(PositionsPane)
        await settle(pilot, lambda: rows_of(orders) and rows_of(positions), what="Bob's order and position")
        assert [r for r in rows_of(orders) if "81,000" in r or "81000" in r]
        assert not [r for r in rows_of(orders) if "80,000" in r or "80000" in r]
        assert [r for r in rows_of(positions) if "BTC-PERP" in r]
        assert alice_feed.state.status.connection == "closed"
        assert ending.note == note_path("bob-watch")

        await choose(pilot, "alice")
        await switched_to(pilot, "alice", ALICE.address)
        orders = app.main.query_one(OpenOrdersPane)
        await settle(pilot, lambda: any("80,000" in r or "80000" in r for r in rows_of(orders)), what="hers again")
        assert "own key · testnet" in header_of(app)
        ending.uninstall()


async def test_a_running_twap_keeps_its_account_then_is_stopped_on_the_way_back(
    sim: LocalExchange, clock: FrozenClock, trader: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alice's TWAP (a slice an hour) has sent its first slice. @, bob-watch: the question lists it with Alice's
    account; k keeps it: the dashboard shows Bob, the TWAP runs on with Alice's runner and client, and Bob's TWAP
    screen lists it as Alice's and pauses and resumes it. @, alice: asked
    again, s stops it: cancelled before the switch. The exchange's record has its two slices (the first, and the one
    resuming sent) as Alice's fills, none as Bob's."""
    app = alice_app(sim, clock, trader, monkeypatch)
    notes = Notes()
    async with app.run_test(size=(140, 40), message_hook=notes) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.market.book.loaded, what="the book")
        runner = app.twaps
        assert runner is not None
        twap = runner.start(TwapSpec("BTC-PERP", "buy", Decimal("0.02"), 4, 3600.0))
        await until(pilot, lambda: twap.sent == 1, "the first slice")

        await choose(pilot, "bob-watch")
        await until(pilot, lambda: isinstance(app.screen, RunningToolsScreen), "the question")
        said = [str(s.render()) for s in app.screen.query(".tool")]
        assert said[0].startswith(f"TWAP {twap.id} as alice {short_address(ALICE.address)}: ")
        await pilot.press("k")
        await switched_to(pilot, "bob-watch", BOB.address)
        assert twap.state == "running" and runner.account == ALICE.address and runner.client is trader
        assert app.twaps is None  # watch-only: no TWAP of Bob's can start
        assert any("1 tool(s) go on as their own account" in m for m in notes.messages)
        await pilot.press("V")  # the TWAP screen lists it, with its account, and acts on it
        await until(pilot, lambda: isinstance(app.screen, TwapScreen), "the TWAP screen")
        table = app.screen.query_one("#twap-table", RecordTable)
        await until(pilot, lambda: table.row_count == 1, "the kept TWAP listed")
        assert f"as alice {short_address(ALICE.address)}" in " ".join(str(c) for c in table.get_row_at(0))
        await pilot.press("p")
        await until(pilot, lambda: twap.state == "paused", "paused from Bob's dashboard")
        await pilot.press("u")
        await until(pilot, lambda: twap.state == "running", "resumed")
        await until(pilot, lambda: twap.sent == 2 and not twap.unconfirmed, "resuming sends the next slice at once")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.main, "back")

        await choose(pilot, "alice")
        await until(pilot, lambda: isinstance(app.screen, RunningToolsScreen), "asked again")
        await pilot.press("s")
        await switched_to(pilot, "alice", ALICE.address)
        assert twap.state == "cancelled" and running_tools(app.sessions()) == []
    fills = (await trader.fills(ALICE.address)).data
    assert twap.sent == 2 and sum(Decimal(f.size) for f in fills) == twap.filled == Decimal("0.010")  # as Alice
    assert (await trader.fills(BOB.address)).data == []


async def test_escape_on_the_running_tools_question_keeps_the_account(
    sim: LocalExchange, clock: FrozenClock, trader: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A TWAP running, @, bob-watch, Escape: no switch; the TWAP and Alice's dashboard are as they were."""
    app = alice_app(sim, clock, trader, monkeypatch)
    async with app.run_test(size=(120, 30)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.market.book.loaded, what="the book")
        assert app.twaps is not None
        twap = app.twaps.start(TwapSpec("BTC-PERP", "buy", Decimal("0.02"), 4, 3600.0))
        await until(pilot, lambda: twap.sent == 1, "the first slice")
        main = app.main
        await choose(pilot, "bob-watch")
        await until(pilot, lambda: isinstance(app.screen, RunningToolsScreen), "the question")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is main, "back on the dashboard")
        assert app.session.profile == "alice" and twap.state == "running"
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "q asks about the TWAP")
        await press_to_quit(pilot, "y")
        await until(pilot, lambda: twap.state == "cancelled", "cancelled on the way out")


@pytest.mark.long
async def test_a_wrong_keystore_password_is_said_and_asked_again(
    sim: LocalExchange, clock: FrozenClock, trader: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Carol's profile has a keystore. @, carol: a password dialog; a wrong password says so there, the field is
    cleared and Alice's account stays shown; Escape: still Alice, and said. @, carol again: asked again (nothing
    was unlocked); the right password: the banner is Carol's own key."""
    monkeypatch.setattr(keys, "SCRYPT_N", 1 << 10)  # the same file format; unlocked in ms, not a second
    keys.import_key("carol", CAROL_KEY, PASSWORD)
    app = alice_app(sim, clock, trader, monkeypatch)
    notes = Notes()
    async with app.run_test(size=(120, 30), message_hook=notes) as pilot:
        await feed_ready(app)
        main = app.main
        await choose(pilot, "carol")
        await until(pilot, lambda: isinstance(app.screen, PasswordScreen), "the password dialog")
        dialog = app.screen
        await pilot.press(*"not-the-password", "enter")
        error = dialog.query_one("#password-error", Label)
        await until(pilot, lambda: "Wrong password" in str(error.render()), "the wrong password said")
        assert str(error.render()) == "Wrong password for keystore carol (1): try again, or Escape to cancel."
        assert dialog.query_one(Input).value == "" and app.session.profile == "alice" and app.main is main
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is main, "back on Alice's dashboard")
        assert "Still trading as alice" in notes.messages and short_address(ALICE.address) in header_of(app)

        await choose(pilot, "carol")
        await until(pilot, lambda: isinstance(app.screen, PasswordScreen), "asked again")
        await pilot.press(*PASSWORD, "enter")
        await switched_to(pilot, "carol", CAROL.address)
        assert "own key · testnet" in header_of(app)


@pytest.mark.long
async def test_the_palette_lists_the_switch_and_an_unavailable_profile_says_why(
    sim: LocalExchange, clock: FrozenClock, trader: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The palette's "Trade as another account" opens the switcher; profile nobody (a URL, no key, no account) is
    listed last, saying what it lacks; chosen anyway, a notice says why and the account stays Alice's."""
    app = alice_app(sim, clock, trader, monkeypatch)
    notes = Notes()
    async with app.run_test(size=(120, 30), message_hook=notes) as pilot:
        await feed_ready(app)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await palette_search(pilot, "trade as another", "Trade as another account")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, AccountsScreen), "the switcher")
        choices = app.screen.choices
        assert [c.name for c in choices][-1] == "nobody"
        assert (
            choices[-1].unavailable
            == "it has no key and no account: set keystore (or key_env) or account in the config"
        )
        paper = next(c for c in choices if c.name == "paper")
        assert paper.kind == "paper" and paper.exchange.endswith("(started for it, playing testnet)")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.main, "closed")
        await choose(pilot, "nobody")
        await until(pilot, lambda: any(m.startswith("Cannot switch to nobody") for m in notes.messages), "why not")
        assert app.session.profile == "alice"


async def test_a_profile_on_the_built_in_exchange_gets_one_started_for_it(
    sim: LocalExchange, clock: FrozenClock, trader: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started on a URL, @, local: a built-in exchange (a real ``xtui sim`` process) is started for it, and the
    dashboard trades there as LOCAL with a fresh demo key the faucet funds; it stops as the dashboard ends.
    @, paper-dead (a paper copy of a source nobody serves): its exchange cannot read the source, and the notice
    says so; the account stays LOCAL."""
    app = alice_app(sim, clock, trader, monkeypatch)
    accounts = app.accounts
    assert accounts is not None
    accounts.make_client = None  # the new exchange runs on the wall clock: a client as the command line makes
    notes = Notes()
    try:
        async with app.run_test(size=(120, 30), message_hook=notes) as pilot:
            await feed_ready(app)
            await choose(pilot, "local")
            await until(pilot, lambda: app.session.profile == "LOCAL", "LOCAL shown", timeout_s=30)
            await feed_ready(app)
            assert len(accounts.spawned) == 1 and app.session.client.base_url != sim.url
            await settle(pilot, lambda: "demo key · testnet" in header_of(app), what="the demo key in the banner")
            await settle(pilot, lambda: app.feed.state.account.summary is not None, what="the account")
            await choose(pilot, "paper-dead")
            said = lambda: [m for m in notes.messages if m.startswith("Cannot switch to paper-dead")]  # noqa: E731
            await until(pilot, said, "why not", timeout_s=30)
            assert "its built-in exchange did not start" in said()[0] and app.session.profile == "LOCAL"
            assert len(accounts.spawned) == 1
            await press_to_quit(pilot, "q")  # as the dashboard ends, the exchange started for the switch is told so
            [started] = accounts.spawned
            await until(pilot, lambda: started.proc is not None and started.proc.stdin.closed, "told to stop")
    finally:
        for exchange in accounts.spawned:
            exchange.stop()


async def test_a_switch_to_the_production_exchange_asks_first_and_disarms(
    sim: LocalExchange, clock: FrozenClock, trader: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alice armed (!), @, real-bob (a profile on the production exchange): a question names it as MAINNET with
    real money; n (the default) keeps Alice's account, still armed. @, bob-watch: the new account is not armed."""
    app = alice_app(sim, clock, trader, monkeypatch)
    async with app.run_test(size=(120, 30)) as pilot:
        await feed_ready(app)
        await pilot.press("exclamation_mark")
        await until(pilot, lambda: app.main.guards.armed, "armed")
        await choose(pilot, "real-bob")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        assert str(app.screen.query_one(".title").render()) == "Trade as real-bob MAINNET?"
        await pilot.press("n")
        await until(pilot, lambda: app.screen is app.main, "no switch")
        assert app.session.profile == "alice" and app.main.guards.armed
        await choose(pilot, "bob-watch")
        await switched_to(pilot, "bob-watch", BOB.address)
        assert not app.main.guards.armed


async def test_without_a_config_the_key_says_so(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    """An app made without the config's profiles (the screenshots'): @ says there are no other accounts."""
    from tests.ui.conftest import dashboard

    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (120, 30)) as (pilot, notes):
        await pilot.press("at")
        await until(pilot, lambda: any("No other accounts" in m for m in notes.messages), "the notice")
        assert app.screen is app.main

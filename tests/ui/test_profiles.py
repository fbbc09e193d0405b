"""Profiles from config.toml drive the dashboard: exchange, account, theme, keymap, thresholds, read-only."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.conftest import ALICE_KEY
from tests.test_cli import xtui
from tests.ui.conftest import Notes, feed_ready, settle
from tui import keys
from tui.api.client import Client
from tui.api.endpoints import MAINNET
from tui.api.signing import Signer
from tui.config.errors import ConfigError, StartupError
from tui.config.launch import Flags, identity
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.run import dashboard_app, prepare
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.order_form import OrderFormScreen
from tui.ui.widgets.header import ProfileHeader

ALICE = Signer(ALICE_KEY)
PASSWORD = "correct-horse-battery"


def write_config(text: str) -> Path:
    path = Path(os.environ["XTUI_CONFIG"])  # a temp file for every test (tests/conftest.py)
    path.write_text(text)
    return path


def desk_profile(url: str, *, theme: str = "xtui-mono", keymap: str = 'buy = "B"\npanic = "f12"') -> str:
    return f"""\
[profiles.desk]
url = "{url}"
key_env = "XTUI_TEST_DESK_KEY"
theme = "{theme}"
symbol = "ETH-PERP"
confirm_notional = 100
confirm_through_book_pct = 0.5

[profiles.desk.keymap]
{keymap}
"""


async def test_the_app_takes_the_profiles_exchange_account_theme_keymap_and_thresholds(
    sim: LocalExchange, clock: FrozenClock, trader: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(desk_profile(sim.url))
    monkeypatch.setenv("XTUI_TEST_DESK_KEY", ALICE_KEY)
    launch = prepare("desk")
    ident = identity(launch)
    assert ident.account == ALICE.address and ident.signer is not None and launch.label == "desk"
    assert launch.profile.endpoints().api == sim.url and launch.warnings == ()
    app = dashboard_app(
        launch, ident, client=trader, wall_clock=lambda: clock.now_ms() / 1000, feed_options={"poll_s": 0.5}
    )
    app.feed.state.status.clock_drift_ms = 0
    notes = Notes()
    async with app.run_test(size=(120, 40), message_hook=notes) as pilot:
        await feed_ready(app)
        market = app.feed.state.market
        await settle(pilot, lambda: market.book.symbol == "ETH-PERP" and market.book.loaded, what="ETH-PERP first")
        await settle(pilot, lambda: app.feed.state.account.summary is not None, what="the account")
        assert app.theme == "xtui-mono"
        header = str(app.main.query_one(ProfileHeader).render())
        assert header.startswith("xtui  desk   trading as ") and "own key · testnet" in header
        assert app.main.desk.policy.max_notional == 100 and str(app.main.desk.policy.max_through_pct) == "0.5"

        await pilot.press("b")  # remapped to B by the profile
        await pilot.pause()  # the key handled: a binding would have pushed its form by now
        assert app.screen is app.main
        await pilot.press("B")
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form on B")
        await pilot.press(*"0.1", "enter")  # ~350 USDC: above the profile's 100 USDC threshold
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the confirmation")
        reasons = " ".join(str(s.render()) for s in app.screen.query(".reason"))
        assert "is above 100 USDC" in reasons
        await pilot.press("n", "escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")

        await pilot.press("f12")  # PANIC, remapped
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the panic question")
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
    assert (await trader.open_orders(ALICE.address)).data == []  # nothing was sent


def test_a_bad_binding_id_or_theme_is_an_error_naming_its_line(monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_config(desk_profile("http://127.0.0.1:9", keymap='buy = "B"\nbuyy = "b"'))
    with pytest.raises(ConfigError, match=re.escape(f"{path} line 11: unknown binding id 'buyy'")):
        prepare("desk")
    path = write_config(desk_profile("http://127.0.0.1:9", theme="solarised"))
    xtuis = "xtui, xtui-colorblind, xtui-light, xtui-mono"  # xtui's own, not the dozen Textual also takes
    with pytest.raises(ConfigError, match=re.escape(f"{path} line 4: unknown theme 'solarised' (xtui's: {xtuis})")):
        prepare("desk")
    with pytest.raises(StartupError, match="--theme: unknown theme 'nope'"):
        prepare("desk", Flags(theme="nope"))
    monkeypatch.setenv("XTUI_THEME", "nope-either")
    with pytest.raises(ConfigError, match=r"^XTUI_THEME: unknown theme 'nope-either'"):
        prepare("desk")


async def test_the_command_line_reports_profile_errors_before_the_screen_is_taken(sim: LocalExchange) -> None:
    path = write_config(desk_profile(sim.url, keymap='sell = "S"\nno_such_action = "z"'))
    rc, out, err = await xtui("--profile", "desk")
    assert rc == 1 and out == ""
    assert err == f"xtui: {path} line 11: unknown binding id 'no_such_action' (the help screen, ?, lists every id)\n"

    # the production exchange: the warning first, then the refusal (no key, no account), nothing started
    write_config("")
    rc, out, err = await xtui("--profile", "mainnet")
    lines = err.splitlines()
    assert rc == 1 and lines[0].startswith("warning: profile mainnet (chosen by --profile) is the production")
    assert lines[1].startswith("xtui: profile mainnet has no key and no account")

    # never by default, never through a plain URL
    rc, _, err = await xtui(env={"XTUI_URL": MAINNET.api})
    assert rc == 1 and "only when a profile is named: --profile mainnet" in err
    rc, _, err = await xtui("--url", MAINNET.api, "--address", ALICE.address)
    assert rc == 1 and "--url: the production exchange is reached only with --mainnet or --profile mainnet" in err


def test_a_keystore_profile_asks_three_times_then_stops(monkeypatch: pytest.MonkeyPatch, answers: list[str]) -> None:
    monkeypatch.setattr(keys, "SCRYPT_N", 1 << 10)
    address = keys.import_key("desk-key", ALICE_KEY, PASSWORD)
    write_config('[profiles.desk]\nurl = "http://127.0.0.1:9"\nkeystore = "desk-key"\n')
    answers += ["wrong-one-1", "wrong-one-2", "wrong-one-3", PASSWORD]
    launch = prepare("desk")
    with pytest.raises(StartupError, match="wrong password for keystore desk-key after 3 tries; nothing was changed"):
        identity(launch)
    assert answers == [PASSWORD]
    ident = identity(launch)
    assert ident.signer is not None and ident.account == address and not answers

    # read-only: no password is asked for and no key is held; the account comes from the keystore's file
    answers[:] = ["never asked"]
    ident = identity(prepare("desk", Flags(read_only=True)))
    assert ident.signer is None and ident.account == address and answers == ["never asked"]

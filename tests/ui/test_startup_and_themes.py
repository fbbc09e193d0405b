"""How xtui starts (profiles from flags, the embedded exchange) and the theme files."""

from __future__ import annotations

import json
import re
import secrets
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from tui.api.endpoints import MAINNET, TESTNET
from tui.api.signing import Signer
from tui.config.errors import StartupError
from tui.config.launch import Flags, Identity, Launch, apply_flags, identity, profile_name
from tui.config.profiles import resolve
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.sim.server.local_exchange import LocalExchange, SimConfig
from tui.sim.server.ratelimit import Limits
from tui.ui.run import prepare
from tui.ui.themes import (
    SEMANTIC_DEFAULTS,
    THEME_DIR,
    ThemeError,
    builtin_themes,
    known_themes,
    load_theme,
    theme_from_dict,
    user_theme_dir,
    xtui_themes,
)

KEY = "0x" + "c3" * 32
ADDR = Signer(KEY).address


def start(profile: str | None = None, **flags: Any) -> tuple[Launch, Identity]:
    """What ``xtui [--profile NAME] [flags]`` starts with (no config file: the built-in profiles)."""
    launch = apply_flags(resolve(profile), Flags(**flags))
    return launch, identity(launch)


def test_local_without_flags_makes_a_demo_key() -> None:
    launch, ident = start()
    assert launch.label == "LOCAL" and launch.profile.builtin_exchange and ident.demo_key
    assert ident.signer is not None and ident.account == ident.signer.address
    assert launch.profile.endpoints("http://127.0.0.1:5555").ws == "ws://127.0.0.1:5555/ws/"


def test_remote_profiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XTUI_TEST_KEY", KEY)
    launch, ident = start(mainnet=True, key_env="XTUI_TEST_KEY")
    ends = launch.profile.endpoints()
    assert (launch.label, ends.api, ends.ws, ident.account) == ("MAINNET", MAINNET.api, MAINNET.ws, ADDR)
    assert launch.mainnet and launch.warnings == ("warning: --mainnet: the production exchange: real money",)
    launch, ident = start(testnet=True, address=ADDR.lower())
    assert launch.label == "TESTNET" and launch.profile.testnet and ident.signer is None and ident.account == ADDR
    launch, ident = start(url="https://exchange.example.com:8443/", address=ADDR)
    assert (
        launch.label == "exchange.example.com"
        and launch.profile.endpoints().ws == "wss://exchange.example.com:8443/ws/"
    )
    assert profile_name(MAINNET.api + "/") == "MAINNET" and profile_name(TESTNET.api) == "TESTNET"


def test_startup_refusals(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XTUI_UNSET_KEY", raising=False)
    with pytest.raises(StartupError, match="--address ADDR to watch"):
        start(mainnet=True)
    with pytest.raises(StartupError, match="XTUI_UNSET_KEY is not set"):
        start(testnet=True, key_env="XTUI_UNSET_KEY")
    with pytest.raises(StartupError, match="not an account address"):
        start(testnet=True, address="0x123")
    with pytest.raises(StartupError, match="only with --mainnet or --profile mainnet"):
        start(url=MAINNET.api, address=ADDR)  # the production exchange is never reached by a plain URL
    secret = "0x" + "zq" * 32
    monkeypatch.setenv("XTUI_BAD_KEY", secret)
    with pytest.raises(StartupError, match="XTUI_BAD_KEY") as info:
        start(testnet=True, key_env="XTUI_BAD_KEY")
    assert "zq" not in str(info.value)  # the value itself is never echoed


def test_embedded_exchange_serves_from_its_own_thread() -> None:
    import httpx

    serving = lambda: [t for t in threading.enumerate() if t.name == "xtui-local-exchange"]  # noqa: E731
    before = serving()
    with EmbeddedExchange() as ex:
        assert ex.url.startswith("http://127.0.0.1:")
        r = httpx.post(ex.url + "/info", json={"method": "ticker", "params": {"symbol": "BTC-PERP"}})
        assert r.status_code == 200 and r.json()[0]["symbol"] == "BTC-PERP"
        assert ex.call(lambda sim: sim.url) == ex.url
        assert len(serving()) == len(before) + 1  # its own thread
    assert serving() == before  # gone once it is left


def test_shipped_themes_have_the_trading_colours() -> None:
    themes = {t.name: t for t in builtin_themes()}
    assert {"xtui", "xtui-colorblind", "xtui-light", "xtui-mono"} <= set(themes)
    for theme in themes.values():
        assert set(SEMANTIC_DEFAULTS) <= set(theme.variables), theme.name
    cb = themes["xtui-colorblind"].variables
    assert cb["bid"] == cb["up"] and cb["bid"].lower().startswith("#3b8bea")  # blue, not green
    assert not themes["xtui-light"].dark
    assert len(list(THEME_DIR.glob("*.toml"))) == 4


def test_theme_files_are_validated(tmp_path: Path) -> None:
    good = tmp_path / "mine.json"
    good.write_text(json.dumps({"name": "mine", "primary": "#112233", "variables": {"bid": "#00ff00"}}))
    theme = load_theme(good)
    assert theme.variables["bid"] == "#00ff00" and theme.variables["ask"] == SEMANTIC_DEFAULTS["ask"]
    with pytest.raises(ThemeError, match="unknown key 'primry'"):
        theme_from_dict({"name": "x", "primry": "#000"})
    with pytest.raises(ThemeError, match="'primary' is required"):
        theme_from_dict({"name": "x"})
    with pytest.raises(ThemeError, match=r"variables\.bid: 'greenish' is not a colour"):
        theme_from_dict({"name": "x", "primary": "#000000", "variables": {"bid": "greenish"}})
    bad = tmp_path / "broken.toml"
    bad.write_text("name = ")
    with pytest.raises(ThemeError, match=r"broken\.toml"):
        load_theme(bad)


def test_user_themes_load_beside_the_shipped_ones(tmp_path: Path) -> None:
    """A theme file in the data directory's themes/ can be chosen by name; one with a shipped name replaces it."""
    user = user_theme_dir()
    user.mkdir(parents=True)
    (user / "desk.toml").write_text('name = "desk"\nprimary = "#224466"\n[variables]\nbid = "#00aa00"\n')
    (user / "xtui-mono.json").write_text(json.dumps({"name": "xtui-mono", "primary": "#777777"}))
    themes = {t.name: t for t in xtui_themes()}
    assert themes["desk"].variables["bid"] == "#00aa00"
    assert themes["xtui-mono"].primary == "#777777"
    assert "xtui" in themes and "desk" in known_themes()
    launch = prepare(None, Flags(theme="desk"))
    assert launch.options.theme == "desk"


def test_a_bad_user_theme_stops_the_start_with_its_file_named() -> None:
    """Tried: a user theme that is not TOML, and one with a colour that is not a colour; each stops `xtui` before
    the screen is taken, naming the file; the shipped themes are untouched."""
    user = user_theme_dir()
    user.mkdir(parents=True)
    bad = user / "broken.toml"
    bad.write_text("name = ")
    with pytest.raises(StartupError, match=rf"theme file {re.escape(str(user))}/broken\.toml: "):
        prepare(None, Flags())
    bad.write_text('name = "broken"\nprimary = "#000000"\n[variables]\nbid = "greenish"\n')
    with pytest.raises(StartupError, match=r"broken\.toml.*variables\.bid: 'greenish' is not a colour"):
        prepare(None, Flags())
    assert {t.name for t in builtin_themes()} >= {"xtui", "xtui-mono"}


@pytest.mark.parametrize(
    "sim_config",
    [SimConfig(seed=7, market=False, limits=Limits()), SimConfig(seed=7, market=False, faucet_mode="explicit")],
    ids=["faucet-auto", "faucet-explicit"],
)
async def test_the_demo_account_is_funded_by_the_faucet_before_the_feed_looks_at_it(
    sim: LocalExchange, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tried: a fresh key on the local exchange, under --faucet auto and explicit. The exchange says it has a faucet
    (X-Xtui-Faucet) in its first answer to the feed's market load; the dashboard asks it to fund the key's account
    (POST /faucet, once) and the feed looks at the account only once that is answered: no account query goes out
    before the funds are there, no signed action is sent to fund it, and the order form shows the funds, not
    "avail 0.00". (Before, a hidden cancelAll funded it under auto; under explicit it stayed unfunded.)"""
    from tests.conftest import QUIET_WS, client_for
    from tests.ui.conftest import drawn, feed_ready
    from tests.ui.test_order_form import buy_form
    from tui.api.http import HttpClient
    from tui.feed.worker import Feed
    from tui.ui.app import make_app

    events: list[str] = []  # "sent X" and "answered X": X an /info method, or "exchange" for a signed action
    send = HttpClient.send

    async def recorded(self: HttpClient, endpoint: str, body: dict[str, Any]) -> bytes:
        what = body.get("method", endpoint) if endpoint == "info" else endpoint
        events.append(f"sent {what}")
        try:
            return await send(self, endpoint, body)
        finally:
            events.append(f"answered {what}")

    monkeypatch.setattr(HttpClient, "send", recorded)
    refreshes: list[str] = []  # the feed's loader refreshes the account once; polls and reconnects do not start
    refresh = Feed.refresh_account

    async def counted(feed: Feed) -> None:
        refreshes.append("refresh")
        await refresh(feed)

    monkeypatch.setattr(Feed, "refresh_account", counted)
    key = "0x" + secrets.token_hex(32)
    async with client_for(sim, key, clock) as client:
        app = make_app(
            client,
            sim.ws_url,
            Signer(key),
            demo_key=True,
            fund=True,
            feed_options={"poll_s": 30, "ws_options": QUIET_WS},
        )
        async with app.run_test(size=(160, 48)) as pilot:
            await feed_ready(app)
            await drawn(pilot)
            summary = app.feed.state.account.summary
            assert summary is not None and summary.collateral, "the account is not funded"
            form = await buy_form(pilot)
            said = " ".join(str(form.query_one(f"#{part}", Static).render()) for part in ("summary", "risk"))
            assert "avail " in said and "avail 0.00 " not in said and "avail — " not in said, said
    assert events.index("answered faucet") < events.index("sent account_summary"), " ".join(events)
    assert events.index("answered faucet") < events.index("sent positions"), " ".join(events)
    assert "sent exchange" not in events and events.count("sent faucet") == 1, " ".join(events)
    assert refreshes == ["refresh"]

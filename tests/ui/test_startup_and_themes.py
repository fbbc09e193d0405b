"""How xtui starts (profiles from flags, the embedded exchange) and the theme files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui.api.endpoints import MAINNET, TESTNET
from tui.api.signing import Signer
from tui.startup import EmbeddedExchange, StartupError, profile_name, resolve_profile
from tui.themes import SEMANTIC_DEFAULTS, THEME_DIR, ThemeError, builtin_themes, load_theme, theme_from_dict

KEY = "0x" + "c3" * 32
ADDR = Signer(KEY).address


def test_local_without_flags_makes_a_demo_key() -> None:
    p = resolve_profile(local_url="http://127.0.0.1:5555")
    assert p.name == "LOCAL" and p.local and p.demo_key and p.signer is not None
    assert p.account == p.signer.address and p.ws_url == "ws://127.0.0.1:5555/ws/"


def test_remote_profiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XTUI_TEST_KEY", KEY)
    p = resolve_profile(mainnet=True, key_env="XTUI_TEST_KEY")
    assert (p.name, p.api_url, p.ws_url, p.account) == ("MAINNET", MAINNET.api, MAINNET.ws, ADDR)
    p = resolve_profile(testnet=True, address=ADDR.lower())
    assert p.name == "TESTNET" and p.testnet and p.watch_only and p.account == ADDR
    p = resolve_profile(url="https://exchange.example.com:8443/", address=ADDR)
    assert p.name == "exchange.example.com" and p.ws_url == "wss://exchange.example.com:8443/ws/"
    assert profile_name(MAINNET.api + "/") == "MAINNET" and profile_name(TESTNET.api) == "TESTNET"


def test_startup_refusals(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XTUI_UNSET_KEY", raising=False)
    with pytest.raises(StartupError, match="--address ADDR to watch"):
        resolve_profile(mainnet=True)
    with pytest.raises(StartupError, match="XTUI_UNSET_KEY is not set"):
        resolve_profile(testnet=True, key_env="XTUI_UNSET_KEY")
    with pytest.raises(StartupError, match="not an account address"):
        resolve_profile(testnet=True, address="0x123")
    secret = "0x" + "zq" * 32
    monkeypatch.setenv("XTUI_BAD_KEY", secret)
    with pytest.raises(StartupError, match="XTUI_BAD_KEY") as info:
        resolve_profile(testnet=True, key_env="XTUI_BAD_KEY")
    assert "zq" not in str(info.value)  # the value itself is never echoed


def test_embedded_exchange_serves_from_its_own_thread() -> None:
    import httpx

    with EmbeddedExchange() as ex:
        assert ex.url.startswith("http://127.0.0.1:")
        r = httpx.post(ex.url + "/info", json={"method": "ticker", "params": {"symbol": "BTC-PERP"}})
        assert r.status_code == 200 and r.json()[0]["symbol"] == "BTC-PERP"
        assert ex.call(lambda sim: sim.url) == ex.url
    assert ex._thread is not None and not ex._thread.is_alive()


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

"""Which network xtui signs for and in which dialect: profiles, the ``network`` alias, ``--network``, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import xtui
from tui.api.endpoints import MAINNET
from tui.api.signing import Signer, recover_signer
from tui.cli.admin import render
from tui.config.errors import StartupError
from tui.config.launch import Flags, Identity, apply_flags
from tui.config.profiles import BUILTIN_PROFILES, ConfigError, ProfileConfig, load_config, resolve
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.run import dashboard_app

KEY = "0x" + "c3" * 32
NEW_KEY = "0x" + "4b" * 32


def test_every_built_in_profile_speaks_the_sdk_dialect_and_only_mainnet_signs_for_mainnet() -> None:
    assert {name: p.dialect for name, p in BUILTIN_PROFILES.items()} == dict.fromkeys(BUILTIN_PROFILES, "sdk")
    assert {name: p.network for name, p in BUILTIN_PROFILES.items()} == {
        "local": "testnet",
        "testnet": "testnet",
        "mainnet": "mainnet",
        "sim": "testnet",
        "paper": "testnet",
    }
    assert ProfileConfig("mine", url="https://example.com").network == "testnet"  # told nothing: testnet


async def test_a_testnet_profiles_client_sends_numeric_types_and_signs_cancel_by_cloid_as_1312() -> None:
    launch = apply_flags(resolve("testnet"), Flags())
    signer = Signer(KEY)
    app = dashboard_app(launch, Identity(signer, signer.address))
    client = app.client
    assert (client.dialect, client.testnet, client.account) == ("sdk", True, signer.address)
    body = client.sign("cancelByCloid", {"cancels": [{"cloid": "c-1", "instrumentId": 1}]})
    assert body["action"]["type"] == "1312"
    assert recover_signer(body["action"]["data"], 1312, body["signature"], testnet=True) == signer.address
    order = {"instrumentId": 1, "side": "b", "positionSide": "BOTH", "price": "1", "size": "1", "tif": "GTC"}
    order |= {"ro": False, "po": False, "cloid": "", "triggerPx": "", "isMarket": False, "tpsl": "", "grouping": ""}
    assert client.sign("placeOrder", {"orders": [order]})["action"]["type"] == "1301"
    await client.aclose()


def test_the_network_alias_and_its_conflicts(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[profiles.a]\nurl = "http://127.0.0.1:1"\nnetwork = "mainnet"\n\n[profiles.b]\ntestnet = false\n')
    config = load_config(path)
    assert config.profiles["a"].network == "mainnet" and config.profiles["b"].network == "mainnet"
    path.write_text('[profiles.a]\ntestnet = true\nnetwork = "mainnet"\n')
    with pytest.raises(ConfigError, match=r"line 3: network = \"mainnet\" and testnet = true disagree"):
        load_config(path)
    path.write_text('[profiles.a]\nnetwork = "devnet"\n')
    with pytest.raises(ConfigError, match=r'line 2: network: expected "testnet" or "mainnet"'):
        load_config(path)
    path.write_text('[profiles.a]\nurl = "http://127.0.0.1:1"\n')
    settings = resolve("a", env={"XTUI_CONFIG": str(path), "XTUI_NETWORK": "mainnet"}, path=path)
    assert settings.profile.network == "mainnet"
    shown = render(settings)
    assert "testnet = false  # from XTUI_NETWORK" in shown and "network =" not in shown  # it loads back
    with pytest.raises(ConfigError, match="XTUI_NETWORK and XTUI_TESTNET"):
        resolve("a", env={"XTUI_NETWORK": "mainnet", "XTUI_TESTNET": "true"}, path=path)


def test_the_network_flag() -> None:
    def network(profile: str | None = None, **flags: object) -> str:
        return apply_flags(resolve(profile), Flags(**flags)).profile.network  # type: ignore[arg-type]

    assert network(url="http://127.0.0.1:8765") == "testnet"  # a bare --url: the test network
    assert network(url="http://127.0.0.1:8765", network="mainnet") == "mainnet"
    assert network("sim") == "testnet" and network("sim", network="mainnet") == "mainnet"
    assert network() == "testnet" and network(network="mainnet") == "mainnet"  # the built-in exchange plays it
    assert network(mainnet=True) == "mainnet" and network(testnet=True) == "testnet"
    with pytest.raises(StartupError, match=f"--network testnet: {MAINNET.api} is the public mainnet exchange"):
        network(mainnet=True, network="testnet")


async def test_the_cli_signs_a_new_key_for_the_network_a_default_sim_plays(sim: LocalExchange) -> None:
    env = {"XTUI_K": NEW_KEY}
    me = Signer(NEW_KEY).address
    rc, out, err = await xtui("exchange", "cancelAll", "--key-env", "XTUI_K", "--url", sim.url, env=env)
    assert rc == 0 and err == "" and json.loads(out)["address"] == me  # a new key lands on its own account

    fresh = {"XTUI_K": "0x" + "6c" * 32}
    rc, out, err = await xtui(
        "exchange", "cancelAll", "--key-env", "XTUI_K", "--url", sim.url, "--network", "mainnet", env=fresh
    )
    warning, error = err.splitlines()
    assert rc == 1 and out == ""
    assert warning == (
        "xtui: warning: the exchange plays testnet but xtui signs for mainnet: your orders would be applied to "
        "another account (sign for testnet with --network testnet, or the profile's network)"
    )
    assert error.startswith("xtui: cancelAll was applied to account ") and Signer(fresh["XTUI_K"]).address in error
    assert fresh["XTUI_K"][2:] not in err


async def test_the_cli_dialect_flag(sim: LocalExchange) -> None:
    env = {"XTUI_K": KEY}
    base = ("--key-env", "XTUI_K", "--url", sim.url)
    order = '[{"instrumentId": 1, "side": "b", "positionSide": "BOTH", "price": "90000", "size": "0.01", "tif": "GTC",'
    order += (
        ' "ro": false, "po": false, "cloid": "d-1", "triggerPx": "", "isMarket": false, "tpsl": "", "grouping": ""}]'
    )
    cancel = 'cancels=[{"cloid": "d-1", "instrumentId": 1}]'
    for dialect, code in ((None, 1312), ("seed", 1303)):
        flags = ("--dialect", dialect) if dialect else ()
        rc, _, err = await xtui("exchange", "placeOrder", f"orders={order}", *base, *flags, env=env)
        assert rc == 0, err
        rc, out, err = await xtui("exchange", "cancelByCloid", cancel, *base, *flags, env=env)
        assert rc == 0 and json.loads(out)["tx_type"] == code, err

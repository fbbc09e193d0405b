"""Which account an SDK key is, signing for the network the sim plays or for the other one; and the explicit
faucet, as the SDK meets them. Each test says what was tried."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest


@pytest.mark.parametrize("network", ["testnet", "mainnet"])
def test_a_signature_for_the_other_network_is_refused_and_never_credited_or_funded(
    sim_url: Callable[..., str], drive: Callable[..., dict[str, Any]], network: str
) -> None:
    """Tried with the SDK over HTTP and the socket: a funded account's order signed for the other network (refused,
    naming both networks; balance and open orders unchanged; before, it was credited to the account), its agent's
    likewise, and a new key signing for the other network first (never its own account, never funded)."""
    other = "mainnet" if network == "testnet" else "testnet"
    said = f"signed for {other}; this exchange plays {network}"
    r = drive("drive_networks.py", sim_url(network), network)
    for transport in ("http", "ws"):
        addr = r[f"{transport}.addresses"]["value"]
        assert r[f"{transport}.own.first"]["value"]["address"] == addr["own"]
        before = r[f"{transport}.own.collateral"]["value"]
        assert before["USDC"]["balance"] == 100_000
        for refused in (f"{transport}.own.order_other", f"{transport}.agent.order_other"):
            if transport == "ws":  # the SDK raises the JSON-RPC error
                assert not r[refused]["ok"] and said in r[refused]["error"], r[refused]
            else:  # the SDK returns the envelope (HTTP 200), which says why
                assert r[refused]["value"]["error"].startswith(said) and r[refused]["value"]["address"] == ""
        assert r[f"{transport}.own.collateral_after"]["value"] == before
        assert r[f"{transport}.own.open_after"]["value"] == r[f"{transport}.agent.open_after"]["value"] == 0
        assert r[f"{transport}.agent.signs_own"]["value"]["address"] == addr["own"]
        assert r[f"{transport}.stranger.other"]["value"]["address"] != addr["stranger"]
        held = r[f"{transport}.stranger.collateral"]["value"]  # the key's own address holds nothing
        assert all(c["balance"] == 0 for c in held.values()), held


def test_under_the_explicit_faucet_an_unfunded_sdk_key_does_not_exist_until_xtui_sim_faucet_funds_it(
    sim_url: Callable[..., str], drive: Callable[..., dict[str, Any]]
) -> None:
    """Tried on `xtui sim --faucet explicit`: an SDK key's order (refused: account does not exist), then
    `xtui sim faucet ADDR --url URL`, then the same key's order (placed on its own account)."""
    from tui.api.signing import Signer

    key = "0x" + os.urandom(32).hex()
    address = Signer(key).address
    url = sim_url("testnet", "--faucet", "explicit")
    before = drive("drive_networks.py", url, "testnet", "explicit", key, "before")["before"]
    assert before["ok"] and before["value"]["error"].startswith(f"account does not exist: {address}"), before
    command = [sys.executable, "-m", "tui", "sim", "faucet", address, "--url", url]
    funded = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert funded.returncode == 0 and funded.stdout.startswith(f"funded {address} with 100000 USDC"), funded.stderr
    after = drive("drive_networks.py", url, "testnet", "explicit", key, "after")["after"]
    assert after["ok"] and after["value"]["error"] == "" and after["value"]["address"] == address, after

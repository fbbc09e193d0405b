"""Which account an SDK key is, signing for the network the sim plays or for the other one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.mark.parametrize("network", ["testnet", "mainnet"])
def test_known_keys_are_recognised_under_either_source(
    sim_url: Callable[[str], str], drive: Callable[..., dict[str, Any]], network: str
) -> None:
    r = drive("drive_networks.py", sim_url(network), network)
    assert {k: x["error"] for k, x in r.items() if not x["ok"]} == {}
    for transport in ("http", "ws"):
        addr = r[f"{transport}.addresses"]["value"]
        account = {k.split(".", 1)[1]: x["value"]["address"] for k, x in r.items() if k.startswith(f"{transport}.")
                   and k != f"{transport}.addresses"}  # fmt: skip
        # a new key signing for the sim's network is its own account, then recognised signing for the other
        assert account["own.first"] == account["own.then_other"] == addr["own"]
        # an agent added by a signature for the other network trades for its account, under that source too
        assert account["agent.added_by_other"] == account["agent.signs_other"] == addr["own"]
        # a new key signing for the other network first: the account its signature recovers under the sim's
        assert account["stranger.other"] != addr["stranger"]

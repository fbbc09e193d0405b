"""The server tests here talk through xtui's ``Client``, which signs for the main network unless told
otherwise: their exchange plays the main network. The default (test network) has its own tests."""

from __future__ import annotations

import pytest

from tui.sim.server.local_exchange import SimConfig
from tui.sim.server.ratelimit import Limits


@pytest.fixture
def sim_config() -> SimConfig:
    return SimConfig(seed=7, market=False, limits=Limits(), network="mainnet")

"""The server tests here talk through xtui's ``Client``, which signs for the main network unless told
otherwise: their exchange plays the main network. The default (test network) has its own tests."""

from __future__ import annotations

import pytest

from tui.sim.ratelimit import Limits
from tui.sim.server import SimConfig


@pytest.fixture
def sim_config() -> SimConfig:
    return SimConfig(seed=7, market=False, limits=Limits(), network="mainnet")

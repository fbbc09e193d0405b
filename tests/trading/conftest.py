"""Feeds on the local exchange for what trading reads of the market (the fixture of ``tests/feed``), and a real
`xtui sim` process for the fault tests (``exchange``)."""

from collections.abc import AsyncIterator

import pytest

from tests.feed.conftest import make_feed
from tests.feed.sim_process import SimProcess, sim_process

__all__ = ["exchange", "make_feed"]


@pytest.fixture
async def exchange() -> AsyncIterator[SimProcess]:
    """A real `xtui sim --quiet-market` on a free port, stopped after the test whatever it did to it."""
    async with sim_process() as sim:
        yield sim

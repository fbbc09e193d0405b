"""`xtui exchange` (a real process, this machine's clock) against an exchange whose clock is 70 s ahead or behind."""

from __future__ import annotations

import re
import time

import pytest

from tests.test_cli import KEY, xtui
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange

SKEW_MS = 70_000


@pytest.fixture(params=[SKEW_MS, -SKEW_MS], ids=["exchange-ahead", "exchange-behind"])
def exchange_skew_ms(request: pytest.FixtureRequest) -> int:
    return int(request.param)


@pytest.fixture
def clock(exchange_skew_ms: int) -> FrozenClock:
    """The exchange's clock: this machine's, ``exchange_skew_ms`` off (it stays there while the test runs)."""
    return FrozenClock(int(time.time() * 1000) + exchange_skew_ms)


async def test_exchange_goes_through_with_a_skewed_clock(sim: LocalExchange) -> None:
    rc, out, err = await xtui("exchange", "cancelAll", "--key-env", "XTUI_K", "--url", sim.url, env={"XTUI_K": KEY})
    # behind: refused as expired once, then signed again on the exchange's clock
    assert rc == 0 and '"error":""' in out.replace(" ", ""), err


async def test_expiry_refusal_says_how_far_off_the_clock_is(sim: LocalExchange, exchange_skew_ms: int) -> None:
    # an expiry set on this machine's clock, 5 s ahead of it (or already past on the exchange's): refused
    expires = int(time.time() * 1000) + 5_000 if exchange_skew_ms > 0 else sim.clock.now_ms() - 1
    started = time.monotonic()
    rc, out, err = await xtui(
        "exchange", "cancelAll", f"expiresAfter={expires}", "--key-env", "XTUI_K", "--url", sim.url,
        env={"XTUI_K": KEY},
    )  # fmt: skip
    assert rc == 1 and out == "" and err.count("\n") == 1
    way = "behind" if exchange_skew_ms > 0 else "ahead of"
    m = re.search(rf"your clock is (\d+) s {way} the exchange's", err)
    assert m is not None, err
    # the exchange's clock stands still while this machine's runs on: 70 s, off by at most the time it took
    took_s = time.monotonic() - started
    assert abs(int(m.group(1)) - SKEW_MS // 1000) <= took_s + 1, (m.group(1), took_s)

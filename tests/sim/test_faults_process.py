"""``xtui sim --faults`` as a real process: its first lines and header say which faults are on, hostile flag values
are refused before it starts (exit 2, a clear message), and xtui's own feed and TWAP come through ``--faults
brutal``: no crash, and no fill but the exchange's."""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator
from decimal import Decimal

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import ALICE_KEY, BOB_KEY
from tests.feed.sim_process import START_S, SimProcess, free_port, running_feed
from tests.trading.test_twap_faults import Said, btc_context, position, runner
from tui.api.client import Client
from tui.api.errors import ActionRejected
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.fault_options import plan_from_args
from tui.sim.options import add_sim_arguments
from tui.sim.server.fault_plan import PRESETS, parse_latency, parse_rate, parse_seconds
from tui.trading.twap import TwapSpec

WAIT_S = 60.0  # the longest any step may take on a busy machine, under brutal faults
BRUTAL_SEED_7 = (
    "brutal seed=7 http=50~400ms ws-feed=20~300ms ws-ack=50~400ms refuse=0.1 ws-drop=2s info-timeout=0.05 "
    "partial-fill=0.3 book=thin"
)


class FaultySim(SimProcess):
    """``xtui sim --quiet-market --faults brutal --seed 7 --ws-drop-every 2``, its first two lines on standard
    error kept."""

    def __init__(self, port: int) -> None:
        super().__init__(port, "--faults", "brutal", "--seed", "7", "--ws-drop-every", "2", said=2)


@pytest.fixture
async def brutal() -> AsyncIterator[FaultySim]:
    sim = FaultySim(free_port())
    await sim.start()
    try:
        yield sim
    finally:
        await sim.stop()


async def test_the_first_lines_and_every_answer_say_which_faults_are_on(brutal: FaultySim) -> None:
    """The start-up lines name the preset, the seed and every knob (the override of the drop included), and so
    does the X-Xtui-Faults header of an answer."""
    assert brutal.said == ["market seed 7 (--seed 7 plays the same market again)", f"FAULTS: {BRUTAL_SEED_7}"]
    async with httpx.AsyncClient(timeout=WAIT_S) as h:
        resp = await h.post(brutal.url + "/exchange", content=b"{}")
    assert resp.headers["x-xtui-faults"] == BRUTAL_SEED_7


async def test_the_feed_comes_through_brutal_faults_with_the_exchanges_book(brutal: FaultySim) -> None:
    """A headless feed on the brutal exchange, whose sockets are dropped every 2 s: it reconnects each time, is
    live again, and its book shows Alice's bid, placed through refusals (sent again until taken)."""
    feed, watcher, task, client = await running_feed(brutal, http_timeout=1.0)
    status, book = feed.state.status, feed.state.market.book
    try:
        async with Client(brutal.url, signer=Signer(ALICE_KEY), testnet=True, timeout=WAIT_S) as alice:
            async with asyncio.timeout(WAIT_S):
                while True:
                    try:
                        await alice.place_order([order_item(1, "b", "99000", "0.5")])
                        break
                    except ActionRejected as exc:
                        assert exc.message.startswith("injected fault (xtui sim --faults)"), exc.message
        await watcher.until(lambda: status.reconnects >= 2 and status.connection == "live", WAIT_S)
        await watcher.until(lambda: book.size_at("bids", Decimal(99000)) == Decimal("0.5"), WAIT_S)
        assert not book.stale
    finally:
        await feed.stop()
        await task
        await client.aclose()


@pytest.mark.long
async def test_a_twap_under_brutal_faults_trades_only_what_the_exchange_records(brutal: FaultySim) -> None:
    """TWAP 0.05 BTC in 5 slices on the brutal exchange (latency, refusals, /info timeouts, partial fills): it
    ends (done, or stopped at a refusal that names the injected fault), never past its total, and the size it
    says it bought is Alice's position on the exchange."""
    async with asyncio.timeout(WAIT_S):
        async with Client(brutal.url, signer=Signer(BOB_KEY), testnet=True, timeout=WAIT_S) as bob:
            while True:
                try:
                    await bob.place_order([order_item(1, "s", str(100_000 + i), "1") for i in range(5)])
                    break
                except ActionRejected:
                    continue
    said = Said()
    async with Client(brutal.url, signer=Signer(ALICE_KEY), testnet=True, timeout=0.5) as alice:
        twaps = runner(alice, await btc_context(brutal.url), said)
        twap = twaps.start(TwapSpec("BTC-PERP", "buy", Decimal("0.05"), 5, 0.05))
        await said.until(lambda: not twap.active)
    held = await position(brutal.url)
    assert held == twap.filled <= Decimal("0.05"), (held, twap.filled, said.messages)
    if twap.state == "stopped":
        assert "injected fault (xtui sim --faults)" in said.messages[-1], said.messages
    else:
        assert twap.state == "done", said.messages


def parse(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="xtui sim", exit_on_error=True)
    add_sim_arguments(p)
    return p.parse_args(argv)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (("--faults", "chaos"), "invalid choice: 'chaos'"),
        (("--http-latency", "80~20"), "a latency's low end comes first: 80~20 is backwards"),
        (("--http-latency", "-5"), "whole milliseconds (ASCII digits)"),
        (("--ws-feed-latency", "1~2~3"), "a latency is MS or LO~HI"),
        (("--ws-ack-latency", "99999999"), "a latency is at most 60000 ms"),
        (("--ws-ack-latency", "٣"), "whole milliseconds (ASCII digits)"),
        (("--refuse-rate", "5"), "a share, not a percentage"),
        (("--refuse-rate", "nan"), "a rate is a plain decimal from 0 to 1"),
        (("--info-timeout-rate", "1e-2"), "a rate is a plain decimal from 0 to 1"),
        (("--partial-fill-rate", "-0.1"), "a rate is a plain decimal from 0 to 1"),
        (("--ws-drop-every", "1.5"), "whole seconds (ASCII digits)"),
        (("--ws-drop-every", "100000"), "at most 86400 s (a day)"),
        (("--fault-seed", "x"), "not a whole number"),
    ],
)
def test_hostile_fault_values_are_refused_with_a_clear_message(
    argv: tuple[str, ...], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each bad value is an argparse error (exit 2) naming the flag and what is wrong, before anything starts."""
    with pytest.raises(SystemExit) as exit_:
        parse(*argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {argv[0]}" in err and said in err, err


def test_a_bad_value_ends_the_real_command_with_exit_2() -> None:
    """``xtui sim --refuse-rate 2``: exit 2 and the message on standard error, no exchange started."""
    done = subprocess.run(
        [sys.executable, "-m", "tui", "sim", "--refuse-rate", "2"], capture_output=True, text=True, timeout=START_S
    )
    assert done.returncode == 2
    said = "--refuse-rate: a rate is from 0 to 1 (a share, not a percentage), got '2'"
    assert done.stderr == f"xtui sim: error: {said} (xtui sim --help)\n", done.stderr  # one line, no usage block
    assert "listening" not in done.stdout


def test_knobs_override_the_preset_and_the_fault_seed_defaults_to_the_market_seed() -> None:
    """--faults realistic --refuse-rate 0.5: the preset's other values stay; no --fault-seed: --seed's."""
    plan = plan_from_args(parse("--faults", "realistic", "--refuse-rate", "0.5", "--seed", "9"))
    assert plan.refuse_rate == Decimal("0.5") and plan.http == PRESETS["realistic"].http and plan.seed == 9
    assert plan_from_args(parse("--seed", "9", "--fault-seed", "4")).seed == 4
    assert not plan_from_args(parse()).active
    assert [name for name, p in PRESETS.items() if not p.active] == ["none"]


@pytest.mark.parametrize("name", ["none", "realistic", "thin-book", "brutal"])
def test_each_preset_is_named_by_its_line(name: str) -> None:
    """``--faults NAME --seed 3``: the plan's line starts with the preset and the seed; only ``none`` is off."""
    plan = plan_from_args(parse("--faults", name, "--seed", "3"))
    assert plan.describe(3).startswith(f"{name} seed=3") and plan.active == (name != "none")


@given(st.text(max_size=40))
def test_the_fault_value_parsers_take_any_text_without_an_unexpected_error(text: str) -> None:
    """Every text is a value or a ValueError with a reason, never another exception."""
    for parser in (parse_latency, parse_rate, parse_seconds):
        try:
            parser(text)
        except ValueError as exc:
            assert str(exc)

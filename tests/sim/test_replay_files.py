"""Recordings that cannot be replayed: refused in words, with exit status 2 and no traceback, before anything serves.

A recording is made in process (a source and a recording mirror on loopback, frozen clocks, a few polls), then
spoiled one way at a time: not a recording, another version, cut short (mid-line and at a line's end), a damaged
line, a line over the bound, times out of order. The same words come from ``xtui sim --replay``.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.feed.sim_process import free_port
from tui.sim.clock import FrozenClock
from tui.sim.engine import OrderRequest
from tui.sim.engine.instruments import USDC_ID
from tui.sim.mirror.record import MAX_LINE_BYTES, Recorder
from tui.sim.mirror.replay import RecordingError, ReplaySource, load_recording
from tui.sim.server.local_exchange import LocalExchange, SimConfig, open_exchange

START_MS = 1_767_225_700_000
TRADER = "0x" + "c3" * 20


async def _record(path: Path) -> None:
    source = LocalExchange(SimConfig(port=free_port(), seed=3), FrozenClock())
    await source.start()
    clock = FrozenClock(START_MS)
    mirror = await open_exchange(SimConfig(seed=5, mirror=source.url), clock, recorder=Recorder(path))
    await mirror.start()
    try:
        for _ in range(4):
            source.step(1_000)
            await mirror.poll_mirror()
            mirror.step(1_000)
        mirror.engine.deposit(TRADER, USDC_ID, Decimal(10) ** 6)  # a trade made here is recorded too
        mirror.engine.place_orders(TRADER, [OrderRequest(1, True, Decimal(0), Decimal("0.01"), "IOC", is_market=True)])
        mirror.step(100)
        await source.stop()
        assert not await mirror.poll_mirror()  # a failure is recorded too
    finally:
        await mirror.stop()
        await source.stop()


@pytest.fixture
async def recording(tmp_path: Path) -> Path:
    path = tmp_path / "good.jsonl"
    await _record(path)
    return path


def _spoil(recording: Path, lines: list[str], name: str = "bad") -> Path:
    bad = recording.with_name(f"{name}.jsonl")
    bad.write_text("".join(lines))
    return bad


async def test_a_good_recording_reads_back_whole(recording: Path) -> None:
    """Tried: four polls, a trade on the mirror and a failed poll recorded; read back, they are the source's answers
    in order, and a replay source fed them by its clock follows the last prices, then goes stale at the end."""
    rec = load_recording(recording)
    assert rec.start_ms == START_MS and rec.seed == 5
    events = list(rec.events())
    assert [e.answer is None for e in events] == [False] * 4 + [True]
    assert [(t["taker"].lower(), t["side"], t["size"]) for t in rec.trades()] == [(TRADER, "b", "0.01")]
    assert "BTC-PERP" in events[-2].answer.books if events[-2].answer else False
    clock = FrozenClock(rec.start_ms)
    replay = ReplaySource(rec, clock.now_ms)
    replay.catch_up(events[3].t)
    assert replay.live and replay.prices["BTC-PERP"].index > 0
    clock.set(rec.end_ms)
    replay.catch_up(rec.end_ms)
    assert replay.status().state == "stale" and replay.status().reason == "the recording ends here"


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines(keepends=True)


def _header(version: object) -> str:
    return json.dumps({"format": "xtui-sim-recording", "version": version}) + "\n"


SPOILS = {
    "not a recording": (lambda ls: ['{"hello": 1}\n', *ls[1:]], "is not the header of an xtui sim recording"),
    "a future version": (lambda ls: [_header(2), *ls[1:]], "format version '2' (written by a newer xtui)"),
    "an unknown version": (lambda ls: [_header("x"), *ls[1:]], "not a version this xtui knows"),
    "cut mid-line": (lambda ls: [*ls[:-2], ls[-2][:40]], "cut short: line"),
    "cut at a line's end": (lambda ls: ls[:-1], "cut short: no end line"),
    "a damaged line": (lambda ls: [*ls[:3], ls[3].replace('"', "'", 3), *ls[4:]], "line 4: damaged"),
    "a nonsense price": (
        lambda ls: [x.replace('"mark_price":"', '"mark_price":"lots', 1) if '"k":"poll"' in x else x for x in ls],
        "damaged",
    ),
    "times out of order": (
        lambda ls: [*ls[:-2], re.sub(r'"t":\d+', f'"t":{START_MS - 1}', ls[-2]), ls[-1]],
        "time goes backwards",
    ),
    "a line too long": (lambda ls: [*ls[:-1], " " * MAX_LINE_BYTES + "\n", ls[-1]], "longer than 4,000,000 bytes"),
    "empty": (lambda ls: [], "it is empty"),
    "a poll interval of 0": (lambda ls: [ls[0].replace('"poll_ms":1000', '"poll_ms":0'), *ls[1:]], "poll_ms"),
    "a move bound of 0": (lambda ls: [ls[0].replace('"max_move_pct":"20"', '"max_move_pct":"0"'), *ls[1:]], "max_mo"),
    "no usable instruments": (
        lambda ls: [ls[0], re.sub(r'"collaterals":\[.*?\],"tickers"', '"collaterals":[],"tickers"', ls[1]), *ls[2:]],
        "line 2: its instruments make no market: the source lists no stable token 1",
    ),
}


@pytest.mark.parametrize("spoil", SPOILS, ids=list(SPOILS))
async def test_a_spoiled_recording_is_refused_in_words(recording: Path, spoil: str) -> None:
    """Tried: each spoiling in ``SPOILS``; the loader names the file and what is wrong (a RecordingError)."""
    change, words = SPOILS[spoil]
    bad = _spoil(recording, change(_lines(recording)))
    with pytest.raises(RecordingError) as caught:
        load_recording(bad)
    assert str(bad) in str(caught.value) and words in str(caught.value)


def _xtui_sim(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui", "sim", "--port", "0", *args], capture_output=True, text=True, timeout=60
    )


async def test_xtui_sim_refuses_a_spoiled_recording_with_status_2(recording: Path) -> None:
    """Tried: ``xtui sim --replay`` on a future version, a recording cut short and a missing file: status 2, one
    line that says why, no traceback, nothing served."""
    lines = _lines(recording)
    for bad, words in (
        (_spoil(recording, [_header(9), *lines[1:]], "future"), "written by a newer xtui"),
        (_spoil(recording, lines[:-1], "short"), "cut short"),
        (recording.with_name("missing.jsonl"), "No such file"),
    ):
        done = _xtui_sim("--replay", str(bad), "--step")
        assert done.returncode == 2, done.stderr
        assert f"cannot replay {bad}" in done.stderr and words in done.stderr
        assert "Traceback" not in done.stderr and "listening" not in done.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--record", "x.jsonl"], "--record needs --mirror URL"),
        (["--step"], "--step moves the clock of a replay"),
        (["--replay", "x.jsonl", "--mirror", "http://127.0.0.1:9"], "--replay plays a recording"),
        (["--replay", "x.jsonl", "--step", "--speed", "10"], "--step and --speed: choose one"),
    ],
)
def test_flags_that_do_not_go_together_are_refused(args: list[str], words: str) -> None:
    """Tried: each pairing above; status 2 and the reason, before any file is read or written."""
    done = _xtui_sim(*args)
    assert done.returncode == 2 and words in done.stderr, done.stderr


async def test_the_clock_step_endpoint_takes_only_a_whole_number_of_ms() -> None:
    """Tried: good steps, then a negative, a fraction, a boolean, a string, no body, and too long a step: each bad
    one is a 400 in words, and the clock stays where it was."""
    import httpx

    sim = LocalExchange(SimConfig(stepped=True, market=False), FrozenClock(START_MS))
    await sim.start()
    try:
        async with httpx.AsyncClient(base_url=sim.url) as http:
            ok = await http.post("/clock/step", json={"ms": 1_500})
            assert ok.status_code == 200 and ok.json() == {"now_ms": START_MS + 1_500}
            for body in ({"ms": -1}, {"ms": 1.5}, {"ms": True}, {"ms": "5"}, {}, {"ms": 86_400_001}, [1]):
                bad = await http.post("/clock/step", json=body)
                assert bad.status_code == 400 and "whole number of ms" in bad.json()["message"], body
            garbage = await http.post("/clock/step", content=b"{nope")
            assert garbage.status_code == 400
        assert sim.clock.now_ms() == START_MS + 1_500
        assert Decimal(sim.engine.chain.height) > 0  # the step ran what 1.5 s makes happen: blocks
    finally:
        await sim.stop()


async def test_without_step_there_is_no_clock_endpoint() -> None:
    """Tried: POST /clock/step on an exchange that is not stepped: not found; its clock is not the client's."""
    import httpx

    sim = LocalExchange(SimConfig(market=False), FrozenClock(START_MS))
    await sim.start()
    try:
        async with httpx.AsyncClient(base_url=sim.url) as http:
            assert (await http.post("/clock/step", json={"ms": 1})).status_code == 404
        assert sim.clock.now_ms() == START_MS
    finally:
        await sim.stop()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """One good recording's bytes, for the module's property test."""
    path = tmp_path_factory.mktemp("recorded") / "good.jsonl"
    asyncio.run(_record(path))
    return path.read_bytes()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_whatever_is_done_to_a_recording_it_is_read_whole_or_refused_in_words(
    recorded: bytes, tmp_path: Path, data: st.DataObject
) -> None:
    """Tried (Hypothesis): a good recording cut at any byte, with any byte changed, or with a line dropped or
    doubled: the loader gives a recording or a RecordingError, never another exception."""
    lines = recorded.splitlines(keepends=True)
    how = data.draw(st.sampled_from(["cut", "byte", "drop", "double"]))
    if how == "cut":
        spoiled = recorded[: data.draw(st.integers(0, len(recorded)))]
    elif how == "byte":
        at = data.draw(st.integers(0, len(recorded) - 1))
        spoiled = recorded[:at] + bytes([data.draw(st.integers(0, 255))]) + recorded[at + 1 :]
    else:
        at = data.draw(st.integers(0, len(lines) - 1))
        spoiled = b"".join(lines[:at] + ([lines[at]] * 2 if how == "double" else []) + lines[at + 1 :])
    path = tmp_path / "spoiled.jsonl"
    path.write_bytes(spoiled)
    try:
        load_recording(path)
    except RecordingError as exc:
        assert str(path) in str(exc)


_PLAY = """
import resource, sys
from pathlib import Path
from tui.sim.mirror.replay import ReplaySource, load_recording
rec = load_recording(Path(sys.argv[1]))
replay = ReplaySource(rec, lambda: rec.start_ms)
replay.catch_up(rec.end_ms)
assert replay.status().reason == "the recording ends here", replay.status()
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _padded(good: bytes, path: Path, pad_bytes: int) -> Path:
    """``good``'s header, opening and past, then ``pad_bytes`` of short failure lines, then its end."""
    lines = good.splitlines(keepends=True)
    kept = [x for x in lines if not any(k in x for k in (b'"k":"poll"', b'"k":"fail"', b'"k":"trade"', b'"k":"end"'))]
    t = json.loads(lines[0])["start_ms"] + 1
    with path.open("wb") as f:
        f.writelines(kept)
        written = 0
        while written < pad_bytes:
            written += f.write(b'{"k":"fail","t":%d,"reason":"x"}\n' % t)
            t += 1
        f.write(b'{"k":"end","t":%d}\n' % t)
    return path


@pytest.mark.long
def test_a_replay_holds_a_line_of_the_recording_at_a_time_not_the_file(recorded: bytes, tmp_path: Path) -> None:
    """Tried: a recording padded with 16 MB of short lines, loaded and played to its end in a child, against one
    padded with 16 KB. Before, every line was read into a list (then every event kept): an 80 MB recording peaked at
    492 MB of RSS (34 MB now); here the peak grew by ~5 times the 16 MB. Now it grows by far less than the file."""
    peaks = []
    for pad in (16_000, 16_000_000):
        path = _padded(recorded, tmp_path / f"padded-{pad}.jsonl", pad)
        done = subprocess.run([sys.executable, "-c", _PLAY, str(path)], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        peaks.append(int(done.stdout.split()[-1]) * 1024)  # ru_maxrss is in KB on Linux
    assert peaks[1] - peaks[0] < 16_000_000 // 8, peaks

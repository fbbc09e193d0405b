"""Shared fixtures: a real local exchange on a loopback port with a frozen clock, and clients for it."""

from __future__ import annotations

import compileall
import io
import logging
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import tui
from tui.api.client import Client
from tui.api.limits import Governor
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange, SimConfig
from tui.sim.server.ratelimit import Limits

ALICE_KEY = "0x" + "a1" * 32
BOB_KEY = "0x" + "b0" * 32
# A frozen-clock exchange says nothing until a test steps its clock. Pinging a quiet socket every 30 s (as the
# SDKs do) rather than every 3 s keeps pongs, and the pictures the local exchange sends at a client's next frame,
# from landing in the middle of a test that was not about them.
QUIET_WS = {"ping_interval": 30.0, "idle_timeout": 90.0}


# The inner loop (``pytest -m "not slow"``) leaves out what drives the dashboard (Pilot, a pty), real processes and
# their faults, the exchanges' SDKs and the long tests: those prove more, and CI runs every one of them.
SLOW_FOLDERS = ("tests/ui/", "tests/compat/")
SLOW_FILES = ("_process", "_faults", "_pty", "pty_", "test_signals", "test_hang_up", "test_first_frame", "test_outages",
              "test_drift_outage", "test_screenshots", "test_bench_", "test_market_realism", "test_secrets_scan",
              "test_paper_start", "test_export_streaming", "test_keys.py", "test_oco_follows", "test_oco_resume",
              "test_replay", "test_mirror_queue", "test_faucet", "test_hostile_ws", "test_cli.py", "test_doctor",
              "test_safe_text", "test_regular_files", "test_hostile_kept_files", "test_layouts_file", "test_h1_client",
              "test_in_flight", "test_settle", "test_tool_book", "test_history.py", "test_config.py",
              "test_config_limits", "test_keystore_limits", "test_start_imports")  # fmt: skip


def pytest_sessionstart(session: pytest.Session) -> None:
    """``tui`` byte-compiled once, before any worker or child process imports it: where nothing writes byte-code
    (PYTHONDONTWRITEBYTECODE, set on some machines) each of the suite's hundreds of processes (``xtui``, ``xtui sim``,
    dashboards in a pty) would compile it from source again, ~0.6 s of CPU for the dashboard's modules."""
    if not hasattr(session.config, "workerinput"):  # the controller: before the workers start
        compileall.compile_dir(str(Path(tui.__file__).parent), quiet=1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``long`` (5 s and more: real processes, faults waited out, an hour of market) run first. xdist
    hands tests out in this order as workers free up, so the long ones overlap the short ones instead of one of
    them running alone at the end (a 16 s test did: the whole run waited 14 s on one worker). The slow ones
    (``SLOW_FOLDERS``, ``SLOW_FILES``, and the long ones) are marked ``slow``."""
    for item in items:
        where = item.nodeid.split("::")[0]
        if item.get_closest_marker("long") or where.startswith(SLOW_FOLDERS) or any(f in where for f in SLOW_FILES):
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: item.get_closest_marker("long") is None)  # stable: otherwise as collected


@pytest.fixture(autouse=True)
def _root_logger_as_it_was() -> Iterator[None]:
    """A test that sets xtui's logging up leaves its handlers on the root logger; their redacting filter takes each
    record's exception away (so that no later handler formats it again): the next test's caplog would see none."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in [h for h in root.handlers if h not in handlers]:
        root.removeHandler(handler)
        handler.close()
    root.setLevel(level)


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Config, keystores, logs and cache of every test (and of the xtui processes it starts) stay in a temp dir."""
    home = tmp_path_factory.mktemp("xtui-home")
    monkeypatch.setenv("XTUI_CONFIG", str(home / "config.toml"))
    monkeypatch.setenv("XTUI_DATA_DIR", str(home / "data"))
    monkeypatch.setenv("XTUI_LOG_DIR", str(home / "log"))
    monkeypatch.setenv("XTUI_CACHE_DIR", str(home / "cache"))


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock()


@pytest.fixture
def sim_config() -> SimConfig:
    """Override in a test module for other limits or a moving market."""
    return SimConfig(seed=7, market=False, limits=Limits())


@pytest.fixture
async def sim(clock: FrozenClock, sim_config: SimConfig) -> AsyncIterator[LocalExchange]:
    exchange = LocalExchange(sim_config, clock)
    await exchange.start()
    try:
        yield exchange
    finally:
        await exchange.stop()


def signs_for(sim: LocalExchange) -> bool:
    """The ``testnet`` flag a client needs to sign for the network ``sim`` plays."""
    return sim.config.network == "testnet"


class FakeTerminal(io.StringIO):
    """A stdin that is a terminal: a hidden prompt is asked, not refused."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Hidden prompts answered from this list, on a terminal; what is left over shows how many were asked."""
    queue: list[str] = []

    def fake_getpass(prompt: str = "") -> str:
        if not queue:
            raise EOFError
        return queue.pop(0)

    monkeypatch.setattr("getpass.getpass", fake_getpass)
    monkeypatch.setattr(sys, "stdin", FakeTerminal())
    return queue


def governor_for(sim: LocalExchange, clock: FrozenClock, ahead: Callable[[], float] = lambda: 0.0) -> Governor:
    """A governor on the exchange's frozen time (``ahead()`` seconds later: a pause or a ban made to end), whose
    waits move that time on."""

    async def sleep(seconds: float) -> None:
        sim.step(int(seconds * 1000) + 1)

    return Governor(clock=lambda: clock.now_ms() / 1000 + ahead(), sleep=sleep)


def client_for(sim: LocalExchange, key: str | None, clock: FrozenClock, **options: Any) -> Client:
    """A client whose time is the exchange's frozen time, whose waits move that time on, and which signs for
    the network the exchange plays."""
    governor = governor_for(sim, clock)
    signer = Signer(key) if key else None
    options = {"testnet": signs_for(sim), "clock_ms": clock.now_ms, **options}
    return Client(sim.url, signer=signer, governor=governor, **options)


@pytest.fixture
async def alice(sim: LocalExchange, clock: FrozenClock) -> AsyncIterator[Client]:
    async with client_for(sim, ALICE_KEY, clock) as c:
        yield c


@pytest.fixture
async def bob(sim: LocalExchange, clock: FrozenClock) -> AsyncIterator[Client]:
    async with client_for(sim, BOB_KEY, clock) as c:
        yield c

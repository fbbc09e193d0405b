"""The exchange's own Python and TypeScript SDKs against a real ``xtui sim`` process.

The Python SDK pins what the project cannot (eth-account < 0.12, web3 6), so it lives in its own virtual
environment: built once per SDK version in the user cache directory, under a file lock so that parallel
workers build it once, and reused afterwards. The TypeScript SDK is installed from npm the same way, into a
folder of the cache (``compat-npm-<version>``). Without the package index (or Node) the tests say so and skip.
The driver scripts here run with the SDK's interpreter (or Node) and print JSON; the tests assert on it.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import select
import shutil
import subprocess
import sys
import time
import venv
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import platformdirs
import pytest

SDK = "hotstuff-python-sdk"
SDK_VERSION = "0.1.2b4"
TS_SDK = "@hotstuff-labs/ts-sdk"
TS_SDK_VERSION = "0.0.1-beta.13"
HERE = Path(__file__).parent
TS_DRIVERS = HERE / "ts"
START_S = 30.0  # for a sim process to print its address
DRIVER_S = 120.0  # for one driver script
UNREACHABLE = (  # what pip says when the package index cannot be reached or lacks the release
    "No matching distribution",
    "Could not find a version",
    "NewConnectionError",
    "Max retries exceeded",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "ConnectTimeout",
    "ReadTimeout",
)
NPM_UNREACHABLE = (
    "ENOTFOUND",
    "EAI_AGAIN",
    "ECONNREFUSED",
    "ECONNRESET",
    "ETIMEDOUT",
    "ENETUNREACH",
    "E404",
    "ETARGET",
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sdk_examples: runs the Python SDK's shipped examples (minutes; a checkout)")


def _build_venv(root: Path) -> None:
    """A fresh virtual environment at ``root`` with the SDK installed; skips the tests without the index."""
    shutil.rmtree(root, ignore_errors=True)
    venv.EnvBuilder(with_pip=True, clear=True).create(root)
    pip = subprocess.run(
        [str(root / "bin" / "python"), "-m", "pip", "install", "--quiet", f"{SDK}=={SDK_VERSION}"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if pip.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        tail = (pip.stderr or pip.stdout).strip().splitlines()[-3:]
        if any(sign in line for line in tail for sign in UNREACHABLE):
            pytest.skip(f"cannot install {SDK}=={SDK_VERSION}: the package index cannot be reached ({' '.join(tail)})")
        pytest.fail(f"pip install {SDK}=={SDK_VERSION} failed:\n" + "\n".join(tail))


@pytest.fixture(scope="session")
def sdk_python() -> Path:
    """The interpreter of the SDK's virtual environment (built on first use, then cached)."""
    cache = Path(platformdirs.user_cache_dir("xtui"))
    root = cache / f"compat-venv-{SDK_VERSION}"
    ready = root / ".ready"
    if not ready.exists():
        cache.mkdir(parents=True, exist_ok=True)
        with open(cache / f"compat-venv-{SDK_VERSION}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # the other worker waits here while one builds
            if not ready.exists():
                _build_venv(root)
                ready.touch()
    return root / "bin" / "python"


def _build_npm(root: Path) -> None:
    """``root/node_modules`` with the TypeScript SDK at its pinned version; skips the tests without npm."""
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    (root / "package.json").write_text('{"name": "xtui-compat", "private": true, "type": "module"}\n')
    npm = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--save-exact", f"{TS_SDK}@{TS_SDK_VERSION}"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=root,
    )
    if npm.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        said = (npm.stderr or npm.stdout).strip().splitlines()
        codes = [line for line in said if line.startswith("npm error code") or "request to" in line][:2]
        if any(sign in line for line in said for sign in NPM_UNREACHABLE):
            reason = f"the npm registry cannot be reached ({' '.join(codes)})"
            pytest.skip(f"cannot install {TS_SDK}@{TS_SDK_VERSION}: {reason}")
        pytest.fail(f"npm install {TS_SDK}@{TS_SDK_VERSION} failed:\n" + "\n".join(said[-20:]))


@pytest.fixture(scope="session")
def ts_sdk() -> Path:
    """A folder whose ``node_modules`` holds the TypeScript SDK (installed on first use, then cached)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("the TypeScript SDK's tests need Node.js and npm on PATH")
    cache = Path(platformdirs.user_cache_dir("xtui"))
    root = cache / f"compat-npm-{TS_SDK_VERSION}"
    ready = root / ".ready"
    if not ready.exists():
        cache.mkdir(parents=True, exist_ok=True)
        with open(cache / f"compat-npm-{TS_SDK_VERSION}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # the other worker waits here while one installs
            if not ready.exists():
                _build_npm(root)
                ready.touch()
    return root


@pytest.fixture(scope="session")
def ts_dist(ts_sdk: Path) -> Path:
    """The TypeScript SDK's ``dist/`` (its ``.d.ts`` type definitions and the compiled modules)."""
    return ts_sdk / "node_modules" / TS_SDK / "dist"


@pytest.fixture(scope="session")
def drive_ts(ts_sdk: Path) -> Callable[..., dict[str, Any]]:
    """``drive_ts("drive_ts.mjs", *args)``: run a Node driver beside the installed SDK; its JSON, by call name.

    The drivers are copied next to ``node_modules`` so that their imports resolve there; Node 20 runs the
    SDK's ``dist/`` with a resolve hook (its imports have no file extensions) and its WebSocket global on.
    """

    def run(script: str, *args: str) -> dict[str, Any]:
        for driver in TS_DRIVERS.glob("*.mjs"):
            shutil.copy(driver, ts_sdk / driver.name)
        command = ["node", "--import", "./resolve_hook.mjs", script, *args]
        if _node_lacks_websocket():
            command.insert(1, "--experimental-websocket")  # Node 20: the WebSocket global is behind a flag
        done = subprocess.run(command, capture_output=True, text=True, timeout=DRIVER_S, cwd=ts_sdk)
        assert done.returncode == 0, f"{script} {' '.join(args)} failed:\n{done.stderr[-3000:]}"
        out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return out

    return run


@functools.cache
def _node_lacks_websocket() -> bool:
    probe = subprocess.run(["node", "-p", "typeof WebSocket"], capture_output=True, text=True, timeout=30)
    return probe.stdout.strip() != "function"


def _start_sim(network: str, home: Path, flags: tuple[str, ...] = ()) -> tuple[subprocess.Popen[str], str]:
    """``xtui sim`` on a free port, no synthetic market, with ``flags``; its base URL from the first line it prints."""
    env = {
        **os.environ,
        "XTUI_CONFIG": str(home / "config.toml"),
        "XTUI_DATA_DIR": str(home / "data"),
        "XTUI_LOG_DIR": str(home / "log"),
    }
    args = [sys.executable, "-m", "tui", "sim", "--port", "0", "--quiet-market", "--network", network, *flags]
    with open(home / "stderr", "w") as err:  # a file, not a pipe nobody reads while the sim runs
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=err, text=True, env=env)
    assert proc.stdout is not None
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline and proc.poll() is None:
        if select.select([proc.stdout], [], [], 0.1)[0]:
            line = proc.stdout.readline()
            if line.startswith("listening on "):
                return proc, line.split()[-1]
    proc.kill()
    raise AssertionError(f"xtui sim --network {network} did not start: {(home / 'stderr').read_text()[-2000:]}")


@pytest.fixture(scope="session")
def sim_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., str]]:
    """``sim_url(network, *flags)``: the base URL of an ``xtui sim --network <network> <flags>`` process, started
    once for each network and flags."""
    running: dict[tuple[str, ...], tuple[subprocess.Popen[str], str]] = {}

    def url(network: str, *flags: str) -> str:
        if (network, *flags) not in running:
            home = tmp_path_factory.mktemp(f"sim-{network}")
            running[network, *flags] = _start_sim(network, home, flags)
        return running[network, *flags][1]

    yield url
    for proc, _ in running.values():
        proc.terminate()
    for proc, _ in running.values():
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="session")
def drive(sdk_python: Path) -> Callable[..., dict[str, Any]]:
    """``drive("drive_actions.py", *args)``: run a driver with the SDK's interpreter; its JSON, by call name."""

    def run(script: str, *args: str) -> dict[str, Any]:
        done = subprocess.run(
            [str(sdk_python), str(HERE / script), *args], capture_output=True, text=True, timeout=DRIVER_S, cwd=HERE
        )
        assert done.returncode == 0, f"{script} {' '.join(args)} failed:\n{done.stderr[-3000:]}"
        out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return out

    return run

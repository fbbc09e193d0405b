"""``xtui doctor`` as a user runs it: a real process against ``xtui sim`` processes of either network.

The exchanges run on the wall clock (the doctor compares it with this machine's), each in its own process.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from tests.test_cli import xtui
from tui.api.client import Client
from tui.api.signing import Signer

OWNER_KEY = "0x" + "d4" * 32
AGENT_KEY = "0x" + "e5" * 32
STRANGER_KEY = "0x" + "f6" * 32


@asynccontextmanager
async def sim_process(*flags: str) -> AsyncIterator[str]:
    """``xtui sim --port 0 FLAGS`` in its own process; yields the URL it prints."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tui", "sim", "--port", "0", "--quiet-market", *flags,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()
        assert line.startswith("listening on "), line
        yield line.split()[-1]
    finally:
        proc.terminate()
        await proc.wait()


def rows(report: str) -> dict[str, tuple[str, str]]:
    """check name -> (status, detail), from the doctor's table."""
    out: dict[str, tuple[str, str]] = {}
    for line in report.splitlines()[2:-1]:
        name, status, detail = re.split(r"\s{2,}", line, maxsplit=2)
        out[name] = (status, detail)
    return out


async def test_passes_against_a_sim_of_either_network() -> None:
    for network in ("testnet", "mainnet"):
        async with sim_process("--network", network) as url:
            args = ["doctor", "--url", url] + ([] if network == "testnet" else ["--network", network])
            rc, out, err = await xtui(*args)  # a bare --url signs for testnet
            assert rc == 0 and err == "", (network, out, err)
            found = rows(out)
            assert list(found) == [
                "info",
                "explorer",
                "websocket",
                "clock",
                "signing",
                "network",
                "account",
                "rate limits",
            ]
            assert all(status in ("OK", "WARN") for status, _ in found.values())
            assert found["network"] == ("OK", f"the exchange plays {network}, as xtui signs")
            assert found["signing"] == ("OK", f"dialect sdk, signs for {network} (the {network.capitalize()} source)")
            assert found["clock"][0] == "OK" and "x-ratelimit-1m" in found["rate limits"][1]
            assert out.splitlines()[-1] == "0 failed, 1 warning(s): ready"  # no account given


async def test_a_profile_signing_for_another_network_fails(tmp_path: Path) -> None:
    async with sim_process("--network", "mainnet") as url:
        config = f'[profiles.bot]\nurl = "{url}"\n\n[profiles.botmain]\nurl = "{url}"\nnetwork = "mainnet"\n'
        Path(os.environ["XTUI_CONFIG"]).write_text(config)
        rc, out, _ = await xtui("doctor", "--profile", "bot")  # no network named: it signs for testnet
        assert rc == 1
        status, detail = rows(out)["network"]
        assert status == "FAIL" and detail.startswith("the exchange plays mainnet but xtui signs for testnet")
        assert out.splitlines()[0] == f"xtui doctor: profile bot ({url})"
        assert out.splitlines()[-1].endswith("do not trade yet")
        rc, out, _ = await xtui("doctor", "--profile", "botmain")
        assert rc == 0 and rows(out)["network"][0] == "OK"
        rc, out, _ = await xtui("doctor", "--profile", "botmain", "--network", "testnet")  # the flag wins
        assert rc == 1 and rows(out)["network"][0] == "FAIL"


async def test_checks_the_account_and_its_agent_without_signing_anything() -> None:
    owner, agent, stranger = Signer(OWNER_KEY), Signer(AGENT_KEY), Signer(STRANGER_KEY)
    async with sim_process() as url:
        async with Client(url, signer=owner, testnet=True) as c:
            await c.cancel_all()  # the faucet funds the owner
            await c.add_agent(agent, "bot", int(time.time() * 1000) + 3 * 86_400_000)
        keys = {"OWNER_K": OWNER_KEY, "AGENT_K": AGENT_KEY, "STRANGER_K": STRANGER_KEY}

        rc, out, err = await xtui("doctor", "--url", url, "--key-env", "OWNER_K", env=keys)
        assert rc == 0 and err == ""
        status, detail = rows(out)["account"]
        assert status == "OK" and detail.startswith(f"{owner.address}: perp 100000 USDC")

        rc, out, _ = await xtui("doctor", "--url", url, "--address", owner.address, "--key-env", "AGENT_K", env=keys)
        assert rc == 0
        status, detail = rows(out)["agent"]
        assert status == "OK" and detail.startswith(f"{agent.address} (bot) trades for {owner.address} until ")

        rc, out, _ = await xtui("doctor", "--url", url, "--address", owner.address, "--key-env", "STRANGER_K", env=keys)
        assert rc == 1
        status, detail = rows(out)["agent"]
        assert status == "FAIL" and detail.startswith(f"{stranger.address} is not an agent of {owner.address}")

        # the stranger's key was read for its address only: nothing was signed, so the faucet never funded it
        rc, out, _ = await xtui("doctor", "--url", url, "--key-env", "STRANGER_K", env=keys)
        assert rc == 0 and rows(out)["account"][0] == "WARN" and "no balances" in rows(out)["account"][1]
        for key in keys.values():
            assert key[2:] not in out


async def test_the_built_in_exchange_is_started_and_checked_as_the_dashboard_would_run_it() -> None:
    for flags in ([], ["--network", "mainnet"]):  # it plays the network the profile signs for
        rc, out, _ = await xtui("doctor", *flags)
        assert rc == 0 and out.startswith("xtui doctor: the built-in exchange of profile local"), out
        assert rows(out)["network"][0] == "OK"


async def test_an_exchange_that_is_not_there_fails_every_network_check() -> None:
    """Each failure in words (no ``ConnectionRefusedError: [Errno 111] ...``), and the checks that need the
    exchange's answer (its clock, its network, its rate limits) NOT RUN rather than OK or WARN."""
    rc, out, _ = await xtui("doctor", "--url", "http://127.0.0.1:9", "--timeout", "2")
    found = rows(out)
    assert rc == 1 and found["info"][0] == found["explorer"][0] == found["websocket"][0] == "FAIL"
    assert found["info"][1] == "nothing answers at http://127.0.0.1:9 (connection refused)", out
    assert found["websocket"][1] == "nothing answers at ws://127.0.0.1:9/ws/ (connection refused)", out
    assert "Errno" not in out and "Error" not in out
    assert found["clock"][0] == found["network"][0] == found["rate limits"][0] == "NOT RUN", out
    assert found["signing"][0] == "OK" and out.splitlines()[-1] == "3 failed, 1 warning(s), 3 not run: do not trade yet"

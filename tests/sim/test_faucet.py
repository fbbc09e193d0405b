"""The faucet: ``--faucet auto`` funds any new signer on its first signed action; under ``--faucet explicit`` only an
address funded by ``POST /faucet`` (or ``xtui sim faucet ADDR``) exists, as on the real exchange. Each test says what
was tried."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator
from decimal import Decimal
from typing import Any

import httpx
import pytest

from tests.sim.signed_bodies import body, orders, submit
from tui.api.client import Client
from tui.api.errors import ActionRejected, ApiError
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.engine.instruments import USDC_ID
from tui.sim.options import add_sim_arguments, faucet_from_args
from tui.sim.server.faucet import faucet_answer
from tui.sim.server.local_exchange import LocalExchange, SimConfig
from tui.sim.server.ratelimit import Limits

KEY = Signer("0x" + "f1" * 32)
START_S = 30.0
WAIT_S = 20.0


@pytest.fixture
def sim_config() -> SimConfig:
    return SimConfig(seed=7, market=False, limits=Limits(), faucet_mode="explicit")


def usdc(sim: LocalExchange, address: str) -> Decimal:
    acct = sim.engine.core.accounts.get(address.lower())
    return acct.balances.get(USDC_ID, Decimal(0)) if acct is not None else Decimal(0)


async def faucet(sim: LocalExchange, payload: Any, *, raw: bytes | None = None) -> httpx.Response:
    async with httpx.AsyncClient() as h:
        return await h.post(sim.url + "/faucet", content=raw if raw is not None else json.dumps(payload).encode())


async def test_an_unfunded_signer_does_not_exist_until_the_faucet_funds_it(
    sim: LocalExchange, clock: FrozenClock
) -> None:
    """Tried under --faucet explicit: an order from a key nobody funded (refused "account does not exist", no account
    made), then POST /faucet for its address and the same order again (placed, on the funded account)."""
    n = clock.now_ms()
    refused = await submit(sim, body(KEY, "placeOrder", orders({"cloid": "a"}), n, testnet=True))
    assert refused["error"].startswith(f"account does not exist: {KEY.address}") and refused["address"] == ""
    assert KEY.address.lower() not in sim.engine.core.accounts
    resp = await faucet(sim, {"address": KEY.address.lower(), "amount": "2500.5"})
    assert resp.status_code == 200 and resp.headers["X-Xtui-Faucet"] == "explicit"
    assert resp.json() == {"address": KEY.address, "funded": True, "amount": "2500.5", "balance": "2500.5"}
    placed = await submit(sim, body(KEY, "placeOrder", orders({"cloid": "a"}), n + 1, testnet=True))
    assert placed["error"] == "" and placed["address"] == KEY.address
    assert usdc(sim, KEY.address) == Decimal("2500.5")  # a signed action funds nothing more under explicit


async def test_a_second_request_tops_up_and_once_does_not(sim: LocalExchange) -> None:
    """Tried: the default amount, again (added), then once (nothing: the faucet funded it already)."""
    first = (await faucet(sim, {"address": KEY.address})).json()
    assert first["funded"] and Decimal(first["amount"]) == sim.config.faucet
    again = (await faucet(sim, {"address": KEY.address})).json()
    assert Decimal(again["balance"]) == 2 * sim.config.faucet
    once = (await faucet(sim, {"address": KEY.address, "once": True})).json()
    assert once["funded"] is False and once["amount"] == "0" and Decimal(once["balance"]) == 2 * sim.config.faucet
    assert sum(sim.engine.audit().values()) == 0  # minted money is counted: conservation holds


HOSTILE = [
    (b"{not json", "the body is not valid JSON"),
    (b"[]", "expected an object"),
    (b"{}", "address: missing"),
    (b'{"address": 12}', "address: expected a 0x"),
    (b'{"address": "0x1234"}', "address: '0x1234' is not an address"),
    (b'{"address": "0x' + b"f1" * 20 + b'", "amount": "1000000000.000001"}', "at most 1000000000 USDC"),
    (b'{"address": "0x' + b"f1" * 20 + b'", "amount": "9' + b"9" * 400 + b'"}', "at most 1000000000 USDC"),
    (b'{"address": "0x' + b"f1" * 20 + b'", "amount": "0"}', "must be above 0"),
    (b'{"address": "0x' + b"f1" * 20 + b'", "amount": "-5"}', "not a plain decimal"),
    (b'{"address": "0x' + b"f1" * 20 + b'", "amount": "1e9"}', "not a plain decimal"),
    (b'{"address": "0x' + b"f1" * 20 + b'", "amount": 1.5}', "expected a decimal string"),
    (b'{"address": "0x' + b"f1" * 20 + b'", "amount": "0.0000001"}', "6 decimal places"),
    (b'{"address": "0x' + b"f1" * 20 + b'", "once": "yes"}', "once: expected true or false"),
    (b'{"address": "0x' + b"f1" * 20 + b'", "amout": "5"}', "unknown field 'amout'"),
    (b'{"a": ' * 5000 + b"1" + b"}" * 5000, "faucet:"),
]


@pytest.mark.parametrize(("raw", "said"), HOSTILE, ids=[h[1] + f"-{i}" for i, h in enumerate(HOSTILE)])
async def test_hostile_faucet_requests_get_a_clear_error_and_fund_nothing(
    sim: LocalExchange, raw: bytes, said: str
) -> None:
    """Tried: junk JSON, a bad address, huge, negative, exponent, float and over-precise amounts, a misspelt field,
    deep nesting. Each is a 400 naming what was wrong; no account is funded and the exchange answers on."""
    accounts = len(sim.engine.core.accounts)
    resp = await faucet(sim, None, raw=raw)
    assert resp.status_code == 400 and resp.json()["type"] == "error", resp.text
    assert resp.json()["message"].startswith("faucet: ") and said in resp.json()["message"]
    assert len(sim.engine.core.accounts) == accounts and sum(sim.engine.audit().values()) == 0
    assert (await faucet(sim, {"address": KEY.address})).status_code == 200


def test_the_faucet_answers_loopback_clients_only(sim: LocalExchange) -> None:
    """Tried: the same good request from another machine's address (an exchange bound with --host): refused, 403."""
    raw = json.dumps({"address": KEY.address}).encode()
    status, _, payload = faucet_answer(sim.engine, "192.168.1.20", raw)
    assert status == 403 and "loopback clients only" in payload["message"]
    assert faucet_answer(sim.engine, "::1", raw)[0] == 200 and faucet_answer(sim.engine, "127.0.0.2", raw)[0] == 200


async def test_the_client_says_a_real_exchange_has_no_faucet(sim: LocalExchange) -> None:
    """Tried: the faucet request against something that is not an xtui sim (a bare HTTP server answering 404): an
    error that says it has no faucet, rather than a 404 to puzzle over."""

    async def not_found(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 404 Not Found\r\ncontent-length: 9\r\ncontent-type: text/plain\r\n\r\nnot found")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(not_found, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, Client(f"http://127.0.0.1:{port}") as client:
        with pytest.raises(ApiError, match="has no faucet"):
            await client.request_funds(KEY.address)


@pytest.fixture
async def sim_process() -> AsyncIterator[tuple[asyncio.subprocess.Process, str]]:
    """A real ``xtui sim --faucet explicit --faucet-usdc 777``."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tui", "sim", "--quiet-market", "--seed", "7", "--faucet", "explicit",
        "--faucet-usdc", "777", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert proc.stdout is not None
    async with asyncio.timeout(START_S):
        line = (await proc.stdout.readline()).decode()
    assert line.startswith("listening on "), line
    try:
        yield proc, line.split()[-1]
    finally:
        with contextlib.suppress(ProcessLookupError):  # the test may have ended it already
            proc.terminate()
        async with asyncio.timeout(WAIT_S):
            await proc.wait()


async def run_cli(*argv: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tui", *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    async with asyncio.timeout(WAIT_S):
        out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_xtui_sim_faucet_funds_an_address_on_a_running_explicit_exchange(
    sim_process: tuple[asyncio.subprocess.Process, str],
) -> None:
    """Tried on a real `xtui sim --faucet explicit` process: its startup names the rule; an order from a new key
    (refused: account does not exist); `xtui sim faucet ADDR --url URL` (funded 777, said on stdout); the order again
    (placed); the command with a bad address (exit 1, the exchange's words)."""
    proc, url = sim_process
    async with Client(url, signer=KEY, testnet=True) as client:
        with pytest.raises(ActionRejected, match="account does not exist"):
            await client.place_order(orders({"cloid": "x"})["orders"])
        code, out, err = await run_cli("sim", "faucet", KEY.address, "--url", url)
        assert code == 0 and out == f"funded {KEY.address} with 777 USDC: balance 777 USDC\n", err
        placed = await client.place_order(orders({"cloid": "x"})["orders"])
        assert placed.address == KEY.address and placed.ok
        summary = await client.info("account_summary", user=KEY.address)
        assert client.faucet == "explicit" and summary is not None
    code, out, err = await run_cli("sim", "faucet", "0xnope", "--url", url)
    assert code == 1 and out == "" and "address: '0xnope' is not an address" in err
    code, _, err = await run_cli("sim", "faucet", KEY.address, "--url", url, "--amount", "1e3")
    assert code == 2 and "not a plain decimal" in err  # refused by the command line, nothing sent
    proc.terminate()
    assert proc.stderr is not None
    async with asyncio.timeout(WAIT_S):
        said = (await proc.stderr.read()).decode()
    assert "rules: --faucet explicit (docs/sim-rules.md)" in said


def test_the_faucet_flags_read_a_mode_an_amount_or_both_once() -> None:
    """Tried: the default, each mode, a bare number (as before the modes: auto with that amount), a mode with
    --faucet-usdc, a number given twice (refused: which amount?), and a word that is neither (a usage error)."""
    parser = argparse.ArgumentParser(exit_on_error=False)
    add_sim_arguments(parser)

    def read(*argv: str) -> tuple[str, Decimal] | None:
        return faucet_from_args(parser.parse_args(list(argv)))

    assert read() == ("auto", Decimal(100_000))
    assert read("--faucet", "explicit") == ("explicit", Decimal(100_000))
    assert read("--faucet", "2500") == ("auto", Decimal(2500))
    assert read("--faucet", "explicit", "--faucet-usdc", "50.5") == ("explicit", Decimal("50.5"))
    assert read("--faucet", "2500", "--faucet-usdc", "50") is None
    with pytest.raises((argparse.ArgumentError, SystemExit)):
        parser.parse_args(["--faucet", "manual"])

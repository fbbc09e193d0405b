"""The local exchange's one integer grammar, fed arbitrary text, and its flags; and its last resort: a handler
that fails in a way nobody foresaw is logged with its traceback and answered with a JSON message (HTTP 500,
or a JSON-RPC internal error on the socket), and the exchange goes on serving. Each test says what was tried."""

from __future__ import annotations

import argparse
import json
import logging
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from websockets.asyncio.client import connect

from tui.sim.grammar import int_text
from tui.sim.options import add_sim_arguments
from tui.sim.server.dispatch import Params, QueryError
from tui.sim.server.local_exchange import LocalExchange


@given(st.text(max_size=60))
def test_an_integer_is_ascii_digits_and_nothing_else(text: str) -> None:
    """Tried: any text (hypothesis; superscripts, other scripts' digits, signs, spaces, exponents among it)."""
    value = int_text(text)
    plain = text != "" and len(text) <= 30 and all("0" <= c <= "9" for c in text)
    assert (value is not None) == plain, text
    if value is not None:
        assert value == int(text)


@given(st.one_of(st.text(max_size=60), st.integers(), st.floats(), st.none(), st.booleans(), st.lists(st.integers())))
def test_an_integer_parameter_is_a_value_or_a_query_error(value: Any) -> None:
    """Tried: any JSON-like value as an integer parameter: an int in range, or a QueryError naming it; never
    another exception (on the old code "²" raised ValueError from int())."""
    try:
        got = Params("orderbook", {"depth": value}).integer("depth", 50, lo=1, hi=1000)
    except QueryError as exc:
        assert "params.depth" in str(exc) and len(str(exc)) <= 240
    else:
        assert 1 <= got <= 1000


@pytest.mark.parametrize("case", ["²", "٣", "１", " 5", "5 ", "+5", "-5", "5.0", "1e3", "0x10"])
def test_the_texts_str_isdigit_or_int_would_take_are_refused(case: str) -> None:
    """Tried: the texts ``str.isdigit``, ``int()`` or ``float()`` would read as numbers."""
    assert int_text(case) is None
    with pytest.raises(QueryError, match="ASCII digits"):
        Params("fills", {"page": case}).integer("page")


async def test_an_unforeseen_failure_is_logged_and_answered_with_a_message(
    sim: LocalExchange, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tried: /info's handler raising a ZeroDivisionError (a bug), over HTTP and over the socket's post; then a
    request to /explorer and a ping on the same socket."""

    def broken(method: str, params: dict[str, Any]) -> Any:
        raise ZeroDivisionError("a bug nobody foresaw")

    monkeypatch.setattr(sim.dispatch, "info", broken)
    caplog.set_level(logging.INFO)
    async with httpx.AsyncClient(base_url=sim.url) as h:
        resp = await h.post("/info", json={"method": "ticker", "params": {}})
        assert resp.status_code == 500 and resp.headers["content-type"] == "application/json"
        message = resp.json()["message"]
        assert "internal error in the local exchange at /info" in message and "ZeroDivisionError" in message
        assert (await h.post("/explorer", json={"method": "blocks", "params": {}})).status_code == 200
    [logged] = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert (logged.name, logged.exc_info is not None) == ("tui.sim.server.http_posts", True)
    assert "POST /info" in logged.getMessage()

    async with connect(sim.ws_url) as ws:
        post = {"type": "info", "payload": {"method": "ticker", "params": {}}}
        await ws.send(json.dumps({"jsonrpc": "2.0", "method": "post", "params": post, "id": 1}))
        reply = json.loads(await ws.recv())
        assert reply["error"]["code"] == -32603 and "ZeroDivisionError" in reply["error"]["message"]
        assert reply["id"] == 1  # the SDK waiting on its request is answered
        await ws.send(json.dumps({"jsonrpc": "2.0", "method": "ping", "id": 2}))
        assert json.loads(await ws.recv())["result"]["pong"] is True  # the connection goes on
    assert [r.name for r in caplog.records if r.levelno >= logging.ERROR] == [
        "tui.sim.server.http_posts",
        "tui.sim.server.ws_hub",
    ]


NUMBER_FLAGS = ["--port", "--seed", "--block-ms", "--speed", "--faucet", "--faucet-usdc", "--mirror-poll-ms",
                "--exchange-per-minute", "--info-per-minute", "--info-per-hour", "--ban-after", "--ws-connections",
                "--ws-subscriptions", "--ws-messages-per-minute"]  # fmt: skip


@pytest.mark.parametrize("flag", NUMBER_FLAGS)
def test_every_number_flag_of_xtui_sim_takes_ascii_digits_only(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Tried: each number flag of ``xtui sim`` given "٣", "²", " 3", "1e3", "nan", "-1": a usage error naming
    the flag (on the old code --port, --seed and the limits took "٣" as 3, and --speed took "nan" and "٣")."""
    parser = argparse.ArgumentParser(exit_on_error=False)
    add_sim_arguments(parser)
    dest = flag.removeprefix("--").replace("-", "_")
    assert getattr(parser.parse_args([flag, "3"]), dest) == 3
    too_long = () if flag.startswith("--faucet") else ("3" * 40,)  # a decimal has no digit cap; a whole number has
    for text in ("٣", "²", " 3", "1e3", "nan", "-1", *too_long):
        with pytest.raises((argparse.ArgumentError, SystemExit)):
            parser.parse_args([flag, text])

"""THE SECRETS SCAN: a whole trading session, then every trace it left is searched for the private key.

The key goes into a keystore through the real ``xtui keys import``, a profile names that keystore, and the
dashboard trades with it from the keyboard: orders, a close, PANIC, screenshots, a signing failure in a
worker, failing ``xtui exchange`` commands with the key in the environment. Then the log files, the
screenshots, the captured output, the notifications and the tracebacks (plain and Rich with locals, as
Textual prints them) are scanned for the key's hex, any case, with or without 0x, whole or in pieces.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import traceback
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from rich.console import Console
from rich.traceback import Traceback

from tests.test_cli import xtui
from tests.ui.conftest import MARKET_STEPS, Notes, feed_ready, settle
from tui import logs
from tui.api import signing
from tui.api.client import Client
from tui.api.limits import Governor
from tui.api.wire import order_item
from tui.config.launch import identity
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange, SimConfig
from tui.sim.server.ratelimit import Limits
from tui.ui.run import dashboard_app, prepare
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.order_form import OrderFormScreen

KEY_HEX = hashlib.sha256(b"xtui secrets scan").hexdigest()  # no pattern any other text could share
KEY = "0x" + KEY_HEX
PASSWORD = "scan-password-1234"
CHUNK = 16  # hex digits: a key cut across lines or cells still shows a piece at least this long


def leaks(text: str) -> list[str]:
    """The pieces of the key found in ``text`` (case-insensitive; 0x or not, whole or cut up)."""
    low = text.lower()
    return [KEY_HEX[i : i + CHUNK] for i in range(len(KEY_HEX) - CHUNK + 1) if KEY_HEX[i : i + CHUNK] in low]


def test_the_scanner_finds_the_key_in_any_form() -> None:
    for planted in (KEY, KEY.upper(), KEY_HEX, "0X" + KEY_HEX.upper(), KEY_HEX[:30] + "\n│ " + KEY_HEX[30:]):
        assert leaks(f"some text {planted} more"), planted
    assert not leaks("0x" + "ab" * 32)


@pytest.fixture
def sim_config() -> SimConfig:
    return SimConfig(seed=7, market=True, limits=Limits())


@pytest.fixture
def log_file() -> Iterator[Path]:
    """The xtui log file at debug level for the session; the process's logging is put back afterwards."""
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    chatty = {name: logging.getLogger(name).level for name in logs.CHATTY_LOGGERS}
    uvicorn = {name: list(logging.getLogger(name).handlers) for name in logs.UVICORN_LOGGERS}
    path = logs.setup_logging("debug")
    assert path is not None and path.parent == Path(os.environ["XTUI_LOG_DIR"])
    yield path
    for handler in root.handlers:
        if handler not in saved[0]:
            handler.close()
    root.handlers[:] = saved[0]
    root.setLevel(saved[1])
    for name, level in chatty.items():
        logging.getLogger(name).setLevel(level)
    for name, handlers in uvicorn.items():
        logging.getLogger(name).handlers[:] = handlers
    logging.captureWarnings(False)


@pytest.fixture
async def market(sim: LocalExchange) -> AsyncIterator[LocalExchange]:
    for _ in range(MARKET_STEPS):
        sim.step(250)
    yield sim


def rich_traceback(exc: BaseException) -> str:
    """The traceback as Textual prints a crash: Rich, with every frame's locals."""
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None, record=True)
    console.print(Traceback.from_exception(type(exc), exc, exc.__traceback__, show_locals=True, width=200))
    return out.getvalue()


async def failure_while_signing(client: Client) -> BaseException:
    """An order whose signing fails; caught here, so the traceback's frames are the client's, not the test's."""
    try:
        await client.place_order([order_item(1, "b", "90000", "0.01")])
    except RuntimeError as exc:
        return exc
    raise AssertionError("the broken digest did not fail")


@pytest.mark.long
async def test_a_trading_session_leaves_no_trace_of_the_key(
    market: LocalExchange,
    clock: FrozenClock,
    log_file: Path,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sim = market
    traces: dict[str, str] = {}
    env = {"XTUI_SCAN_KEY": KEY, "XTUI_SCAN_PW": PASSWORD}
    monkeypatch.setenv("XTUI_SCAN_PW", PASSWORD)

    # the keystore, made the way a user makes it
    rc, out, err = await xtui("keys", "import", "scan", "--key-env", "XTUI_SCAN_KEY", "--password-env", "XTUI_SCAN_PW",
                              env=env)  # fmt: skip
    assert rc == 0, err
    traces["keys import"] = out + err
    rc, out, err = await xtui("keys", "address", "scan", "--verify", "--password-env", "XTUI_SCAN_PW", env=env)
    assert rc == 0, err
    traces["keys address"] = out + err
    address = out.strip()
    # failing commands with the key in the environment: a bad action, a dead exchange, malformed keys
    with_key = ("--key-env", "XTUI_SCAN_KEY")
    failing = [
        (("exchange", "placeOrder", "--url", sim.url, *with_key), {}),
        (("exchange", "cancelAll", "--url", "http://127.0.0.1:9", *with_key), {}),
        (("exchange", "cancelAll", "--url", sim.url, *with_key), {"XTUI_SCAN_KEY": KEY + "ff"}),
        (("--log-level", "debug", "keys", "import", "scan2", *with_key, "--password-env", "XTUI_SCAN_PW"),
         {"XTUI_SCAN_KEY": KEY[:-1] + "g"}),
        (("--address", KEY, "--url", sim.url), {}),  # a key pasted where an address goes
        (("--theme", KEY_HEX.upper()), {}),
    ]  # fmt: skip
    for args, extra in failing:
        rc, out, err = await xtui(*args, env={**env, **extra})
        assert rc in (1, 2) and err.startswith("xtui"), (args, err)  # 2: a usage error (an action's field missing)
        traces[" ".join(args)] = out + err

    # the profile names the keystore; the dashboard unlocks it and trades
    Path(os.environ["XTUI_CONFIG"]).write_text(f'[profiles.scan]\nurl = "{sim.url}"\nkeystore = "scan"\n')
    launch = prepare("scan")
    ident = identity(launch, password_env="XTUI_SCAN_PW")
    assert ident.signer is not None and ident.account == address

    async def sleep(seconds: float) -> None:
        sim.step(int(seconds * 1000) + 1)

    governor = Governor(clock=lambda: clock.now_ms() / 1000, sleep=sleep)
    testnet = launch.profile.testnet  # a profile with a url and no network signs for testnet, as the sim plays
    async with Client(
        sim.url, signer=ident.signer, governor=governor, clock_ms=clock.now_ms, testnet=testnet
    ) as client:
        await client.cancel_all()  # the faucet
        await client.place_order([order_item(1, "b", "90000", "0.01", cloid="scan-rest")])
        app = dashboard_app(
            launch, ident, client=client, wall_clock=lambda: clock.now_ms() / 1000, feed_options={"poll_s": 0.5}
        )
        app.feed.state.status.clock_drift_ms = 0
        notes = Notes()
        async with app.run_test(size=(120, 40), message_hook=notes) as pilot:
            await feed_ready(app)
            account = app.feed.state.account
            await settle(pilot, lambda: account.summary is not None and account.open_orders, what="the account")
            await pilot.press("b")  # at the best ask: it fills
            await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form")
            await pilot.press(*"0.001", "enter")
            await settle(pilot, lambda: account.positions, what="the position")
            app.save_screenshot("main.svg", str(tmp_path))
            await pilot.press("b")
            await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form")
            app.save_screenshot("form.svg", str(tmp_path))
            traces["form export"] = app.export_screenshot()
            await pilot.press("escape")
            await settle(pilot, lambda: app.screen is app.main, what="the dashboard")

            # a signing failure deep in a worker: reported as a notification, logged, never a traceback on screen
            def broken_digest(*args: object, **kwargs: object) -> bytes:
                raise RuntimeError("digest failed")

            with monkeypatch.context() as patched:
                patched.setattr(signing, "action_digest", broken_digest)
                await pilot.press("x")
                await settle(pilot, lambda: "Cancel failed: digest failed" in notes.messages, what="the failure")
                exc = await failure_while_signing(client)
                traces["traceback"] = "".join(traceback.format_exception(exc))
                traces["rich traceback with locals"] = rich_traceback(exc)
                logging.getLogger("tui.scan").error("forced failure while signing", exc_info=exc)

            await pilot.press("P")
            await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the panic question")
            await pilot.press("y")
            await settle(pilot, lambda: any(m.startswith("done") for m in notes.messages), what="the panic")
            await settle(pilot, lambda: not account.positions and not account.open_orders, what="a flat account")
            app.save_screenshot("after.svg", str(tmp_path))
        traces["notifications"] = "\n".join(notes.messages)

    captured = capfd.readouterr()
    traces["stdout"], traces["stderr"] = captured.out, captured.err
    for handler in logging.getLogger().handlers:
        handler.flush()
    for path in sorted(log_file.parent.glob("xtui.log*")):
        traces[path.name] = path.read_text(encoding="utf-8")
    for path in sorted(tmp_path.glob("*.svg")):
        traces[path.name] = path.read_text(encoding="utf-8")
    traces["keystore"] = Path(os.environ["XTUI_DATA_DIR"], "keys", "scan.json").read_text()

    # the scan saw a real session: the log, the screenshots and the reports are all there
    assert "forced failure while signing" in traces["xtui.log"] and "digest failed" in traces["xtui.log"]
    assert "panic: done: 1 of 1 position(s) closed" in traces["xtui.log"]
    assert {"main.svg", "form.svg", "after.svg"} <= set(traces)
    assert "broken_digest" in traces["rich traceback with locals"] and "Signer(" in traces["rich traceback with locals"]
    assert any("\noid " in m for m in notes.messages)
    found = {name: leaks(text) for name, text in traces.items() if leaks(text)}
    assert found == {}, f"the key leaked into: {sorted(found)}"

"""The log file: records reach it, never the terminal, and key-shaped text and passwords are redacted."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui import logs
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange, SimConfig

KEY_HEX = "5e" * 32


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    """setup_logging changes process-wide state: put the loggers it touches back afterwards."""
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    uvicorn = {
        name: (list(logging.getLogger(name).handlers), logging.getLogger(name).propagate)
        for name in logs.UVICORN_LOGGERS
    }
    chatty = {name: logging.getLogger(name).level for name in logs.CHATTY_LOGGERS}
    # private: the secrets and keys registered are process-wide and have no public way back; put back after
    secrets, keys, pattern = logs._secrets, logs._keys, logs._key_pattern
    logs.add_key(KEY_HEX)  # the key these tests' process holds (keys.loaded registers every one)
    yield
    for handler in root.handlers:
        if handler not in saved[0]:
            handler.close()
    root.handlers[:] = saved[0]
    root.setLevel(saved[1])
    for name, (handlers, propagate) in uvicorn.items():
        logging.getLogger(name).handlers[:] = handlers
        logging.getLogger(name).propagate = propagate
    for name, level in chatty.items():
        logging.getLogger(name).setLevel(level)
    logging.captureWarnings(False)
    logs._secrets, logs._keys, logs._key_pattern = secrets, keys, pattern  # private: as above


def _flush() -> None:
    for handler in logging.getLogger().handlers:
        handler.flush()


def test_records_reach_the_file_with_keys_redacted(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    path = logs.setup_logging("debug", tmp_path / "log")
    assert path == tmp_path / "log" / "xtui.log"
    log = logging.getLogger("tui.test")
    log.debug("loaded key %s", "0x" + KEY_HEX)
    log.info("bare %s and upper 0X%s inline", KEY_HEX, KEY_HEX.upper())
    log.warning("in the message itself: 0x%s", KEY_HEX)
    try:
        raise ValueError(f"bad key 0x{KEY_HEX}")
    except ValueError:
        log.exception("failed with %r", {"key": KEY_HEX})
    _flush()
    text = path.read_text()
    assert "loaded key [redacted]" in text and "bare [redacted] and upper [redacted] inline" in text
    assert "ValueError: bad key [redacted]" in text and "Traceback" in text
    assert KEY_HEX not in text.lower()
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_hashes_stay_readable_and_a_key_is_redacted_by_value_once_loaded(tmp_path: Path) -> None:
    """A transaction or block hash is 64 hex digits too: it must stay in the log so a failed order can be traced.
    A key is redacted by value, in any case, with or without 0x, as soon as the process holds it."""
    path = logs.setup_logging("info", tmp_path)
    tx_hash = "0x" + "4ab1" * 16
    other = "7c" * 32
    log = logging.getLogger("tui.test")
    log.info("order 19248 in tx %s", tx_hash)
    log.info("before loading: %s", other)  # not a key this process holds: a hash as far as the log knows
    from tui.api.signing import Signer
    from tui.keys import loaded

    loaded(Signer("0x" + other))
    log.info("after loading: %s and %s and 0X%s", other, "0x" + other.upper(), other)
    _flush()
    text = path.read_text()
    assert f"order 19248 in tx {tx_hash}" in text
    assert "after loading: [redacted] and [redacted] and [redacted]" in text
    assert logs.redact(f"XTUI_URL={other}") == "XTUI_URL=[redacted]"  # config/env/argv values: by shape


def test_known_passwords_are_redacted(tmp_path: Path) -> None:
    path = logs.setup_logging("info", tmp_path)
    logs.add_secret("correct-horse-battery")
    logging.getLogger("tui.test").info("user typed correct-horse-battery at the prompt")
    _flush()
    assert "user typed [redacted] at the prompt" in path.read_text()


def test_level_decides_what_is_written(tmp_path: Path) -> None:
    path = logs.setup_logging("WARNING", tmp_path)
    log = logging.getLogger("tui.test")
    log.info("quiet detail")
    log.warning("something to know")
    logs.setup_logging("info", tmp_path)
    logging.getLogger("httpx").info("HTTP Request: POST /info")  # one per request: only at debug
    log.info("an ordinary event")
    logs.setup_logging("debug", tmp_path)
    logging.getLogger("httpx").debug("HTTP Request: POST /exchange")
    _flush()
    text = path.read_text()
    assert "something to know" in text and "quiet detail" not in text and "an ordinary event" in text
    assert "POST /info" not in text and "POST /exchange" in text
    with pytest.raises(ValueError, match="debug, info, warning, error"):
        logs.setup_logging("verbose", tmp_path)


def test_setting_up_again_replaces_the_file_handler(tmp_path: Path) -> None:
    logs.setup_logging("info", tmp_path / "a")
    second = logs.setup_logging("info", tmp_path / "b")
    logging.getLogger("tui.test").warning("only in b")
    _flush()
    assert second is not None and "only in b" in second.read_text()
    assert "only in b" not in (tmp_path / "a" / "xtui.log").read_text()


def test_terminal_handlers_are_removed_and_uvicorn_reaches_the_file(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # What uvicorn's own logging config installs when it is not told otherwise.
    logging.getLogger("uvicorn").addHandler(logging.StreamHandler(sys.stderr))
    logging.getLogger("uvicorn").propagate = False
    logging.getLogger().addHandler(logging.StreamHandler(sys.stderr))
    path = logs.setup_logging("info", tmp_path)
    logging.getLogger("uvicorn.error").warning("uvicorn says %s", "0x" + KEY_HEX)
    _flush()
    assert "uvicorn says [redacted]" in path.read_text()
    assert capfd.readouterr().err == ""


async def test_the_local_exchange_logs_to_the_file_only(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    path = logs.setup_logging("info", tmp_path)
    exchange = LocalExchange(SimConfig(seed=1, market=False), FrozenClock())
    url = await exchange.start()
    try:
        host, port = url.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(b"NOT HTTP AT ALL\r\n\r\n")  # uvicorn logs "Invalid HTTP request received."
        await writer.drain()
        await reader.read()
        writer.close()
    finally:
        await exchange.stop()
    _flush()
    assert "Invalid HTTP request" in path.read_text()
    for name in logs.UVICORN_LOGGERS:
        assert not logging.getLogger(name).handlers
    assert capfd.readouterr().err == ""


def test_an_unwritable_directory_drops_records_silently(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert logs.setup_logging("info", blocker / "log") is None
    logging.getLogger("tui.test").error("nowhere to go")
    assert capfd.readouterr().err == ""


def test_unformattable_records_are_kept_not_raised() -> None:
    record = logging.LogRecord("tui.test", logging.INFO, __file__, 1, "two %s %s for 0x" + KEY_HEX, ("one",), None)
    assert logs.RedactingFilter(logging.Formatter()).filter(record)
    assert record.getMessage() == "two %s %s for [redacted] (unformattable log arguments)"


def test_log_dir_honours_the_environment(tmp_path: Path) -> None:
    assert logs.log_dir({"XTUI_LOG_DIR": str(tmp_path)}) == tmp_path
    assert logs.log_dir({}).name in ("log", "xtui", "Logs")

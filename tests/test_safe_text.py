"""Text from outside never reaches a terminal raw: each edge (the log, xtui's and xtui sim's stderr, a recording's
reasons and source, a notice, a table cell) is sent escape sequences, and none arrives as they were sent.

Tried before: a recording whose header's ``source`` held ESC ]0;TITLE BEL and whose failure reason held ESC [2J
cleared the screen and set the title of the terminal that ran ``xtui sim --replay``; a config path holding ESC [2J
cleared the screen of the one that ran ``xtui``.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text

from tui.edges.safe_text import printable

CLEAR = "\x1b[2J"
TITLE = "\x1b]0;pwned\x07"
HOSTILE = f"a{CLEAR}b{TITLE}c\x9b31m\x7f\u202eevil\u2066\x00"
RAW = ("\x1b", "\x07", "\x9b", "\x7f", "\u202e", "\u2066", "\x00")


def _raw(text: str) -> list[str]:
    return [c for c in RAW if c in text]


def test_printable_shows_every_control_as_an_escape() -> None:
    assert printable(HOSTILE) == "a\\x1b[2Jb\\x1b]0;pwned\\x07c\\x9b31m\\x7f\\u202eevil\\u2066\\x00"
    assert printable("two\nlines\ttab") == "two\\x0alines\\x09tab"
    assert printable("two\nlines", lines=True) == "two\nlines"
    assert printable("BTC-PERP ▲ 1,234.5 ü") == "BTC-PERP ▲ 1,234.5 ü"
    assert printable("x" * 50, 10) == "x" * 9 + "…"
    assert printable("\x1b" * 1_000_000, 10) == "\\x1b\\x1b\\…"


def test_the_log_file_gets_every_record_printable(tmp_path: Path) -> None:
    from tui.logs import setup_logging

    path = setup_logging("info", tmp_path)
    assert path is not None
    try:
        raise ValueError(HOSTILE)
    except ValueError:
        logging.getLogger("tui.test").exception("refused: %s (%r)", HOSTILE, {"k": HOSTILE})
    for handler in logging.getLogger().handlers:
        handler.flush()
    text = path.read_text(encoding="utf-8")
    assert "refused: a\\x1b[2Jb" in text and "ValueError: a\\x1b[2Jb" in text
    assert _raw(text) == []


def test_xtui_sim_says_a_recording_s_source_and_reasons_printable(tmp_path: Path) -> None:
    """The recording's header names its source with a title-setting escape, a failure's reason clears the screen,
    and its file's name holds one too: ``xtui sim --replay`` prints the source and logs the reason to the terminal."""
    import asyncio

    from tests.sim.test_replay_files import _record

    good = tmp_path / "good.jsonl"
    asyncio.run(_record(good))
    lines = good.read_text().splitlines(keepends=True)
    head = json.loads(lines[0])
    head["source"] = f"http://x{TITLE}"
    lines[0] = json.dumps(head) + "\n"
    lines = [x.replace('"reason":"', '"reason":"\\u001b[2J', 1) for x in lines]  # JSON's escape: ESC once read
    bad = tmp_path / f"rec{CLEAR}.jsonl"
    bad.write_text("".join(lines))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tui",
            "sim",
            "--port",
            "0",
            "--replay",
            str(bad),
            "--speed",
            "1000",
            "--exit-with-stdin",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().startswith("listening on")
        import time

        time.sleep(1.5)  # at speed 1000 the recording's few seconds are played: its failure said, then its end
    finally:
        _, err = proc.communicate("", timeout=30)
    assert "recorded from http://x\\x1b]0;pwned\\x07" in err and "unreachable (\\x1b[2Jinfo" in err, err
    assert _raw(err) == [], err
    empty = tmp_path / f"empty{TITLE}.jsonl"
    empty.write_text("")
    done = subprocess.run(
        [sys.executable, "-m", "tui", "sim", "--port", "0", "--replay", str(empty)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "it is empty" in done.stderr and _raw(done.stderr) == []


def test_xtui_says_a_config_error_printable(tmp_path: Path) -> None:
    folder = tmp_path / f"x{CLEAR}{TITLE}"
    folder.mkdir()
    (folder / "config.toml").write_text("not toml [")
    env = {**os.environ, "XTUI_CONFIG": str(folder / "config.toml")}
    done = subprocess.run(
        [sys.executable, "-m", "tui", "--url", "http://127.0.0.1:1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 1 and "not valid TOML" in done.stderr and "x\\x1b[2J" in done.stderr
    assert _raw(done.stderr) == []


def test_every_notice_is_printable(monkeypatch: pytest.MonkeyPatch) -> None:
    """A notice given before the app runs (no thread of its own yet) is posted as Textual's Notify: printable."""
    from textual.message import Message
    from textual.notifications import Notify

    from tui.ui.app import XtuiApp
    from tui.ui.render.lean_app import LeanApp

    seen: list[Message] = []

    def post(self: Any, message: Message) -> bool:
        seen.append(message)
        return True

    monkeypatch.setattr(LeanApp, "post_message", post)
    app = XtuiApp.__new__(XtuiApp)
    app.notify(f"Order refused: {HOSTILE}\nsecond line", title=f"BTC{TITLE}", severity="error")
    [posted] = seen
    assert isinstance(posted, Notify)
    message, title = posted.notification.message, posted.notification.title
    assert message.startswith("Order refused: a\\x1b[2Jb") and message.endswith("\nsecond line")
    assert title == "BTC\\x1b]0;pwned\\x07" and _raw(message + title) == []


def test_a_data_screen_s_result_line_is_printable() -> None:
    """The line under a data screen's tables says the exchange's refusal of a transfer, a vault deposit..."""
    from tui.ui.screens.data_screen import DataScreen

    shown: list[str] = []

    class _Line:
        def update(self, text: str) -> None:
            shown.append(text)

        def set_class(self, *_: Any) -> None:
            pass

    class _Screen:
        def query_one(self, *_: Any) -> _Line:
            return _Line()

        def notify(self, *_: Any, **__: Any) -> None:
            pass

    DataScreen.show_result(_Screen(), f"Transfer: rejected: {HOSTILE}", error=True)  # type: ignore[arg-type]
    assert shown == [f"Transfer: rejected: {printable(HOSTILE)}"] and _raw(shown[0]) == []


class _Table:
    def __init__(self) -> None:
        self.cells: dict[str, list[Any]] = {}

    def add_row(self, *cells: Any, key: str) -> None:
        self.cells[key] = list(cells)

    def update_cell(self, key: str, column: str, value: Any) -> None:
        self.cells[key][["market", "cloid"].index(column)] = value


def test_table_cells_of_server_names_and_cloids_are_printable() -> None:
    from tui.ui.widgets.table_rows import TableRows

    table = _Table()
    rows = TableRows(table, ["market", "cloid"])  # type: ignore[arg-type]
    rows.sync([("1", [Text(f"BTC{CLEAR}", style="bold"), f"0x{TITLE}"])])
    rows.sync([("1", [Text(f"BTC{CLEAR}", style="bold"), f"0xab{TITLE}"])])
    [[market, cloid]] = table.cells.values()
    assert isinstance(market, Text) and market.plain == "BTC\\x1b[2J" and str(market.style) == "bold"
    assert cloid == "0xab\\x1b]0;pwned\\x07"
    assert rows.sync([("1", [Text("ETH-PERP"), "0x01"])]) is False and table.cells["1"] == [Text("ETH-PERP"), "0x01"]


@pytest.mark.parametrize(
    ("args", "said", "code"),
    [  # a bad --url is a usage error (2); a symbol the profile's checks refuse, a failure to start (1)
        (["--url", f"http://127.0.0.1:1/{TITLE}"], "xtui: error: --url: 'http://127.0.0.1:1/\\x1b]0;pwned\\x07' is", 2),
        # a [ in the host: urlsplit's "Invalid IPv6 URL" ended xtui in a traceback
        (["--url", f"http://127.0.0.1:1{CLEAR}"], "xtui: error: --url: 'http://127.0.0.1:1\\x1b[2J' is not", 2),
        (["info", "--url", f"http://127.0.0.1:1{CLEAR}", "tickers"], "xtui info: error: --url: 'http://127.0.0.1:1", 2),
        (
            ["--url", "http://127.0.0.1:1", "--symbol", f"X{CLEAR}\u202e", "--address", "0x" + "ab" * 20],
            "xtui: --symbol:",
            1,
        ),
    ],
    ids=["url-path", "url-host", "info-url", "symbol"],
)
def test_xtui_refuses_a_value_with_escapes_in_one_printable_line(args: list[str], said: str, code: int) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tui", *args], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert done.returncode == code and done.stderr.startswith(said) and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr and _raw(done.stderr) == [], done.stderr

"""Every file xtui reads is a regular file, bounded; every file it writes is never a link, a pipe or a directory.

Each loader is run in a child process with a deadline, so a loader that waits on a FIFO (as a plain ``open()`` does)
fails the test instead of hanging the suite. Tried before the change: a FIFO as the layouts, alerts, watchlist, tool
book, last-session note, config or keystore held the loader for ever; a symlink as ``alerts-*.json.tmp`` had
``write_json`` write where the link pointed; a FIFO as ``xtui.log`` held ``setup_logging`` for ever.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tui.edges.bounded_parse import FileLimitError, NotRegularFile, read_capped
from tui.edges.regular_files import open_to_read, open_to_write, replace_with
from tui.feed.kept_files import write_json

DEADLINE_S = 30.0

# What each loader does with ``path``, printed: the words a trader would see.
LOADERS = {
    "layouts": "from tui.feed.layouts import LayoutBook as B; print(B.load(path).problem)",
    "alerts": "from tui.feed.alerts import AlertBook as B; print(B.load(path).problem)",
    "watchlist": "from tui.feed.watchlist import Watchlist as B; print(B.load(path).problem)",
    "tools": "from tui.trading.tool_book import ToolBook as B; print(B.load(path).problem)",
    "last-session": "from tui.ui.last_session import read_note; print(read_note(path)[1])",
    "events": ("from tui.feed.event_file import read_tail\ntry: read_tail(path)\nexcept OSError as exc: print(exc)"),
    "config": (
        "from tui.config.profiles import load_config\nfrom tui.config.errors import ConfigError\n"
        "try: load_config(path)\n"
        "except ConfigError as exc: print(exc)"
    ),
    "keystore": ("from tui import keys\ntry: keys._read(path)\nexcept keys.KeystoreError as exc: print(exc)"),
    "recording": (
        "from tui.sim.mirror.replay import RecordingError, load_recording\n"
        "try: load_recording(path)\n"
        "except RecordingError as exc: print(exc)"
    ),
    "theme": (
        "from tui.ui.themes import ThemeError, load_theme\ntry: load_theme(path)\nexcept ThemeError as exc: print(exc)"
    ),
}
NAMES = {"layouts": "layouts-local.json", "alerts": "alerts-local.json", "watchlist": "watchlist-local.json"}


def _load_in_child(kind: str, path: Path) -> str:
    code = f"from pathlib import Path\npath = Path({str(path)!r})\n" + textwrap.dedent(LOADERS[kind])
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the {kind} loader still waits on {path} after {DEADLINE_S} s")
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize("kind", sorted(LOADERS))
def test_a_fifo_in_place_of_any_file_read_is_refused_in_words_at_once(tmp_path: Path, kind: str) -> None:
    """Tried: a FIFO with no writer as each file xtui reads. A plain open() waits for a writer for ever."""
    path = tmp_path / NAMES.get(kind, f"{kind}.json")
    os.mkfifo(path)
    said = _load_in_child(kind, path)
    assert "named pipe (FIFO), not a regular file" in said, said


@pytest.mark.parametrize("kind", ["config", "recording", "keystore", "theme"])
def test_dev_zero_is_refused_not_read_without_end(kind: str) -> None:
    said = _load_in_child(kind, Path("/dev/zero"))
    assert "it is a device, not a regular file" in said, said


@pytest.mark.parametrize("kind", ["layouts", "alerts", "watchlist", "tools", "config", "recording"])
def test_a_directory_in_place_of_a_file_is_refused_in_words(tmp_path: Path, kind: str) -> None:
    path = tmp_path / NAMES.get(kind, f"{kind}.json")
    path.mkdir()
    said = _load_in_child(kind, path)
    assert "directory" in said, said


@pytest.mark.parametrize("kind", ["layouts", "alerts", "watchlist", "tools", "last-session"])
def test_a_kept_file_that_is_a_link_is_not_followed(tmp_path: Path, kind: str) -> None:
    """The files xtui keeps in its data directory are its own: a link there is set aside, never read through."""
    target = tmp_path / "elsewhere.json"
    target.write_text("{}")
    path = tmp_path / NAMES.get(kind, f"{kind}.json")
    path.symlink_to(target)
    said = _load_in_child(kind, path)
    assert "symbolic link" in said, said
    assert target.read_text() == "{}"


def test_read_capped_refuses_what_is_over_its_bound_before_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    with path.open("wb") as f:
        f.truncate(10**9)  # sparse: 1 GB that costs nothing
    with pytest.raises(FileLimitError, match=r"1000.0 MB, more than the 1.0 KB"):
        read_capped(path, 1_000)
    with pytest.raises(NotRegularFile, match="device"):
        read_capped(Path("/dev/zero"), 1_000)


def test_a_link_as_a_written_file_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    target = tmp_path / "precious"
    target.write_text("keep me")
    link = tmp_path / "alerts-local.json"
    link.symlink_to(target)
    with pytest.raises(NotRegularFile, match="symbolic link"):
        write_json(link, {"alerts": []})
    with pytest.raises(NotRegularFile, match="symbolic link"):
        open_to_write(link)
    with pytest.raises(NotRegularFile, match="symbolic link"):
        open_to_write(link, append=True)
    assert target.read_text() == "keep me" and link.is_symlink()


def test_a_stale_temporary_link_beside_a_kept_file_is_never_written_through(tmp_path: Path) -> None:
    """Before: write_json wrote NAME.tmp with write_text, which follows a link planted there."""
    target = tmp_path / "precious"
    target.write_text("keep me")
    (tmp_path / "alerts-local.json.tmp").symlink_to(target)
    write_json(tmp_path / "alerts-local.json", {"alerts": []})
    assert target.read_text() == "keep me"
    assert json.loads((tmp_path / "alerts-local.json").read_text()) == {"alerts": []}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alerts-local.json", "alerts-local.json.tmp", "precious"]


@pytest.mark.parametrize("what", ["fifo", "directory"])
def test_a_fifo_or_a_directory_as_a_written_file_is_refused_at_once(tmp_path: Path, what: str) -> None:
    path = tmp_path / "out.jsonl"
    os.mkfifo(path) if what == "fifo" else path.mkdir()
    words = "named pipe" if what == "fifo" else "directory"
    with pytest.raises(NotRegularFile, match=words):
        open_to_write(path)
    with pytest.raises(NotRegularFile, match=words):
        replace_with(path, b"x")
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]  # no temporary file left


def test_a_fifo_with_a_reader_is_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    with pytest.raises(NotRegularFile, match="named pipe"):
        open_to_read(path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a reader: the write side now opens, and is still refused
    try:
        with pytest.raises(NotRegularFile, match="named pipe"):
            open_to_write(path)
    finally:
        os.close(fd)


def test_an_open_to_write_empties_only_a_regular_file_and_keeps_appends(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"old")
    with open_to_write(path, append=True) as f:
        f.write(b"+new")
    assert path.read_bytes() == b"old+new"
    with open_to_write(path) as f:
        f.write(b"fresh")
    assert path.read_bytes() == b"fresh"


def test_a_fifo_as_the_log_file_leaves_logging_to_nothing_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "xtui.log")
    code = (
        f"from pathlib import Path\nfrom tui.logs import setup_logging as s\nprint(s('info', Path({str(tmp_path)!r})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=DEADLINE_S)
    assert done.stdout.strip() == "None" and done.stderr == ""


def test_a_link_as_the_recording_written_is_refused_in_words(tmp_path: Path) -> None:
    from tui.sim.mirror.record import Recorder

    target = tmp_path / "precious"
    target.write_text("keep me")
    (tmp_path / "rec.jsonl").symlink_to(target)
    with pytest.raises(NotRegularFile, match="symbolic link"):
        Recorder(tmp_path / "rec.jsonl")
    assert target.read_text() == "keep me"


def test_config_init_force_never_writes_through_a_link(tmp_path: Path) -> None:
    target = tmp_path / "precious"
    target.write_text("keep me")
    config = tmp_path / "config.toml"
    config.symlink_to(target)
    env = {**os.environ, "XTUI_CONFIG": str(config)}
    done = subprocess.run(
        [sys.executable, "-m", "tui", "config", "init", "--force"],
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
        env=env,
    )
    assert done.returncode != 0 and "it is a symbolic link, not a regular file" in done.stderr, done.stderr
    assert target.read_text() == "keep me"


def test_the_refusal_reads_as_words_alone(tmp_path: Path) -> None:
    """Before: a filename set on the OSError made its text '[Errno None] it is ...: PATH' in the notice."""
    os.mkfifo(tmp_path / "f")
    with pytest.raises(NotRegularFile) as refused:
        open_to_read(tmp_path / "f")
    assert str(refused.value) == refused.value.strerror == "it is a named pipe (FIFO), not a regular file"

"""The kept CSS file within limits: a crafted pickle nested 1,000,000 deep (which no recursion limit stops: hashing
its dict key overflows the C stack), a damaged or foreign file, a file over 8 MiB: each is ignored before anything
is unpickled, and written afresh; the start goes on."""

from __future__ import annotations

import logging
import os
import pickle
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from textual.css.stylesheet import Stylesheet

from tui.ui.kept_css import _MAGIC, FILE_NAME, KEY_NAME, KeptCss, _stamp

KEY = ("X { height: 1; }", ("f", "X.DEFAULT_CSS"), True, 0, "", "v")


def _deep_pickle(depth: int) -> bytes:
    """(the right stamp, {a tuple nested ``depth`` deep: None}), written opcode by opcode (pickle itself cannot
    write it): unpickling hashes the key, which recurses in C once per level."""
    stamp = pickle.dumps(_stamp(), protocol=2)[2:-1]  # no PROTO, no STOP
    key = b")" + b"\x85" * depth  # EMPTY_TUPLE, then TUPLE1 around it, depth times
    return b"\x80\x02" + stamp + b"}" + key + b"Ns" + b"\x86."  # EMPTY_DICT key None SETITEM, TUPLE2, STOP


def _kept_in_child(path: Path) -> subprocess.CompletedProcess[str]:
    """Read ``path`` as the next start would, in a child process: a crash kills the child, not the test run."""
    code = textwrap.dedent(
        f"""
        from pathlib import Path
        from tui.ui.kept_css import KeptCss
        print(KeptCss(Path({str(path)!r})).get({KEY!r}) is None)
        """
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_a_crafted_file_nested_1_000_000_deep_is_ignored_unread(tmp_path: Path) -> None:
    """Tried: the kept CSS file (1 MB) replaced by a pickle whose dict key is a tuple nested 1,000,000 deep, with
    the right stamp. Before: every start died of SIGSEGV before its first frame (the recursion limit does not
    guard tuple hashing). Now it carries no MAC of this user's key, so it is ignored before anything is
    unpickled."""
    path = tmp_path / FILE_NAME
    path.write_bytes(_deep_pickle(1_000_000))
    done = _kept_in_child(path)
    assert (done.returncode, done.stdout) == (0, "True\n"), done.stderr[-2000:]
    assert "not written by this xtui" in done.stderr


def test_a_damaged_or_foreign_file_is_ignored_and_written_afresh(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Tried: a kept file with one byte changed, and one signed with another user's key. Both are ignored (the log
    says which file), the rules are parsed afresh, and the next save writes a file that reads back."""
    path = tmp_path / FILE_NAME
    rules = Stylesheet()._parse_rules(KEY[0], KEY[1], True, 0, "")
    first = KeptCss(path)
    first.put(KEY, rules)
    first.save()
    assert KeptCss(path).get(KEY) is not None  # whole and ours: read
    data = bytearray(path.read_bytes())
    data[-20] ^= 0x01
    path.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING, logger="tui.ui.kept_css"):
        assert KeptCss(path).get(KEY) is None
    assert f"kept CSS in {path} ignored: not whole, or not written by this xtui" in caplog.text
    other = KeptCss(path, tmp_path / "other.key")
    other.put(KEY, rules)
    other.save()  # whole, but signed with another key
    again = KeptCss(path)
    assert again.get(KEY) is None
    again.put(KEY, rules)
    again.save()
    assert KeptCss(path).get(KEY) is not None


def test_a_file_over_8_mib_is_not_read(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Tried: a kept file of 9 MB. It is not read past its cap; the log says so."""
    path = tmp_path / FILE_NAME
    path.write_bytes(_MAGIC + b"\0" * 9_000_000)
    with caplog.at_level(logging.WARNING, logger="tui.ui.kept_css"):
        assert KeptCss(path).get(KEY) is None
    assert "more than the 8.4 MB it may be" in caplog.text


def test_the_key_is_the_users_alone_and_kept_in_the_data_dir(tmp_path: Path) -> None:
    """The dashboard keeps the key in the data dir, apart from the cache it signs, readable by its user only."""
    from tui.config.launch import Flags, apply_flags, identity
    from tui.config.profiles import resolve
    from tui.paths import data_dir
    from tui.ui.run import dashboard_app

    launch = apply_flags(resolve("local"), Flags())
    app = dashboard_app(launch, identity(launch), local_url="http://127.0.0.1:9")
    assert app.kept_css is not None and app.kept_css.key_path == data_dir() / KEY_NAME
    app.kept_css.put(KEY, Stylesheet()._parse_rules(KEY[0], KEY[1], True, 0, ""))
    app.kept_css.save()
    assert stat.S_IMODE(os.stat(data_dir() / KEY_NAME).st_mode) == 0o600

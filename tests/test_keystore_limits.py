"""Keystores within limits: a file nested 100,000 deep is a clear error, not a segfault; a key derivation costlier
than a standard keystore's is refused at once, before any password; a file others can read unlocks with a
warning naming the fix; and unlocking leaves the recursion limit as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from tui import keys
from tui.config import unlock

KEY = "0x" + "7d" * 32
PASSWORD = "correct-horse-battery"


@pytest.fixture(autouse=True)
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XTUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(keys, "SCRYPT_N", 1 << 10)  # the format is the same; unlocking takes ms, not a second
    return tmp_path


def _rewrite(name: str, change: Any) -> Path:
    path = keys.keystore_path(name)
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize(
    ("depth", "said"),
    [(100_000, "it is 200.0 KB, more than the 65.5 KB it may be"), (30_000, "line 1: nested more than 8 deep")],
)
def test_a_keystore_nested_100_000_deep_is_an_error_not_a_segfault(dirs: Path, depth: int, said: str) -> None:
    """Tried: a keystore file nested 100,000 (and 30,000) deep, read after eth-keyfile was imported (its py_ecc
    raises the recursion limit to 100,000). Before, json.loads overflowed the C stack and the process died
    (SIGSEGV); it is read in a child process so that a crash cannot take the test run with it."""
    path = keys.keystore_path("deep")
    path.parent.mkdir(parents=True)
    path.write_text('{"version": 3, "crypto": ' + "[" * depth + "]" * depth + "}")
    code = textwrap.dedent(
        """
        import sys
        import eth_keyfile.keyfile  # py_ecc raises the recursion limit to 100,000
        assert sys.getrecursionlimit() >= 100_000
        from tui import keys
        try:
            keys.read_address("deep")
        except keys.KeystoreError as exc:
            print(exc)
        """
    )
    env = {**os.environ, "XTUI_DATA_DIR": str(dirs / "data")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == f"{path} is damaged: {said}"


def test_unlocking_leaves_the_recursion_limit_as_it_was(dirs: Path) -> None:
    """Tried: unlock a keystore (which imports eth-keyfile, and with it py_ecc) in a fresh process. Before, the
    process's recursion limit was 100,000 from then on: any C parser given deep input could overflow the stack."""
    code = textwrap.dedent(
        f"""
        import sys
        from tui import keys
        keys.SCRYPT_N = 1 << 10
        keys.create("main", {PASSWORD!r})
        before = sys.getrecursionlimit()
        keys.load("main", {PASSWORD!r})
        print(before, sys.getrecursionlimit(), "py_ecc" in sys.modules)
        """
    )
    env = {**os.environ, "XTUI_DATA_DIR": str(dirs / "data")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert done.stdout.split() == ["1000", "1000", "True"], done.stderr[-2000:]


def test_scrypt_n_2_22_is_refused_at_once_before_any_password(answers: list[str]) -> None:
    """Tried: a keystore with scrypt n = 2^22 (16x the standard). Before: ~20 s and ~4 GiB, then "wrong
    password". Now refused at once, naming the cost, before the password is asked for."""
    keys.create("costly", PASSWORD)
    _rewrite("costly", lambda d: d["crypto"]["kdfparams"].update(n=1 << 22))
    answers.append(PASSWORD)
    started = time.monotonic()
    with pytest.raises(keys.KeystoreError, match=r"scrypt cost \(n = 4,194,304, r = 8, p = 1\) is over") as caught:
        unlock.unlock("costly")
    assert time.monotonic() - started < 1.0 and answers == [PASSWORD]  # nothing asked
    assert "re-encrypt it" in str(caught.value) and "1,024 MB" not in str(caught.value)  # 128 * 2^22 * 8 = 4 GiB
    assert "4,096 MB" in str(caught.value)


@pytest.mark.parametrize(
    ("kdf", "change", "said"),
    [
        ("scrypt", {"n": 1 << 18, "r": 64}, "scrypt cost (n = 262,144, r = 64, p = 1) is over"),
        ("scrypt", {"n": 1 << 14, "p": 64}, "scrypt cost (n = 16,384, r = 8, p = 64) is over"),
        ("scrypt", {"n": 1000}, "n = 1,000 is not a power of 2"),
        ("scrypt", {"n": 1 << 50}, "n = 1,125,899,906,842,624 is not 2 to"),
        ("scrypt", {"n": 1024.0}, "n = float is not 2 to"),
        ("scrypt", {"r": True}, "r = bool is not 1 to 64"),
        ("scrypt", {"dklen": 16}, "dklen = 16 is not 32 to 64"),
        ("scrypt", {"salt": "zz"}, "crypto.kdfparams.salt is not hex"),
        ("pbkdf2", {"c": 10**9}, "c = 1,000,000,000 is not 1 to 2,000,000"),
        ("pbkdf2", {"prf": "hmac-md5"}, "prf is not hmac-sha256"),
    ],
)
def test_key_derivation_parameters_are_bounded(kdf: str, change: dict[str, Any], said: str) -> None:
    """Tried: each key-derivation parameter out of bounds or of the wrong type; refused in words, at once."""
    keys.create("k", PASSWORD)

    def edit(document: dict[str, Any]) -> None:
        params = document["crypto"]["kdfparams"]
        if kdf == "pbkdf2":
            document["crypto"]["kdf"] = "pbkdf2"
            params.clear()
            params.update(c=1000, dklen=32, prf="hmac-sha256", salt="ab" * 16)
        params.update(change)

    path = _rewrite("k", edit)
    started = time.monotonic()
    with pytest.raises(keys.KeystoreError) as caught:
        keys.load("k", PASSWORD)
    assert said in str(caught.value) and str(path) in str(caught.value) and time.monotonic() - started < 1.0


def test_a_pbkdf2_keystore_within_bounds_still_opens() -> None:
    """A pbkdf2 keystore at a cost within the bound (as eth-account writes them) opens as before."""
    from eth_keyfile.keyfile import create_keyfile_json

    document = create_keyfile_json(bytes.fromhex(KEY[2:]), PASSWORD.encode(), kdf="pbkdf2", iterations=1000)
    path = keys.keystore_path("pb")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document))
    assert keys.load("pb", PASSWORD).secret_hex() == KEY


@pytest.mark.parametrize(("mode", "who"), [(0o644, "its group and every user"), (0o640, "its group"), (0o604, None)])
def test_a_keystore_others_can_read_unlocks_with_a_warning_and_the_fix(
    answers: list[str], capsys: pytest.CaptureFixture[str], mode: int, who: str | None
) -> None:
    """Tried: a keystore file readable by group or others (0644, 0640, 0604). Before: it loaded without a word.
    Now a warning on stderr, before the password is asked for, names who can read it and the fix."""
    keys.create("open", PASSWORD)
    path = keys.keystore_path("open")
    os.chmod(path, mode)
    answers.append(PASSWORD)
    assert unlock.unlock("open").address == keys.read_address("open")
    err = capsys.readouterr().err
    assert f"can be read by {who or 'every user'} (mode {mode:04o}): chmod 600 {path}" in err


def test_a_keystore_only_its_owner_reads_unlocks_quietly(
    answers: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A 0600 keystore (as xtui writes them) gives no warning."""
    keys.create("closed", PASSWORD)
    answers.append(PASSWORD)
    unlock.unlock("closed")
    assert "warning" not in capsys.readouterr().err and keys.exposure("closed") is None

"""Keystores: round trips, wrong passwords, damaged files, file modes, and `xtui keys` as a real process."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tui import keys
from tui.api.signing import Signer, keccak256, recover_digest
from tui.cli import admin as cli_admin
from tui.cli.main import build_parser
from tui.config import unlock
from tui.config.errors import StartupError
from tui.config.profiles import KeySource, ProfileConfig

KEY = "0x" + "7d" * 32
PASSWORD = "correct-horse-battery"


@pytest.fixture(autouse=True)
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XTUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("XTUI_LOG_DIR", str(tmp_path / "log"))
    monkeypatch.setenv("XTUI_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setattr(keys, "SCRYPT_N", 1 << 10)  # the format is the same; unlocking takes ms, not a second
    return tmp_path


def test_a_keystore_written_by_eth_account_opens_and_ours_opens_in_eth_account() -> None:
    """xtui keystores were written with eth-account before eth-keyfile: those files keep opening, both ways."""
    from eth_account import Account

    signer = Signer(KEY)
    document = Account.encrypt(bytes.fromhex(KEY[2:]), PASSWORD, kdf="scrypt", iterations=1 << 10)
    keys.keystore_path("old").parent.mkdir(parents=True, exist_ok=True)
    keys.keystore_path("old").write_text(json.dumps(document))
    assert keys.load("old", PASSWORD).address == signer.address
    with pytest.raises(keys.WrongPassword):
        keys.load("old", "not-the-password")

    address = keys.import_key("new", KEY, PASSWORD)
    stored = json.loads(keys.keystore_path("new").read_text())
    assert Account.decrypt(stored, PASSWORD) == bytes.fromhex(KEY[2:])
    assert address == signer.address


def test_round_trip_new_list_load_sign() -> None:
    address = keys.create("main", PASSWORD)
    assert keys.list_keys() == [("main", address)]
    signer = keys.load("main", PASSWORD)
    digest = keccak256(b"an action")
    assert signer.address == address and recover_digest(digest, signer.sign_digest(digest)) == address
    path = keys.keystore_path("main")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    document = json.loads(path.read_text())
    assert document["version"] == 3 and document["crypto"]["kdf"] == "scrypt"
    assert signer.secret_hex()[2:] not in path.read_text()


def test_import_and_key_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    assert keys.import_key("imported", KEY, PASSWORD) == Signer(KEY).address
    assert keys.load("imported", PASSWORD).secret_hex() == KEY
    monkeypatch.setenv("MY_KEY", KEY)
    assert keys.key_from_env("MY_KEY").address == Signer(KEY).address
    with pytest.raises(keys.KeystoreError, match="MISSING_KEY is not set"):
        keys.key_from_env("MISSING_KEY")
    monkeypatch.setenv("BAD_KEY", "0x" + "zz" * 32)
    with pytest.raises(keys.KeystoreError, match="BAD_KEY: private key is not hex"):
        keys.key_from_env("BAD_KEY")


def test_refusals_change_nothing_and_never_quote_the_key() -> None:
    keys.create("main", PASSWORD)
    before = keys.keystore_path("main").read_bytes()
    with pytest.raises(keys.KeystoreError, match="already exists"):
        keys.import_key("main", KEY, PASSWORD)
    assert keys.keystore_path("main").read_bytes() == before
    with pytest.raises(keys.KeystoreError, match="at least 8 characters"):
        keys.create("other", "short")
    with pytest.raises(keys.KeystoreError, match="not a keystore name"):
        keys.create("../escape", PASSWORD)
    with pytest.raises(keys.KeystoreError) as caught:
        keys.import_key("bad", KEY[:-1] + "g", PASSWORD)
    assert KEY[4:-4] not in str(caught.value)
    with pytest.raises(keys.KeystoreError) as caught:
        keys.create(KEY, PASSWORD)  # a key pasted where the name goes
    assert KEY[4:-4] not in str(caught.value) and "[redacted]" in str(caught.value)
    assert [name for name, _ in keys.list_keys()] == ["main"]


def test_wrong_password_three_tries_then_nothing_changed(answers: list[str]) -> None:
    keys.create("main", PASSWORD)
    before = keys.keystore_path("main").read_bytes()
    with pytest.raises(keys.WrongPassword, match=r"wrong password for keystore main$"):
        keys.load("main", "not-the-password")
    answers += ["guess-one", "guess-two", "guess-three", "never-asked"]
    with pytest.raises(StartupError, match="wrong password for keystore main after 3 tries"):
        unlock.unlock("main")
    assert answers == ["never-asked"]
    assert keys.keystore_path("main").read_bytes() == before
    answers[:] = ["guess-one", PASSWORD]
    assert unlock.unlock("main").address == keys.read_address("main")


def _damage(path: Path, change: str) -> None:
    document = json.loads(path.read_text())
    if change == "truncate":
        path.write_text(path.read_text()[:100])
        return
    if change == "ciphertext":
        text = document["crypto"]["ciphertext"]
        document["crypto"]["ciphertext"] = ("0" if text[0] != "0" else "1") + text[1:]
    elif change == "mac-foreign":  # a file from another tool (no checksum) with a changed ciphertext
        del document[keys.CHECKSUM_FIELD]
        text = document["crypto"]["ciphertext"]
        document["crypto"]["ciphertext"] = ("0" if text[0] != "0" else "1") + text[1:]
    elif change == "missing":
        del document["crypto"]["mac"]
    elif change == "address":
        document["address"] = "11" * 20
    path.write_text(json.dumps(document))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("truncate", "is damaged: not valid JSON"),
        ("ciphertext", "is damaged: its encrypted key was changed"),
        ("missing", "is damaged: missing crypto.mac"),
        ("address", "is damaged: the key does not match its address"),
        ("mac-foreign", "wrong password for keystore main (or "),
    ],
)
def test_damaged_keystore_is_named(change: str, message: str) -> None:
    keys.create("main", PASSWORD)
    path = keys.keystore_path("main")
    _damage(path, change)
    with pytest.raises(keys.KeystoreError) as caught:
        keys.load("main", PASSWORD)
    assert message in str(caught.value) and str(path) in str(caught.value)


def test_damaged_keystore_fails_before_any_prompt(answers: list[str]) -> None:
    keys.create("main", PASSWORD)
    _damage(keys.keystore_path("main"), "truncate")
    answers.append(PASSWORD)
    with pytest.raises(keys.KeystoreError, match="not valid JSON"):
        unlock.unlock("main")
    assert answers == [PASSWORD]
    assert keys.list_keys() == [("main", None)]


def admin(*argv: str) -> int:
    """A config or keys command in this process (without main, which would set up process-wide logging)."""
    return cli_admin.run_admin(build_parser().parse_args(argv))


def test_cli_new_import_remove_with_prompts(
    answers: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answers += [PASSWORD, "a-typo-in-it", PASSWORD, PASSWORD]  # the first pair differs: asked again
    assert admin("keys", "new", "main") == 0
    assert answers == [] and "created keystore main: 0x" in capsys.readouterr().out
    answers += [KEY, PASSWORD, PASSWORD]
    assert admin("keys", "import", "imported") == 0
    assert keys.read_address("imported") == Signer(KEY).address
    monkeypatch.setattr("builtins.input", lambda prompt="": "")
    with pytest.raises(cli_admin.AdminError, match="keystore imported kept"):
        admin("keys", "remove", "imported")  # the default answer is no
    monkeypatch.setattr("builtins.input", lambda prompt="": "y")
    assert admin("keys", "remove", "imported") == 0
    assert [name for name, _ in keys.list_keys()] == ["main"]


def test_signer_for_a_profile(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRADER_KEY", KEY)
    own = ProfileConfig("p", key=KeySource("env", "TRADER_KEY"), account=Signer(KEY).address)
    assert unlock.signer_for(own) is not None
    other = "0x" + "ab" * 20
    with pytest.raises(StartupError, match="use agent_key_env"):
        unlock.signer_for(ProfileConfig("p", key=KeySource("env", "TRADER_KEY"), account=other))
    agent = unlock.signer_for(ProfileConfig("p", key=KeySource("env", "TRADER_KEY", agent=True), account=other))
    assert agent is not None and agent.address == Signer(KEY).address
    assert unlock.signer_for(ProfileConfig("p")) is None
    keys.import_key("stored", KEY, PASSWORD)
    monkeypatch.setenv("STORED_PASSWORD", PASSWORD)
    stored = ProfileConfig("p", key=KeySource("keystore", "stored"))
    assert unlock.signer_for(stored, password_env="STORED_PASSWORD") is not None


# ---- the real process ---------------------------------------------------------------------------------


def xtui(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """``python -m tui ARGS`` with stdin closed, so any prompt must fail instead of waiting."""
    proc = subprocess.run(
        [sys.executable, "-m", "tui", *args], stdin=subprocess.DEVNULL, capture_output=True, text=True,
        env={**os.environ, **(env or {})}, timeout=60, check=False,
    )  # fmt: skip
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.long
def test_cli_session_leaks_the_key_nowhere(dirs: Path) -> None:
    env = {"SESSION_KEY": KEY, "SESSION_PASSWORD": PASSWORD}
    runs = [
        xtui("--log-level", "debug", "keys", "import", "trader", "--key-env", "SESSION_KEY", "--password-env",
             "SESSION_PASSWORD", env=env),
        xtui("--log-level", "debug", "keys", "list", env=env),
        xtui("--log-level", "debug", "keys", "address", "trader", "--verify", "--password-env", "SESSION_PASSWORD",
             env=env),
        xtui("--log-level", "debug", "keys", "address", "trader", "--verify", "--password-env", "SESSION_KEY",
             env=env),  # the wrong password
        xtui("config", "init", env=env),
        xtui("config", "show", env={**env, "XTUI_KEY_ENV": "SESSION_KEY", "XTUI_PROFILE": "testnet"}),
        xtui("keys", "import", "again", KEY, env=env),  # the key as an argument: refused, not echoed
        xtui("exchange", "cancelAll", "--key", KEY, env=env),
    ]  # fmt: skip
    address = Signer(KEY).address
    assert runs[0][0] == 0 and address in runs[0][1]
    assert runs[1] == (0, f"trader  {address}\n", "")
    assert runs[2] == (0, f"{address}\n", "")
    assert runs[3][0] == 1 and runs[3][2] == "xtui: wrong password for keystore trader (from SESSION_KEY)\n"
    assert runs[5][0] == 0 and 'key_env = "SESSION_KEY"  # from XTUI_KEY_ENV' in runs[5][1]
    assert runs[6][0] == 2 and runs[7][0] == 2  # usage errors: refused before anything reads the key
    for rc, _, err in runs:
        assert rc != 0 or err == "", err  # nothing on the terminal but the command's own output
        assert err.count("\n") <= 1
    log = (dirs / "log" / "xtui.log").read_text()
    assert "keystore trader written" in log and "keystore trader unlocked" in log
    texts = [out + err for _, out, err in runs] + [log, (dirs / "config.toml").read_text()]
    texts += [p.read_text() for p in (dirs / "data" / "keys").iterdir()]
    for text in texts:
        assert KEY[2:] not in text.lower() and PASSWORD not in text


def test_cli_prompts_fail_cleanly_without_a_terminal() -> None:
    for args in (("keys", "new", "main"), ("keys", "import", "main")):
        rc, out, err = xtui(*args)
        assert rc == 1 and out == "" and err.startswith("xtui: ") and "no terminal to ask on; pass --" in err
    assert not keys.keys_dir().exists() or not any(keys.keys_dir().iterdir())
    keys.create("main", PASSWORD)
    rc, _, err = xtui("keys", "remove", "main")
    assert rc == 1 and "pass --yes" in err and keys.keystore_path("main").exists()
    assert xtui("keys", "remove", "main", "--yes")[:2] == (0, "removed keystore main\n")
    rc, _, err = xtui("keys", "address", "main")
    assert rc == 1 and err.startswith("xtui: no keystore named main")

"""What the account switcher lists and refuses, without the dashboard: each profile's kind, its network, where it
trades (a built-in exchange like the one running, or one started for it), why one cannot be switched to, and the
keystore's password asked for on demand."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ALICE_KEY, BOB_KEY
from tui import keys
from tui.api.signing import Signer
from tui.config.accounts import account_choices, kind_of, needs_password, switch_launch, unlock_identity
from tui.config.errors import StartupError
from tui.config.launch import Flags, Launch, apply_flags
from tui.config.profiles import resolve

ALICE, BOB = Signer(ALICE_KEY), Signer(BOB_KEY)
PASSWORD = "a-long-enough-password"

TEXT = f"""\
[profiles.me]
key_env = "XTUI_TEST_ME_KEY"

[profiles.desk-agent]
url = "http://127.0.0.1:8765"
agent_key_env = "XTUI_TEST_AGENT_KEY"
account = "{ALICE.address}"

[profiles.watch]
account = "{BOB.address}"

[profiles.main-desk]
network = "mainnet"
key_env = "XTUI_TEST_ME_KEY"

[profiles.vault]
keystore = "vault"

[profiles.empty]
url = "http://127.0.0.1:8765"
"""


def started_on(name: str, flags: Flags | None = None) -> Launch:
    """The launch of ``xtui --profile name`` with TEXT as the config (a temp file of this test's)."""
    path = Path(os.environ["XTUI_CONFIG"])
    path.write_text(TEXT)
    return apply_flags(resolve(name, env={"XTUI_CONFIG": str(path)}), flags or Flags())


def choices_from(start: str, running: set[tuple[str, str | None]]) -> dict[str, Any]:
    launch = started_on(start)
    return {c.name: c for c in account_choices(launch.settings.config, launch, start, running)}


def test_each_profile_says_what_it_is_and_where_it_trades() -> None:
    """Started on the built-in exchange (profile me, testnet, the local market): the profiles on it trade there;
    the paper one and one signing for mainnet on the built-in exchange each get one started for them (said);
    a URL profile trades at its URL; a profile with neither key nor account cannot be switched to, and says why;
    the built-in testnet, mainnet and sim profiles, which the file never gave an account, are left out."""
    chosen = choices_from("me", {("testnet", None)})
    assert chosen["me"].current and chosen["me"].kind == "own key" and chosen["me"].unavailable is None
    assert chosen["local"].kind == "demo key" and chosen["local"].exchange == "built-in"
    assert chosen["watch"].kind == "watch-only" and chosen["watch"].address == BOB.address
    assert chosen["desk-agent"].kind == "agent" and chosen["desk-agent"].unavailable is None
    assert chosen["desk-agent"].exchange == "http://127.0.0.1:8765" and chosen["desk-agent"].address == ALICE.address
    paper = chosen["paper"]
    assert paper.kind == "paper" and paper.unavailable is None
    assert paper.exchange == "a paper copy of https://api.hotstuff.trade (started for it, playing testnet)"
    main_desk = chosen["main-desk"]
    assert main_desk.network == "mainnet" and main_desk.mainnet and main_desk.unavailable is None
    assert main_desk.exchange == "built-in (started for it, playing mainnet)"
    assert chosen["vault"].kind == "own key" and chosen["vault"].address is None  # no keystore file yet
    assert chosen["empty"].unavailable == (
        "it has no key and no account: set keystore (or key_env) or account in the config"
    )
    assert "testnet" not in chosen and "sim" not in chosen and "mainnet" not in chosen


def test_started_on_a_url_the_built_in_profiles_get_an_exchange_started_for_them() -> None:
    """Started on desk-agent (a URL): no built-in exchange runs yet, so local, me and watch say one is started."""
    chosen = choices_from("desk-agent", set())
    for name in ("local", "me", "watch"):
        assert chosen[name].exchange == "built-in (started for it, playing testnet)"
        assert chosen[name].unavailable is None
    assert chosen["desk-agent"].current


def test_a_switch_keeps_the_command_lines_read_only_and_asks_for_a_keystore_password(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--read-only holds for every account switched to (no key is unlocked then); a keystore profile's key needs
    its password: a wrong one is WrongPassword (asked again), the right one unlocks it; kind_of says read-only."""
    monkeypatch.setattr(keys, "SCRYPT_N", 1 << 10)
    keys.import_key("vault", ALICE_KEY, PASSWORD)
    started = started_on("me", Flags(read_only=True))
    vault_ro = switch_launch(started.settings.config, started, "vault")
    assert vault_ro.read_only and kind_of(vault_ro.profile) == "read-only" and needs_password(vault_ro) is None
    assert unlock_identity(vault_ro, None).signer is None  # watched: its address from the file, no password

    started = started_on("me")
    vault = switch_launch(started.settings.config, started, "vault")
    assert needs_password(vault) == "vault"
    with pytest.raises(keys.WrongPassword):
        unlock_identity(vault, "not-the-password")
    with pytest.raises(StartupError, match="needs its password"):
        unlock_identity(vault, None)
    ident = unlock_identity(vault, PASSWORD)
    assert ident.signer is not None and ident.account == ALICE.address
    main_desk = switch_launch(started.settings.config, started, "main-desk")
    assert main_desk.profile.network == "mainnet"

"""What the account switcher lists and refuses, without the dashboard: each profile's kind, its network, whether
the running dashboard can trade as it (the built-in exchange it started is the only one it has) and why not."""

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


def choices_from(start: str, local_url: str | None = "http://127.0.0.1:9999") -> dict[str, Any]:
    launch = started_on(start)
    return {c.name: c for c in account_choices(launch.settings.config, launch, start, local_url)}


def test_each_profile_says_what_it_is_and_the_paper_one_needs_its_own_exchange() -> None:
    """Started on the built-in exchange (profile me): the built-in profiles on it can be switched to, the paper one
    cannot (its exchange is a paper copy of another, started only by ``xtui --profile paper``), a profile signing
    for mainnet on the built-in exchange cannot either (it plays testnet), a URL profile can."""
    chosen = choices_from("me")
    assert chosen["me"].current and chosen["me"].kind == "own key" and chosen["me"].unavailable is None
    assert chosen["local"].kind == "demo key" and chosen["local"].unavailable is None
    assert chosen["watch"].kind == "watch-only" and chosen["watch"].address == BOB.address
    assert chosen["desk-agent"].kind == "agent" and chosen["desk-agent"].unavailable is None
    assert chosen["desk-agent"].exchange == "http://127.0.0.1:8765" and chosen["desk-agent"].address == ALICE.address
    paper = chosen["paper"]
    assert paper.kind == "paper" and paper.unavailable == (
        "it trades on a paper copy of https://api.hotstuff.trade, the built-in exchange here is the local market: "
        "start xtui --profile paper"
    )
    assert chosen["main-desk"].network == "mainnet" and chosen["main-desk"].unavailable == (
        "it signs for mainnet, the built-in exchange here plays testnet: start xtui --profile main-desk"
    )
    assert "testnet" not in chosen and "sim" not in chosen  # built-in, and given no key nor account by the file
    assert chosen["vault"].kind == "own key" and chosen["vault"].address is None  # no keystore file yet
    assert chosen["empty"].unavailable == (  # the file has it: it is listed, with what it lacks
        "it has no key and no account: set keystore (or key_env) or account in the config"
    )


def test_started_on_a_url_no_built_in_profile_can_be_switched_to() -> None:
    """Started on desk-agent (a URL): no built-in exchange runs, so local, me and paper say so."""
    chosen = choices_from("desk-agent", local_url=None)
    for name in ("local", "me", "paper", "watch"):
        assert chosen[name].unavailable == (
            f"it uses the built-in exchange, which this dashboard did not start: start xtui --profile {name}"
        )
    assert chosen["desk-agent"].current and chosen["desk-agent"].unavailable is None


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

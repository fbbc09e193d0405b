"""The profiles a running dashboard can switch to in place, what each is (own key, agent, watch-only, paper), and
its key, unlocked on demand.

A profile with a URL gets a client of its own; a profile on the built-in exchange trades on the one the dashboard
started if it is the same (same network, same paper source), else on one started for it as it is chosen. A profile
that cannot be switched to says why in words (``AccountChoice.unavailable``).
Nothing here asks on the terminal or writes to it: the dashboard asks for a keystore's password in a dialog and
passes the answer in (``unlock_identity``), and a wrong one is ``keys.WrongPassword``, to ask again.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Literal

import msgspec
from msgspec.structs import replace

from tui import keys
from tui.config.errors import StartupError
from tui.config.launch import Flags, Identity, Launch, apply_flags, identity, key_address
from tui.config.profiles import Config, ProfileConfig, Settings
from tui.config.unlock import check_key_account

if TYPE_CHECKING:
    from tui.api.signing import Signer

__all__ = [
    "AccountChoice",
    "AccountKind",
    "account_choices",
    "builtin_key",
    "kind_of",
    "needs_password",
    "switch_launch",
    "unlock_identity",
]

NO_ACCOUNT = "it has no key and no account: set keystore (or key_env) or account in the config"
AccountKind = Literal["own key", "agent", "watch-only", "paper", "read-only", "demo key"]


def kind_of(profile: ProfileConfig) -> AccountKind:
    """What trading as ``profile`` is, in the words the switcher and the header use."""
    if profile.mirror is not None:
        return "paper"
    if profile.read_only:
        return "read-only"
    if profile.key is None:
        return "demo key" if profile.builtin_exchange and profile.account is None else "watch-only"
    return "agent" if profile.key.agent else "own key"


class AccountChoice(msgspec.Struct, frozen=True):
    """One profile as the switcher lists it."""

    name: str
    kind: AccountKind
    network: str  # "testnet" or "mainnet": what its signatures are for
    exchange: str  # "built-in", "a paper copy of <source>" or the URL
    address: str | None  # the account, when it can be known without a password (None: a demo key, or unknown)
    unavailable: str | None  # why it cannot be switched to from here, in words (None: it can)
    current: bool = False

    @property
    def mainnet(self) -> bool:
        return self.network == "mainnet"


def _exchange(profile: ProfileConfig) -> str:
    if profile.mirror is not None:
        return f"a paper copy of {profile.mirror}"
    return "built-in" if profile.builtin_exchange else profile.url or ""


def builtin_key(profile: ProfileConfig) -> tuple[str, str | None]:
    """Which built-in exchange ``profile`` trades on: the network it plays and the source it mirrors (None: the
    local market). Two profiles with the same key share one."""
    return profile.network, profile.mirror


def _why_not(profile: ProfileConfig) -> str | None:
    """Why ``profile`` cannot be switched to (None: it can)."""
    if profile.key is None and profile.account is None and not profile.builtin_exchange:
        return NO_ACCOUNT
    return None


def _address(profile: ProfileConfig) -> str | None:
    """The profile's account, read without unlocking anything (a keystore's file names its address)."""
    if profile.account is not None:
        return profile.account
    if profile.key is None or profile.key.kind != "keystore":
        return None  # an environment key is read only when it is used
    try:
        return key_address(profile.key)
    except StartupError:
        return None


def account_choices(
    config: Config, started: Launch, current: str, running: Collection[tuple[str, str | None]]
) -> list[AccountChoice]:
    """Every profile of ``config``, in its order, as the switcher lists it; ``current`` is the profile shown now,
    ``started`` the launch the dashboard began with, ``running`` the built-in exchanges it has (``builtin_key``):
    a profile on another built-in exchange has one started for it when it is chosen."""
    out = []
    for name, profile in config.profiles.items():
        if name == started.profile.name:
            profile = started.profile  # with the command line's flags, as it runs
        why = _why_not(profile)
        if why == NO_ACCOUNT and not config.lines.defines(("profiles", name)):
            continue  # a built-in one (testnet, mainnet, sim) the config never gave a key or an account
        exchange = _exchange(profile)
        if profile.builtin_exchange and builtin_key(profile) not in running:
            exchange += f" (started for it, playing {profile.network})"
        out.append(
            AccountChoice(
                name=name,
                kind=kind_of(profile),
                network=profile.network,
                exchange=exchange,
                address=_address(profile) if why is None else profile.account,
                unavailable=why,
                current=name == current,
            )
        )
    return out


def switch_launch(config: Config, started: Launch, name: str) -> Launch:
    """The launch of profile ``name`` as a switch opens it: the file's profile (the environment's overrides were
    for the first one), with the command line's read-only, low-bandwidth and theme still in force."""
    if name == started.profile.name:
        return started
    profile = config.profiles[name]
    flags = started.flags
    settings = Settings(config, profile, "the account switcher", started.settings.log_level, {}, ())
    kept = Flags(read_only=flags.read_only, low_bandwidth=flags.low_bandwidth, theme=flags.theme)
    launch = apply_flags(settings, kept)
    if profile.is_mainnet:
        warning = f"profile {name} is the production exchange: real money"
        launch = replace(launch, warnings=(warning,))
    return launch


def needs_password(launch: Launch) -> str | None:
    """The keystore whose password trading as ``launch`` needs (None: no password to ask for)."""
    key = launch.profile.key
    if launch.read_only or key is None or key.kind != "keystore":
        return None
    return key.name


def unlock_identity(launch: Launch, password: str | None) -> Identity:
    """As whom ``launch`` trades, its keystore unlocked with ``password`` (``needs_password``): WrongPassword to ask
    again, StartupError for anything else, in words. Slow (the keystore's key derivation): not on the UI's loop."""
    keystore = needs_password(launch)
    if keystore is None:
        return identity(launch, prompt=_no_prompt)
    if password is None:
        raise StartupError(f"keystore {keystore} needs its password")
    try:
        signer: Signer = keys.load(keystore, password)
    except keys.WrongPassword:
        raise
    except keys.KeystoreError as exc:
        raise StartupError(str(exc)) from None
    check_key_account(launch.profile, signer)
    return Identity(signer, launch.profile.account or signer.address)


def _no_prompt(label: str, flag: str) -> str:
    raise StartupError(f"{label.rstrip(': ')}: the switcher asks for passwords itself")

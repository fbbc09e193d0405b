"""A profile's key, unlocked: from the environment variable it names, or from its keystore with a password that
comes from an environment variable or a ``prompt`` (the terminal's hidden prompt unless another is passed).

Secrets are never read from the command line; with no terminal to ask on, unlocking fails with one line naming
the flag to use instead of hanging a script. A keystore file that others can read is unlocked with a warning on
stderr naming the fix (``chmod 600 FILE``).
"""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from tui import keys
from tui.config.errors import StartupError

if TYPE_CHECKING:
    from tui.api.signing import Signer
    from tui.config.profiles import ProfileConfig

__all__ = ["TRIES", "Prompt", "ask_hidden", "check_key_account", "env_secret", "signer_for", "unlock"]

TRIES = 3
Prompt = Callable[[str, str], str]  # (label, the flag that avoids asking) -> the hidden answer


def env_secret(var: str, what: str) -> str:
    """The secret in environment variable ``var``; ``what`` names it in the error when it is unset."""
    value = os.environ.get(var)
    if not value:
        raise StartupError(f"environment variable {var} is not set (it should hold the {what})")
    return value


def ask_hidden(label: str, flag: str) -> str:
    """A hidden answer from the terminal; never reads a pipe, so a script fails instead of hanging."""
    if sys.stdin is None or sys.stdin.closed or not sys.stdin.isatty():
        raise StartupError(f"{label.rstrip(': ')}: no terminal to ask on; pass {flag}")
    try:
        return getpass.getpass(label)
    except EOFError:
        raise StartupError(f"no answer (input ended): pass {flag}") from None


def unlock(name: str, password_env: str | None = None, tries: int = TRIES, prompt: Prompt = ask_hidden) -> Signer:
    """Unlock keystore ``name`` with the password in ``password_env``, or ``tries`` answers to ``prompt``."""
    keys.read_address(name)  # a missing, damaged or too costly file fails before any password is asked for
    warning = keys.exposure(name)
    if warning:  # said before the password is typed, where the trader is looking
        sys.stderr.write(warning + "\n")
        sys.stderr.flush()
    if password_env:
        try:
            return keys.load(name, env_secret(password_env, "keystore password"))
        except keys.WrongPassword as exc:
            raise StartupError(f"{exc} (from {password_env})") from None
    for attempt in range(1, tries + 1):
        try:
            return keys.load(name, prompt(f"Password for keystore {name}: ", "--password-env VAR"))
        except keys.WrongPassword:
            if attempt < tries:
                sys.stderr.write(f"wrong password ({attempt} of {tries})\n")
    raise StartupError(f"wrong password for keystore {name} after {tries} tries; nothing was changed")


def signer_for(profile: ProfileConfig, password_env: str | None = None, prompt: Prompt = ask_hidden) -> Signer | None:
    """The profile's key, unlocked (None when watch-only); checks it matches ``account`` unless an agent."""
    source = profile.key
    if source is None:
        return None
    try:
        if source.kind == "env":
            signer = keys.key_from_env(source.name)
        else:
            signer = unlock(source.name, password_env, prompt=prompt)
    except keys.KeystoreError as exc:
        raise StartupError(str(exc)) from None
    check_key_account(profile, signer)
    return signer


def check_key_account(profile: ProfileConfig, signer: Signer) -> None:
    """StartupError unless the profile's own key (not an agent's) is the key of the account it names."""
    source = profile.key
    if source is None or source.agent or profile.account is None or profile.account == signer.address:
        return
    raise StartupError(
        f"profile {profile.name}: account {profile.account} is not the address of {source.field} "
        f"{source.name} ({signer.address}); to trade for it with that key, use agent_{source.field}"
    )

"""``xtui config`` and ``xtui keys``, and the global ``--log-level``.

Secrets are read only from hidden prompts or from environment variables the user names, never from the
command line; with no terminal to prompt on, a command fails with one line naming the flag to use.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tui.cli.parser import UsageError
from tui.config.errors import StartupError
from tui.logs import KEY_SHAPE, LEVELS

if TYPE_CHECKING:
    from tui.config.profiles import Settings

__all__ = [
    "ADMIN_COMMANDS",
    "AdminError",
    "add_admin_arguments",
    "refuse_key_argv",
    "run_admin",
]

ADMIN_COMMANDS = ("config", "keys")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


class AdminError(StartupError):
    """A failed ``config`` or ``keys`` command: printed as one line, exit code 1."""


def add_admin_arguments(parser: argparse.ArgumentParser, sub: Any) -> None:
    """The global ``--log-level`` and the ``config`` and ``keys`` subcommands."""
    parser.add_argument("--log-level", type=str.lower, choices=LEVELS, help="log file level (default: info)")

    p = sub.add_parser("config", help="the configuration file: path, show, init")
    csub = p.add_subparsers(dest="config_command", metavar="{path,show,init}")
    csub.add_parser("path", help="print where config.toml is (XTUI_CONFIG overrides)")
    show = csub.add_parser("show", help="print the effective configuration (after XTUI_* overrides)")
    show.add_argument("--profile", help="show this profile as selected (default: XTUI_PROFILE or default_profile)")
    init = csub.add_parser("init", help="write a commented config.toml with the built-in profiles")
    init.add_argument("--force", action="store_true", help="replace an existing file")

    p = sub.add_parser("keys", help="encrypted keystores: new, import, list, address, remove")
    ksub = p.add_subparsers(dest="keys_command", metavar="{new,import,list,address,remove}")
    password_help = "environment variable holding the keystore password (default: a hidden prompt)"
    new = ksub.add_parser("new", help="make a new random key, stored encrypted")
    new.add_argument("name")
    new.add_argument("--password-env", metavar="VAR", help=password_help)
    imp = ksub.add_parser("import", help="store an existing key encrypted (asked for hidden, never an argument)")
    imp.add_argument("name")
    imp.add_argument("--key-env", metavar="VAR", help="environment variable holding the key (default: a prompt)")
    imp.add_argument("--password-env", metavar="VAR", help=password_help)
    ksub.add_parser("list", help="names and addresses (no password needed)")
    addr = ksub.add_parser("address", help="print a keystore's address")
    addr.add_argument("name")
    addr.add_argument("--verify", action="store_true", help="unlock it to check the password and the file")
    addr.add_argument("--password-env", metavar="VAR", help=password_help)
    rm = ksub.add_parser("remove", help="delete a keystore (asks first)")
    rm.add_argument("name")
    rm.add_argument("--yes", action="store_true", help="do not ask for confirmation")


def refuse_key_argv(argv: Sequence[str]) -> str | None:
    """Why a config or keys command line holding something shaped like a key is refused (a usage error)."""
    if any(a in ADMIN_COMMANDS for a in argv) and any(KEY_SHAPE.search(a) for a in argv):
        return (
            "a private key on the command line is refused (it ends up in shell history and `ps`): "
            "`xtui keys import NAME` asks for it hidden, or use --key-env VAR"
        )
    return None


# ---- new passwords -----------------------------------------------------------------------------------


def _new_password(name: str, password_env: str | None) -> str:
    from tui.config.unlock import TRIES, ask_hidden, env_secret
    from tui.keys import MIN_PASSWORD

    if password_env:
        return env_secret(password_env, "keystore password")
    for _ in range(TRIES):
        first = ask_hidden(f"New password for keystore {name}: ", "--password-env VAR")
        if len(first) < MIN_PASSWORD:
            sys.stderr.write(f"a keystore password needs at least {MIN_PASSWORD} characters\n")
            continue
        if ask_hidden("The same password again: ", "--password-env VAR") == first:
            return first
        sys.stderr.write("the passwords differ\n")
    raise AdminError(f"no password set after {TRIES} tries; keystore {name} was not created")


# ---- the commands ------------------------------------------------------------------------------------


def _toml(value: Any) -> str:
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):  # chart_ma_periods
        return "[" + ", ".join(_toml(v) if not isinstance(v, int) else str(v) for v in value) + "]"
    return json.dumps(str(value))


def render(settings: Settings) -> str:
    """The effective configuration as TOML (it loads back), the selected profile's overrides commented."""
    from tui.config.profiles import KEY_FIELDS
    from tui.config.values import FIELD_ALIASES, PROFILE_FIELDS

    config = settings.config
    found = "" if config.exists else " (not found: the built-in profiles)"
    out = [f"# {config.path}{found}", f"# selected profile: {settings.profile.name} (by {settings.selected_by})"]
    out += [f"# {w}" for w in settings.warnings]
    out += [f"default_profile = {_toml(config.default_profile)}", f"log_level = {_toml(settings.log_level)}"]
    for name, stored in config.profiles.items():
        selected = name == settings.profile.name
        profile = settings.profile if selected else stored
        out += ["", f"[profiles.{name}]" + ("  # selected" if selected else "")]
        if profile.builtin_exchange:
            out.append("# no url: the built-in local exchange")
        for key in PROFILE_FIELDS:
            if key in FIELD_ALIASES:
                continue
            if key in KEY_FIELDS:
                value = profile.key.name if profile.key is not None and profile.key.field == key else None
            else:
                value = getattr(profile, key)
            if value is not None:
                origin = settings.overrides.get(key) if selected else None
                out.append(f"{key} = {_toml(value)}" + (f"  # from {origin}" if origin else ""))
        if profile.keymap:
            out += ["", f"[profiles.{name}.keymap]"]
            out += [f"{k if _BARE_KEY.fullmatch(k) else _toml(k)} = {_toml(v)}" for k, v in profile.keymap.items()]
    return "\n".join(out) + "\n"


def _config(args: argparse.Namespace) -> int:
    from tui.config.profiles import DEFAULT_TEXT, config_path, resolve
    from tui.edges.regular_files import replace_with

    path = config_path()
    if args.config_command == "path":
        print(path)
    elif args.config_command == "show":
        sys.stdout.write(render(resolve(args.profile)))
    elif args.config_command == "init":
        try:
            if not args.force and os.path.lexists(path):
                raise FileExistsError(path)
            replace_with(path, DEFAULT_TEXT.encode("utf-8"))  # never through a link, nor into a FIFO
        except FileExistsError:
            raise AdminError(f"{path} exists; pass --force to replace it") from None
        except OSError as exc:
            raise AdminError(f"cannot write {path}: {exc.strerror}") from None
        print(f"wrote {path}")
    else:
        raise UsageError("a command is needed: path, show or init")
    return 0


def _keys(args: argparse.Namespace) -> int:
    from tui import keys
    from tui.config.unlock import ask_hidden, unlock

    command = args.keys_command
    if command == "new":
        keys.keystore_path(args.name)  # a bad name fails before the password is asked for
        address = keys.create(args.name, _new_password(args.name, args.password_env))
        print(f"created keystore {args.name}: {address} ({keys.keystore_path(args.name)})")
    elif command == "import":
        from tui.api.signing import Signer, SigningError

        keys.keystore_path(args.name)
        if args.key_env:
            signer = keys.key_from_env(args.key_env)
        else:
            try:
                signer = Signer(ask_hidden("Private key (hex, hidden): ", "--key-env VAR"))
            except SigningError as exc:  # never quotes the key
                raise AdminError(f"not a private key: {exc}") from None
        address = keys.import_key(args.name, signer.secret_hex(), _new_password(args.name, args.password_env))
        print(f"imported keystore {args.name}: {address} ({keys.keystore_path(args.name)})")
    elif command == "list":
        entries = keys.list_keys()
        if not entries:
            print(f"no keystores in {keys.keys_dir()} (make one with `xtui keys new NAME`)")
        width = max((len(name) for name, _ in entries), default=0)
        for name, found in entries:
            print(f"{name:<{width}}  {found or 'damaged: see `xtui keys address ' + name + '`'}")
    elif command == "address":
        print(unlock(args.name, args.password_env).address if args.verify else keys.read_address(args.name))
    elif command == "remove":
        path = keys.keystore_path(args.name)
        if not path.exists():
            raise AdminError(f"no keystore named {args.name} ({path})")
        if not args.yes:
            try:
                shown = keys.read_address(args.name)
            except keys.KeystoreError:
                shown = "damaged file"
            if sys.stdin is None or sys.stdin.closed or not sys.stdin.isatty():
                raise AdminError("remove asks for confirmation: run it in a terminal or pass --yes")
            answer = input(f"Remove keystore {args.name} ({shown})? The key is lost unless backed up. [y/N] ")
            if answer.strip().lower() not in ("y", "yes"):
                raise AdminError(f"keystore {args.name} kept")
        keys.remove(args.name)
        print(f"removed keystore {args.name}")
    else:
        raise UsageError("a command is needed: new, import, list, address or remove")
    return 0


def run_admin(args: argparse.Namespace) -> int:
    """Run ``xtui config ...`` or ``xtui keys ...``; errors become AdminError with one clean line."""
    from tui.config.errors import ConfigError
    from tui.keys import KeystoreError

    try:
        return _config(args) if args.command == "config" else _keys(args)
    except (ConfigError, KeystoreError) as exc:
        raise AdminError(str(exc)) from None
    except EOFError:
        raise AdminError("no answer (input ended)") from None

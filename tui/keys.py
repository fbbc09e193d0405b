"""Keystores: private keys encrypted at rest (Ethereum v3 files, scrypt, through eth-keyfile) in the user data
directory; files written by eth-account, geth or earlier xtui open the same.

A key exists unencrypted only in memory, inside a ``Signer``. Every error raised here is a
``KeystoreError`` whose message names the keystore or its file and never carries key material or a
password; eth-keyfile's own exceptions (which may quote their inputs) are never let through.

A file is read within limits before anything else (``tui.edges.bounded_parse``: 64 KiB, nested at most 8 deep, so no
file can overflow the stack), and its key derivation's cost is bounded (scrypt ``n <= 2^18`` with ``n*r*p`` at
most a standard keystore's; pbkdf2 ``c <= 2,000,000``): a costlier file is refused at once, before any password
is asked for, instead of taking seconds and gigabytes to say "wrong password". A keystore that group or others
can read is unlocked with a warning that says how to fix it (``exposure``).

Importing eth-keyfile imports py_ecc, which raises the recursion limit to 100,000 for the whole process; at that
limit a deep enough input to any C parser overflows the C stack. The limit is put back as it was (eth-keyfile
needs no deep recursion for version 3 files).

Each file also carries ``xtui_crypto_sha256``, an unkeyed hash of its ``crypto`` section. A MAC mismatch
alone cannot tell a wrong password from a damaged file; with the hash, a damaged file is reported as
damaged instead of costing the user three password attempts. Files without it (made by other tools)
still load.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tui.api.signing import Signer, SigningError, checksum_address
from tui.edges.bounded_parse import FileLimitError, parse_json, read_capped
from tui.logs import add_key, add_secret, redact
from tui.paths import data_dir

__all__ = [
    "KeystoreError",
    "WrongPassword",
    "create",
    "exposure",
    "import_key",
    "key_from_env",
    "keys_dir",
    "keystore_path",
    "list_keys",
    "load",
    "loaded",
    "read_address",
    "remove",
]

# eth-account's default scrypt cost (n = 2^18, r = 8, p = 1): ~1 s and 256 MB to unlock.
SCRYPT_N = 1 << 18
MIN_PASSWORD = 8
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
ENV_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
CHECKSUM_FIELD = "xtui_crypto_sha256"
_HEX = re.compile(r"[0-9a-fA-F]{1,1024}")
MAX_FILE_BYTES = 64 << 10  # a version 3 keystore is ~0.5 KB
MAX_SCRYPT_N = 1 << 18  # geth's and eth-account's standard: ~1 s and 256 MB
MAX_SCRYPT_COST = MAX_SCRYPT_N * 8  # n * r * p of the standard (r = 8, p = 1): memory is 128 * n * r bytes
MAX_PBKDF2_C = 2_000_000  # twice eth-account's default: ~1-2 s
log = logging.getLogger(__name__)


class KeystoreError(Exception):
    """A keystore that cannot be created, read, unlocked or removed. The message holds no secret."""


class WrongPassword(KeystoreError):
    """The password does not unlock the keystore (its file is intact)."""


def keys_dir(env: Mapping[str, str] | None = None) -> Path:
    """``keys`` in the data directory (``$XTUI_DATA_DIR`` or the platform's user data directory)."""
    return data_dir(env) / "keys"


def check_name(name: str) -> str:
    """A keystore name: letters, digits, ``_ . -``, up to 64, so it is always a plain file name."""
    if not NAME_RE.fullmatch(name):
        raise KeystoreError(
            f"{redact(name)[:40]!r} is not a keystore name: use letters, digits, '_', '.' or '-' (up to 64), "
            "starting with a letter or digit"
        )
    return name


def keystore_path(name: str) -> Path:
    return keys_dir() / f"{check_name(name)}.json"


def _check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise KeystoreError(f"a keystore password needs at least {MIN_PASSWORD} characters")


def _crypto_hash(crypto: Any) -> str:
    return hashlib.sha256(json.dumps(crypto, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _write_new(path: Path, document: dict[str, Any]) -> None:
    """Create ``path`` with mode 0600, refusing to replace an existing file; no partial file is left."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path.parent, 0o700)
    data = (json.dumps(document, indent=2) + "\n").encode()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise KeystoreError(f"keystore {path.stem} already exists ({path}); remove it first") from None
    except OSError as exc:
        raise KeystoreError(f"cannot create {path}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        path.unlink(missing_ok=True)
        raise KeystoreError(f"cannot write {path}: {exc.strerror}") from None


def _keyfile() -> Any:
    """eth-keyfile's ``keyfile`` module, the recursion limit left as it was (py_ecc, imported with it, raises it
    to 100,000: at that limit a deep enough input to a C parser overflows the stack instead of raising)."""
    limit = sys.getrecursionlimit()
    try:
        from eth_keyfile import keyfile
    finally:
        sys.setrecursionlimit(limit)
    return keyfile


def loaded(signer: Signer) -> Signer:
    """``signer``, its key now redacted by value from the log (every key this process holds passes here)."""
    add_key(signer.secret_hex())
    return signer


def _encrypt_and_store(name: str, signer: Signer, password: str) -> str:
    path = keystore_path(name)
    _check_password(password)
    add_secret(password)
    loaded(signer)
    if path.exists():
        raise KeystoreError(f"keystore {name} already exists ({path}); remove it first")
    create_keyfile_json = _keyfile().create_keyfile_json
    try:
        secret = bytes.fromhex(signer.secret_hex()[2:])
        document = create_keyfile_json(secret, password.encode(), kdf="scrypt", iterations=SCRYPT_N)
    except Exception:
        raise KeystoreError(f"cannot encrypt the key for keystore {name}") from None
    document["address"] = signer.address[2:]
    document[CHECKSUM_FIELD] = _crypto_hash(document["crypto"])
    _write_new(path, document)
    log.info("keystore %s written for %s", name, signer.address)
    return signer.address


def create(name: str, password: str) -> str:
    """Make a new random key, store it encrypted as keystore ``name``; returns its address."""
    return _encrypt_and_store(name, Signer.generate(), password)


def import_key(name: str, key: str, password: str) -> str:
    """Store ``key`` (hex, with or without 0x) encrypted as keystore ``name``; returns its address."""
    try:
        signer = Signer(key)
    except SigningError as exc:  # its messages never quote the key
        raise KeystoreError(f"cannot import into {name}: {exc}") from None
    return _encrypt_and_store(name, signer, password)


def _field(doc: dict[str, Any], dotted: str) -> Any:
    value: Any = doc
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            raise KeyError(dotted)
        value = value[part]
    return value


_HEX_FIELDS = ("crypto.ciphertext", "crypto.cipherparams.iv", "crypto.mac")


def _whole(params: dict[str, Any], key: str, low: int, high: int) -> int:
    value = params.get(key)
    if type(value) is not int or not low <= value <= high:
        shown = f"{value:,}" if type(value) is int else type(value).__name__
        raise ValueError(f"{key} = {shown} is not {low:,} to {high:,}")
    return value


def _check_kdf(path: Path, crypto: dict[str, Any]) -> None:
    """Refuse, before any password, a key derivation that would cost more than a standard keystore's."""
    kdf, params = crypto["kdf"], crypto["kdfparams"]
    salt = params.get("salt")
    if not (isinstance(salt, str) and _HEX.fullmatch(salt)):
        raise KeystoreError(f"{path} is damaged: crypto.kdfparams.salt is not hex")
    try:
        _whole(params, "dklen", 32, 64)
        if kdf == "scrypt":
            n, r, p = (_whole(params, "n", 2, 1 << 40), _whole(params, "r", 1, 64), _whole(params, "p", 1, 64))
            if n & (n - 1):
                raise ValueError(f"n = {n:,} is not a power of 2")
            if n > MAX_SCRYPT_N or n * r * p > MAX_SCRYPT_COST:
                times, mib = n * r * p / MAX_SCRYPT_COST, 128 * n * r >> 20
                raise KeystoreError(
                    f"{path}: its scrypt cost (n = {n:,}, r = {r}, p = {p}) is over what xtui unlocks (n up to "
                    f"{MAX_SCRYPT_N:,}, n*r*p up to {MAX_SCRYPT_COST:,}): it would take {times:,.0f} times a "
                    f"standard keystore's time and {mib:,} MB; re-encrypt it with standard settings"
                )
        else:
            _whole(params, "c", 1, MAX_PBKDF2_C)
            if params.get("prf") != "hmac-sha256":
                raise ValueError("prf is not hmac-sha256")
    except ValueError as exc:
        raise KeystoreError(f"{path} is damaged or not supported: crypto.kdfparams {exc}") from None


def _read(path: Path) -> tuple[dict[str, Any], str]:
    """The parsed file and its EIP-55 address, checked for shape and cost without the password."""
    name = path.stem
    try:
        raw = read_capped(path, MAX_FILE_BYTES)
    except FileNotFoundError:
        raise KeystoreError(f"no keystore named {name} ({path})") from None
    except FileLimitError as exc:
        raise KeystoreError(f"{path} is damaged: {exc}") from None
    except OSError as exc:
        raise KeystoreError(f"cannot read {path}: {exc.strerror}") from None
    try:
        doc = parse_json(raw, max_depth=8, parse_float=float)  # floats as eth-keyfile reads them: the checksum's
    except UnicodeDecodeError:
        raise KeystoreError(f"{path} is damaged: not text") from None
    except json.JSONDecodeError as exc:  # its message has a position only, never the content
        raise KeystoreError(f"{path} is damaged: not valid JSON (line {exc.lineno}, column {exc.colno})") from None
    except FileLimitError as exc:  # its message says which limit and where, never the content
        raise KeystoreError(f"{path} is damaged: {exc}") from None
    if not isinstance(doc, dict):
        raise KeystoreError(f"{path} is damaged: not a keystore object")
    if doc.get("version") != 3:
        raise KeystoreError(f"{path} is not a version 3 keystore")
    for dotted in ("address", "crypto.kdf", "crypto.kdfparams", "crypto.cipher", *_HEX_FIELDS):
        try:
            value = _field(doc, dotted)
        except KeyError:
            raise KeystoreError(f"{path} is damaged: missing {dotted}") from None
        if dotted in _HEX_FIELDS and not (isinstance(value, str) and _HEX.fullmatch(value)):
            raise KeystoreError(f"{path} is damaged: {dotted} is not hex")
    if doc["crypto"]["kdf"] not in ("scrypt", "pbkdf2") or not isinstance(doc["crypto"]["kdfparams"], dict):
        raise KeystoreError(f"{path} is damaged: unsupported key derivation")
    if doc["crypto"]["cipher"] != "aes-128-ctr":
        raise KeystoreError(f"{path} is damaged or not supported: cipher is not aes-128-ctr")
    _check_kdf(path, doc["crypto"])
    try:
        address = checksum_address(str(doc["address"])[:64])
    except SigningError:
        raise KeystoreError(f"{path} is damaged: address is not an address") from None
    return doc, address


def exposure(name: str) -> str | None:
    """A warning when keystore ``name``'s file can be read or written by group or others, with the fix."""
    path = keystore_path(name)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None
    if not mode & 0o077:
        return None
    who = " and ".join(w for bits, w in ((0o070, "its group"), (0o007, "every user")) if mode & bits)
    return f"warning: keystore {name} ({path}) can be read by {who} (mode {mode:04o}): chmod 600 {path}"


def read_address(name: str) -> str:
    """The address stored in keystore ``name`` (no password needed: v3 files carry it)."""
    return _read(keystore_path(name))[1]


def load(name: str, password: str) -> Signer:
    """Unlock keystore ``name``: WrongPassword, or KeystoreError naming the file when it is damaged."""
    path = keystore_path(name)
    add_secret(password)
    doc, address = _read(path)
    stored_hash = doc.get(CHECKSUM_FIELD)
    if stored_hash is not None and stored_hash != _crypto_hash(doc["crypto"]):
        raise KeystoreError(f"{path} is damaged: its encrypted key was changed (checksum mismatch)")
    try:
        secret = bytes(_keyfile().decode_keyfile_json(doc, password.encode()))
    except ValueError as exc:
        if "MAC mismatch" in str(exc):
            hint = "" if stored_hash is not None else f" (or {path} is damaged)"
            log.warning("keystore %s: wrong password", name)
            raise WrongPassword(f"wrong password for keystore {name}{hint}") from None
        raise KeystoreError(f"{path} is damaged: it cannot be decrypted") from None
    except Exception:
        raise KeystoreError(f"{path} is damaged: it cannot be decrypted") from None
    try:
        signer = Signer(secret)
    except SigningError:
        raise KeystoreError(f"{path} is damaged: it does not hold a valid key") from None
    if signer.address != address:
        raise KeystoreError(f"{path} is damaged: the key does not match its address {address}")
    log.info("keystore %s unlocked (%s)", name, address)
    if warning := exposure(name):
        log.warning("%s", warning)
    return loaded(signer)


def list_keys() -> list[tuple[str, str | None]]:
    """Every keystore as (name, address), sorted by name; address None when the file is damaged."""
    directory = keys_dir()
    if not directory.is_dir():
        return []
    out: list[tuple[str, str | None]] = []
    for path in sorted(directory.glob("*.json")):
        if not NAME_RE.fullmatch(path.stem):
            continue
        try:
            out.append((path.stem, _read(path)[1]))
        except KeystoreError:
            out.append((path.stem, None))
    return out


def remove(name: str) -> None:
    """Delete keystore ``name``; the key is gone unless it is backed up elsewhere."""
    path = keystore_path(name)
    try:
        path.unlink()
    except FileNotFoundError:
        raise KeystoreError(f"no keystore named {name} ({path})") from None
    except OSError as exc:
        raise KeystoreError(f"cannot remove {path}: {exc.strerror}") from None
    log.info("keystore %s removed", name)


def key_from_env(var: str, env: Mapping[str, str] | None = None) -> Signer:
    """A Signer for the private key held in environment variable ``var``."""
    if not ENV_NAME_RE.fullmatch(var):
        raise KeystoreError(f"{redact(var)[:40]!r} is not an environment variable name")
    env = os.environ if env is None else env
    secret = env.get(var)
    if not secret:
        raise KeystoreError(f"environment variable {var} is not set (it should hold the private key)")
    try:
        return loaded(Signer(secret))
    except SigningError as exc:
        raise KeystoreError(f"environment variable {var}: {exc}") from None

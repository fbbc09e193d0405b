"""Textual's parsed CSS, kept from one start to the next.

Textual parses each widget class's CSS afresh in every process: ~40 sources, ~20 ms of the dashboard's start-up.
What a parse gives depends only on the CSS text, where it was read from, the theme's variables and the code of
Textual (and the Python) that parsed it. So the rule sets are kept in the user's cache directory, keyed by the
first three, in a file stamped with the last; a start finds them there and parses only what is new.

A file that cannot be read, is not whole, or was stamped by another Textual or Python is ignored (and written
afresh). It is read with an unpickler that builds nothing but Textual's own classes (``_Unpickler``).

Unpickling builds whatever nesting the file says, and hashing a dict key or set member nested 100,000 deep
overflows the C stack (whatever the recursion limit): no scan of a pickle is cheap enough to do at every start
(~9 ms for the usual 80 KB, three times the load). So a file is read only if it is at most 8 MiB and carries a
MAC (keyed BLAKE2b) made with this user's key, a random 32 bytes kept apart from it (``key_path``, 0600): a
damaged file, or one not written by this user's xtui, is ignored before anything is unpickled.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import io
import logging
import os
import pickle
import secrets
import sys
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

import textual
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.types import CSSLocation

from tui.bounded_parse import FileLimitError, read_capped

__all__ = ["FILE_NAME", "KEEP_AFTER_S", "KEY_NAME", "KeptCss", "KeptStylesheet"]

log = logging.getLogger(__name__)

FILE_NAME = "css-rules.pickle"
KEY_NAME = "css-rules.key"
MAX_FILE_BYTES = 8 << 20  # the usual file is ~80 KB
_MAGIC = b"xtui kept css 2\n"
_MAC_BYTES = 32
KEEP_AFTER_S = 2.0  # this long after start-up the app saves what the start parsed (and again as it ends)
# Textual's files whose code makes, or is, what a parse gives: an upgrade rewrites them, and that changes the stamp
_TEXTUAL_FILES = ("css/parse.py", "css/model.py", "css/styles.py", "css/scalar.py", "color.py", "geometry.py")

Key = tuple[str, CSSLocation, bool, int, str, str]  # css, read_from, is_default_rules, tie_breaker, scope, variables


def _stamp() -> tuple[str, ...]:
    root = Path(textual.__file__).parent
    files = []
    for name in _TEXTUAL_FILES:
        st = (root / name).stat()
        files.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    return (sys.version, str(root), *files)


class KeptCss:
    """The rule sets parsed so far, read from ``path`` on first use. ``save`` writes back those this process used,
    if it parsed any: the file holds what the last start needed (its theme's, its xtui's), and does not grow."""

    def __init__(self, path: Path, key_path: Path | None = None) -> None:
        self.path = path
        self.key_path = key_path or path.with_name(KEY_NAME)  # beside it unless told (the app keeps it in data)
        self._rules: dict[Key, list[RuleSet]] | None = None
        self._added = 0
        self._from_file: frozenset[Key] = frozenset()
        self._used: set[Key] = set()
        self.found: set[Key] = set()  # what the file gave, so was not parsed (tests read these two)
        self.parsed = 0

    def get(self, key: Key) -> list[RuleSet] | None:
        rules = self._loaded().get(key)
        if rules is not None:
            self._used.add(key)
            if key in self._from_file:
                self.found.add(key)
        return rules

    def put(self, key: Key, rules: list[RuleSet]) -> None:
        self.parsed += 1
        if any(rule.errors for rule in rules):  # Textual raises on these each time: nothing to keep
            return
        self._loaded()[key] = rules
        self._used.add(key)
        self._added += 1

    def save(self) -> None:
        """Write the file if anything was parsed since it was read; on any error, say so in the log and go on."""
        if not self._added or self._rules is None:
            return
        try:
            used = {key: rules for key, rules in self._rules.items() if key in self._used}
            payload = pickle.dumps((_stamp(), used), protocol=pickle.HIGHEST_PROTOCOL)
            data = _MAGIC + _mac(self._key(make=True), payload) + payload
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".css-rules-")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(tmp, self.path)  # whole or not at all: a start never reads half a file
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
        except (OSError, pickle.PicklingError, TypeError, AttributeError) as exc:
            log.warning("parsed CSS not kept in %s: %s", self.path, exc)
            return
        self._added = 0

    def _loaded(self) -> dict[Key, list[RuleSet]]:
        if self._rules is None:
            self._rules = self._read()
            self._from_file = frozenset(self._rules)
        return self._rules

    def _key(self, make: bool = False) -> bytes:
        """This user's key for the file's MAC; with ``make``, a new one when there is none (OSError if it cannot
        be kept)."""
        try:
            key = read_capped(self.key_path, _MAC_BYTES)
            if len(key) == _MAC_BYTES:
                return key
        except (FileNotFoundError, FileLimitError):
            pass
        if not make:
            raise OSError(f"no key in {self.key_path}")
        key = secrets.token_bytes(_MAC_BYTES)
        self.key_path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.key_path.parent, prefix=".css-key-")  # 0600
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(key)
            os.replace(tmp, self.key_path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        return key

    def _read(self) -> dict[Key, list[RuleSet]]:
        try:
            data = read_capped(self.path, MAX_FILE_BYTES)
            key = self._key() if data.startswith(_MAGIC) else b""
        except FileNotFoundError:
            return {}
        except (OSError, FileLimitError) as exc:
            log.warning("kept CSS not read from %s: %s", self.path, exc)
            return {}
        mac, payload = data[len(_MAGIC) : len(_MAGIC) + _MAC_BYTES], data[len(_MAGIC) + _MAC_BYTES :]
        if not key or not hmac.compare_digest(mac, _mac(key, payload)):  # damaged, or not this user's xtui's
            log.warning("kept CSS in %s ignored: not whole, or not written by this xtui", self.path)
            return {}
        try:
            stamp, rules = _Unpickler(io.BytesIO(payload)).load()
        except Exception as exc:  # a damaged file can raise anything: it is only a cache
            log.warning("kept CSS in %s ignored: %s", self.path, exc)
            return {}
        try:
            ours = _stamp()
        except OSError as exc:  # Textual's files moved under us: nothing can be trusted
            log.warning("kept CSS in %s ignored: %s", self.path, exc)
            return {}
        if stamp != ours or not isinstance(rules, dict):
            log.info("kept CSS in %s is from another Textual or Python: parsed afresh", self.path)
            return {}
        return rules


def _mac(key: bytes, payload: bytes) -> bytes:
    return hashlib.blake2b(payload, key=key, digest_size=_MAC_BYTES).digest()


class KeptStylesheet(Stylesheet):
    """Textual's stylesheet, parsing through ``kept``. (Textual's ``reparse`` parses in a plain ``Stylesheet``:
    at start-up that is the app's own CSS only, once.)"""

    def __init__(self, kept: KeptCss, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self.kept = kept
        self._variables_key: str | None = None

    def set_variables(self, variables: dict[str, str]) -> None:
        super().set_variables(variables)
        self._variables_key = None

    def _parse_rules(
        self,
        css: str,
        read_from: CSSLocation,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        key = (css, read_from, is_default_rules, tie_breaker, scope, self._variables_digest())
        rules = self.kept.get(key)
        if rules is None:
            rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            self.kept.put(key, rules)
        return rules

    def _variables_digest(self) -> str:
        if self._variables_key is None:
            text = "\n".join(f"{name}={value}" for name, value in sorted(self._variables.items()))
            self._variables_key = hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
        return self._variables_key


def _kept_getattr(obj: object, name: str) -> Any:
    """Pickle rebuilds a bound method as ``getattr(instance, name)``: Textual's selectors keep their checks so, and
    its styles their rules' ``get`` and ``__contains__``. Only those are given: a general getattr would let a
    file reach any module's globals."""
    if type(obj).__module__.startswith("textual.") and name.startswith("_check_"):
        return getattr(obj, name)
    if type(obj) is dict and name in ("get", "__contains__"):
        return getattr(obj, name)
    raise pickle.UnpicklingError(f"getattr({type(obj).__name__}, {name!r}) is not one Textual's styles need")


class _Unpickler(pickle.Unpickler):
    """Builds Textual's own classes and functions only (and ``partial``, and the selectors' checks)."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("functools", "partial"):
            return partial
        if (module, name) == ("builtins", "getattr"):
            return _kept_getattr
        if module.startswith("textual.") and "__" not in name:
            found = super().find_class(module, name)
            # defined in Textual, not a module or function that Textual only imported
            if isinstance(found, type | type(_stamp)) and getattr(found, "__module__", "").startswith("textual."):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not Textual's")

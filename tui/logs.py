"""Logging to a rotating file in the user log directory, never to the terminal, with secrets redacted.

The dashboard owns the terminal, so a stray line on stderr would tear the screen: every record, uvicorn's
included, goes to the file. Every record passes a filter that replaces, by value, every private key loaded in
this process (``add_key``, in any case, with or without ``0x``) and every keystore password typed in it
(``add_secret``) with ``[redacted]``, in the message, its arguments and the exception text alike. Transaction
and block hashes, which are 64 hex digits too, stay readable, so a failed order can be traced.

Text that comes from where a key could hide before it is loaded (a config value, an environment variable,
an argument) goes through ``redact`` instead, which also replaces anything shaped like a key.
"""

from __future__ import annotations

import io
import logging
import logging.handlers
import re
import sys
import threading
from pathlib import Path

from tui.edges.regular_files import open_to_write
from tui.edges.safe_text import printable
from tui.paths import log_dir

__all__ = [
    "LEVELS",
    "REDACTED",
    "RedactingFilter",
    "add_key",
    "add_secret",
    "parse_level",
    "printable_handler",
    "redact",
    "redact_known",
    "setup_logging",
]

LEVELS = ("debug", "info", "warning", "error")
DEFAULT_LEVEL = "info"
REDACTED = "[redacted]"
LOG_FILE = "xtui.log"
HANDLER_NAME = "xtui-log-file"
MAX_BYTES = 1_000_000
BACKUPS = 3
# uvicorn configures these with stream handlers of their own; they must reach the file instead.
UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")
# One record per HTTP request or frame at info: kept to warnings unless the level is debug.
CHATTY_LOGGERS = ("httpx", "httpcore", "websockets")

KEY_SHAPE = re.compile(r"(?:0[xX])?[0-9a-fA-F]{64,}")
_lock = threading.Lock()
_secrets: tuple[str, ...] = ()  # replaced whole, never mutated: the filter reads it without the lock
_keys: frozenset[str] = frozenset()  # loaded private keys, 64 lowercase hex digits
_key_pattern: re.Pattern[str] | None = None  # any of them, any case, with or without 0x


def parse_level(text: str) -> str:
    """``text`` as one of LEVELS (any case); ValueError naming the choices otherwise."""
    level = text.strip().lower()
    if level not in LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LEVELS)}, not {text[:20]!r}")
    return level


def add_secret(text: str) -> None:
    """Redact ``text`` (a password typed in this process) from every later record.

    Strings under 4 characters are ignored: redacting every "a" would make the log unreadable, and such a
    password protects nothing anyway.
    """
    global _secrets
    if len(text) < 4:
        return
    with _lock:
        if text not in _secrets:
            # Longest first, so a password containing another is replaced whole.
            _secrets = tuple(sorted((*_secrets, text), key=len, reverse=True))


def add_key(secret_hex: str) -> None:
    """Redact the private key ``secret_hex`` (hex, with or without 0x) from every later record."""
    global _keys, _key_pattern
    body = secret_hex.lower().removeprefix("0x")
    if not re.fullmatch(r"[0-9a-f]{64}", body):
        return
    with _lock:
        if body not in _keys:
            _keys = _keys | {body}
            _key_pattern = re.compile(r"(?:0[xX])?(?:" + "|".join(sorted(_keys)) + ")", re.IGNORECASE)


def redact_known(text: str) -> str:
    """``text`` with the loaded keys and known passwords replaced by ``[redacted]``; hashes stay."""
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    pattern = _key_pattern
    return pattern.sub(REDACTED, text) if pattern is not None else text


def redact(text: str) -> str:
    """``text`` with known secrets and anything shaped like a key (64+ hex digits) replaced by ``[redacted]``:
    for values from where a key could hide (config, environment, argv) before it was ever loaded."""
    return KEY_SHAPE.sub(REDACTED, redact_known(text))


class RedactingFilter(logging.Filter):
    """Formats each record's message and exception early and stores them redacted and printable (control
    characters shown as escapes, ``tui.edges.safe_text``: a record may quote a server, a file or a recording).

    The record is changed in place (args dropped, exception text cached), so no handler that sees it
    later can format the original values again.
    """

    def __init__(self, formatter: logging.Formatter) -> None:
        super().__init__()
        self._formatter = formatter

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # mismatched %-arguments: keep what can be shown rather than raise
            message = f"{record.msg!s} (unformattable log arguments)"
        record.msg = printable(redact_known(message))
        record.args = None
        if record.exc_info:
            record.exc_text = self._formatter.formatException(record.exc_info)
            record.exc_info = None
        if record.exc_text:
            record.exc_text = printable(redact_known(record.exc_text), lines=True)
        if record.stack_info:
            record.stack_info = printable(redact_known(record.stack_info), lines=True)
        return True


class _LogFile(logging.handlers.RotatingFileHandler):
    """The xtui log file. A failure to write is dropped: the default handler would print it to stderr. A FIFO, a
    link or a device in its place is refused (``tui.edges.regular_files``): opening a FIFO would wait for ever."""

    def _open(self) -> io.TextIOWrapper:
        raw = open_to_write(self.baseFilename, append=True, mode=0o600)
        return io.TextIOWrapper(raw, encoding=self.encoding, errors=self.errors, write_through=False)

    def handleError(self, record: logging.LogRecord) -> None:
        return None


def printable_handler(handler: logging.Handler) -> logging.Handler:
    """``handler`` (one writing to a terminal: ``xtui sim``'s stderr) with every record redacted and made printable
    first, as the log file's are."""
    formatter = handler.formatter or logging.Formatter()
    handler.addFilter(RedactingFilter(formatter))
    return handler


def _is_terminal_handler(handler: logging.Handler) -> bool:
    """A handler writing to stdout or stderr (handlers writing to files or buffers are left alone)."""
    terminal = (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)
    return isinstance(handler, logging.StreamHandler) and any(handler.stream is s for s in terminal if s is not None)


def setup_logging(level: str = DEFAULT_LEVEL, directory: Path | None = None) -> Path | None:
    """Send every record at ``level`` or above to ``directory/xtui.log`` (rotated at 1 MB, 3 kept).

    Terminal handlers are removed from the root and uvicorn loggers, and Python warnings are logged
    instead of printed. Calling it again replaces the previous file handler. Returns the file's path, or
    None when the directory cannot be written (then records are dropped, still never printed).
    """
    level = parse_level(level)
    root = logging.getLogger()
    for old in list(root.handlers):
        if old.get_name() == HANDLER_NAME or _is_terminal_handler(old):
            root.removeHandler(old)
            old.close()
    for name in UVICORN_LOGGERS:
        logger = logging.getLogger(name)
        for old in list(logger.handlers):
            if _is_terminal_handler(old):
                logger.removeHandler(old)
        logger.propagate = True
    root.setLevel(level.upper())
    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.NOTSET if level == "debug" else logging.WARNING)
    logging.captureWarnings(True)

    directory = log_dir() if directory is None else directory
    path = directory / LOG_FILE
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        handler: logging.Handler = _LogFile(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
    except OSError:
        # Without a handler, logging's last resort would print warnings to stderr.
        handler = logging.NullHandler()
        handler.set_name(HANDLER_NAME)
        root.addHandler(handler)
        return None
    handler.set_name(HANDLER_NAME)
    formatter = logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s")
    handler.setFormatter(formatter)
    handler.addFilter(RedactingFilter(formatter))
    root.addHandler(handler)
    return path

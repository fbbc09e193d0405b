"""Every file xtui reads or writes, opened one way: a regular file only, never waited on, never written through a link.

A plain ``open()`` of a FIFO waits for a writer for ever (and SIGTERM's handler cannot run while it waits in C), of
/dev/zero reads without end, of a symbolic link writes wherever the link points. So a file is opened without blocking
(O_NONBLOCK) and, where xtui owns the name, without following a link (O_NOFOLLOW); what it is is then asked of the
open file itself (fstat, so nothing can be swapped in between), and anything but a regular file is refused in words:
``NotRegularFile``, an OSError whose ``strerror`` says what it is, so every caller that already says "cannot read"
says this too. A file written whole goes to a fresh temporary file renamed over the old one, never over a link, a
directory or a pipe.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO

__all__ = ["FileLimitError", "NotRegularFile", "check_replaceable", "open_to_read", "open_to_write", "replace_with"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


class FileLimitError(ValueError):
    """A file over one of the limits: too large, nested too deep, a number that is not one."""


class NotRegularFile(OSError):
    """A path that is not a regular file (a FIFO, a device, a directory, a link where none is followed)."""

    def __init__(self, what: str) -> None:
        words = f"it is {what}, not a regular file"
        super().__init__(words)
        self.strerror = words


def _what(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _refused(path: os.PathLike[str] | str, exc: OSError) -> OSError:
    """``exc`` from opening ``path``, in words when it came from what the path is (a link, a pipe with no reader)."""
    if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EMLINK):  # O_NOFOLLOW on a link (EMLINK: BSD); a FIFO
        try:
            return NotRegularFile(_what(os.lstat(path).st_mode))
        except OSError:
            pass
    return exc


def _checked(fd: int, path: os.PathLike[str] | str) -> int:
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(_what(mode))
        if _NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_to_read(path: os.PathLike[str] | str, *, follow: bool = True) -> BinaryIO:
    """``path`` open to read; ``NotRegularFile`` unless it is a regular file (and, unless ``follow``, not a link).

    Never waits: a FIFO in its place is refused at once."""
    flags = os.O_RDONLY | _NONBLOCK | (0 if follow else _NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _refused(path, exc) from None
    return os.fdopen(_checked(fd, path), "rb")


def open_to_write(path: os.PathLike[str] | str, *, append: bool = False, mode: int = 0o666) -> BinaryIO:
    """``path`` open to write (emptied first unless ``append``), created with ``mode`` (less the umask) if absent;
    ``NotRegularFile`` when it is a link, a FIFO, a device or a directory, which is never written to or through."""
    flags = os.O_WRONLY | os.O_CREAT | _NONBLOCK | _NOFOLLOW | (os.O_APPEND if append else 0)
    try:
        fd = os.open(path, flags, mode)
    except IsADirectoryError:
        raise NotRegularFile("a directory") from None
    except OSError as exc:
        raise _refused(path, exc) from None
    _checked(fd, path)
    if not append:
        os.ftruncate(fd, 0)  # only now: truncating at open would have emptied whatever was there
    return os.fdopen(fd, "ab" if append else "wb")


def check_replaceable(path: os.PathLike[str] | str) -> None:
    """``NotRegularFile`` when something other than a regular file (a link, a directory, a FIFO) is at ``path``."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise NotRegularFile(_what(mode))


def replace_with(path: Path, data: bytes, mode: int | None = None) -> None:
    """``path`` made to hold ``data``, through a fresh temporary file beside it renamed over it (a crash leaves the
    old one); ``NotRegularFile`` when ``path`` is a link, a directory or a FIFO, OSError when it cannot be written.
    The new file has ``mode``, or the old file's mode, or 0600."""
    check_replaceable(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if mode is None:
            with contextlib.suppress(OSError):
                mode = stat.S_IMODE(os.lstat(path).st_mode)
        os.chmod(tmp, 0o600 if mode is None else mode)
        check_replaceable(path)  # again, just before: what was made a link meanwhile is still not replaced
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise

"""Bounded reads of every input: manifests, `--gates`, `--snapshot` and the config file.

Only regular files are read. A FIFO, a socket or a device (`/dev/zero`) would block or never
end; the file is opened with O_NONBLOCK and checked with fstat before a byte is read, so even a
path swapped for a FIFO after the walk cannot hang the run. A read takes what the file's size
says (plus one byte to notice growth), never more than the limit: no limit-sized buffer per file.
"""

from __future__ import annotations

import os
import stat
from typing import Any

DEFAULT_LIMIT = 32 * 1024 * 1024
_CHUNK = 1024 * 1024


class InputError(Exception):
    """An input that cannot be read at all; the message names the path and the reason."""


class TooLarge(InputError):
    """An input over the size limit (a manifest then gets a WAS001 finding, other inputs exit 2)."""


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def not_regular(path: str) -> str | None:
    """Why `path` (symlinks followed) is not a regular file to read, or None when it is one."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None  # the read reports it
    if stat.S_ISREG(mode):
        return None
    return f"{path}: not a regular file ({kind_of(mode)})"


def read_bounded(path: str, limit: int = DEFAULT_LIMIT, stdin: Any = None) -> bytes:
    """The bytes of `path` ('-': stdin), at most `limit`; raises InputError or TooLarge."""
    if path == "-":
        return _read_stream(stdin, limit)
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        raise InputError(f"{path}: cannot read: {err.strerror or err}") from None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise InputError(f"{path}: not a regular file ({kind_of(status.st_mode)})")
        if status.st_size > limit:
            raise TooLarge(f"{path}: larger than {limit // (1024 * 1024)} MiB")
        data = _read_descriptor(descriptor, status.st_size, limit)
    except OSError as err:
        raise InputError(f"{path}: cannot read: {err.strerror or err}") from None
    finally:
        os.close(descriptor)
    if len(data) > limit:
        raise TooLarge(f"{path}: larger than {limit // (1024 * 1024)} MiB")
    return data


def _read_descriptor(descriptor: int, size: int, limit: int) -> bytes:
    first = os.read(descriptor, size + 1) if size else b""
    if len(first) <= size and size:
        return _finish(descriptor, first, size)
    parts = [first]
    total = len(first)
    while total <= limit:  # the file grew, or reports no size (/proc): read on, bounded
        chunk = os.read(descriptor, min(_CHUNK, limit + 1 - total))
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
    return b"".join(parts)


def _finish(descriptor: int, first: bytes, size: int) -> bytes:
    """A short first read (rare on regular files): read up to the stated size."""
    parts = [first]
    total = len(first)
    while total < size:
        chunk = os.read(descriptor, size + 1 - total)
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
    return b"".join(parts)


def _read_stream(stdin: Any, limit: int) -> bytes:
    if stdin is None:
        import sys

        stdin = sys.stdin.buffer
    parts: list[bytes] = []
    total = 0
    while total <= limit:
        chunk = stdin.read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
    data = b"".join(parts)
    if len(data) > limit:
        raise TooLarge(f"-: stdin is larger than {limit // (1024 * 1024)} MiB")
    return data

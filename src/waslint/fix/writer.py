"""Bytes in, bytes out: the file's encoding (UTF-8, UTF-8 with BOM, UTF-16 with BOM) is kept, and
files are replaced atomically (a temporary file in the same folder, fsync, rename) with their mode,
owner and group."""

from __future__ import annotations

import codecs
import contextlib
import os
import stat
import tempfile
from dataclasses import dataclass

from waslint.core.failure import signals_deferred


@dataclass(frozen=True)
class Encoding:
    codec: str
    bom: bytes = b""

    def encode(self, text: str) -> bytes:
        return self.bom + text.encode(self.codec)


UTF8 = Encoding("utf-8")


def sniff(raw: bytes) -> Encoding:
    """The encoding the loader decoded `raw` with (see loader.decode)."""
    if raw.startswith(codecs.BOM_UTF8):
        return Encoding("utf-8", codecs.BOM_UTF8)
    if raw.startswith(codecs.BOM_UTF16_LE):
        return Encoding("utf-16-le", codecs.BOM_UTF16_LE)
    if raw.startswith(codecs.BOM_UTF16_BE):
        return Encoding("utf-16-be", codecs.BOM_UTF16_BE)
    return UTF8


class NotWritten(OSError):
    """The file is not replaced: a link, or a file this user may not write (the message says)."""


def write_atomic(path: str, data: bytes) -> int:
    """Replace `path` by `data`, keeping its mode, owner and group; returns its former link count.

    Never writes through a symbolic link, and refuses a file its user could not write (replacing
    it through the folder would bypass the file's own permissions) or whose owner or group the
    new file could not keep.
    """
    status = os.lstat(path)
    if stat.S_ISLNK(status.st_mode):
        raise NotWritten("a symbolic link; fix never writes through a link")
    if not stat.S_ISREG(status.st_mode):
        raise NotWritten("not a regular file")
    if not os.access(path, os.W_OK):
        raise NotWritten("the file is read-only for this user; not written")
    folder = os.path.dirname(path) or "."
    mode = stat.S_IMODE(status.st_mode)
    temporary = ""
    try:
        # SIGTERM and Ctrl-C unwind the run (core/failure.py); held back until the file's name is
        # known here, so the cleanup below always has it.
        with signals_deferred():
            handle, temporary = tempfile.mkstemp(
                dir=folder, prefix="." + os.path.basename(path) + ".", suffix=".waslint-tmp"
            )
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        _keep_owner(temporary, path, status)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        if temporary:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise
    _sync_folder(folder)
    return status.st_nlink


def _keep_owner(temporary: str, path: str, status: os.stat_result) -> None:
    if not hasattr(os, "chown"):
        return
    made = os.stat(temporary)
    if (made.st_uid, made.st_gid) == (status.st_uid, status.st_gid):
        return
    try:
        os.chown(temporary, status.st_uid, status.st_gid)
    except OSError:
        raise NotWritten("its owner or group could not be kept; not written") from None


def _sync_folder(folder: str) -> None:
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)

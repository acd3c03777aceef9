"""Bytes in, bytes out: the file's encoding (UTF-8, UTF-8 with BOM, UTF-16 with BOM) is kept, and
files are replaced atomically (a temporary file in the same folder, fsync, rename) with their mode."""

from __future__ import annotations

import codecs
import contextlib
import os
import stat
import tempfile
from dataclasses import dataclass


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


def write_atomic(path: str, data: bytes) -> None:
    """Replace `path` (the file a symlink points to) by `data`, keeping its permission bits."""
    target = os.path.realpath(path)
    folder = os.path.dirname(target) or "."
    status = os.stat(target)
    mode = stat.S_IMODE(status.st_mode)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(target) + ".", suffix=".waslint-tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        owner = (status.st_uid, status.st_gid)
        if hasattr(os, "getuid") and owner != (os.getuid(), os.getgid()):
            with contextlib.suppress(OSError):  # only root may give a file away
                os.chown(temporary, status.st_uid, status.st_gid)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(folder)


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

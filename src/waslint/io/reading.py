"""Bounded reads of every input: manifests, `--gates`, `--snapshot`, `--baseline`, the config
file, the kubeconfig and (through `loads_json`) every JSON body a cluster answers with.

Only regular files are read. A FIFO, a socket or a device (`/dev/zero`) would block or never
end; the file is opened with O_NONBLOCK and checked with fstat before a byte is read, so even a
path swapped for a FIFO after the walk cannot hang the run. A read takes what the file's size
says (plus one byte to notice growth), never more than the limit: no limit-sized buffer per file.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterator
from typing import Any

from waslint.core.patterns import LazyPattern

DEFAULT_LIMIT = 32 * 1024 * 1024
MAX_DEPTH = 200  # nesting of mappings and lists in any input, YAML or JSON
MAX_INT_DIGITS = 4300  # Python's own bound on int() of text (sys.get_int_max_str_digits)
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


# -- JSON: depth and integer size bounded, errors located --------------------------------------------

_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'"\\[]{}')
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_DEPTH_STEP = bytes.maketrans(b"[]{}", b"\x01\xff\x01\xff")


_BRACKETED_STRING = LazyPattern(rb'"[^"]*"')


_TOKEN = LazyPattern(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


_LONG_NUMBER = LazyPattern(rf"\d{{{MAX_INT_DIGITS + 1},}}")


class BadJSON(InputError):
    """JSON that does not parse, nests too deep or holds a number Python cannot read; 1-based
    `line` and `column` say where."""

    def __init__(self, reason: str, line: int, column: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.column = column


def nests_deeper_than(data: bytes, limit: int) -> bool:
    """Whether JSON text nests its lists and objects deeper than `limit`, in linear time and
    without parsing it: everything but quotes, backslashes and brackets is dropped, then escapes,
    then strings, and what is left is a bracket sequence whose running sum is the depth."""
    reduced = data.translate(None, _NOT_STRUCTURE).replace(b"\\\\", b"").replace(b'\\"', b"")
    reduced = reduced.replace(b'""', b"")  # empty strings (after the drops, nearly all of them)
    if b'"' in reduced:
        reduced = _BRACKETED_STRING.sub(b"", reduced)
    brackets = reduced.translate(None, _NOT_BRACKET)
    if brackets.count(b"[") + brackets.count(b"{") <= limit:
        return False
    from array import array
    from itertools import accumulate

    return max(accumulate(array("b", brackets.translate(_DEPTH_STEP))), default=0) > limit


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _too_deep_at(text: str) -> tuple[int, int]:
    """Where the nesting first passes MAX_DEPTH (an error path only: one regex pass)."""
    offset = _too_deep_offset(text)
    return _position(text, offset) if offset < len(text) else (1, 1)


def _too_deep_offset(text: str) -> int:
    """The offset of the bracket that first passes MAX_DEPTH (len(text) if none does)."""
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return match.start()
        elif token in "]}":
            depth -= 1
    return len(text)


def loads_json(text: str | bytes, hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """json.loads, bounded: nesting deeper than MAX_DEPTH, a number of more than MAX_INT_DIGITS
    digits and a syntax error are each a BadJSON with a position. `hook` is json's
    object_pairs_hook (the manifest loader's duplicate-key check)."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if nests_deeper_than(raw, MAX_DEPTH):
        decoded = text if isinstance(text, str) else raw.decode("utf-8", "replace")
        raise BadJSON(f"nesting deeper than {MAX_DEPTH} levels", *_too_deep_at(decoded))
    try:
        return json.loads(text, object_pairs_hook=hook)
    except json.JSONDecodeError as err:
        raise BadJSON(f"JSON syntax error: {err.msg}", err.lineno, err.colno) from None
    except RecursionError:
        raise BadJSON(f"nesting deeper than {MAX_DEPTH} levels", 1, 1) from None
    except UnicodeDecodeError as err:
        raise BadJSON(f"invalid UTF-8 (byte 0x{raw[err.start]:02x})", 1, 1) from None
    except ValueError as err:
        if "integer string conversion" not in str(err):
            raise
        decoded = text if isinstance(text, str) else raw.decode("utf-8", "replace")
        raise _long_number(decoded, 0) from None


def _long_number(text: str, start: int) -> BadJSON:
    found = _LONG_NUMBER.search(text, start)
    line, column = _position(text, found.start()) if found else (1, 1)
    return BadJSON(f"a number of more than {MAX_INT_DIGITS:,} digits", line, column)


_JSON_SPACE = LazyPattern(r"[ \t\r\n]*")


def skip_json_space(text: str, position: int) -> int:
    """The first offset at or after `position` that is not JSON whitespace."""
    found = _JSON_SPACE.match(text, position)
    return found.end() if found is not None else position


def json_values(
    text: str, hook: Callable[[list[tuple[str, Any]]], Any] | None = None
) -> Iterator[tuple[int, int, Any]]:
    """The values of a JSON text that holds one or a stream of them (back to back or one per
    line, as kubectl reads them), each as (start, end, value) with offsets into `text`. Bounded as
    loads_json is: the first value that does not parse, nests deeper than MAX_DEPTH or holds a
    number of more than MAX_INT_DIGITS digits raises BadJSON where it is, once the values before
    it are yielded. Past a depth error nothing is parsed: the values are read from the text cut
    at the bracket that is too deep."""
    deep = nests_deeper_than(text.encode("utf-8", "surrogatepass"), MAX_DEPTH)
    cut = _too_deep_offset(text) if deep else len(text)
    scanned = text if cut == len(text) else text[:cut]
    decoder = json.JSONDecoder(object_pairs_hook=hook)
    position = skip_json_space(scanned, 0)
    while position < len(scanned):
        try:
            value, end = decoder.raw_decode(scanned, position)
        except json.JSONDecodeError as err:
            if deep and err.pos >= len(scanned):
                break
            raise BadJSON(f"JSON syntax error: {err.msg}", err.lineno, err.colno) from None
        except RecursionError:
            raise BadJSON(f"nesting deeper than {MAX_DEPTH} levels", *_position(text, position)) from None
        except ValueError as err:
            if "integer string conversion" not in str(err):
                raise
            raise _long_number(text, position) from None
        yield position, end, value
        position = skip_json_space(scanned, end)
    if deep:
        raise BadJSON(f"nesting deeper than {MAX_DEPTH} levels", *_position(text, cut))

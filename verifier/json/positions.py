"""Where JSON pointers are in a document's bytes: the line and column of each one.

The strict parser (:mod:`verifier.json.parse`) builds values and keeps no positions; this
module scans the same bytes once more, without building anything, to place the findings of a
file that has some (``schema.invalid`` at ``/cases/3/outcome`` -> line 41, column 7).

Hostile-safe by construction: one forward pass, no recursion (a stack of frames, at most
:data:`MAX_DEPTH` deep), no backtracking (a string's end is found by ``bytes.find`` and a
count of the backslashes before each quote, each backslash counted once), keys decoded only
on the paths a wanted pointer goes through, and at most :data:`MAX_POINTERS` pointers placed
per file. Damaged bytes end the scan: what was placed before the damage is kept, the rest is
left without a position (never guessed).

A member of an object is placed at its key (``"outcome": ...`` -> the ``"`` of the key), an
array element or the root at the value's first byte. A pointer that resolves to nothing is
placed at the deepest prefix that does, and says so (:attr:`Position.exact` false). Lines
count from 1 (LF ends a line; a CR before it is part of the line), columns from 1 in Unicode
code points (SARIF's ``unicodeCodePoints`` column kind).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable
from typing import NamedTuple

MAX_DEPTH = 10_000
MAX_POINTERS = 10_000

_WS = frozenset(b" \t\r\n")
_SCALAR = re.compile(rb"[^\s,\]\}:\[\{\"]+")
_BACKSLASH = 0x5C


class Position(NamedTuple):
    """Where a pointer is: 1-based line and column; ``exact`` false when only a prefix of
    the pointer resolved and this is that prefix's place."""

    line: int
    column: int
    exact: bool = True


class _Damaged(Exception):
    """The bytes are not JSON at this point; the scan stops."""


def split_pointer(pointer: str) -> tuple[str, ...] | None:
    """A JSON pointer's reference tokens, unescaped; ``None`` if it is not a pointer."""
    if pointer == "":
        return ()
    if not pointer.startswith("/"):
        return None
    return tuple(t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/"))


def positions(data: bytes, pointers: Iterable[str]) -> dict[str, Position]:
    """The position of each of ``pointers`` (at most :data:`MAX_POINTERS`) in ``data``;
    a pointer with no resolving prefix at all (damaged bytes before the root) is left out."""
    wanted: dict[str, tuple[str, ...]] = {}
    for pointer in pointers:
        if len(wanted) >= MAX_POINTERS:
            break
        tokens = split_pointer(pointer)
        if tokens is not None:
            wanted[pointer] = tokens
    if not wanted:
        return {}
    prefixes = {tokens[:k] for tokens in wanted.values() for k in range(len(tokens) + 1)}
    offsets = _scan(data, frozenset(prefixes))
    placed: dict[str, tuple[int, bool]] = {}
    for pointer, tokens in wanted.items():
        for k in range(len(tokens), -1, -1):
            offset = offsets.get(tokens[:k])
            if offset is not None:
                placed[pointer] = (offset, k == len(tokens))
                break
    return _line_columns(data, placed)


def _line_columns(data: bytes, placed: dict[str, tuple[int, bool]]) -> dict[str, Position]:
    """Offsets turned into lines and columns, in one walk over the offsets in order."""
    out: dict[str, Position] = {}
    line, line_start, at = 1, 0, 0
    for pointer, (offset, exact) in sorted(placed.items(), key=lambda item: item[1][0]):
        line += data.count(b"\n", at, offset)
        newline = data.rfind(b"\n", 0, offset)
        line_start = newline + 1 if newline >= 0 else 0
        at = offset
        column = len(data[line_start:offset].decode("utf-8", "replace")) + 1
        out[pointer] = Position(line, column, exact)
    return dict(sorted(out.items()))


def _string_end(data: bytes, i: int) -> int:
    """The index after the string that starts at ``data[i] == '"'``."""
    j = i + 1
    while True:
        k = data.find(b'"', j)
        if k < 0:
            raise _Damaged
        b, count = k - 1, 0
        while b > i and data[b] == _BACKSLASH:
            count += 1
            b -= 1
        if count % 2 == 0:
            return k + 1
        j = k + 1


def _ws(data: bytes, i: int) -> int:
    n = len(data)
    while i < n and data[i] in _WS:
        i += 1
    return i


def _key(data: bytes, i: int, decode: bool) -> tuple[int, str | None]:
    """A member's key at ``i``: the index after its ``:``, and the key (if ``decode``)."""
    if i >= len(data) or data[i] != 0x22:
        raise _Damaged
    end = _string_end(data, i)
    key: str | None = None
    if decode:
        try:
            value = json.loads(data[i:end].decode("utf-8"))
        except ValueError:
            raise _Damaged from None
        key = value if isinstance(value, str) else None
    j = _ws(data, end)
    if j >= len(data) or data[j] != 0x3A:  # ':'
        raise _Damaged
    return j + 1, key


def _scan(data: bytes, prefixes: frozenset[tuple[str, ...]]) -> dict[tuple[str, ...], int]:
    """The offset of every path in ``prefixes`` that the document holds (first occurrence)."""
    found: dict[tuple[str, ...], int] = {}
    with contextlib.suppress(_Damaged):
        _walk(data, prefixes, found)
    return found


def _walk(
    data: bytes, prefixes: frozenset[tuple[str, ...]], found: dict[tuple[str, ...], int]
) -> None:
    n = len(data)
    # a frame: [is_object, the container's path (None: no wanted pointer goes through it),
    # the next element's index]
    stack: list[tuple[bool, tuple[str, ...] | None, list[int]]] = []
    path: tuple[str, ...] | None = ()
    i = _ws(data, 0)
    while True:
        # a value starts at i, at ``path``
        if i >= n:
            raise _Damaged
        if path is not None and path in prefixes:
            found.setdefault(path, i)
        else:
            path = None
        c = data[i]
        if c in (0x7B, 0x5B):  # '{' or '['
            if len(stack) >= MAX_DEPTH:
                raise _Damaged
            is_object = c == 0x7B
            stack.append((is_object, path, [0]))
            i = _ws(data, i + 1)
            if i < n and data[i] == (0x7D if is_object else 0x5D):
                stack.pop()
                i += 1
            else:
                i, path = _first_child(data, i, stack[-1], prefixes, found)
                continue
        elif c == 0x22:
            i = _string_end(data, i)
        else:
            m = _SCALAR.match(data, i)
            if m is None:
                raise _Damaged
            i = m.end()
        # after a value: a comma and the next element, or the end of containers
        while True:
            if not stack:
                return
            i = _ws(data, i)
            if i >= n:
                raise _Damaged
            frame = stack[-1]
            if data[i] == 0x2C:  # ','
                frame[2][0] += 1
                i, path = _first_child(data, _ws(data, i + 1), frame, prefixes, found)
                break
            if data[i] == (0x7D if frame[0] else 0x5D):
                stack.pop()
                i += 1
                continue
            raise _Damaged


def _first_child(
    data: bytes,
    i: int,
    frame: tuple[bool, tuple[str, ...] | None, list[int]],
    prefixes: frozenset[tuple[str, ...]],
    found: dict[tuple[str, ...], int],
) -> tuple[int, tuple[str, ...] | None]:
    """The next element of ``frame``'s container at ``i``: where its value starts and its
    path (``None`` when no wanted pointer goes there). A member is placed at its key."""
    is_object, parent, index = frame
    if not is_object:
        return i, None if parent is None else (*parent, str(index[0]))
    start = i
    j, key = _key(data, i, parent is not None)
    if parent is None or key is None:
        return _ws(data, j), None
    child = (*parent, key)
    if child in prefixes:
        found.setdefault(child, start)
    return _ws(data, j), child


__all__ = ["MAX_DEPTH", "MAX_POINTERS", "Position", "positions", "split_pointer"]

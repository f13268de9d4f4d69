"""Strict JSON from bytes: what a record must be before any schema looks at it.

Refused, each with its own reason: a byte order mark, invalid UTF-8, duplicate object keys
(reported with the JSON pointer of the object), ``NaN``/``Infinity``, trailing data, and
nesting deeper than :data:`MAX_DEPTH`. Integers of any size parse (Python ints); an integer
too long for Python's int/str conversion limit is refused, not a crash.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

MAX_DEPTH = 256


@dataclass(frozen=True, slots=True)
class JsonProblem:
    code: str  # record.invalid-json | record.duplicate-key
    message: str
    pointer: str | None = None
    line: int | None = None


class _Dup(dict[str, Any]):
    """A dict that remembers the keys its JSON object repeated."""

    __slots__ = ("dups",)

    def __init__(self, pairs: list[tuple[str, Any]], dups: list[str]) -> None:
        super().__init__(pairs)
        self.dups = dups


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    built = dict(pairs)
    if len(built) == len(pairs):  # the common case, decided in C
        return built
    seen: set[str] = set()
    dups: list[str] = []
    for key, _ in pairs:
        if key in seen:
            dups.append(key)
        seen.add(key)
    return _Dup(pairs, dups)


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def escape_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


_BRACKETS_AND_QUOTES = bytes(b for b in range(256) if b not in b'[]{}"')
_STRINGS = re.compile(rb'"[^"]*"')


def _text_depth(data: bytes) -> int:
    """The maximum nesting depth of a JSON text that parsed (at least 1, stopping past
    :data:`MAX_DEPTH`), from its bytes: much faster than walking a large parsed value.
    Escaped backslashes, then escaped quotes, are taken out (escapes read left to right, so
    this is exact); then everything but brackets and quotes; then strings, which now hold no
    quote (two quotes in a row: an empty string, or the gap between two strings, which holds
    nothing). What remains are the brackets: each round takes out the innermost pairs."""
    plain = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    quotes = plain.translate(None, _BRACKETS_AND_QUOTES).replace(b'""', b"")  # most strings
    skeleton = _STRINGS.sub(b"", quotes)
    brackets = skeleton.replace(b"{", b"[").replace(b"}", b"]")
    depth = 0
    while brackets and depth <= MAX_DEPTH:
        inner = brackets.replace(b"[]", b"")
        if len(inner) == len(brackets):
            break  # not balanced: cannot happen for a text that parsed
        brackets, depth = inner, depth + 1
    return max(depth, 1)


def _depth_and_dups(value: Any) -> tuple[int, list[tuple[str, str]]]:
    """Maximum nesting depth and (pointer, key) of every repeated key, iteratively."""
    deepest = 0
    dups: list[tuple[str, str]] = []
    stack: list[tuple[Any, str, int]] = [(value, "", 1)]
    while stack:
        node, pointer, depth = stack.pop()
        if isinstance(node, dict):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                continue
            if isinstance(node, _Dup):
                dups.extend((pointer, key) for key in node.dups)
            for key, child in node.items():
                if isinstance(child, dict | list):
                    stack.append((child, f"{pointer}/{escape_token(key)}", depth + 1))
        elif isinstance(node, list):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                continue
            for i, child in enumerate(node):
                if isinstance(child, dict | list):
                    stack.append((child, f"{pointer}/{i}", depth + 1))
    return deepest, dups


def loads_strict(data: bytes) -> tuple[Any, list[JsonProblem]]:
    """Parse ``data``; returns the value (``None`` if unusable) and the problems found."""
    if data.startswith(b"\xef\xbb\xbf"):
        return None, [
            JsonProblem(
                "record.invalid-json",
                "The file starts with a UTF-8 byte "
                "order mark; JSON texts must not (RFC 8259 §8.1).",
            )
        ]
    repeated: list[bool] = []

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        built = dict(pairs)
        if len(built) == len(pairs):  # the common case, decided in C
            return built
        repeated.append(True)
        return _pairs(pairs)

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, [
            JsonProblem("record.invalid-json", f"Invalid UTF-8 at byte {exc.start}.", line=line)
        ]
    try:
        value = json.loads(text, object_pairs_hook=hook, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        return None, [
            JsonProblem(
                "record.invalid-json",
                f"Not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}.",
                line=exc.lineno,
            )
        ]
    except RecursionError:
        return None, [
            JsonProblem(
                "record.invalid-json",
                f"Nesting is deeper than the verifier's limit of {MAX_DEPTH}.",
            )
        ]
    except ValueError as exc:
        return None, [JsonProblem("record.invalid-json", f"Not JSON: {exc}.")]
    if not repeated and data.count(b"{") + data.count(b"[") <= MAX_DEPTH:
        # No object repeated a key, and fewer openers than the limit: nothing to walk for.
        return value, []
    # Many openers, or a repeated key: measure the depth; name the repeats (with pointers)
    # only if there are any.
    depth, dups = _depth_and_dups(value) if repeated else (_text_depth(data), [])
    if depth > MAX_DEPTH:
        return None, [
            JsonProblem(
                "record.invalid-json", f"Nesting depth exceeds the verifier's limit of {MAX_DEPTH}."
            )
        ]
    problems = [
        JsonProblem(
            "record.duplicate-key",
            f"The object repeats the key {json.dumps(key)}; which value counts is undefined.",
            pointer=pointer or "",
        )
        for pointer, key in sorted(dups)
    ]
    return value, problems

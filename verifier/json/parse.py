"""Strict JSON from bytes: what a record must be before any schema looks at it.

Refused, each with its own reason: a byte order mark, invalid UTF-8, duplicate object keys
(reported with the JSON pointer of the object), ``NaN``/``Infinity``, trailing data, and
nesting deeper than :data:`MAX_DEPTH`. Integers of any size parse (Python ints); an integer
too long for Python's int/str conversion limit is refused, not a crash.

Numbers keep their exact value (:mod:`verifier.json.numbers`): a literal no double holds is a
:class:`~verifier.json.numbers.JsonFloat` carrying its literal. One a double cannot stand for at
all (``1e400`` overflows, ``1e-400`` is not zero but rounds to it) is valid JSON, so the value
is returned, with a ``record.unrepresentable-number`` problem at its pointer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from verifier.json.numbers import (
    MAX_DOUBLE,
    MIN_NORMAL,
    SHORT_LITERAL,
    JsonFloat,
    exact_float,
    float_keeping_spelling,
)

MAX_DEPTH = 256
MAX_NUMBER_PROBLEMS = 10  # per text; the rest are counted in one more problem
UNREPRESENTABLE = "record.unrepresentable-number"


@dataclass(frozen=True, slots=True)
class JsonProblem:
    code: str  # record.invalid-json | record.duplicate-key | record.unrepresentable-number
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


def _unrepresentable(value: Any) -> list[JsonProblem]:
    """A problem for each number in ``value`` a double cannot stand for (document order)."""
    found: list[tuple[str, str]] = []
    total = 0
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        node, pointer = stack.pop()
        if isinstance(node, dict):
            children = [(c, f"{pointer}/{escape_token(k)}") for k, c in node.items()]
        elif isinstance(node, list):
            children = [(c, f"{pointer}/{i}") for i, c in enumerate(node)]
        else:
            if isinstance(node, JsonFloat) and not node.representable:
                total += 1
                if len(found) < MAX_NUMBER_PROBLEMS:
                    found.append((pointer, node.literal))
            continue
        stack.extend(reversed(children))
    problems = []
    for pointer, literal in found:
        shown = literal if len(literal) <= 40 else literal[:37] + "..."
        why = "beyond the range of" if float(literal) != 0 else "too small for"
        problems.append(
            JsonProblem(
                UNREPRESENTABLE,
                f"The number {shown} is {why} an IEEE 754 double (RFC 8259 §6, I-JSON RFC 7493 "
                "§2.2): most JSON readers turn it into "
                + ("an infinity" if why.startswith("beyond") else "zero")
                + "; write it within the double range, or as a string.",
                pointer=pointer,
            )
        )
    if total > len(found):
        problems.append(
            JsonProblem(
                UNREPRESENTABLE,
                f"{total - len(found)} further number(s) a double cannot represent not shown.",
                pointer="",
            )
        )
    return problems


def _int_keeping_spelling(literal: str) -> int | float:
    return JsonFloat(literal, -0.0) if literal == "-0" else int(literal)


def loads_strict(
    data: bytes, keep_spelling: bool = False, strings: dict[str, str] | None = None
) -> tuple[Any, list[JsonProblem]]:
    """Parse ``data``; returns the value (``None`` if unusable) and the problems found.

    Numbers keep their exact value; with ``keep_spelling`` every number that is not written
    as Python would write it keeps its literal too (for writing the text back unchanged).

    ``strings``, for a document kept for the whole run (the assertion spec): every string an
    object holds as a value is replaced by the equal one in ``strings`` (added when new), so
    a value written many times (a kind, a description, a pointer, a file the manifest names)
    is held once. Keys are shared already (the decoder's own memo); the value is the same."""
    if data.startswith(b"\xef\xbb\xbf"):
        return None, [
            JsonProblem(
                "record.invalid-json",
                "The file starts with a UTF-8 byte "
                "order mark; JSON texts must not (RFC 8259 §8.1).",
            )
        ]
    repeated: list[bool] = []
    odd_numbers: list[bool] = []

    def number(literal: str) -> float:  # float_from_literal, its quick test inline
        value = float(literal)
        if len(literal) <= SHORT_LITERAL and MIN_NORMAL <= abs(value) <= MAX_DOUBLE:
            return value
        return noted(exact_float(literal, value))

    def spelled(literal: str) -> float:
        return noted(float_keeping_spelling(literal))

    def noted(made: float) -> float:  # the text is walked for pointers only if one is seen
        if not odd_numbers and type(made) is JsonFloat and not made.representable:
            odd_numbers.append(True)
        return made

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        built = dict(pairs)
        if len(built) == len(pairs):  # the common case, decided in C
            return built
        repeated.append(True)
        return _pairs(pairs)

    shared = strings.setdefault if strings is not None else None

    def sharing_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        built = hook(pairs)
        assert shared is not None
        for key, value in pairs:  # (a repeated key: the last value, the one the dict keeps)
            if type(value) is str:
                built[key] = shared(value, value)
        return built

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, [
            JsonProblem("record.invalid-json", f"Invalid UTF-8 at byte {exc.start}.", line=line)
        ]
    try:
        value = json.loads(
            text,
            object_pairs_hook=hook if shared is None else sharing_hook,
            parse_constant=_constant,
            parse_float=spelled if keep_spelling else number,
            parse_int=_int_keeping_spelling if keep_spelling else None,
        )
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
    numbers = _unrepresentable(value) if odd_numbers else []
    if not repeated and data.count(b"{") + data.count(b"[") <= MAX_DEPTH:
        # No object repeated a key, and fewer openers than the limit: nothing to walk for.
        return value, numbers
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
    return value, problems + numbers

"""The interface of an assertion kind, and the context assertions read records through.

An assertion kind is a class with a ``name`` and an ``evaluate(spec, ctx)`` method that returns
an :class:`Outcome`. It reads values only through :class:`Context`, which records every file and
pointer read, and raises :class:`EvalError` when a file or pointer resolves to nothing: that is
an assertion *error*, never a pass.
"""

from __future__ import annotations

import abc
import re
from dataclasses import dataclass
from typing import Any

from verifier.model import AssertionStatus, Read

_MISSING = object()


class EvalError(Exception):
    """The assertion could not be evaluated (missing file, pointer to nothing, bad spec)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    status: AssertionStatus
    message: str

    @classmethod
    def passed(cls, message: str) -> Outcome:
        return cls(AssertionStatus.PASSED, message)

    @classmethod
    def failed(cls, message: str) -> Outcome:
        return cls(AssertionStatus.FAILED, message)


_INDEX = re.compile(r"0|[1-9][0-9]*")


def resolve_pointer(document: Any, pointer: str) -> Any:
    """RFC 6901. Returns the value, or raises :class:`EvalError`."""
    if pointer == "":
        return document
    if not pointer.startswith("/"):
        raise EvalError(f"{pointer!r} is not a JSON pointer (it must start with '/')")
    node = document
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~") if "~" in raw else raw
        if isinstance(node, dict):
            if token not in node:
                raise EvalError(f"pointer {pointer} resolves to nothing (no member {token!r})")
            node = node[token]
        elif isinstance(node, list):
            if not _INDEX.fullmatch(token) or int(token) >= len(node):
                raise EvalError(f"pointer {pointer} resolves to nothing (no index {token!r})")
            node = node[int(token)]
        else:
            raise EvalError(f"pointer {pointer} resolves to nothing ({token!r} below a scalar)")
    return node


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """``*`` and ``?`` stay within a path segment; ``**/`` spans any number of folders."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


class Context:
    """Read access to the parsed records, recording every read."""

    def __init__(self, records: dict[str, Any], manifested: set[str]) -> None:
        self._records = records
        self._manifested = manifested
        self.reads: list[Read] = []

    def document(self, path: str) -> Any:
        self.reads.append(Read(path, ""))
        if path not in self._records:
            why = (
                "is not listed in the manifest"
                if path not in self._manifested
                else ("could not be parsed as JSON")
            )
            raise EvalError(f"{path} {why}")
        return self._records[path]

    def value(self, selector: Any) -> Any:
        if (
            not isinstance(selector, dict)
            or not isinstance(selector.get("file"), str)
            or not isinstance(selector.get("pointer"), str)
        ):
            raise EvalError(f"malformed selector {selector!r}: needs 'file' and 'pointer'")
        path, pointer = selector["file"], selector["pointer"]
        if path not in self._records:
            self.reads.append(Read(path, pointer))
            why = (
                "is not listed in the manifest"
                if path not in self._manifested
                else ("could not be parsed as JSON")
            )
            raise EvalError(f"{path} {why}")
        self.reads.append(Read(path, pointer))
        return resolve_pointer(self._records[path], pointer)

    def files(self, pattern: str) -> list[str]:
        regex = glob_to_regex(pattern)
        matched = sorted(p for p in self._manifested if regex.match(p))
        self.reads.extend(Read(p, "") for p in matched)
        return matched


class AssertionKind(abc.ABC):
    """One kind of assertion (one module per kind, registered in ``verifier.assertions``)."""

    name: str

    @abc.abstractmethod
    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        """Evaluate one assertion of this kind. Raise :class:`EvalError` if it cannot be."""


def param(spec: dict[str, Any], key: str) -> Any:
    if key not in spec:
        raise EvalError(f"the assertion has no {key!r}")
    return spec[key]


def json_equal(a: Any, b: Any) -> bool:
    """JSON value equality: booleans are not numbers, 1 equals 1.0, order matters in arrays."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def show(value: Any, limit: int = 80) -> str:
    if type(value) is int or value is None or type(value) is bool:
        return (
            "null"
            if value is None
            else ("true" if value is True else "false" if value is False else str(value))
        )
    import json

    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."

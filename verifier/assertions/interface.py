"""The interface of an assertion kind, and the context assertions read records through.

An assertion kind is a class with a ``name`` and an ``evaluate(spec, ctx)`` method that returns
an :class:`Outcome`. It reads values only through :class:`Context`, which records every file and
pointer read, and raises :class:`EvalError` when a file or pointer resolves to nothing: that is
an assertion *error*, never a pass.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from verifier.model import AssertionStatus, Read
from verifier.numbers import numbers_equal
from verifier.pointer import EvalError, glob_to_regex, resolve_pointer
from verifier.records import Need, Records, selectors_in


class Outcome(NamedTuple):
    status: AssertionStatus
    message: str

    @classmethod
    def passed(cls, message: str) -> Outcome:
        return cls(AssertionStatus.PASSED, message)

    @classmethod
    def failed(cls, message: str) -> Outcome:
        return cls(AssertionStatus.FAILED, message)


class Context:
    """Read access to the parsed records, recording every read."""

    def __init__(self, records: Records, manifested: set[str]) -> None:
        self._records = records
        self._manifested = manifested
        self.reads: list[Read] = []

    def _parsed(self, path: str) -> None:
        if path not in self._records:
            why = (
                "is not listed in the manifest"
                if path not in self._manifested
                else ("could not be parsed as JSON")
            )
            raise EvalError(f"{path} {why}")

    def document(self, path: str) -> Any:
        """A whole record (declare it with ``Need(path, "")``)."""
        self.reads.append(Read(path, ""))
        self._parsed(path)
        return self._records.resolve(path, "")

    @staticmethod
    def _selector(selector: Any) -> tuple[str, str]:
        if (
            not isinstance(selector, dict)
            or not isinstance(selector.get("file"), str)
            or not isinstance(selector.get("pointer"), str)
        ):
            raise EvalError(f"malformed selector {selector!r}: needs 'file' and 'pointer'")
        return selector["file"], selector["pointer"]

    def value(self, selector: Any) -> Any:
        path, pointer = self._selector(selector)
        self.reads.append(Read(path, pointer))
        self._parsed(path)
        return self._records.resolve(path, pointer)

    def length(self, selector: Any) -> int | None:
        """The element count of the selected array, ``None`` if it is not an array (declare
        it with ``Need(file, pointer, length=True)``)."""
        path, pointer = self._selector(selector)
        self.reads.append(Read(path, pointer))
        self._parsed(path)
        return self._records.length(path, pointer)

    def files(self, pattern: str) -> list[str]:
        regex = glob_to_regex(pattern)
        matched = sorted(p for p in self._manifested if regex.match(p))
        self.reads.extend(Read(p, "") for p in matched)
        return matched


class AssertionKind(abc.ABC):
    """One kind of assertion (one module per kind, registered in ``verifier.assertions``).

    ``needs`` declares what ``evaluate`` will read, before any record is read: the values are
    extracted while each record is parsed, and only those are kept. The default declares
    every ``{"file", "pointer"}`` selector in the assertion; a kind that reads anything else
    (a whole document, a length, a glob of files) says so.
    """

    name: str

    @abc.abstractmethod
    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        """Evaluate one assertion of this kind. Raise :class:`EvalError` if it cannot be."""

    def needs(self, spec: dict[str, Any]) -> Iterable[Need]:
        return selectors_in(spec)


def needs_of_selectors(*selectors: Any) -> Iterator[Need]:
    """A need for each well-formed ``{"file", "pointer"}`` selector among ``selectors`` (a
    malformed one is reported when the assertion is evaluated)."""
    for selector in selectors:
        if isinstance(selector, dict):
            file, pointer = selector.get("file"), selector.get("pointer")
            if isinstance(file, str) and isinstance(pointer, str):
                yield Need(file, pointer)


def param(spec: dict[str, Any], key: str) -> Any:
    if key not in spec:
        raise EvalError(f"the assertion has no {key!r}")
    return spec[key]


_PLAIN = (str, int, type(None))  # same-type values equal exactly when == says so


def json_equal(a: Any, b: Any) -> bool:
    """JSON value equality: booleans are not numbers, numbers are equal when their exact
    values are (1 equals 1.0; 0.1 does not equal 0.10000000000000001, though both read as the
    same double; see :mod:`verifier.numbers`), order matters in arrays."""
    if type(a) is type(b) and type(a) in _PLAIN:
        return bool(a == b)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return numbers_equal(a, b)
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
    if type(value) is str and value.isprintable() and '"' not in value and "\\" not in value:
        text = f'"{value}"'  # what json.dumps would write: nothing here needs escaping
    else:
        from verifier.jsonwrite import dumps

        text = dumps(value, sort_keys=True)  # numbers as written, never Infinity
    return text if len(text) <= limit else text[: limit - 3] + "..."


__all__ = [
    "AssertionKind",
    "Context",
    "EvalError",
    "Need",
    "Outcome",
    "glob_to_regex",
    "json_equal",
    "needs_of_selectors",
    "param",
    "resolve_pointer",
    "show",
]

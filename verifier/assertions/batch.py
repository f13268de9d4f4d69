"""The batch path of the assertion kinds: every assertion of one kind evaluated in one call,
over the values the records yield, without a :class:`~verifier.assertions.Context`, an
exception or an outcome object per assertion.

It only ever says *passed*, and only where the kind's own ``evaluate`` would say passed with
the same message and reads: each kind's ``quick`` checks the assertion's shape (its selectors
well formed ``{"file", "pointer"}`` objects whose pointers are JSON pointers, its parameters
of the types ``evaluate`` accepts), looks its values up (:meth:`Records.quick_value`, which
answers :data:`MISS` for anything ``evaluate`` would have to explain: a file not parsed, a
value not extracted or resolved to nothing, a document kept whole), and gives ``None``
whenever anything is off the plain path. The consistency stage then evaluates that assertion
the one generic way, so a failure, an error, a vacuous outcome and every message explaining
them come from one place (and the tests compare the two paths on every assertion they make).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from verifier.json.pointer import is_pointer
from verifier.report import Read
from verifier.values.records import MISS

#: a pass found by the batch path: its message and the reads, deduplicated, in read order
Quick = tuple[str, tuple[Read, ...]]

#: the exact types of the values that are never a container (no ``isinstance`` needed)
SCALARS = frozenset({str, int, float, bool, type(None)})

_UNSEEN: Any = object()
_new = tuple.__new__


def place(selector: Any) -> tuple[str, str] | None:
    """``(file, pointer)`` of a plain selector (exactly those two keys, strings, the pointer a
    JSON pointer), else ``None`` (the generic path explains it)."""
    if type(selector) is not dict or len(selector) != 2:
        return None
    file, pointer = selector.get("file"), selector.get("pointer")
    if type(file) is not str or type(pointer) is not str:
        return None
    if pointer and (pointer[0] != "/" or ("~" in pointer and not is_pointer(pointer))):
        return None
    return file, pointer


def rest_plain(spec: dict[str, Any], *skip: str) -> bool:
    """Whether the assertion's other parameters (besides ``skip``, whose shape the kind checks
    itself) hold no container: then none hides a selector whose pointer must be checked, and
    the assertion is not itself shaped like a selector."""
    if "file" in spec and "pointer" in spec:
        return False
    for key, value in spec.items():
        if isinstance(value, dict | list) and key not in skip:
            return False
    return True


def _pointer_ok(pointer: str) -> bool:
    """What :func:`place` asks of a pointer."""
    return not pointer or (pointer[0] == "/" and ("~" not in pointer or is_pointer(pointer)))


class Shapes:
    """What one kind's batch call learns once per shape and reuses for every assertion of
    that shape (a real spec repeats a few shapes many times): for each key tuple, the keys
    besides the kind's own parameters (``skip``), whose values :func:`rest_plain` must find
    to hold no container, and for each distinct pointer, whether :func:`place` accepts it.
    Only ever a quicker way to the same answers as :func:`rest_plain` and :func:`place`.

    ``names``: the strings the records hold for the paths that parsed
    (:attr:`Records.names`), which a placed read is named by: the spec's paths come from its
    unpacked parts, a fresh string each, which a result would otherwise keep to the end of
    the run beside the one the report's file entries hold (about 10 MB at 100,000
    records)."""

    __slots__ = ("_good", "_names", "_rest", "_skip")

    def __init__(self, *skip: str, names: Mapping[str, str] | None = None) -> None:
        self._skip = frozenset(skip)
        self._names = names
        self._rest: dict[tuple[Any, ...], tuple[Any, ...] | None] = {}
        self._good: dict[str, bool] = {}

    def _others(self, shape: tuple[Any, ...]) -> tuple[Any, ...] | None:
        if "file" in shape and "pointer" in shape:
            return None
        return tuple(k for k in shape if k not in self._skip)

    def plain(self, spec: Any) -> bool:
        """:func:`rest_plain` of ``spec`` where it is certainly true (a ``dict`` whose other
        parameters are all of :data:`SCALARS`); ``False`` means "ask :func:`rest_plain`"."""
        if type(spec) is not dict:
            return False
        shape = tuple(spec)
        others = self._rest.get(shape, _UNSEEN)
        if others is _UNSEEN:
            others = self._rest[shape] = self._others(shape)
        return others is not None and SCALARS.issuperset(map(type, map(spec.__getitem__, others)))

    def place(self, selector: Any) -> Read | None:
        """:func:`place` of ``selector``, as a :class:`Read` (a tuple equal to the pair)."""
        if type(selector) is not dict or len(selector) != 2:
            return None
        file, pointer = selector.get("file"), selector.get("pointer")
        if type(file) is not str or type(pointer) is not str:
            return None
        good = self._good.get(pointer)
        if good is None:
            good = self._good[pointer] = _pointer_ok(pointer)
        if not good:
            return None
        names = self._names
        return _new(Read, (file if names is None else names.get(file, file), pointer))


__all__ = ["MISS", "SCALARS", "Quick", "Shapes", "place", "rest_plain"]

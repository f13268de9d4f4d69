"""The interface of an assertion kind, and the context assertions read records through.

An assertion kind is a class with a ``name`` and an ``evaluate(spec, ctx)`` method that returns
an :class:`Outcome`. It reads values only through :class:`Context`, which records every file and
pointer read, and raises :class:`EvalError` when a file or pointer resolves to nothing: that is
an assertion *error*, never a pass. :class:`SpecError` (an :class:`EvalError`) says the
assertion itself is malformed. Any other exception out of a kind is a bug in that kind: it is
reported as an internal error, never as a pass and never as the spec's fault.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, NamedTuple

from verifier.assertions.batch import Quick
from verifier.json.numbers import numbers_equal
from verifier.json.pointer import EvalError, Glob, is_pointer, resolve_pointer
from verifier.json.pointer import quote as _json_quote
from verifier.report import AssertionStatus, Read
from verifier.values.needs import Need, selectors_in
from verifier.values.records import Records

VACUOUS = "assertion.vacuous"
#: why an assertion could not read a file the publisher withholds (the consistency stage's
#: reason for it): the assertion is then not evaluable, ``assertion.withheld``
WITHHELD_READ = (
    "is withheld by the publisher (see its manifest.withheld finding), so it cannot be read"
)
WITHHELD = "assertion.withheld"


class SpecError(EvalError):
    """The assertion is malformed (a parameter missing or of the wrong kind); ``at`` is where,
    as a JSON pointer into the assertion."""

    def __init__(self, message: str, at: str = "") -> None:
        super().__init__(message)
        self.at = at


class Outcome(NamedTuple):
    status: AssertionStatus
    message: str
    code: str | None = None  # the finding code, when not the status's own

    @classmethod
    def passed(cls, message: str) -> Outcome:
        return cls(AssertionStatus.PASSED, message)

    @classmethod
    def failed(cls, message: str) -> Outcome:
        return cls(AssertionStatus.FAILED, message)

    @classmethod
    def vacuous(cls, message: str) -> Outcome:
        """The condition holds only because nothing was there to check: never a pass."""
        return cls(AssertionStatus.ERROR, message, VACUOUS)


class Context:
    """Read access to the parsed records, recording every read.

    ``manifested`` is the set of listed files that were read; ``unread`` says, for a listed
    path that is not a parsed record, why (missing from the archive, unreadable, refused, not
    a record); a path in neither is not listed in the manifest."""

    def __init__(
        self,
        records: Records,
        manifested: AbstractSet[str],
        unread: Mapping[str, str] | None = None,
    ) -> None:
        self._records = records
        self._manifested = manifested
        self._unread = unread or {}
        self.reads: list[Read] = []

    def _parsed(self, path: str) -> None:
        if path not in self._records:
            why = self._unread.get(path)
            if why is None:
                why = (
                    "could not be parsed as JSON"
                    if path in self._manifested
                    else "is not listed in the manifest"
                )
            hint = ""
            if path not in self._manifested and path not in self._unread:
                from verifier.suggest import did_you_mean

                known = [*self._manifested, *self._unread]
                hint = did_you_mean(path, known, quote='"', n=1) if len(known) <= 20_000 else ""
            error = EvalError(f"{quote(path, 200)} {why}{hint}")
            if why == WITHHELD_READ:
                error.code = WITHHELD
            raise error

    def document(self, path: Any) -> Any:
        """A whole record (declare it with ``Need(path, "")``)."""
        if not isinstance(path, str):
            raise SpecError(f"a file must be named by a string, not {show(path)}")
        self.reads.append(Read(self._records.own(path), ""))
        self._parsed(path)
        return self._records.resolve(path, "")

    @staticmethod
    def _selector(selector: Any) -> tuple[str, str]:
        if (
            not isinstance(selector, dict)
            or not isinstance(selector.get("file"), str)
            or not isinstance(selector.get("pointer"), str)
        ):
            raise SpecError(f"malformed selector {show(selector)}: needs 'file' and 'pointer'")
        return selector["file"], selector["pointer"]

    def value(self, selector: Any) -> Any:
        path, pointer = self._selector(selector)
        self.reads.append(Read(self._records.own(path), pointer))  # (see Records.own)
        self._parsed(path)
        return self._records.resolve(path, pointer)

    def length(self, selector: Any) -> int | None:
        """The element count of the selected array, ``None`` if it is not an array (declare
        it with ``Need(file, pointer, length=True)``)."""
        path, pointer = self._selector(selector)
        self.reads.append(Read(self._records.own(path), pointer))  # (see Records.own)
        self._parsed(path)
        return self._records.length(path, pointer)

    def files(self, pattern: Any) -> list[str]:
        """The listed files the glob ``pattern`` matches (see :class:`verifier.json.pointer.Glob`),
        in order."""
        if not isinstance(pattern, str) or not pattern:
            raise SpecError(f"'files' must be a non-empty glob string, not {show(pattern)}")
        glob = Glob(pattern)
        matched = sorted(p for p in self._manifested if glob.match(p))
        self.reads.extend(Read(p, "") for p in matched)
        return matched


def quote(text: str, limit: int = 80) -> str:
    """``text`` as a JSON string (control characters escaped), cut to about ``limit``: what
    :func:`verifier.json.pointer.quote` writes, without calling the JSON encoder for a short
    printable text with nothing to escape (the common key or path)."""
    if len(text) <= limit and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    return _json_quote(text, limit)


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1") if "~" in key or "/" in key else key


def selector_pointers(node: Any, at: str = "") -> Iterator[tuple[str, Any]]:
    """``(where, pointer)`` for every ``{"file", "pointer"}`` object's pointer anywhere in
    ``node``; ``where`` is a JSON pointer into ``node``, in document order."""
    # Once per assertion of a large spec: scalars are skipped without building a pair, and
    # a node's containers are pushed without an intermediate list when there are none.
    stack: list[tuple[str, Any]] = [(at, node)]
    pop, push = stack.pop, stack.append
    while stack:
        here, current = pop()
        if type(current) is dict or isinstance(current, dict):
            if "file" in current and "pointer" in current:
                yield f"{here}/pointer", current["pointer"]
            found = [(k, v) for k, v in current.items() if isinstance(v, dict | list)]
            for k, v in reversed(found):
                push((f"{here}/{_escape(str(k))}", v))
        elif isinstance(current, list):
            for i in range(len(current) - 1, -1, -1):
                v = current[i]
                if isinstance(v, dict | list):
                    push((f"{here}/{i}", v))


def selectors_well_formed(node: Any) -> bool:
    """Whether every ``{"file", "pointer"}`` object's pointer anywhere in ``node`` that is a
    string is a JSON pointer: :func:`selector_pointers` and :func:`is_pointer` as one walk,
    without the places (asked of every assertion; only a failing one is walked again, for
    where it fails)."""
    stack = [node]
    pop, push = stack.pop, stack.append
    while stack:
        current = pop()
        if isinstance(current, dict):
            if "file" in current and "pointer" in current:
                pointer = current["pointer"]
                if isinstance(pointer, str) and not is_pointer(pointer):
                    return False
            for value in current.values():
                if isinstance(value, dict | list):
                    push(value)
        elif isinstance(current, list):
            for value in current:
                if isinstance(value, dict | list):
                    push(value)
    return True


def pointers_well_formed(kind: AssertionKind, spec: dict[str, Any]) -> bool:
    """Whether every parameter of ``spec`` that must be a JSON pointer is one (a non-string
    is left to ``evaluate``): what the consistency stage checks first, quickly; only an
    assertion for which this is false is walked again, for the place that fails (and a kind
    whose ``pointers`` raises is reported from there)."""
    try:
        if type(kind).pointers is AssertionKind.pointers:  # the default: its selectors
            return selectors_well_formed(spec)
        return all(not isinstance(v, str) or is_pointer(v) for _, v in kind.pointers(spec))
    except Exception:  # reported when it is evaluated, where the finding is made
        return False


class Cover(NamedTuple):
    """A value an assertion or a catalogue cell compares (see :meth:`AssertionKind.covers`):
    at ``pointer`` in ``file`` (a glob pattern when ``glob``), whole; only its element count
    when ``length``; or, with ``each``, the value at ``each`` under every element of the
    array at ``pointer``."""

    file: str
    pointer: str
    glob: bool = False
    length: bool = False
    each: str | None = None


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

    def quick(self, specs: Sequence[dict[str, Any]], records: Records) -> list[Quick | None]:
        """The batch path (:mod:`verifier.assertions.batch`): for each of ``specs`` (all of
        this kind), its pass, message and reads, where ``evaluate`` would certainly pass
        with them, else ``None`` (then ``evaluate`` runs). Used only when the class that
        defines ``evaluate`` defines this too. The default has no batch path."""
        return [None] * len(specs)

    def covers(self, spec: dict[str, Any]) -> Iterable[Cover]:
        """What ``evaluate`` compares, for ``verify-evidence coverage``: each value it reads
        whole (every leaf under the pointer can change the outcome), or only the length of
        (``length``), or, for each element of an array, one value under it (``each``). The
        default is every declared need, read whole unless it is a length. A kind that reads a
        value but does not compare all of it (a whole transcript paired by its call ids)
        declares less: a leaf counts as checked only if some kind compares it."""
        for need in self.needs(spec):
            yield Cover(need.file, need.pointer, glob=need.glob, length=need.length)

    def pointers(self, spec: dict[str, Any]) -> Iterable[tuple[str, Any]]:
        """``(where, value)`` for every parameter of ``spec`` that must be a JSON pointer
        (``where`` a JSON pointer into the assertion). They are checked before ``evaluate``
        runs: an assertion naming something that is not a JSON pointer is an error at that
        place in the spec. The default is every selector's ``pointer``."""
        return selector_pointers(spec)


def needs_of_selectors(*selectors: Any) -> list[Need]:
    """A need for each well-formed ``{"file", "pointer"}`` selector among ``selectors`` (a
    malformed one is reported when the assertion is evaluated)."""
    out: list[Need] = []
    for selector in selectors:
        if type(selector) is dict or isinstance(selector, dict):  # (the exact type first)
            file, pointer = selector.get("file"), selector.get("pointer")
            if (type(file) is str or isinstance(file, str)) and (
                type(pointer) is str or isinstance(pointer, str)
            ):
                out.append(_new(Need, (file, pointer, False, False)))  # Need(file, pointer)
    return out


_new = tuple.__new__


def param(spec: dict[str, Any], key: str) -> Any:
    if key not in spec:
        raise SpecError(f"the assertion has no {key!r}")
    return spec[key]


_PLAIN = (str, int, type(None))  # same-type values equal exactly when == says so


def json_equal(a: Any, b: Any) -> bool:
    """JSON value equality: booleans are not numbers, numbers are equal when their exact
    values are (1 equals 1.0; 0.1 does not equal 0.10000000000000001, though both read as the
    same double; see :mod:`verifier.json.numbers`), order matters in arrays."""
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


def plain(text: str, limit: int = 120) -> str:
    """``text`` as it is when it is short and printable, else quoted as JSON (escaped)."""
    if len(text) <= limit and text.isprintable():
        return text
    return quote(text, limit)


def one_place(*selectors: dict[str, Any]) -> bool:
    """Whether well-formed ``selectors`` all name the same value (the same file and pointer:
    RFC 6901 gives each place one spelling), so comparing them compares a value with itself."""
    return len({(s["file"], s["pointer"]) for s in selectors}) < 2


def where(selector: dict[str, Any]) -> str:
    """``file#pointer`` of a well-formed selector, for messages."""
    return f"{plain(selector['file'])}#{plain(selector['pointer'])}"


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
        from verifier.json.write import dumps

        text = dumps(value, sort_keys=True)  # numbers as written, never Infinity
    return text if len(text) <= limit else text[: limit - 3] + "..."


__all__ = [
    "VACUOUS",
    "AssertionKind",
    "Context",
    "Cover",
    "EvalError",
    "Need",
    "Outcome",
    "SpecError",
    "json_equal",
    "needs_of_selectors",
    "one_place",
    "param",
    "plain",
    "pointers_well_formed",
    "quote",
    "resolve_pointer",
    "selector_pointers",
    "selectors_well_formed",
    "show",
    "where",
]

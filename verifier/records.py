"""What the stages keep of the parsed records, and what later stages need from them.

Records are parsed and validated during each file's one read (in whichever process read it).
The parsed value is then dropped: what is kept is the value at each JSON pointer a later
stage declared it needs (:class:`Need`: the assertion spec's selectors, the case catalogue's
cells), extracted right there. A few documents (the assertion spec, the case catalogue) are
kept whole. What is kept, and sent back from worker processes, then grows with what the
assertions read, not with the size of the records, and the consistency stage never rescans
the archive: each value it reads is one dictionary lookup.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from verifier.pointer import EvalError, Glob, resolve_pointer

Wants = tuple[tuple[str, bool], ...]  # (pointer, length only) pairs for one file
Extracted = dict[str, Any]  # pointer (or "#" + pointer for a length) -> value or Unresolved


class Need(NamedTuple):
    """A value a later stage reads: at ``pointer`` in ``file`` (a glob pattern when ``glob``),
    whole, or only its length when ``length`` (an array's element count)."""

    file: str
    pointer: str
    glob: bool = False
    length: bool = False


class UndeclaredRead(EvalError):
    """A reader asked for a value it did not declare as a need: a bug in the reader (an
    assertion kind's internal error), never the archive's fault and never a pass."""


@dataclass(frozen=True, slots=True)
class Unresolved:
    """A pointer that resolved to nothing, with the message :func:`resolve_pointer` gave."""

    message: str


CATALOGUE = "evidence/cases.json"  # the case catalogue, kept whole for the outcome table
NOT_AN_ARRAY = -1  # the length of something that is not an array


def selectors_in(node: Any) -> Iterator[Need]:
    """Every ``{"file": ..., "pointer": ...}`` object anywhere in ``node``."""
    stack = [node] if isinstance(node, dict | list) else []
    while stack:
        current = stack.pop()
        children: Iterable[Any]
        if isinstance(current, dict):
            file, pointer = current.get("file"), current.get("pointer")
            if isinstance(file, str) and isinstance(pointer, str):
                yield Need(file, pointer)
            children = current.values()
        else:
            children = current
        stack.extend(c for c in children if isinstance(c, dict | list))


def extract(value: Any, wants: Wants) -> Extracted:
    """The values at ``wants`` in one parsed record."""
    out: Extracted = {}
    for pointer, length in wants:
        try:
            found = resolve_pointer(value, pointer)
        except EvalError as exc:
            out[("#" if length else "") + pointer] = Unresolved(str(exc))
            continue
        if length:
            out["#" + pointer] = len(found) if isinstance(found, list) else NOT_AN_ARRAY
        else:
            out[pointer] = found
    return out


def _literal_folder(pattern: str) -> str:
    """The folder a glob pattern's matches all lie in: its part before the first wildcard,
    up to the last ``/``."""
    cut = len(pattern)
    for wildcard in ("*", "?"):
        at = pattern.find(wildcard)
        if at != -1:
            cut = min(cut, at)
    head = pattern[:cut]
    return head[: head.rfind("/") + 1]


class NeedIndex:
    """The needs, indexed by file; glob needs indexed by the folder their matches lie in, so
    finding what one file needs costs the depth of its path, not the number of needs."""

    def __init__(self, needs: Iterable[Need]) -> None:
        self._exact: dict[str, dict[tuple[str, bool], None]] = {}
        self._globs: dict[str, list[tuple[Glob, str, bool]]] = {}
        compiled: dict[str, Glob] = {}
        for need in needs:
            if need.glob:
                glob = compiled.get(need.file)
                if glob is None:
                    glob = compiled[need.file] = Glob(need.file)
                folder = _literal_folder(need.file)
                self._globs.setdefault(folder, []).append((glob, need.pointer, need.length))
            else:
                self._exact.setdefault(need.file, {})[(need.pointer, need.length)] = None

    def wants(self, path: str) -> Wants:
        found = self._exact.get(path)
        wanted: dict[tuple[str, bool], None] = dict(found) if found else {}
        if self._globs:
            folder = ""
            while True:
                for glob, pointer, length in self._globs.get(folder, ()):
                    if glob.match(path):
                        wanted[(pointer, length)] = None
                slash = path.find("/", len(folder))
                if slash == -1:
                    break
                folder = path[: slash + 1]
        return tuple(wanted)


class Records:
    """The parsed records: which paths parsed, whole documents for a few, and for the rest
    the values extracted at the pointers declared as needed."""

    def __init__(self) -> None:
        self._parsed: set[str] = set()
        self._documents: dict[str, Any] = {}
        self._extracted: dict[str, Extracted] = {}

    @classmethod
    def of(cls, documents: dict[str, Any], needs: Iterable[Need] | None = None) -> Records:
        """Records from parsed documents: kept whole, or (given ``needs``) reduced to the
        values they declare, exactly as the pipeline reduces them."""
        out = cls()
        index = NeedIndex(needs) if needs is not None else None
        for path, value in documents.items():
            if index is None:
                out.add(path, document=value)
            else:
                out.add(path, extract(value, index.wants(path)))
        return out

    def add(self, path: str, extracted: Extracted | None = None, document: Any = None) -> None:
        self._parsed.add(path)
        if document is not None:
            self._documents[path] = document
        if extracted:
            self._extracted[path] = extracted

    def rebased(self, prefix: str) -> Records:
        """The same records, with ``prefix/`` before every path (none for an empty prefix)."""
        if not prefix:
            return self
        out = Records()
        out._parsed = {f"{prefix}/{p}" for p in self._parsed}
        out._documents = {f"{prefix}/{p}": v for p, v in self._documents.items()}
        out._extracted = {f"{prefix}/{p}": v for p, v in self._extracted.items()}
        return out

    def within(self, prefix: str) -> Records:
        """The inverse of :meth:`rebased`: the records under ``prefix/``, without it."""
        if not prefix:
            return self
        cut = len(prefix) + 1
        out = Records()
        out._parsed = {p[cut:] for p in self._parsed if p.startswith(prefix + "/")}
        out._documents = {
            p[cut:]: v for p, v in self._documents.items() if p.startswith(prefix + "/")
        }
        out._extracted = {
            p[cut:]: v for p, v in self._extracted.items() if p.startswith(prefix + "/")
        }
        return out

    def replaced(self, path: str, extracted: Extracted | None) -> Records:
        """The same records with what was extracted from ``path`` replaced (a record read
        again, changed: ``verify-evidence coverage --mutate``). The others are shared."""
        out = Records()
        out._parsed = self._parsed | {path}
        out._documents = self._documents
        out._extracted = dict(self._extracted)
        if extracted:
            out._extracted[path] = extracted
        else:
            out._extracted.pop(path, None)
        return out

    def __contains__(self, path: object) -> bool:
        return path in self._parsed

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._parsed))

    def __len__(self) -> int:
        return len(self._parsed)

    def document(self, path: str) -> Any:
        """A document kept whole, or ``None``."""
        return self._documents.get(path)

    def resolve(self, path: str, pointer: str) -> Any:
        """The value at ``pointer`` in the record at ``path`` (which must have parsed).
        Raises :class:`EvalError` if it resolves to nothing."""
        if path in self._documents:
            return resolve_pointer(self._documents[path], pointer)
        got = self._extracted.get(path, {}).get(pointer, _NOT_EXTRACTED)
        return self._value(path, pointer, got)

    def length(self, path: str, pointer: str) -> int | None:
        """The number of elements of the array at ``pointer``; ``None`` if it is not an
        array. Raises :class:`EvalError` if it resolves to nothing."""
        if path in self._documents:
            value = resolve_pointer(self._documents[path], pointer)
            return len(value) if isinstance(value, list) else None
        extracted = self._extracted.get(path, {})
        got = extracted.get("#" + pointer, _NOT_EXTRACTED)
        if got is _NOT_EXTRACTED and pointer in extracted:
            value = self._value(path, pointer, extracted[pointer])
            return len(value) if isinstance(value, list) else None
        count = self._value(path, pointer, got)
        return None if count == NOT_AN_ARRAY else int(count)

    @staticmethod
    def _value(path: str, pointer: str, got: Any) -> Any:
        if got is _NOT_EXTRACTED:  # a reader that did not declare its need: a bug, not a pass
            raise UndeclaredRead(f"{path}#{pointer} was not extracted (an undeclared need)")
        if isinstance(got, Unresolved):
            raise EvalError(got.message)
        return got


_NOT_EXTRACTED: Any = object()

__all__ = [
    "CATALOGUE",
    "NOT_AN_ARRAY",
    "Extracted",
    "Need",
    "NeedIndex",
    "Records",
    "UndeclaredRead",
    "Unresolved",
    "Wants",
    "extract",
    "selectors_in",
]

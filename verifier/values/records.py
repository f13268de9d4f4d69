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

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from verifier.json.pointer import EvalError, resolve_pointer
from verifier.values.extract import NOT_AN_ARRAY, Unresolved, extract
from verifier.values.needs import Extracted, Flat, Need, NeedIndex, flat, flat_get
from verifier.values.packed import PackedDocument


class UndeclaredRead(EvalError):
    """A reader asked for a value it did not declare as a need: a bug in the reader (an
    assertion kind's internal error), never the archive's fault and never a pass."""


class Records:
    """The parsed records: which paths parsed, whole documents for a few, and for the rest
    the values extracted at the pointers declared as needed."""

    def __init__(self) -> None:
        #: each path that parsed -> its own string (what :meth:`own` gives back), or, for
        #: one with values extracted, that string and its values, flat (see Flat): ``(own,
        #: pointer, value, pointer, value...)``. One table for both: a second one by path
        #: was 3.8 MB at 100,000 records, held to the report (the main process's peak)
        self._held: dict[str, str | tuple[Any, ...]] = {}
        self._documents: dict[str, Any] = {}

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

    def add(
        self, path: str, extracted: Extracted | Flat | None = None, document: Any = None
    ) -> None:
        own = self.own(path)
        if path not in self._held:
            self._held[path] = own
        if document is not None:
            self._documents[path] = document
        if extracted:
            self._held[path] = (own, *flat(extracted))

    def add_unseen(self, items: Iterable[tuple[str, Extracted | Flat | None]]) -> None:
        """:meth:`add` of each ``(path, extracted)`` whose path is not in yet (no document),
        in order: many records at once, without a call each."""
        held = self._held
        for path, extracted in items:
            if path not in held:
                values = flat(extracted)
                held[path] = (path, *values) if values else path

    def rebased(self, prefix: str) -> Records:
        """The same records, with ``prefix/`` before every path (none for an empty prefix)."""
        if not prefix:
            return self
        out = Records()
        out._held = {
            (moved := f"{prefix}/{p}"): moved if type(v) is str else (moved, *v[1:])
            for p, v in self._held.items()
        }
        out._documents = {f"{prefix}/{p}": v for p, v in self._documents.items()}
        return out

    def within(self, prefix: str) -> Records:
        """The inverse of :meth:`rebased`: the records under ``prefix/``, without it."""
        if not prefix:
            return self
        cut = len(prefix) + 1
        out = Records()
        out._held = {
            (inner := p[cut:]): inner if type(v) is str else (inner, *v[1:])
            for p, v in self._held.items()
            if p.startswith(prefix + "/")
        }
        out._documents = {
            p[cut:]: v for p, v in self._documents.items() if p.startswith(prefix + "/")
        }
        return out

    def replaced(self, path: str, extracted: Extracted | Flat | None) -> Records:
        """The same records with what was extracted from ``path`` replaced (a record read
        again, changed: ``verify-evidence coverage --mutate``). The others are shared."""
        out = Records()
        out._held = dict(self._held)
        own = self.own(path)
        values = flat(extracted)
        out._held[path] = (own, *values) if values else own
        out._documents = self._documents
        return out

    @property
    def names(self) -> Mapping[str, str]:
        """The paths that parsed, each mapped to the string held for it (:meth:`own`, as
        one lookup: the batch paths of the kinds ask it once per read)."""
        return _OwnNames(self._held)

    def own(self, path: str) -> str:
        """The string held for ``path`` if it parsed (the plan's own, as the report's file
        entries hold it), else ``path``: what an assertion read is named by in its result,
        so that each result's paths are not copies (a spec's parts are unpacked afresh, each
        with its own strings: 100,000 copies of the files' names at 100,000 records)."""
        held = self._held.get(path)
        if held is None:
            return path
        return held if type(held) is str else held[0]

    def _values(self, path: str) -> tuple[Any, ...]:
        """The values extracted from ``path``, flat after its own string (read them with
        ``flat_get(..., 1)``), or ``()``."""
        held = self._held.get(path)
        return held if type(held) is tuple else ()

    def __contains__(self, path: object) -> bool:
        return path in self._held

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._held))

    def __len__(self) -> int:
        return len(self._held)

    def document(self, path: str) -> Any:
        """A document kept whole, or ``None`` (a packed one unpacked whole: see
        :meth:`windows` for reading a large spec's assertions a part at a time)."""
        found = self._documents.get(path)
        return found.value() if type(found) is PackedDocument else found

    def has_document(self, path: str) -> bool:
        """What ``bool(document(path))`` says, without unpacking a packed document."""
        found = self._documents.get(path)
        return found.truthy if type(found) is PackedDocument else bool(found)

    def shell(self, path: str) -> Any:
        """A document kept whole, without a large spec's array packed in parts (see
        :meth:`windows`), or ``None``."""
        found = self._documents.get(path)
        return found.shell() if type(found) is PackedDocument else found

    def windows(self, path: str) -> Iterator[tuple[int, list[Any]]] | None:
        """The document at ``path`` packed in parts (a large assertion spec): its array, a
        part at a time, as (index of the part's first entry, entries); ``None`` for any
        other document (read it whole)."""
        found = self._documents.get(path)
        return found.windows() if type(found) is PackedDocument else None

    def resolve(self, path: str, pointer: str) -> Any:
        """The value at ``pointer`` in the record at ``path`` (which must have parsed).
        Raises :class:`EvalError` if it resolves to nothing."""
        if path in self._documents:
            return resolve_pointer(self.document(path), pointer)
        got = flat_get(self._values(path), pointer, _NOT_EXTRACTED, 1)
        return self._value(path, pointer, got)

    def length(self, path: str, pointer: str) -> int | None:
        """The number of elements of the array at ``pointer``; ``None`` if it is not an
        array. Raises :class:`EvalError` if it resolves to nothing."""
        if path in self._documents:
            value = resolve_pointer(self.document(path), pointer)
            return len(value) if isinstance(value, list) else None
        extracted = self._values(path)
        got = flat_get(extracted, "#" + pointer, _NOT_EXTRACTED, 1)
        if got is _NOT_EXTRACTED:  # no length extracted: the value itself, if it was
            whole = flat_get(extracted, pointer, _NOT_EXTRACTED, 1)
            if whole is not _NOT_EXTRACTED:
                value = self._value(path, pointer, whole)
                return len(value) if isinstance(value, list) else None
        count = self._value(path, pointer, got)
        return None if count == NOT_AN_ARRAY else int(count)

    def quick_value(self, path: str, pointer: str) -> Any:
        """The value extracted at ``pointer`` from the record at ``path``, or :data:`MISS`
        for anything :meth:`resolve` would raise about or read from a whole document (the
        batch path of the kinds: the generic path explains it)."""
        if path in self._documents:
            return MISS
        extracted = self._values(path)
        got = flat_get(extracted, pointer, MISS, 1)
        return MISS if type(got) is Unresolved else got

    def quick_length(self, path: str, pointer: str) -> Any:
        """The element count :meth:`length` gives, or :data:`MISS` where it would raise, read
        a whole document, or find no array."""
        if path in self._documents:
            return MISS
        extracted = self._values(path)
        got = flat_get(extracted, "#" + pointer, MISS, 1)
        if got is MISS:
            value = flat_get(extracted, pointer, MISS, 1)
            return len(value) if type(value) is list else MISS
        if type(got) is not int or got == NOT_AN_ARRAY:
            return MISS
        return got

    @staticmethod
    def _value(path: str, pointer: str, got: Any) -> Any:
        if got is _NOT_EXTRACTED:  # a reader that did not declare its need: a bug, not a pass
            raise UndeclaredRead(f"{path}#{pointer} was not extracted (an undeclared need)")
        if isinstance(got, Unresolved):
            raise EvalError(got.message)
        return got


class _OwnNames(Mapping[str, str]):
    """:attr:`Records.names`: each path that parsed -> the string held for it."""

    __slots__ = ("_held",)

    def __init__(self, held: dict[str, str | tuple[Any, ...]]) -> None:
        self._held = held

    def __getitem__(self, path: str) -> str:
        held = self._held[path]
        return held if type(held) is str else held[0]

    def get(self, path: str, default: Any = None) -> Any:
        held = self._held.get(path)
        if held is None:
            return default
        return held if type(held) is str else held[0]

    def __contains__(self, path: object) -> bool:
        return path in self._held

    def __iter__(self) -> Iterator[str]:
        return iter(self._held)

    def __len__(self) -> int:
        return len(self._held)


_NOT_EXTRACTED: Any = object()
#: what :meth:`Records.quick_value` answers where the generic path has something to explain
MISS: Any = object()

__all__ = ["MISS", "Records", "UndeclaredRead"]

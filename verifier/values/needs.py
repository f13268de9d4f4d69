"""What later stages need from each record: the values at JSON pointers (:class:`Need`), and
an index (:class:`NeedIndex`) that says what one file must yield, planned once before any
record is read (from the assertion spec's selectors and the case catalogue's cells).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from verifier.json.pointer import Glob

Wants = tuple[tuple[str, bool], ...]  # (pointer, length only) pairs for one file
Extracted = dict[str, Any]  # pointer (or "#" + pointer for a length) -> value or Unresolved
#: what the main process holds of an :data:`Extracted`: its pairs, flat (pointer, value,
#: pointer, value...): a tuple of two is 56 bytes where a dict of one entry is 184, once per
#: record held from the records phase to the end of the run (:func:`flat`, :func:`flat_get`)
Flat = tuple[Any, ...]


def flat(extracted: Extracted | Flat | None) -> Flat:
    """``extracted`` as :data:`Flat` (a Flat as it is; ``()`` for none)."""
    if not extracted:
        return ()
    if type(extracted) is tuple:
        return extracted
    assert isinstance(extracted, dict)
    return tuple(item for pair in extracted.items() for item in pair)


def flat_get(values: Flat, key: str, default: Any = None, start: int = 0) -> Any:
    """``dict(pairs).get(key, default)`` of a :data:`Flat` whose pairs begin at ``start``
    (the first key first: most records have one value extracted, a few three)."""
    if len(values) > start and values[start] == key:
        return values[start + 1]
    for at in range(start + 2, len(values), 2):
        if values[at] == key:
            return values[at + 1]
    return default


class Need(NamedTuple):
    """A value a later stage reads: at ``pointer`` in ``file`` (a glob pattern when ``glob``),
    whole, or only its length when ``length`` (an array's element count)."""

    file: str
    pointer: str
    glob: bool = False
    length: bool = False


CATALOGUE = "evidence/cases.json"  # the case catalogue, kept whole for the outcome table
DEFAULT_SPEC = "evidence/assertions.json"  # the assertion spec (verifier.plan.spec reads it)


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
    finding what one file needs costs the depth of its path, not the number of needs.

    Held while every task is made (the whole inspection at a large run's peak), so it is
    compact: each file maps to its wants as one tuple, and equal tuples, and equal
    ``(pointer, length)`` pairs, are one object (most records want the same few values:
    at 100,000 records, two shared tuples instead of a pair per need and a dict per file).
    Once every need is in, :meth:`settle` holds the files as two lists in the files' order
    instead of a table (1.6 MB where the table was 3.8 at 100,000 files), which the tasks,
    made in that order, walk along."""

    def __init__(self, needs: Iterable[Need] = ()) -> None:
        self._exact: dict[str, Wants] = {}
        #: once settled: the files in order, their wants, and where the last one asked was
        self._files: list[str] = []
        self._wanted: list[Wants] = []
        self._at = 0
        self._globs: dict[str, list[tuple[Glob, str, bool]]] = {}
        self._compiled: dict[str, Glob] = {}
        #: (pointer, length) -> that pair, held once, and the wants of a file that needs
        #: only it (one lookup a need)
        self._pairs: dict[tuple[str, bool], tuple[tuple[str, bool], Wants]] = {}
        #: files read at two places or more, while :meth:`add` runs
        self._many: dict[str, dict[tuple[str, bool], None]] = {}
        self._shared: dict[Wants, Wants] = {}  # equal wants of several files, held once
        #: the needs of per-case rules, by file relative to a case folder, and the folders
        #: (:meth:`add_per_case`): one entry a rule's file, not one a case
        self._per_case: dict[str, dict[tuple[str, bool], None]] = {}
        self._cases: frozenset[str] = frozenset()
        self.add(needs)

    def add_per_case(self, cases: frozenset[str], needs: Iterable[tuple[str, str, bool]]) -> None:
        """Index what every case folder of ``cases`` needs: ``(file relative to the case,
        pointer, length)`` each; what a file then wants is as if each case's needs had been
        added one by one, after the others."""
        self._cases = self._cases | cases
        for rel, pointer, length in needs:
            self._per_case.setdefault(rel, {})[(pointer, length)] = None

    def add(self, needs: Iterable[Need]) -> None:
        """Index more needs (a large spec's, a window of its assertions at a time): the
        index is then what one made from all of them, in the order they came, would be."""
        if self._files:  # (settled: a table again)
            self._exact = dict(zip(self._files, self._wanted, strict=True))
            self._files, self._wanted, self._at = [], [], 0
        exact, pairs, many = self._exact, self._pairs, self._many
        for file, pointer, glob_need, length in needs:  # each a Need
            if glob_need:
                glob = self._compiled.get(file)
                if glob is None:
                    glob = self._compiled[file] = Glob(file)
                folder = _literal_folder(file)
                self._globs.setdefault(folder, []).append((glob, pointer, length))
                continue
            got = pairs.get((pointer, length))
            if got is None:
                key = (pointer, length)
                got = pairs[key] = (key, (key,))
            key = got[0]
            wanted = exact.get(file)
            if wanted is None:
                exact[file] = got[1]
            else:  # in order of first mention, each once (a dict while building: linear)
                more = many.get(file)
                if more is None:
                    more = many[file] = dict.fromkeys(wanted)
                more[key] = None
        self._settle()

    def _settle(self) -> None:
        """The files read at two places or more, each with its wants as one tuple (a
        dict a file while it is built: with each call to :meth:`add`, not to its end)."""
        exact, shared = self._exact, self._shared
        for file, more in self._many.items():
            frozen = tuple(more)
            exact[file] = shared.setdefault(frozen, frozen)
        self._many = {}

    def settle(self) -> None:
        """Hold the files as two lists in their order (every need is in: tasks are about to
        be made, in that order)."""
        if self._exact:
            self._files = sorted(self._exact)
            self._wanted = [self._exact[file] for file in self._files]
            self._exact = {}
            self._at = 0

    def _exactly(self, path: str) -> Wants | None:
        """The wants of ``path`` itself (no glob), if it has any."""
        if not self._files:
            return self._exact.get(path)
        files, at = self._files, self._at
        if not (at < len(files) and files[at] == path):  # (not the next one, in the tasks'
            # order: looked for from the last one found when it is after it, else from the
            # start)
            at = bisect_left(files, path, at if at == 0 or files[at - 1] < path else 0)
            if at == len(files) or files[at] != path:
                self._at = at
                return None
        self._at = at + 1
        return self._wanted[at]

    def wants(self, path: str) -> Wants:
        found = self._exactly(path)
        if self._per_case:
            found = self._with_cases(path, found)
        if not self._globs:
            return found if found is not None else ()
        wanted = dict.fromkeys(found) if found is not None else {}
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

    def _with_cases(self, path: str, found: Wants | None) -> Wants | None:
        """``found`` (what ``path`` wants itself) with what it wants as a file of a case
        (looked up by the few files the rules read, not by every folder of ``path``)."""
        cases = self._cases
        more: dict[tuple[str, bool], None] | None = None
        only: Wants | None = None  # (the one rule file's wants, when one alone matches)
        for rel, wanted in self._per_case.items():
            cut = len(path) - len(rel) - 1
            if cut > 0 and path.endswith(rel) and path[cut] == "/" and path[:cut] in cases:
                if more is None and only is None:
                    only = tuple(wanted)
                    continue
                if more is None:
                    more = dict.fromkeys(only or ())
                more |= wanted
        if more is None:
            if only is None:
                return found
            if found is None:
                return self._shared.setdefault(only, only)
            more = dict.fromkeys(only)
        if found is not None:
            more = dict.fromkeys(found) | more
        frozen = tuple(more)
        return self._shared.setdefault(frozen, frozen)

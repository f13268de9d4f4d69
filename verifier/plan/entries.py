"""One manifest's part of the plan: its entries parsed and checked (malformed lines, unsafe or
duplicate names, the manifest listing itself), its scope, and the walk of that scope: which
listed names are regular files, which files are unlisted, which folders could not be listed.
Nothing is read here but the manifest's own bytes and the source's listing.

Names in a manifest are relative to a *base* folder of the source (``--base``; the source's
root by default); paths in findings are relative to the source's root.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypedDict, Unpack

from verifier.findings import Finding
from verifier.manifest import ParsedManifest, normalize_name, parse_manifest, unsafe_reason
from verifier.plan.scope import (
    _in_scope,
    _walk_start,
    default_scope,
    excluded,
    join,
    scope_in_source,
)
from verifier.sources.interface import Kind, Source


class Dropped(dict[str, Any]):
    """What stands for a manifest's listing once it is dropped (:meth:`ManifestPlan.drop`):
    reading it is a bug in the reader, so every read raises; it never reads as an empty
    listing (which would say the manifest lists nothing)."""

    __slots__ = ()

    def _gone(self, *_: Any, **__: Any) -> NoReturn:
        raise RuntimeError("a manifest's listing was read after integrity was judged")

    __getitem__ = __iter__ = __len__ = __contains__ = get = keys = values = items = _gone


@dataclass(slots=True)
class ManifestPlan:
    """What one manifest lists and what its scope holds, before any file is read."""

    label: str  # how findings name the manifest
    rel: str | None  # its path in the source (``None``: outside it)
    base: str
    algorithm: str  # hashlib name of its digests
    name_manifest: bool  # name it in findings (several manifests over the same files)
    findings: list[Finding] = field(default_factory=list)  # from its lines
    wanted: dict[str, str] = field(default_factory=dict)  # path in the source -> digest
    #: path -> name relative to base, and path -> the line that first lists it (tables of
    #: their own only where the names needed work: :func:`_take_normal` keeps neither)
    relative: Mapping[str, str] = field(default_factory=dict)
    first_line: Mapping[str, int] = field(default_factory=dict)
    scope: list[str] = field(default_factory=list)  # the scope used, as paths of the source
    #: listed path -> what it is (a :class:`ListedKinds` once the walk is taken)
    kinds: MutableMapping[str, Kind] = field(default_factory=dict)
    unlisted: list[tuple[str, Kind]] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)  # folders the walk could not list
    #: the few listed paths whose digest is in another algorithm than the manifest's (the
    #: adopted withheld files of a bag, as the archive in its payload commits to them)
    own_algorithm: dict[str, str] = field(default_factory=dict)

    def drop(self) -> None:
        """Drop the listing (path -> digest, name, line, kind) once integrity is judged: the
        report's file entries say what the later stages need of it, and at 100,000 files
        its four tables hold about 20 MB at the run's peak, which the consistency stage
        reaches. A read after this raises. The unlisted files (few, and nothing to save) stay:
        an emptied list would read as "none unlisted"."""
        self.wanted, self.relative, self.first_line = Dropped(), Dropped(), Dropped()
        self.kinds = Dropped()

    def files(self) -> list[str]:
        """The regular files to read: every listed one and every unlisted one, sorted."""
        file = Kind.FILE
        # (no name is twice in either, nor in both: unlisted names are the unlisted ones)
        listed = [n for n, k in self.kinds.items() if k is file]
        return sorted(listed + [n for n, k in self.unlisted if k is file])


class EntryOptions(TypedDict, total=False):
    """How :func:`parse_entries` reads a manifest (its keyword arguments)."""

    base: str
    allow_empty: bool
    decode_name: Callable[[str], str] | None
    algorithm: str
    parsed: ParsedManifest | None
    name_manifest: bool


def plan_manifest(
    source: Source,
    label: str,
    data: bytes,
    rel: str | None,
    scope: list[str] | None,
    *,
    ignore: frozenset[str] = frozenset(),
    **entries: Unpack[EntryOptions],
) -> ManifestPlan:
    """Plan one manifest against the source: :func:`parse_entries` (which says what its
    keywords mean), then its scope walked here (:func:`take_walk`). ``ignore``: names never
    reported unlisted (the signatures over the manifest, which it cannot list)."""
    out = parse_entries(label, data, rel, scope, **entries)
    take_walk(out, source, [source.walk(start) for start in walk_starts(out)], ignore)
    return out


def walk_starts(out: ManifestPlan) -> list[str]:
    """The folders a manifest's scope walk starts from, in order."""
    return [_walk_start(item) for item in out.scope]


def parse_entries(
    label: str,
    data: bytes,
    rel: str | None,
    scope: list[str] | None,
    *,
    base: str = "",
    allow_empty: bool = False,
    decode_name: Callable[[str], str] | None = None,
    algorithm: str = "sha256",
    parsed: ParsedManifest | None = None,
    name_manifest: bool = False,
) -> ManifestPlan:
    """The first half of :func:`plan_manifest`: the manifest's lines, its entries and its
    scope, before the scope is walked (:func:`take_walk`, the second half). ``scope`` items
    and manifest names are relative to ``base``; ``parsed``: its lines when the source
    parses them itself (a bag's, in its declared encoding); the default is a ``sha256sum``
    manifest."""
    out = ManifestPlan(label, rel, base, algorithm, name_manifest)
    findings = out.findings
    if parsed is None:
        parsed = parse_manifest(data)
    for bad in parsed.malformed:
        findings.append(
            Finding(
                "manifest.malformed",
                label,
                f"Improperly formatted line: {bad.reason}.",
                line=bad.line,
            )
        )
    if not parsed.entries and not allow_empty:
        findings.append(
            Finding(
                "manifest.empty",
                label,
                "The manifest has no properly formatted checksum lines.",
            )
        )
    if not _take_normal(out, parsed, base, decode_name):
        _take_one_by_one(out, parsed, base, decode_name)
    del parsed
    relative = out.relative

    # (the relative names: the listing's own keys where every name is its own path)
    names = out.wanted if isinstance(relative, OwnNames) else relative.values()
    rel_scope = sorted(set(scope)) if scope is not None else default_scope(names)
    out.scope = scope_in_source(rel_scope, base)
    return out


def take_walk(
    out: ManifestPlan,
    source: Source,
    walks: Iterable[Iterable[tuple[str, Kind]]],
    ignore: frozenset[str] = frozenset(),
) -> None:
    """The second half of :func:`plan_manifest`: what the walk of each folder of
    :func:`walk_starts` met (``walks``, in that order: the source's own walks, or what
    another process walked for it), reduced to the listed names' kinds, the unlisted files
    and the folders that could not be listed."""
    wanted, used_scope, rel = out.wanted, out.scope, out.rel
    seen: set[str] = set()
    walked: set[str] = set()  # listed names the walk met as regular files
    file, unreadable, refused = Kind.FILE, Kind.UNREADABLE, Kind.REFUSED
    met = walked.add
    for walk in walks:
        for name, kind in walk:
            if name in wanted:  # the common case; a listed name is judged on its own, even
                # one the walk could not look at (never an unreadable folder, then)
                if kind is file:
                    met(name)
                continue
            if kind is unreadable:
                inside = f"{name}/-" if name else "-"  # would a file in it be in scope?
                fresh = name not in seen
                if fresh and _in_scope(inside, used_scope) and not excluded(inside):
                    seen.add(name)
                    out.unreadable.append(name)
                continue
            if name in seen or name == rel or name in ignore or excluded(name):
                continue
            if kind is refused or not _in_scope(name, used_scope):
                continue
            seen.add(name)
            out.unlisted.append((name, kind))
    # A walk never follows a link, so what it met as a regular file is one, reached through
    # real folders: no need to look again. Every other listed name is looked up on its own,
    # in sorted order.
    order = sorted(wanted)
    kinds = out.kinds = ListedKinds(wanted, order)
    if len(walked) != len(order):  # (walked is a subset of the listed names)
        for name in order:
            if name not in walked:
                kinds[name] = source.kind(name)


_GONE = None  # a name taken out of a ListedKinds (no kind is None)


class ListedKinds(MutableMapping[str, Kind]):
    """listed path -> its kind: what ``dict.fromkeys(order, Kind.FILE)`` and the writes
    after it would hold, held as the listing's own sorted names and the few kinds that are
    not a regular file (a walk meets nearly every listed name as one). A table of 100,000
    names is 3.8 MB, held from the walk to the end of integrity, through the records phase
    (the run's peak); the sorted names are 0.8. ``listing``: the manifest's table by path,
    whose names ``order`` holds, sorted (neither changes after); only its names are written.
    """

    __slots__ = ("_listing", "_order", "_other")

    def __init__(self, listing: Mapping[str, object], order: list[str]) -> None:
        if len(order) != len(listing):
            raise ValueError("the listing's names, each once")
        self._listing = listing
        self._order = order
        self._other: dict[str, Kind | None] = {}  # the kinds not FILE; _GONE: taken out

    def __getitem__(self, name: str) -> Kind:
        kind = self._other.get(name, Kind.FILE)
        if kind is _GONE or name not in self._listing:
            raise KeyError(name)
        return kind

    def __setitem__(self, name: str, kind: Kind) -> None:
        if name not in self._listing:
            raise KeyError(f"{name!r} is not listed: only a listed name has a kind here")
        if kind is Kind.FILE:
            self._other.pop(name, None)
        else:
            self._other[name] = kind

    def __delitem__(self, name: str) -> None:
        self[name]  # (a KeyError if it has no kind)
        self._other[name] = _GONE

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str) or name not in self._listing:
            return False
        return self._other.get(name, Kind.FILE) is not _GONE

    def __iter__(self) -> Iterator[str]:
        other = self._other
        if not other:
            return iter(self._order)
        return (name for name in self._order if other.get(name, Kind.FILE) is not _GONE)

    def __len__(self) -> int:
        return len(self._order) - sum(1 for kind in self._other.values() if kind is _GONE)


def _take_normal(
    out: ManifestPlan, parsed: ParsedManifest, base: str, decode: Callable[[str], str] | None
) -> bool:
    """The entries at once when every name is already normal (:func:`normalize_name` would
    return it unchanged), none is listed twice and none is the manifest: the common case,
    with no finding to make. ``False`` (and nothing taken) otherwise."""
    entries = parsed.entries
    if not entries:
        return True
    names = [e.name for e in entries]
    raws = [decode(n) for n in names] if decode else names
    # All the names joined by NUL, and NUL at both ends: as no name holds a NUL (the count),
    # each test below holds for the whole text exactly when it holds for every name; a
    # colon anywhere (a drive, ``C:``, is the second character) is left to the per-name path.
    text = "\0" + "\0".join(raws) + "\0"
    if (
        text.count("\0") != len(raws) + 1
        or "\0\0" in text  # an empty name
        or "\0." in text  # a name starting with "." or "/"
        or "\0/" in text
        or "/." in text
        or "//" in text
        or "/\0" in text  # ending with "/"
        or ":" in text
    ):
        return False
    paths = raws if not base else [f"{base}/{n}" for n in raws]
    wanted = dict(zip(paths, [e.digest for e in entries], strict=True))
    if len(wanted) != len(paths) or (out.rel is not None and out.rel in wanted):
        return False  # a duplicate, or the manifest listed: the findings say which
    out.wanted = wanted
    out.relative = OwnNames(wanted) if paths is raws else dict(zip(paths, raws, strict=True))
    out.first_line = FirstLines(wanted, array("Q", [e.line for e in entries]))
    return True


class OwnNames(Mapping[str, str]):
    """path -> name relative to the base when every listed name is its own path (no base,
    nothing decoded): the listing's own keys, not a table of them (3.8 MB at 100,000)."""

    __slots__ = ("_listing",)

    def __init__(self, listing: Mapping[str, str]) -> None:
        self._listing = listing

    def __getitem__(self, path: str) -> str:
        if path in self._listing:
            return path
        raise KeyError(path)

    def __iter__(self) -> Iterator[str]:
        return iter(self._listing)

    def __len__(self) -> int:
        return len(self._listing)


class FirstLines(Mapping[str, int]):
    """path -> the line that lists it, from the lines in the listing's order (one number
    each, in an array); the table by path is made when a line is first asked for (a finding
    about a listed file), which a listing that all checks out never needs (6.5 MB at
    100,000 files, held from the plan to the end of integrity). The listing must not change
    after: :func:`_take_normal` makes both at once, and nothing adds to them."""

    __slots__ = ("_lines", "_listing", "_table")

    def __init__(self, listing: Mapping[str, str], lines: array[int]) -> None:
        if len(lines) != len(listing):
            raise ValueError("a line for every listed path")
        self._listing = listing
        self._lines = lines
        self._table: dict[str, int] | None = None

    def _made(self) -> dict[str, int]:
        if self._table is None:
            self._table = dict(zip(self._listing, self._lines, strict=True))
        return self._table

    def __getitem__(self, path: str) -> int:
        return self._made()[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._listing)

    def __len__(self) -> int:
        return len(self._listing)


def _take_one_by_one(
    out: ManifestPlan, parsed: ParsedManifest, base: str, decode_name: Callable[[str], str] | None
) -> None:
    """The entries one by one, with a finding for each unsafe, duplicate or self-listed one."""
    findings, rel = out.findings, out.rel
    wanted = out.wanted
    relative: dict[str, str] = {}
    first_line: dict[str, int] = {}
    out.relative, out.first_line = relative, first_line
    for entry in parsed.entries:
        raw = decode_name(entry.name) if decode_name else entry.name
        norm = normalize_name(raw)
        if norm is None:
            findings.append(
                Finding(
                    "manifest.unsafe-path",
                    raw or "(empty name)",
                    f"Refused: {unsafe_reason(raw)}.",
                    line=entry.line,
                )
            )
            continue
        path = join(base, norm)
        if rel is not None and path == rel:
            findings.append(
                Finding(
                    "manifest.self-listed",
                    path,
                    "The manifest lists itself; its own digest can never match.",
                    line=entry.line,
                )
            )
            continue
        if path in wanted:
            same = "the same digest" if wanted[path] == entry.digest else "a different digest"
            findings.append(
                Finding(
                    "manifest.duplicate",
                    path,
                    f"Listed again with {same} (first on line {first_line[path]}).",
                    line=entry.line,
                )
            )
            continue
        wanted[path] = entry.digest
        relative[path] = norm
        first_line[path] = entry.line

"""Stage 1, integrity: are these the published bytes?

Every listed file is read once, streaming, and hashed; the bytes of files a later stage will
parse are kept from that same read, so the bytes that were hashed are the bytes parsed. A
:class:`FileReader` is the one place that reads: it never reads a file twice, even when two
manifests list it (a bag's payload and tag manifests) or a layout already read it.

Names in a manifest are relative to a *base* folder of the source (``--base``; the source's
root by default); paths in findings are relative to the source's root. When a listed file
does not match, :mod:`verifier.hints` explains why where it can; a hint never turns a finding
into a pass.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from verifier.inspect.digest import _WHOLE, Digest, _digest, _digest_bytes
from verifier.judge.hints import Hinter
from verifier.model import FileEntry, Finding, Stage, StageResult
from verifier.plan.manifest import ParsedManifest, normalize_name, parse_manifest, unsafe_reason
from verifier.plan.scope import (
    _in_scope,
    _walk_start,
    default_scope,
    excluded,
    join,
    scope_in_source,
)
from verifier.sources.interface import Kind, Source

ALGORITHM_LABELS = {
    "md5": "MD5",
    "sha1": "SHA-1",
    "sha224": "SHA-224",
    "sha256": "SHA-256",
    "sha384": "SHA-384",
    "sha512": "SHA-512",
    "sha3_224": "SHA3-224",
    "sha3_256": "SHA3-256",
    "sha3_384": "SHA3-384",
    "sha3_512": "SHA3-512",
    "blake2b": "BLAKE2b",
    "blake2s": "BLAKE2s",
}  # scope entry: the files directly in the root, not its folders


class Processor(Protocol):
    """What a later stage does with the bytes of the files it keeps, during their one read.

    ``early`` files are read first, in this process, and their bytes handed to ``prepare``
    (schemas, say). Then, with worker processes started, this process builds with ``share``
    what ``process`` needs beyond that (from the early files), and each worker gets it
    through ``receive``. Then every other kept file is read, in whichever process, and
    ``process`` runs on its bytes. Only ``process``'s result is kept, not the bytes. Without
    workers, all of this runs here, in the same order.
    """

    def early(self, name: str) -> bool: ...

    def prepare(self, early: dict[str, bytes]) -> None: ...

    def share(self) -> Any: ...

    def receive(self, state: Any) -> None: ...

    def process(self, name: str, data: bytes) -> Any: ...


class FileReader:
    """Reads each file of a source at most once. Kept files (those a later stage parses) are
    handed to the processor, if there is one, and otherwise held as bytes."""

    def __init__(
        self,
        source: Source,
        keep: Callable[[str], bool],
        preread: dict[str, bytes] | None = None,
        workers: int = 1,
        progress: Callable[[str, int, int], None] | None = None,
        processor: Processor | None = None,
        algorithms: Callable[[str], tuple[str, ...]] | None = None,
    ) -> None:
        self.source = source
        #: which algorithms besides SHA-256 each file is hashed with, during its one read
        self.algorithms = algorithms or _no_algorithms
        self.keep = keep
        self.workers = workers
        self.progress = progress
        self.processor = processor
        self.prepared = processor is None
        self.digests: dict[str, Digest] = {}
        self.errors: dict[str, str] = {}
        self.contents: dict[str, bytes] = {}  # kept bytes: early files, or all without processor
        self.processed: dict[str, Any] = {}  # name -> the processor's result
        # pid -> batches of files it read (this process's serial reads count as one batch):
        # more than one pid means forked workers really read part of the archive
        self.readers: dict[int, int] = {}
        self._variants: set[str] = set()
        self._expected: dict[str, str] = {}
        for name, data in (preread or {}).items():
            self.digests[name] = _digest_bytes(data, False, None, self.algorithms(name))
            if keep(name):
                self.contents[name] = data

    def hexdigest(self, name: str, algorithm: str) -> str | None:
        """A read file's digest for ``algorithm``. A file read before anyone asked for that
        algorithm (a tag manifest listing a payload file) is read once more, for it alone;
        ``None`` if it cannot be read now."""
        digest = self.digests[name]
        known = digest.hexdigest(algorithm)
        if known is not None:
            return known
        try:
            with self.source.open(name) as stream:
                again, _ = _digest(stream, False, False, None, (algorithm,))
        except OSError:
            return None
        if again.sha256 != digest.sha256:
            return None  # the bytes changed between the reads: nothing to vouch for
        self.digests[name] = digest._replace(others=digest.others + again.others)
        return again.hexdigest(algorithm)

    def _early(self, name: str) -> bool:
        return self.processor is None or self.processor.early(name)

    def read(
        self,
        names: Iterable[str],
        variants: set[str] | None = None,
        expected: dict[str, str] | None = None,
    ) -> None:
        variants = variants or set()
        expected = expected or {}
        todo = [n for n in names if n not in self.digests and n not in self.errors]
        early = [n for n in todo if self.keep(n) and self._early(n)]
        self._read_here(early, variants, expected, early=True)
        if not self.prepared and self.processor is not None:
            self.processor.prepare({n: b for n, b in self.contents.items() if self.keep(n)})
            self.prepared = True
        rest = [n for n in todo if n not in self.digests and n not in self.errors]
        if not rest:
            return
        from verifier.parallel import worth_it

        if self.workers > 1 and self.source.parallel_reads():
            sizes = {n: self.source.size_hint(n) for n in rest}
            if worth_it(len(rest), sum(sizes.values()), self.workers):
                self._read_parallel(rest, sizes, variants, expected)
                return
        self._read_here(rest, variants, expected, early=False)

    def _read_here(
        self, names: list[str], variants: set[str], expected: dict[str, str], early: bool
    ) -> None:
        total = len(names)
        processor = None if early else self.processor
        if names:
            self.readers[os.getpid()] = self.readers.get(os.getpid(), 0) + 1
        for done, (name, stream) in enumerate(self.source.read_many(names), 1):
            if self.progress is not None and done % 1000 == 0:
                self.progress("integrity", done, total)
            if isinstance(stream, OSError):
                self.errors[name] = stream.strerror or str(stream)
                continue
            keep = self.keep(name)
            try:
                with stream:
                    digest, data = _digest(
                        stream, keep, name in variants, expected.get(name), self.algorithms(name)
                    )
            except OSError as exc:
                self.errors[name] = exc.strerror or str(exc)
                continue
            self.digests[name] = digest
            if data is not None:
                if processor is not None:
                    self.processed[name] = processor.process(name, data)
                else:
                    self.contents[name] = data

    def _read_parallel(
        self, names: list[str], sizes: dict[str, int], variants: set[str], expected: dict[str, str]
    ) -> None:
        """The same reads, spread over processes (a folder: files can be opened in any
        order). Workers fork before the processor builds what it shares with them, so what
        it builds stays out of their memory. Results are merged in ``names`` order."""
        from verifier.parallel import Workers

        global _READER
        _READER = self
        self._variants, self._expected = variants, expected  # inherited by the workers
        done = 0

        def advance(count: int) -> None:
            nonlocal done
            done += count
            if self.progress is not None:
                self.progress("integrity", done, len(names))

        processor = self.processor
        with Workers(
            _read_batch,
            self.workers,
            init=processor.receive if processor is not None else None,
        ) as pool:
            results = pool.map(
                ((n, sizes[n]) for n in names),
                weight=lambda job: job[1] + 4096,
                progress=advance,
                state=processor.share if processor is not None else None,
            )
        for pid, batches in pool.served.items():
            self.readers[pid] = self.readers.get(pid, 0) + batches
        for name, digest, data, processed, error in results:
            if error is not None:
                self.errors[name] = error
                continue
            assert digest is not None
            self.digests[name] = Digest(*digest)
            if processed is not None:
                self.processed[name] = processed
            elif data is not None:
                self.contents[name] = data


_READER: FileReader | None = None  # inherited by forked workers


def _no_algorithms(name: str) -> tuple[str, ...]:
    return ()


ReadResult = tuple[str, "tuple[Any, ...] | None", "bytes | None", Any, "str | None"]


def _read_batch(batch: list[tuple[str, int]]) -> list[ReadResult]:
    reader = _READER
    assert reader is not None
    source, processor = reader.source, reader.processor
    variants, expected = reader._variants, reader._expected
    out: list[ReadResult] = []
    read_whole = getattr(source, "read_whole", None)
    for name, size in batch:
        keep = reader.keep(name)
        extra = reader.algorithms(name)
        try:
            if read_whole is not None and (keep or size <= _WHOLE):  # no stream object
                data = read_whole(name)
                digest = _digest_bytes(data, name in variants, expected.get(name), extra)
                if not keep:
                    data = None
            else:
                with source.open(name) as stream:
                    digest, data = _digest(
                        stream, keep, name in variants, expected.get(name), extra
                    )
        except OSError as exc:
            out.append((name, None, None, None, exc.strerror or str(exc)))
            continue
        sent = tuple(digest)  # a plain tuple pickles faster than a named one
        if data is not None and processor is not None:
            out.append((name, sent, None, processor.process(name, data), None))
        else:
            out.append((name, sent, data, None, None))
    return out


@dataclass(slots=True)
class IntegrityOutcome:
    stage: StageResult
    files: list[FileEntry] = field(default_factory=list)
    contents: dict[str, bytes] = field(default_factory=dict)
    listed: set[str] = field(default_factory=set)


def check_integrity(
    source: Source,
    manifest_label: str,
    manifest_bytes: bytes,
    manifest_rel: str | None,
    scope: list[str] | None,
    keep: Callable[[str], bool],
    *,
    base: str = "",
    reader: FileReader | None = None,
    allow_empty: bool = False,
    decode_name: Callable[[str], str] | None = None,
    hints: bool = True,
    algorithm: str = "sha256",
    parsed: ParsedManifest | None = None,
    explain_missing: Callable[[str, int], Finding | None] | None = None,
    name_manifest: bool = False,
) -> tuple[IntegrityOutcome, list[str]]:
    """Check one manifest against the source. Returns the outcome and the scope used (paths
    of the source). ``scope`` items and manifest names are relative to ``base``.

    ``algorithm`` is the hashlib name of the manifest's digests (a bag's ``manifest-md5.txt``
    holds MD5s) and ``parsed`` its lines when the source parses them itself (a bag's, in its
    declared encoding); the default is a ``sha256sum`` manifest. ``explain_missing`` may
    give the finding for a listed file that is absent when the source knows why (a bag's
    ``fetch.txt``). ``name_manifest``: name the manifest in findings (a source with several
    manifests over the same files)."""
    reader = reader or FileReader(source, keep)
    stage = StageResult(Stage.INTEGRITY)
    out = IntegrityOutcome(stage)
    findings = stage.findings
    if parsed is None:
        parsed = parse_manifest(manifest_bytes)
    label = ALGORITHM_LABELS.get(algorithm, algorithm.upper())
    in_manifest = manifest_label if name_manifest else "the manifest"
    for bad in parsed.malformed:
        findings.append(
            Finding(
                "manifest.malformed",
                manifest_label,
                f"Improperly formatted line: {bad.reason}.",
                line=bad.line,
            )
        )
    if not parsed.entries and not allow_empty:
        findings.append(
            Finding(
                "manifest.empty",
                manifest_label,
                "The manifest has no properly formatted checksum lines.",
            )
        )

    wanted: dict[str, str] = {}  # path in the source -> digest
    relative: dict[str, str] = {}  # path in the source -> name relative to the base
    first_line: dict[str, int] = {}
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
        if manifest_rel is not None and path == manifest_rel:
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

    rel_scope = sorted(set(scope)) if scope is not None else default_scope(relative.values())
    used_scope = scope_in_source(rel_scope, base)
    unlisted: list[tuple[str, Kind]] = []
    unreadable: list[str] = []  # folders in scope the walk could not list
    seen: set[str] = set()
    walked: set[str] = set()  # listed names the walk met as regular files
    for item in used_scope:
        for name, kind in source.walk(_walk_start(item)):
            if kind is Kind.UNREADABLE:
                inside = f"{name}/-" if name else "-"  # would a file in it be in scope?
                fresh = name not in seen and name not in wanted
                if fresh and _in_scope(inside, used_scope) and not excluded(inside):
                    seen.add(name)
                    unreadable.append(name)
                continue
            if name in wanted:
                if kind is Kind.FILE:
                    walked.add(name)
                continue
            if name in seen or name == manifest_rel or excluded(name):
                continue
            if kind is Kind.REFUSED or not _in_scope(name, used_scope):
                continue
            seen.add(name)
            unlisted.append((name, kind))
    # A walk never follows a link, so what it met as a regular file is one, reached through
    # real folders: no need to look again. Every other listed name is looked up on its own.
    kinds = {name: Kind.FILE if name in walked else source.kind(name) for name in sorted(wanted)}

    listed_files = {n for n, k in kinds.items() if k is Kind.FILE}
    reader.read(
        sorted(listed_files | {n for n, k in unlisted if k is Kind.FILE}),
        variants=listed_files if algorithm == "sha256" else set(),
        expected=wanted if algorithm == "sha256" else {},
    )

    problems: dict[str, int] = {}  # listed path -> index of its mismatch or missing finding
    for name, kind in kinds.items():
        line = first_line[name]
        if kind is Kind.FILE:
            if name in reader.errors:
                findings.append(
                    Finding(
                        "manifest.unreadable",
                        name,
                        f"Could not be read: {reader.errors[name]}.",
                        line=line,
                    )
                )
                out.files.append(FileEntry(name, None, None, True, "unreadable"))
                continue
            digest = reader.digests[name]
            computed = reader.hexdigest(name, algorithm)
            ok = computed == wanted[name]
            if computed is None:
                findings.append(
                    Finding(
                        "manifest.unreadable",
                        name,
                        f"Could not be read again for its {label} digest.",
                        line=line,
                    )
                )
            elif not ok:
                problems[name] = len(findings)
                findings.append(
                    Finding(
                        "manifest.mismatch",
                        name,
                        f"{label} is {computed}, {in_manifest} lists {wanted[name]}.",
                        line=line,
                    )
                )
            out.files.append(
                FileEntry(
                    name,
                    digest.sha256,
                    digest.size,
                    True,
                    "ok" if ok else "unreadable" if computed is None else "mismatch",
                )
            )
            out.listed.add(name)
        elif kind is Kind.MISSING:
            explained = explain_missing(name, line) if explain_missing is not None else None
            if explained is not None:
                findings.append(explained)
                out.files.append(FileEntry(name, None, None, True, "not-fetched"))
                continue
            problems[name] = len(findings)
            what = f"Listed in {in_manifest}" if name_manifest else "Listed"
            findings.append(
                Finding("manifest.missing", name, f"{what} but not present.", line=line)
            )
            out.files.append(FileEntry(name, None, None, True, "missing"))
        elif kind is Kind.LINK:
            findings.append(
                Finding(
                    "manifest.unsafe-path",
                    name,
                    "Refused: the name is or goes through a link.",
                    line=line,
                )
            )
            out.files.append(FileEntry(name, None, None, True, "unsafe"))
        elif kind is Kind.REFUSED:  # the source's own finding says why
            out.files.append(FileEntry(name, None, None, True, "unsafe"))
        else:
            findings.append(
                Finding(
                    "manifest.not-regular",
                    name,
                    f"Listed, but it is a {kind.value}, not a regular file.",
                    line=line,
                )
            )
            out.files.append(FileEntry(name, None, None, True, "not-regular"))

    for name in unreadable:
        why = source.walk_error(name)
        findings.append(
            Finding(
                "manifest.unreadable-folder",
                name or ".",
                f"Could not be listed{f' ({why})' if why else ''}: the files in it were not "
                "checked against the manifest. Make it readable (or shorten its path) and "
                "verify again.",
            )
        )

    for name, kind in unlisted:
        what = {Kind.LINK: "a link", Kind.OTHER: "a special file"}.get(kind, "a file")
        findings.append(
            Finding(
                "manifest.unlisted",
                name,
                f"{what[0].upper()}{what[1:]} in the manifest's scope that "
                f"{in_manifest} does not list.",
            )
        )
        got = reader.digests.get(name) if kind is Kind.FILE else None
        out.files.append(
            FileEntry(
                name, got.sha256 if got else None, got.size if got else None, False, "unlisted"
            )
        )

    if problems and hints:
        hinter = Hinter(source, reader, wanted, relative, base, manifest_rel)
        for name, at in problems.items():
            hint = hinter.hint(name)
            if hint:
                findings[at] = replace(findings[at], hint=hint)
        stage.note = hinter.base_note()

    out.contents = reader.contents
    stage.counts = {
        "listed": len(wanted),
        "ok": sum(1 for f in out.files if f.listed and f.status == "ok"),
        "bytes": sum(f.size or 0 for f in out.files if f.listed),
    }
    return out, used_scope

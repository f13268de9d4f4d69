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

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from verifier.hints import Hinter
from verifier.manifest import normalize_name, parse_manifest, unsafe_reason
from verifier.model import FileEntry, Finding, Stage, StageResult
from verifier.sources.interface import Kind, Source, Stream

_CHUNK = 1 << 17
_SNIFF = 8000  # git's rule: a NUL in the first 8000 bytes makes a file binary
ROOT_FILES = "."  # scope entry: the files directly in the root, not its folders
ALWAYS_EXCLUDED = (".git",)


@dataclass(frozen=True, slots=True)
class Digest:
    """What one read of a file gives: its SHA-256 and size, and for text files the SHA-256 it
    would have with LF line endings turned into CRLF (``crlf``) or CRLF into LF (``lf``),
    where that differs (a file hashed on a Windows checkout, or the reverse)."""

    sha256: str
    size: int
    crlf: str | None = None
    lf: str | None = None


def _digest(stream: Stream, keep: bool, variants: bool) -> tuple[Digest, bytes | None]:
    main = hashlib.sha256()
    as_crlf = hashlib.sha256()
    as_lf = hashlib.sha256()
    buf = bytearray(_CHUNK)
    view = memoryview(buf)
    kept = bytearray() if keep else None
    size = 0
    text = variants
    carry = b""
    while True:
        n = stream.readinto(view)
        if not n:
            break
        chunk = bytes(view[:n])
        if size == 0 and b"\0" in chunk[:_SNIFF]:
            text = False
        size += n
        main.update(chunk)
        if kept is not None:
            kept += chunk
        if text:
            data = carry + chunk
            carry = b"\r" if data.endswith(b"\r") else b""
            if carry:
                data = data[:-1]
            unix = data.replace(b"\r\n", b"\n")
            as_lf.update(unix)
            as_crlf.update(unix.replace(b"\n", b"\r\n"))
    digest = main.hexdigest()
    crlf = lf = None
    if text:
        as_lf.update(carry)
        as_crlf.update(carry)
        crlf = as_crlf.hexdigest()
        lf = as_lf.hexdigest()
    return (
        Digest(digest, size, crlf if crlf != digest else None, lf if lf != digest else None),
        bytes(kept) if kept is not None else None,
    )


class FileReader:
    """Reads each file of a source at most once; keeps the bytes later stages parse."""

    def __init__(
        self,
        source: Source,
        keep: Callable[[str], bool],
        preread: dict[str, bytes] | None = None,
    ) -> None:
        self.source = source
        self.keep = keep
        self.digests: dict[str, Digest] = {}
        self.errors: dict[str, str] = {}
        self.contents: dict[str, bytes] = {}
        for name, data in (preread or {}).items():
            self.digests[name] = Digest(hashlib.sha256(data).hexdigest(), len(data))
            if keep(name):
                self.contents[name] = data

    def read(self, names: Iterable[str], variants: set[str] | None = None) -> None:
        todo = [n for n in names if n not in self.digests and n not in self.errors]
        if not todo:
            return
        for name, stream in self.source.read_many(todo):
            if isinstance(stream, OSError):
                self.errors[name] = stream.strerror or str(stream)
                continue
            try:
                with stream:
                    digest, data = _digest(stream, self.keep(name), name in (variants or ()))
            except OSError as exc:
                self.errors[name] = exc.strerror or str(exc)
                continue
            self.digests[name] = digest
            if data is not None:
                self.contents[name] = data


@dataclass(slots=True)
class IntegrityOutcome:
    stage: StageResult
    files: list[FileEntry] = field(default_factory=list)
    contents: dict[str, bytes] = field(default_factory=dict)
    listed: set[str] = field(default_factory=set)


def default_scope(names: Iterable[str]) -> list[str]:
    """Where unlisted files are looked for when no scope is given: every top-level folder
    holding a listed file (recursively), and the root's own files if the manifest lists a
    file at the root. Never the manifest itself, never ``.git/``."""
    scope: set[str] = set()
    for name in names:
        head, sep, _ = name.partition("/")
        scope.add(head if sep else ROOT_FILES)
    return sorted(scope)


def join(base: str, name: str) -> str:
    return f"{base}/{name}" if base else name


def scope_in_source(scope: Iterable[str], base: str) -> list[str]:
    """Scope items relative to the base, as paths of the source: ``X`` is folder X
    (recursively), ``.`` the root's own files, ``X/.`` folder X's own files."""
    out = set()
    for item in scope:
        if item == ROOT_FILES:
            out.add(join(base, ROOT_FILES))
        else:
            out.add(join(base, item))
    return sorted(out)


def _in_scope(path: str, scope: list[str]) -> bool:
    for item in scope:
        if item == ROOT_FILES:
            if "/" not in path:
                return True
        elif item.endswith("/" + ROOT_FILES):
            folder = item[: -len(ROOT_FILES) - 1]
            if path.startswith(folder + "/") and "/" not in path[len(folder) + 1 :]:
                return True
        elif item == "" or path == item or path.startswith(item + "/"):
            return True
    return False


def _walk_start(item: str) -> str:
    if item == ROOT_FILES:
        return ""
    if item.endswith("/" + ROOT_FILES):
        return item[: -len(ROOT_FILES) - 1]
    return item


def excluded(path: str) -> bool:
    head = path.split("/", 1)[0]
    return head in ALWAYS_EXCLUDED


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
) -> tuple[IntegrityOutcome, list[str]]:
    """Check one manifest against the source. Returns the outcome and the scope used (paths
    of the source). ``scope`` items and manifest names are relative to ``base``."""
    reader = reader or FileReader(source, keep)
    stage = StageResult(Stage.INTEGRITY)
    out = IntegrityOutcome(stage)
    findings = stage.findings
    parsed = parse_manifest(manifest_bytes)
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
    kinds = {name: source.kind(name) for name in sorted(wanted)}

    unlisted: list[tuple[str, Kind]] = []
    seen: set[str] = set()
    for item in used_scope:
        for name, kind in source.walk(_walk_start(item)):
            if name in seen or name in wanted or name == manifest_rel or excluded(name):
                continue
            if kind is Kind.REFUSED or not _in_scope(name, used_scope):
                continue
            seen.add(name)
            unlisted.append((name, kind))

    listed_files = {n for n, k in kinds.items() if k is Kind.FILE}
    reader.read(
        sorted(listed_files | {n for n, k in unlisted if k is Kind.FILE}), variants=listed_files
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
            ok = digest.sha256 == wanted[name]
            if not ok:
                problems[name] = len(findings)
                findings.append(
                    Finding(
                        "manifest.mismatch",
                        name,
                        f"SHA-256 is {digest.sha256}, the manifest lists {wanted[name]}.",
                        line=line,
                    )
                )
            out.files.append(
                FileEntry(name, digest.sha256, digest.size, True, "ok" if ok else "mismatch")
            )
            out.listed.add(name)
        elif kind is Kind.MISSING:
            problems[name] = len(findings)
            findings.append(Finding("manifest.missing", name, "Listed but not present.", line=line))
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

    for name, kind in unlisted:
        what = {Kind.LINK: "a link", Kind.OTHER: "a special file"}.get(kind, "a file")
        findings.append(
            Finding(
                "manifest.unlisted",
                name,
                f"{what[0].upper()}{what[1:]} in the manifest's scope that "
                "the manifest does not list.",
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

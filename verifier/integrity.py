"""Stage 1, integrity: are these the published bytes?

Every listed file is read once, streaming, and hashed; the bytes of files a later stage will
parse are kept from that same read, so the bytes that were hashed are the bytes parsed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from verifier.manifest import normalize_name, parse_manifest, unsafe_reason
from verifier.model import FileEntry, Finding, Stage, StageResult
from verifier.sources.interface import Kind, Source

_CHUNK = 1 << 17
ROOT_FILES = "."  # scope entry: the files directly in the root, not its folders
ALWAYS_EXCLUDED = (".git",)


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


def _in_scope(path: str, scope: list[str]) -> bool:
    for item in scope:
        if item == ROOT_FILES:
            if "/" not in path:
                return True
        elif item == "" or path == item or path.startswith(item + "/"):
            return True
    return False


def _excluded(path: str) -> bool:
    head = path.split("/", 1)[0]
    return head in ALWAYS_EXCLUDED


def _hash(source: Source, name: str, keep: bool) -> tuple[str, int, bytes | None]:
    digest = hashlib.sha256()
    buf = bytearray(_CHUNK)
    view = memoryview(buf)
    kept = bytearray() if keep else None
    size = 0
    with source.open(name) as stream:
        while True:
            n = stream.readinto(view)
            if not n:
                break
            size += n
            digest.update(view[:n])
            if kept is not None:
                kept += view[:n]
    return digest.hexdigest(), size, bytes(kept) if kept is not None else None


def check_integrity(
    source: Source,
    manifest_label: str,
    manifest_bytes: bytes,
    manifest_rel: str | None,
    scope: list[str] | None,
    keep: Callable[[str], bool],
) -> tuple[IntegrityOutcome, list[str]]:
    """Check the manifest against the source. Returns the outcome and the scope used."""
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
    if not parsed.entries:
        findings.append(
            Finding(
                "manifest.empty",
                manifest_label,
                "The manifest has no properly formatted checksum lines.",
            )
        )

    wanted: dict[str, str] = {}  # normalised name -> digest
    first_line: dict[str, int] = {}
    for entry in parsed.entries:
        norm = normalize_name(entry.name)
        if norm is None:
            findings.append(
                Finding(
                    "manifest.unsafe-path",
                    entry.name or "(empty name)",
                    f"Refused: {unsafe_reason(entry.name)}.",
                    line=entry.line,
                )
            )
            continue
        if manifest_rel is not None and norm == manifest_rel:
            findings.append(
                Finding(
                    "manifest.self-listed",
                    norm,
                    "The manifest lists itself; its own digest can never match.",
                    line=entry.line,
                )
            )
            continue
        if norm in wanted:
            same = "the same digest" if wanted[norm] == entry.digest else "a different digest"
            findings.append(
                Finding(
                    "manifest.duplicate",
                    norm,
                    f"Listed again with {same} (first on line {first_line[norm]}).",
                    line=entry.line,
                )
            )
            continue
        wanted[norm] = entry.digest
        first_line[norm] = entry.line

    used_scope = sorted(set(scope)) if scope is not None else default_scope(wanted)
    for name in sorted(wanted):
        line = first_line[name]
        kind = source.kind(name)
        if kind is Kind.FILE:
            try:
                digest, size, data = _hash(source, name, keep(name))
            except OSError as exc:
                findings.append(
                    Finding(
                        "manifest.unreadable",
                        name,
                        f"Could not be read: {exc.strerror or exc}.",
                        line=line,
                    )
                )
                out.files.append(FileEntry(name, None, None, True, "unreadable"))
                continue
            if data is not None:
                out.contents[name] = data
            ok = digest == wanted[name]
            if not ok:
                findings.append(
                    Finding(
                        "manifest.mismatch",
                        name,
                        f"SHA-256 is {digest}, the manifest lists {wanted[name]}.",
                        line=line,
                    )
                )
            out.files.append(FileEntry(name, digest, size, True, "ok" if ok else "mismatch"))
            out.listed.add(name)
        elif kind is Kind.MISSING:
            findings.append(Finding("manifest.missing", name, "Listed but not present.", line=line))
            out.files.append(FileEntry(name, None, None, True, "missing"))
        elif kind is Kind.LINK:
            findings.append(
                Finding(
                    "manifest.unsafe-path",
                    name,
                    "Refused: the name is or goes through a symbolic link.",
                    line=line,
                )
            )
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

    seen: set[str] = set()
    for folder in used_scope:
        start = "" if folder == ROOT_FILES else folder
        for name, kind in source.walk(start):
            if name in seen or name in wanted or name == manifest_rel or _excluded(name):
                continue
            if not _in_scope(name, used_scope):
                continue
            seen.add(name)
            what = {Kind.LINK: "a symbolic link", Kind.OTHER: "a special file"}.get(kind, "a file")
            findings.append(
                Finding(
                    "manifest.unlisted",
                    name,
                    f"{what[0].upper()}{what[1:]} in the manifest's scope that "
                    "the manifest does not list.",
                )
            )
            digest_u: str | None = None
            size_u: int | None = None
            if kind is Kind.FILE:
                try:
                    digest_u, size_u, data = _hash(source, name, keep(name))
                    if data is not None:
                        out.contents[name] = data
                except OSError:
                    pass
            out.files.append(FileEntry(name, digest_u, size_u, False, "unlisted"))

    stage.counts = {
        "listed": len(wanted),
        "ok": sum(1 for f in out.files if f.listed and f.status == "ok"),
        "bytes": sum(f.size or 0 for f in out.files if f.listed),
    }
    return out, used_scope

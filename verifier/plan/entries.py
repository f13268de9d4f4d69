"""One manifest's part of the plan: its entries parsed and checked (malformed lines, unsafe or
duplicate names, the manifest listing itself), its scope, and the walk of that scope: which
listed names are regular files, which files are unlisted, which folders could not be listed.
Nothing is read here but the manifest's own bytes and the source's listing.

Names in a manifest are relative to a *base* folder of the source (``--base``; the source's
root by default); paths in findings are relative to the source's root.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from verifier.findings import Finding
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
    relative: dict[str, str] = field(default_factory=dict)  # path -> name relative to base
    first_line: dict[str, int] = field(default_factory=dict)
    scope: list[str] = field(default_factory=list)  # the scope used, as paths of the source
    kinds: dict[str, Kind] = field(default_factory=dict)  # listed path -> what it is
    unlisted: list[tuple[str, Kind]] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)  # folders the walk could not list

    def files(self) -> list[str]:
        """The regular files to read: every listed one and every unlisted one, sorted."""
        listed = {n for n, k in self.kinds.items() if k is Kind.FILE}
        return sorted(listed | {n for n, k in self.unlisted if k is Kind.FILE})


def plan_manifest(
    source: Source,
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
    ignore: frozenset[str] = frozenset(),
) -> ManifestPlan:
    """Plan one manifest against the source. ``scope`` items and manifest names are relative
    to ``base``; ``parsed``: its lines when the source parses them itself (a bag's, in its
    declared encoding); the default is a ``sha256sum`` manifest. ``ignore``: names never
    reported unlisted (the signatures over the manifest, which it cannot list)."""
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
    wanted, relative, first_line = out.wanted, out.relative, out.first_line
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
    del parsed

    rel_scope = sorted(set(scope)) if scope is not None else default_scope(relative.values())
    used_scope = out.scope = scope_in_source(rel_scope, base)
    seen: set[str] = set()
    walked: set[str] = set()  # listed names the walk met as regular files
    for item in used_scope:
        for name, kind in source.walk(_walk_start(item)):
            if kind is Kind.UNREADABLE:
                inside = f"{name}/-" if name else "-"  # would a file in it be in scope?
                fresh = name not in seen and name not in wanted
                if fresh and _in_scope(inside, used_scope) and not excluded(inside):
                    seen.add(name)
                    out.unreadable.append(name)
                continue
            if name in wanted:
                if kind is Kind.FILE:
                    walked.add(name)
                continue
            if name in seen or name == rel or name in ignore or excluded(name):
                continue
            if kind is Kind.REFUSED or not _in_scope(name, used_scope):
                continue
            seen.add(name)
            out.unlisted.append((name, kind))
    # A walk never follows a link, so what it met as a regular file is one, reached through
    # real folders: no need to look again. Every other listed name is looked up on its own.
    out.kinds = {n: Kind.FILE if n in walked else source.kind(n) for n in sorted(wanted)}
    return out

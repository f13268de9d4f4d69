"""Stage 1, integrity: are these the published bytes?

Judged from the plan of each manifest (:mod:`verifier.plan.entries`) and the facts of every
file read (:mod:`verifier.inspect`): each listed file's digest against the manifest's, the
missing, refused and unlisted files, the folders that could not be listed. When a listed file
does not match, :mod:`verifier.judge.hints` explains why where it can (from facts the pipeline
gathered for it); a hint never turns a finding into a pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from verifier.findings import Finding, Stage
from verifier.inspect.digest import Digest
from verifier.plan.entries import ManifestPlan
from verifier.report import FileEntry, StageResult
from verifier.sources.interface import Kind

#: how findings name an algorithm (hashlib names otherwise upper-cased)
ALGORITHM_LABELS: Mapping[str, str] = MappingProxyType(
    {
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
    }
)


@dataclass(slots=True)
class IntegrityOutcome:
    stage: StageResult
    files: list[FileEntry] = field(default_factory=list)
    problems: dict[str, int] = field(default_factory=dict)  # path -> its finding's index


class ReadListed(AbstractSet[str]):
    """The listed files that were read (each listed file entry with a digest), by their
    paths inside the content root (``prefix`` cut): the set the consistency stage names an
    unreadable or unlisted read against, made from the report's file entries when it is
    first asked (an assertion that could not read a file, a glob, a transcript pattern). A
    set of 100,000 names is 4 MB, which a run where nothing asks never holds (it was held
    at the report's moment, the main process's peak)."""

    __slots__ = ("_files", "_made", "_prefix")

    def __init__(self, files: list[FileEntry], prefix: str = "") -> None:
        self._files = files
        self._prefix = prefix
        self._made: set[str] | None = None

    def _names(self) -> set[str]:
        if self._made is None:
            cut, prefix = len(self._prefix), self._prefix
            self._made = {
                f.path[cut:]
                for f in self._files
                if f.listed and f.sha256 is not None and f.path.startswith(prefix)
            }
        return self._made

    def __contains__(self, path: object) -> bool:
        return path in self._names()

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


def algorithm_label(algorithm: str) -> str:
    """How findings name an algorithm."""
    return ALGORITHM_LABELS.get(algorithm, algorithm.upper())


def judge_manifest(
    plan: ManifestPlan,
    digests: Mapping[str, Digest],
    errors: Mapping[str, str],
    walk_errors: Mapping[str, str],
    explain_missing: Callable[[str, int], Finding | None] | None = None,
) -> IntegrityOutcome:
    """One manifest's integrity outcome from its plan and the facts read (``digests`` and
    ``errors`` by path; ``walk_errors``: why a folder could not be listed, where the source
    knew). ``explain_missing`` may give the finding for a listed file that is absent when the
    source knows why (a bag's ``fetch.txt``). ``problems`` says which listed files a hint may
    explain (their mismatch or missing finding)."""
    stage = StageResult(Stage.INTEGRITY)
    out = IntegrityOutcome(stage)
    findings = stage.findings
    findings.extend(plan.findings)
    algorithm = plan.algorithm
    in_manifest = plan.label if plan.name_manifest else "the manifest"
    name_manifest = plan.name_manifest
    kinds, wanted, first_line = plan.kinds, plan.wanted, plan.first_line
    unreadable, unlisted = plan.unreadable, plan.unlisted
    problems = out.problems
    files = out.files
    entry, file, plain = FileEntry, Kind.FILE, algorithm == "sha256"
    own = plan.own_algorithm  # (the few entries in another algorithm)
    add_file = files.append
    ok_count = total = withheld_count = 0
    for name, kind in kinds.items():
        if kind is file and name not in errors:
            digest = digests[name]
            used, sha256 = algorithm, plain
            if own and name in own:
                used = own[name]
                sha256 = used == "sha256"
            computed = digest.sha256 if sha256 else digest.hexdigest(used)
            expected = wanted[name]
            total += digest.size
            if computed == expected:  # the common case: a match, no finding
                ok_count += 1
                add_file(
                    entry(
                        name,
                        digest.sha256,
                        digest.size,
                        True,
                        "ok",
                        expected,
                        used,
                        None if sha256 else computed,
                    )
                )
                continue
            line = first_line[name]
            if computed is None:
                findings.append(
                    Finding(
                        "manifest.unreadable",
                        name,
                        f"Could not be read again for its {algorithm_label(used)} digest.",
                        line=line,
                    )
                )
            else:
                problems[name] = len(findings)
                findings.append(
                    Finding(
                        "manifest.mismatch",
                        name,
                        f"{algorithm_label(used)} is {computed}, {in_manifest} lists {expected}.",
                        line=line,
                    )
                )
            add_file(
                entry(
                    name,
                    digest.sha256,
                    digest.size,
                    True,
                    "unreadable" if computed is None else "mismatch",
                    expected,
                    used,
                    computed if not sha256 else None,
                )
            )
            continue
        line = first_line[name]
        if kind is file:  # listed, but its read failed
            findings.append(
                Finding(
                    "manifest.unreadable",
                    name,
                    f"Could not be read: {errors[name]}.",
                    line=line,
                )
            )
            add_file(entry(name, None, None, True, "unreadable"))
        elif kind is Kind.MISSING:
            explained = explain_missing(name, line) if explain_missing is not None else None
            if explained is not None:
                findings.append(explained)
                withheld = explained.code == "manifest.withheld"
                status = "withheld" if withheld else "not-fetched"
                listed = (wanted[name], own.get(name, algorithm)) if withheld else (None, None)
                out.files.append(FileEntry(name, None, None, True, status, *listed))
                withheld_count += withheld
                continue
            problems[name] = len(findings)
            what = f"Listed in {in_manifest}" if name_manifest else "Listed"
            findings.append(
                Finding("manifest.missing", name, f"{what} but not present.", line=line)
            )
            listed = (wanted[name], own.get(name, algorithm))
            out.files.append(FileEntry(name, None, None, True, "missing", *listed))
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
                    f"Listed, but it is {kind.noun}, not a regular file.",
                    line=line,
                )
            )
            out.files.append(FileEntry(name, None, None, True, "not-regular"))

    for name in unreadable:
        why = walk_errors.get(name)  # none known: the finding, without a reason
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
        got = digests.get(name) if kind is Kind.FILE else None
        out.files.append(
            FileEntry(
                name, got.sha256 if got else None, got.size if got else None, False, "unlisted"
            )
        )

    # a finding about a listed file that names a manifest line is placed on that line of the
    # manifest (``at``), never on the listed file, which has no such line
    at = plan.rel if plan.rel is not None else plan.label
    findings[:] = [
        replace(f, at=at)
        if f.line is not None and f.path not in (at, plan.label) and f.at is None
        else f
        for f in findings
    ]

    # (of the listed files, only those read have a size, and only those can be "ok")
    stage.counts = {"listed": len(wanted), "ok": ok_count, "bytes": total}
    if withheld_count:
        stage.counts["withheld"] = withheld_count
    return out

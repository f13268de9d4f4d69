"""The baseline file: findings a user has accepted, one entry each, matched by code, path,
JSON pointer, stable fingerprint (:func:`verifier.fingerprint.fingerprint`) and, for a finding
about a file's bytes, the SHA-256 of the bytes it was accepted for.

Format (``verifier/schemas/baseline.schema.json``)::

    {"baselineVersion": 1,
     "tool": {"name": "verify-evidence", "version": "..."},
     "findings": [{"code": "...", "path": "...", "pointer": "/a", "fingerprint": "v1:...",
                   "sha256": "...", "message": "..."}]}

``pointer`` is left out for a finding without one; ``message`` is for the reader (the
fingerprint already covers it). ``sha256`` (:class:`Subjects`) is the digest of the bytes the
finding is about: the file at ``path`` when the run read it (the manifest included), or, for an
assertion that read several files, the SHA-256 of the ``sha256sum`` lines (``HEX  PATH``,
sorted) of every file it read. An entry without it for such a finding (an older baseline)
accepts nothing (``baseline.no-digest``). The file is read strictly (size-capped, strict JSON, every
key checked) before the archive is opened: a bad file is a :class:`UsageError`, never a
baseline that accepts nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from verifier.errors import UsageError
from verifier.findings import CODES, Finding
from verifier.fingerprint import fingerprint
from verifier.version import __version__

if TYPE_CHECKING:
    from verifier.report import Report

BASELINE_VERSION = 1
MAX_BASELINE_BYTES = 64 << 20
_ENTRY_KEYS = frozenset({"code", "path", "pointer", "fingerprint", "sha256", "message"})
_HEX64 = re.compile(r"[0-9a-f]{64}")
_TOP_KEYS = frozenset({"baselineVersion", "tool", "findings"})


@dataclass(frozen=True, slots=True)
class Entry:
    code: str
    path: str
    pointer: str | None
    fingerprint: str
    message: str = ""
    #: the SHA-256 of the bytes the finding is about (None: not about a file's bytes, or an
    #: older baseline's entry)
    sha256: str | None = None

    @property
    def key(self) -> Key:
        return (self.code, self.path, self.pointer, self.fingerprint, self.sha256)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "path": self.path}
        if self.pointer is not None:
            out["pointer"] = self.pointer
        out["fingerprint"] = self.fingerprint
        if self.sha256 is not None:
            out["sha256"] = self.sha256
        out["message"] = self.message
        return out


#: what an entry matches: code, path, pointer, fingerprint, digest of the bytes (or None)
Key = tuple[str, str, str | None, str, str | None]


def entry_of(finding: Finding, sha256: str | None = None) -> Entry:
    """The entry accepting ``finding``, about bytes of digest ``sha256`` (see :class:`Subjects`)."""
    return Entry(
        finding.code,
        finding.path,
        finding.pointer,
        fingerprint(finding),
        finding.message,
        sha256,
    )


class Subjects:
    """The digest of the bytes each finding of a report is about: the file at its path, when
    the run read it (a file entry with a SHA-256, or the manifest); for an assertion's finding
    that read other files too, the SHA-256 of the ``sha256sum`` lines of every file it read
    (any one changing changes it). ``None``: the finding is about no bytes the run read (a
    missing file, an archive-level problem)."""

    def __init__(self, report: Report) -> None:
        files = {f.path: f.sha256 for f in report.files if f.sha256 is not None}
        if report.manifest_sha256 is not None:
            files.setdefault(report.manifest, report.manifest_sha256)
        self._files = files
        reads: dict[Finding, set[str]] = {}
        for result in report.assertions:
            if result.finding is not None:
                reads.setdefault(result.finding, set()).update(r.path for r in result.reads)
        self._reads = reads

    def digest(self, finding: Finding) -> str | None:
        files = self._files
        paths = {finding.path} | self._reads.get(finding, set())
        known = sorted(p for p in paths if p in files)
        if not known:
            return None
        if known == [finding.path]:
            return files[finding.path]
        lines = "".join(f"{files[p]}  {p}\n" for p in known)
        return hashlib.sha256(lines.encode("utf-8", "surrogatepass")).hexdigest()

    def entry(self, finding: Finding) -> Entry:
        return entry_of(finding, self.digest(finding))


@dataclass(frozen=True, slots=True)
class Baseline:
    """A baseline as read: where from (as the user named it) and its entries, in file order."""

    name: str
    entries: tuple[Entry, ...] = ()


def _fail(name: str, why: str) -> UsageError:
    return UsageError(f"--baseline {name}: {why}")


def _entry(name: str, i: int, item: Any) -> Entry:
    where = f"/findings/{i}"
    if not isinstance(item, dict):
        raise _fail(name, f"{where} is not an object")
    extra = sorted(set(item) - _ENTRY_KEYS)
    if extra:
        raise _fail(name, f"{where} has an unknown key {json.dumps(extra[0][:40])}")
    for key in ("code", "path", "fingerprint"):
        if not isinstance(item.get(key), str) or not item[key]:
            raise _fail(name, f"{where}/{key} must be a non-empty string")
    for key in ("pointer", "message"):
        if key in item and not isinstance(item[key], str):
            raise _fail(name, f"{where}/{key} must be a string")
    if "sha256" in item and not (
        isinstance(item["sha256"], str) and _HEX64.fullmatch(item["sha256"])
    ):
        raise _fail(name, f"{where}/sha256 must be 64 lowercase hex digits")
    if item["code"] not in CODES:
        raise _fail(name, f"{where}/code {json.dumps(item['code'][:60])} is not a finding code")
    return Entry(
        item["code"],
        item["path"],
        item.get("pointer"),
        item["fingerprint"],
        item.get("message", ""),
        item.get("sha256"),
    )


def parse_baseline(data: bytes, name: str) -> Baseline:
    """The baseline in ``data``; :class:`UsageError` for anything but a valid baseline."""
    from verifier.json.parse import loads_strict

    value, problems = loads_strict(data)
    if problems or value is None:
        why = problems[0].message if problems else "not JSON"
        raise _fail(name, f"not a baseline file (strict JSON): {why}")
    if not isinstance(value, dict):
        raise _fail(name, "not a baseline file (a JSON object with baselineVersion and findings)")
    extra = sorted(set(value) - _TOP_KEYS)
    if extra:
        raise _fail(name, f"unknown key {json.dumps(extra[0][:40])}")
    if value.get("baselineVersion") != BASELINE_VERSION:
        raise _fail(name, f"baselineVersion must be {BASELINE_VERSION}")
    findings = value.get("findings")
    if not isinstance(findings, list):
        raise _fail(name, "/findings must be an array")
    return Baseline(name, tuple(_entry(name, i, item) for i, item in enumerate(findings)))


def read_baseline(path: str | os.PathLike[str]) -> Baseline:
    """Read the baseline file at ``path`` (a regular file, at most 64 MiB)."""
    name = os.fspath(path)
    if os.path.exists(name) and not os.path.isfile(name):
        raise _fail(name, "not a regular file")  # a FIFO would block the run
    try:
        with open(name, "rb") as handle:
            data = handle.read(MAX_BASELINE_BYTES + 1)
    except OSError as exc:
        raise _fail(name, f"cannot read it: {exc.strerror or exc}") from None
    if len(data) > MAX_BASELINE_BYTES:
        raise _fail(name, "over 64 MiB")
    return parse_baseline(data, name)


def render_baseline(entries: Iterable[Entry]) -> str:
    """The baseline of ``entries`` (:meth:`Subjects.entry` of each finding accepted): sorted,
    ASCII-only (archive text escaped)."""
    counted = sorted(
        entries,  # a finding reported twice is accepted twice
        key=lambda e: (e.code, e.path, e.pointer or "", e.fingerprint, e.sha256 or "", e.message),
    )
    doc = {
        "baselineVersion": BASELINE_VERSION,
        "tool": {"name": "verify-evidence", "version": __version__},
        "findings": [e.to_dict() for e in counted],
    }
    return json.dumps(doc, indent=2, ensure_ascii=True, sort_keys=False) + "\n"

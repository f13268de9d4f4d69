"""The baseline file: findings a user has accepted, one entry each, matched by code, path,
JSON pointer and stable fingerprint (:func:`verifier.fingerprint.fingerprint`).

Format (``schemas/baseline.schema.json``)::

    {"baselineVersion": 1,
     "tool": {"name": "verify-evidence", "version": "..."},
     "findings": [{"code": "...", "path": "...", "pointer": "/a", "fingerprint": "v1:...",
                   "message": "..."}]}

``pointer`` is left out for a finding without one; ``message`` is for the reader (the
fingerprint already covers it). The file is read strictly (size-capped, strict JSON, every
key checked) before the archive is opened: a bad file is a :class:`UsageError`, never a
baseline that accepts nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from verifier.errors import UsageError
from verifier.findings import CODES, Finding
from verifier.fingerprint import fingerprint
from verifier.version import __version__

BASELINE_VERSION = 1
MAX_BASELINE_BYTES = 64 << 20
_ENTRY_KEYS = frozenset({"code", "path", "pointer", "fingerprint", "message"})
_TOP_KEYS = frozenset({"baselineVersion", "tool", "findings"})


@dataclass(frozen=True, slots=True)
class Entry:
    code: str
    path: str
    pointer: str | None
    fingerprint: str
    message: str = ""

    @property
    def key(self) -> tuple[str, str, str | None, str]:
        return (self.code, self.path, self.pointer, self.fingerprint)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "path": self.path}
        if self.pointer is not None:
            out["pointer"] = self.pointer
        out["fingerprint"] = self.fingerprint
        out["message"] = self.message
        return out


def entry_of(finding: Finding) -> Entry:
    return Entry(finding.code, finding.path, finding.pointer, fingerprint(finding), finding.message)


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
    if item["code"] not in CODES:
        raise _fail(name, f"{where}/code {json.dumps(item['code'][:60])} is not a finding code")
    return Entry(
        item["code"],
        item["path"],
        item.get("pointer"),
        item["fingerprint"],
        item.get("message", ""),
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


def render_baseline(findings: Iterable[Finding]) -> str:
    """The baseline accepting ``findings``: sorted, ASCII-only (archive text escaped)."""
    counted = sorted(
        (entry_of(f) for f in findings),  # a finding reported twice is accepted twice
        key=lambda e: (e.code, e.path, e.pointer or "", e.fingerprint, e.message),
    )
    doc = {
        "baselineVersion": BASELINE_VERSION,
        "tool": {"name": "verify-evidence", "version": __version__},
        "findings": [e.to_dict() for e in counted],
    }
    return json.dumps(doc, indent=2, ensure_ascii=True, sort_keys=False) + "\n"

"""What an in-toto statement of a check is about (both predicates: the test-result and the
SLSA verification summary): the Statement type, this verifier's URI and the subjects."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from verifier.report import Report

STATEMENT = "https://in-toto.io/Statement/v1"
VERIFIER_URI = "https://verifier.invalid/verify-evidence"
EMPTY = hashlib.sha256(b"").hexdigest()  # a manifest not reached: nothing was read
_HEX = re.compile("[0-9a-f]+")


def subjects(report: Report) -> list[dict[str, Any]]:
    """What was verified: the zip or tarball by its SHA-256, or the git commit, when the
    source is one; then always the manifest by its SHA-256 (what a signature covers)."""
    out: list[dict[str, Any]] = []
    source = report.source or {}
    location = source.get("location")
    name = location if isinstance(location, str) and location else str(source.get("kind", ""))
    digest = source.get("sha256")
    commit = source.get("commit")
    if isinstance(digest, str) and _HEX.fullmatch(digest) and len(digest) == 64:
        out.append({"name": name, "digest": {"sha256": digest}})
    elif isinstance(commit, str) and _HEX.fullmatch(commit) and len(commit) in (40, 64):
        out.append({"name": name, "digest": {"gitCommit": commit}})
    out.append({"name": report.manifest, "digest": {"sha256": report.manifest_sha256 or EMPTY}})
    return out


__all__ = ["EMPTY", "STATEMENT", "VERIFIER_URI", "subjects"]

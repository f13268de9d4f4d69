"""A finding's stable fingerprint: what a baseline entry matches (and what CI formats can give
as a partial fingerprint). It hashes the code, the path, the JSON pointer and the message (the
message names what was wrong: a changed digest or another bad value is another finding), but
not the manifest line number, so reordering the manifest keeps every fingerprint."""

from __future__ import annotations

import hashlib

from verifier.findings import Finding

FINGERPRINT_VERSION = "v1"


def fingerprint(finding: Finding) -> str:
    """``v1:`` and 32 hex digits of SHA-256 over the finding's code, path, pointer and
    message (whitespace runs in the message folded to one space)."""
    message = " ".join(finding.message.split())
    text = "\0".join((finding.code, finding.path, finding.pointer or "", message))
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{FINGERPRINT_VERSION}:{digest[:32]}"

"""The check's verdict as a SLSA Verification Summary Attestation v1 (``--format in-toto
--in-toto-predicate vsa``;
``https://slsa.dev/verification_summary/v1``, checked against
``verifier/schemas/slsa-vsa.schema.json``, written from the SLSA v1.0 specification's field
list): an in-toto Statement a policy engine that reads VSAs can take.

- ``subject``: what was verified, as in the test-result statement (``--format in-toto``): the
  zip or tarball by its SHA-256, or the git commit, and always the manifest by its SHA-256.
- ``verifier.id``: this verifier's URI (v1.0 defines no other member; the version is in the
  test-result statement).
- ``timeVerified``: when the check ran: ``SOURCE_DATE_EPOCH`` when set (for a reproducible
  statement), else the clock, to the second.
- ``resourceUri``: the source as the command was given it, as a ``file:`` URI (or the git
  source's location and commit).
- ``policy``: the assertion spec the run judged, by its path and SHA-256 (the spec is the
  policy); without one, the verifier's URI alone.
- ``inputAttestations``: the attestations the run used, each by its SHA-256: the witness logs
  it read (:mod:`verifier.witness`). The manifest's signatures are checked over the
  manifest, which is a subject.
- ``verificationResult``: ``PASSED`` or ``FAILED``, the exit code's verdict (``--fail-on``
  included).
- ``verifiedLevels``: required by the specification, and it names SLSA track levels, which an
  evidence check does not verify: so no level is claimed (``[]``) when the run passed, and
  ``["FAILED"]`` (the value the specification gives a failed verification) when it failed.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from verifier.report import Report
from verifier.views.check.subject import STATEMENT, VERIFIER_URI, subjects
from verifier.views.interface import DEFAULT_SETTINGS, RenderSettings

PREDICATE = "https://slsa.dev/verification_summary/v1"


def _uri(path: str) -> str:
    return "file:" + quote(path, safe="/-._~")


def _resource(report: Report) -> str:
    source = report.source or {}
    location = source.get("location")
    where = location if isinstance(location, str) and location else report.manifest
    commit = source.get("commit")
    if source.get("kind") == "git" and isinstance(commit, str):
        return f"git+{_uri(where)}@{commit}"
    return _uri(where)


def _inputs(report: Report) -> list[dict[str, Any]]:
    """The witness logs the run read (:attr:`Report.witness_logs`), by their SHA-256."""
    logs = set(report.witness_logs)
    out = []
    for entry in sorted(report.files, key=lambda e: e.path):
        if entry.path in logs and entry.sha256 is not None:
            out.append({"uri": _uri(entry.path), "digest": {"sha256": entry.sha256}})
    return out


def summary(report: Report, settings: RenderSettings = DEFAULT_SETTINGS) -> dict[str, Any]:
    """The statement as data."""
    failed = report.fails(settings.fail_on)
    spec = report.content_path(report.spec)
    digest = next((e.sha256 for e in report.files if e.path == spec and e.sha256), None)
    policy: dict[str, Any] = (
        {"uri": _uri(spec), "digest": {"sha256": digest}} if digest else {"uri": VERIFIER_URI}
    )
    predicate: dict[str, Any] = {
        "verifier": {"id": VERIFIER_URI},
        "timeVerified": settings.verified_at,
        "resourceUri": _resource(report),
        "policy": policy,
        "inputAttestations": _inputs(report),
        "verificationResult": "FAILED" if failed else "PASSED",
        "verifiedLevels": ["FAILED"] if failed else [],
        "slsaVersion": "1.0",
    }
    return {
        "_type": STATEMENT,
        "subject": subjects(report),
        "predicateType": PREDICATE,
        "predicate": predicate,
    }

"""The check report as an in-toto Statement v1 (``--format in-toto``;
``schemas/in-toto-statement.schema.json``): a verification statement another tool can sign
or consume.

The subject is what the run verified: a zip or tarball by its SHA-256, or a git commit (the
``gitCommit`` digest), when the source is one, and always the manifest, by its SHA-256 (the
manifest binds every listed file's digest, and is what a signature covers). The predicate is
in-toto's *test-result* (``https://in-toto.io/attestation/test-result/v0.1``) rather than
the Simple Verification Result: a check is a set of pass/fail stages, which test-result
names directly (``result``, ``passedTests``, ``warnedTests``, ``failedTests``), and it needs
no creation time, so the statement stays deterministic like every machine format here. Its
``configuration`` records the verifier (name and version), the policy (the assertion spec,
by its digest) and each signature checked over the manifest, with who signed and how.

``result`` is ``FAILED`` when a stage failed, ``WARNED`` when one had nothing to check (an
unsigned manifest among them), was skipped or has warnings, else ``PASSED``.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from verifier.plan.spec import DEFAULT_SPEC
from verifier.report import AssertionStatus, Report, StageStatus
from verifier.views.clean import dumps_clean

STATEMENT = "https://in-toto.io/Statement/v1"
PREDICATE = "https://in-toto.io/attestation/test-result/v0.1"
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


def statement(report: Report) -> dict[str, Any]:
    """The statement as data."""
    passed: list[str] = []
    warned: list[str] = []
    failed: list[str] = []
    for stage in report.checks:
        name = stage.stage.value
        if stage.status is StageStatus.FAILED:
            failed.append(name)
        elif stage.status is StageStatus.PASSED and not stage.severity_counts()["warning"]:
            passed.append(name)
        else:
            warned.append(name)
    failed += [
        f"assertion:{a.id}" for a in report.assertions if a.status is not AssertionStatus.PASSED
    ]
    result = "FAILED" if failed else "WARNED" if warned else "PASSED"
    configuration: list[dict[str, Any]] = [
        {
            "name": "verify-evidence",
            "uri": VERIFIER_URI,
            "annotations": {"version": report.tool_version},
        }
    ]
    spec = report.content_path(DEFAULT_SPEC)
    for entry in report.files:
        if entry.path == spec and entry.sha256 is not None:
            configuration.append(
                {
                    "name": spec,
                    "digest": {"sha256": entry.sha256},
                    "annotations": {"role": "policy"},
                }
            )
    for check in report.signatures:
        annotations: dict[str, Any] = {
            "role": "signature",
            "format": check.verdict.format,
            "status": check.status,
            "method": check.verdict.method,
        }
        if check.verdict.verified and check.verdict.signer is not None:
            annotations["signer"] = check.verdict.signer.to_dict()
        configuration.append(
            {"name": check.name, "uri": f"file:{check.name}", "annotations": annotations}
        )
    return {
        "_type": STATEMENT,
        "subject": subjects(report),
        "predicateType": PREDICATE,
        "predicate": {
            "result": result,
            "configuration": configuration,
            "passedTests": passed,
            "warnedTests": warned,
            "failedTests": failed,
        },
    }


def render(report: Report) -> str:
    return dumps_clean(statement(report)) + "\n"

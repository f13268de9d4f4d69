"""The check report as an in-toto Statement v1 (``--format in-toto``;
``verifier/schemas/in-toto-statement.schema.json``): a verification statement another tool can sign
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

``result`` follows the run's verdict, the exit code's rule (:meth:`Report.verdict`,
``--fail-on`` included): ``FAILED`` when the run fails (the stages with a failing finding in
``failedTests``), else ``WARNED`` when a stage passed only because findings were accepted
(``--ignore``, ``--select``, ``--baseline``), had nothing to check (an unsigned manifest among
them), was skipped or has warnings (those stages in ``warnedTests``), else ``PASSED``.
Nothing accepted is dropped: ``configuration`` holds the acceptance (the options and counts)
and one entry per accepted finding (role ``accepted-finding``): the file it is about, by its
SHA-256 when the run read it, with its code, stage, severity, pointer, message and why
(``acceptedBy``). A file the publisher withholds is one entry (role ``withheld-file``), by the
digest its manifest commits to, ``verified: false``: never a subject, never verified.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from verifier.findings import Severity
from verifier.report import AssertionStatus, Report, StageStatus
from verifier.views.check.subject import STATEMENT, VERIFIER_URI, subjects
from verifier.views.check.vsa import summary
from verifier.views.clean import dumps_clean
from verifier.views.interface import DEFAULT_SETTINGS, RenderSettings

PREDICATE = "https://in-toto.io/attestation/test-result/v0.1"


def _tests(report: Report, fail_on: Severity) -> tuple[list[str], list[str], list[str]]:
    """(passed, warned, failed) tests by the verdict's rule (:meth:`Report.verdict`): a stage
    fails when a finding of it fails the run (``--fail-on`` included); it is warned when it
    passed only because findings were accepted, had nothing to check, was skipped or has
    warnings; an assertion that did not pass fails, unless its finding was accepted
    (then it is warned)."""
    passed: list[str] = []
    warned: list[str] = []
    failed: list[str] = []
    for stage in report.checks:
        name = stage.stage.value
        if report.stage_status(stage, fail_on) is StageStatus.FAILED:
            failed.append(name)
        elif (
            stage.status is StageStatus.PASSED
            and not stage.severity_counts()["warning"]
            and not stage.accepted
        ):
            passed.append(name)
        else:
            warned.append(name)
    accepted = {a.finding for a in report.accepted}
    for a in report.assertions:
        if a.status is AssertionStatus.PASSED:
            continue
        taken = a.finding is not None and a.finding in accepted
        (warned if taken else failed).append(f"assertion:{a.id}")
    return passed, warned, failed


def _accepted(report: Report) -> list[dict[str, Any]]:
    """Each accepted finding as a configuration entry: the file it is about (by its SHA-256
    when the run read it), its code, stage, severity, pointer and why it was accepted."""
    digests = {f.path: f.sha256 for f in report.files if f.sha256 is not None}
    out: list[dict[str, Any]] = []
    for a in report.accepted:
        f = a.finding
        annotations: dict[str, Any] = {
            "role": "accepted-finding",
            "acceptedBy": a.by,
            "code": f.code,
            "stage": f.stage.value,
            "severity": f.severity.value,
            "path": f.path,
            "message": f.message,
        }
        if f.pointer is not None:
            annotations["pointer"] = f.pointer
        entry: dict[str, Any] = {"name": f.path or "(archive)"}
        digest = digests.get(f.path)
        if digest is not None:
            entry["digest"] = {"sha256": digest}
        else:
            entry["uri"] = "file:" + quote(f.path, safe="/-._~") if f.path else VERIFIER_URI
        entry["annotations"] = annotations
        out.append(entry)
    return out


def _withheld(report: Report) -> list[dict[str, Any]]:
    """Each file the publisher withholds (role ``withheld-file``): by the digest its manifest
    commits to, which nothing checked (``verified: false``)."""
    out: list[dict[str, Any]] = []
    for f in report.files:
        if f.status != "withheld":
            continue
        entry: dict[str, Any] = {"name": f.path}
        if f.expected is not None and f.algorithm is not None:
            entry["digest"] = {f.algorithm: f.expected}
        else:
            entry["uri"] = "file:" + quote(f.path, safe="/-._~")
        entry["annotations"] = {"role": "withheld-file", "verified": False}
        out.append(entry)
    return out


def statement(report: Report, fail_on: Severity) -> dict[str, Any]:
    """The statement as data."""
    passed, warned, failed = _tests(report, fail_on)
    # the verdict is the exit code's (failedTests is never empty then: a failing finding
    # belongs to a stage)
    result = "FAILED" if report.fails(fail_on) else "WARNED" if warned else "PASSED"
    configuration: list[dict[str, Any]] = [
        {
            "name": "verify-evidence",
            "uri": VERIFIER_URI,
            "annotations": {"version": report.tool_version, "failOn": fail_on.value},
        }
    ]
    if report.acceptance is not None:
        configuration.append(
            {
                "name": "acceptance",
                "uri": VERIFIER_URI + "#acceptance",
                "annotations": {"role": "acceptance", **report.acceptance.to_dict()},
            }
        )
    spec = report.content_path(report.spec)  # the spec the run judged
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
    configuration += _accepted(report)
    configuration += _withheld(report)
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


def render(report: Report, settings: RenderSettings = DEFAULT_SETTINGS) -> str:
    if settings.in_toto_predicate == "vsa":  # (--in-toto-predicate vsa)
        return dumps_clean(summary(report, settings)) + "\n"
    return dumps_clean(statement(report, settings.fail_on)) + "\n"

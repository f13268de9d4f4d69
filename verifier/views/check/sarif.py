"""SARIF 2.1.0: one result per finding, a rule per finding code, the file as artifact location.
A result's ``level`` is its finding's severity (``error``, ``warning``, ``note``), and each rule's
default level the severity fixed for its code. Text is kept exactly (JSON escaping is inert).

Locations: the file a finding's line counts in (the manifest, for a manifest line about a
listed file), relative to the working directory the check ran in (the settings'
``path_prefix``: ``my-archive/`` for ``check my-archive``, or ``--path-prefix``), with
``startLine`` and ``startColumn`` (Unicode code points) where the finding has them.

Capped: GitHub code scanning accepts at most 25,000 results per run, so a run holds at most
:data:`MAX_RESULTS`: the first findings (errors first, then warnings, then notes, each in the
report's order), and then one ``verify-evidence.truncated`` result that says how many were
left out and that the JSON report (``--format json``) lists them all.

Each result has ``partialFingerprints`` from its code, path and pointer (and, for several
results alike in those, their rank among them), never its line: a finding keeps its
fingerprint when lines above it move, so code scanning tracks it across runs.

Cascade control: a finding blocked by an earlier one (an assertion or catalogue cell that read
a file whose digest, presence or parse failed; :mod:`verifier.judge.cascade`) is still a
result of its own, after the independent ones (so a cap drops it first), and carries:

- ``suppressions``: one ``external`` suppression, status ``accepted``, whose justification
  names the cause (§3.27.23 and §3.35: a request to exclude a result from result lists and
  bug counts, so a consumer counts the cause once, not each of its consequences; code
  scanning shows it as a closed alert). The spec requires ``suppressions`` on every result
  of a run or on none, so when any result is blocked every other one has an empty array
  ("not suppressed"); a run with nothing blocked has none at all;
- ``relatedLocations`` (§3.27.22, "a location relevant to understanding the result"): the
  cause's location, with its code and message.

The cause's message says how many findings it blocks, and its ``relatedLocations`` are the
first :data:`MAX_RELATED` of them. Why not drop the blocked results and keep them only as the
cause's related locations: a SARIF consumer then could not count, track or fingerprint them
(the JSON report and SARIF would disagree on the findings), and a related location is not a
result a consumer can filter on. A suppression says exactly "this result is not counted, for
this reason" and keeps it.

Baselines (``--baseline``): every result then carries ``baselineState`` (§3.27.24): ``new``
for a finding the baseline does not accept, ``unchanged`` for one it accepts (listed, after
the counted ones, with an ``external`` suppression whose justification says the baseline
accepted it: §3.35, not counted), and ``absent`` for ``baseline.unmatched``, the finding that
says a baseline entry matched nothing this run (the result it stood for is gone). Without a
baseline no result has it: nothing was compared.

Deterministic: no timestamps, no absolute paths of the machine.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any
from urllib.parse import quote

from verifier.findings import CODES, Finding, Stage, severity_of
from verifier.report import Report
from verifier.views.clean import clean_str, dumps_clean
from verifier.views.findings import blocked_by, blocked_summary, capped, cascade
from verifier.views.interface import DEFAULT_SETTINGS, RenderSettings

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
UNMATCHED = "baseline.unmatched"  # a baseline entry that matched nothing: its result is absent
MAX_RESULTS = 25_000  # GitHub code scanning's limit of results per run
TRUNCATED = "verify-evidence.truncated"
#: where a rule's help lives: the README's codes table, shipped beside the tool. A relative
#: reference, so never a rule's ``helpUri``: SARIF 2.1.0 §3.49.12 makes that "the absolute
#: URI [RFC3986] of the primary documentation" (the schema: ``"format": "uri"``), and the
#: project has no published URL. Rules carry their documentation in ``help`` instead
#: (§3.49.13: "useful when help information is not available at a URI"), which names this
#: reference, as does the rule's property ``helpReference``.
HELP_URI = "README.md#finding-codes"
FINGERPRINT = "verifyEvidenceFinding/v1"
#: at most this many related locations on a result (GitHub code scanning keeps 100 locations
#: of a result and rejects one with more than 1,000)
MAX_RELATED = 100


def _name(code: str) -> str:
    return "".join(part.title() for part in code.replace(".", "-").split("-"))


def _rule(code: str, stage: Stage, meaning: str) -> dict[str, Any]:
    sentence = meaning[0].upper() + meaning[1:] + "."
    level = severity_of(code).value
    full = f"{sentence} Stage: {stage.value}; severity: {level}."
    return {
        "id": code,
        "name": _name(code),
        "shortDescription": {"text": sentence},
        "fullDescription": {"text": full},
        "help": {
            "text": f"{code}: {full} See the finding codes table of the README ({HELP_URI}).",
            "markdown": f"`{code}` ({stage.value}, {level}): {sentence} "
            f"See [Finding codes]({HELP_URI}).",
        },
        "defaultConfiguration": {"level": level},
        "properties": {"stage": stage.value, "helpReference": HELP_URI},
    }


def _rules() -> list[dict[str, Any]]:
    rules = [
        _rule(code, stage, meaning)
        for code, (stage, meaning) in sorted(CODES.items())
        if stage is not Stage.COVERAGE  # verify-evidence coverage's own report, not check's
    ]
    rules.append(
        {
            "id": TRUNCATED,
            "name": "Truncated",
            "shortDescription": {"text": "Results were left out of this run (the cap)."},
            "fullDescription": {
                "text": f"A SARIF run holds at most {MAX_RESULTS} results; the rest are "
                "listed in the JSON report (--format json)."
            },
            "help": {
                "text": "Run verify-evidence check --format json to see every finding "
                f"(the finding codes: {HELP_URI})."
            },
            "defaultConfiguration": {"level": "warning"},
        }
    )
    return rules


def fingerprints(findings: list[Finding]) -> list[str]:
    """A stable fingerprint per finding: SHA-256 of code, path and pointer, and its rank
    among findings alike in those three (never its line or message)."""
    seen: Counter[tuple[str, str, str]] = Counter()
    out = []
    for f in findings:
        key = (f.code, f.path, f.pointer if f.pointer is not None else "")
        seen[key] += 1
        text = "\0".join((*key, str(seen[key])))
        out.append(hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32])
    return out


def _physical(settings: RenderSettings, finding: Finding) -> dict[str, Any]:
    physical: dict[str, Any] = {
        "artifactLocation": {
            "uri": quote(clean_str(settings.ci_path(finding.location_path)), safe="/-._~"),
            "uriBaseId": "%SRCROOT%",
        }
    }
    if finding.line is not None:
        region: dict[str, Any] = {"startLine": finding.line}
        if finding.column is not None:
            region["startColumn"] = finding.column
        physical["region"] = region
    return physical


def _related(settings: RenderSettings, findings: list[Finding], role: str) -> list[dict[str, Any]]:
    """``findings`` as related locations, each with its code and message (``role`` before
    it), at most :data:`MAX_RELATED`."""
    out = []
    for number, f in enumerate(findings[:MAX_RELATED]):
        text = f"{role}: {f.code}: {f.message}"
        if f.pointer is not None:
            text = f"{role}: {f.code} at {f.pointer}: {f.message}"
        physical = _physical(settings, f)
        out.append({"id": number, "physicalLocation": physical, "message": {"text": text}})
    return out


def _entry(settings: RenderSettings, finding: Finding) -> dict[str, Any]:
    """The spec entry of the assertion behind ``finding`` as a related location."""
    related = finding.related
    assert related is not None
    physical: dict[str, Any] = {
        "artifactLocation": {
            "uri": quote(clean_str(settings.ci_path(related.path)), safe="/-._~"),
            "uriBaseId": "%SRCROOT%",
        }
    }
    if related.line is not None:
        region: dict[str, Any] = {"startLine": related.line}
        if related.column is not None:
            region["startColumn"] = related.column
        physical["region"] = region
    text = f"the assertion's entry in the spec ({related.pointer})"
    return {"physicalLocation": physical, "message": {"text": text}}


def _result(
    settings: RenderSettings,
    finding: Finding,
    index: int,
    fingerprint: str,
    blocked: list[Finding] | None = None,
    cause: Finding | None = None,
) -> dict[str, Any]:
    text = finding.message
    if blocked:
        text += f" {blocked_summary(blocked)[0].upper()}{blocked_summary(blocked)[1:]}"
        if len(blocked) > MAX_RELATED:
            text += f"; the first {MAX_RELATED} are its related locations"
        text += "."
    if cause is not None:
        text += blocked_by(finding)
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": index,
        "level": finding.severity.value,
        "message": {"text": text},
        "locations": [{"physicalLocation": _physical(settings, finding)}],
        "partialFingerprints": {FINGERPRINT: fingerprint},
    }
    if blocked:
        result["relatedLocations"] = _related(settings, blocked, "blocked by this result")
    if cause is not None:
        result["relatedLocations"] = _related(settings, [cause], "blocked by")
        result["suppressions"] = [
            {
                "kind": "external",
                "status": "accepted",
                "justification": f"{blocked_by(finding).strip(' ()')}: counted once, there",
            }
        ]
    if finding.related is not None:  # the spec entry of the assertion behind it
        entry = _entry(settings, finding)
        entry["id"] = len(result.get("relatedLocations", []))
        result.setdefault("relatedLocations", []).append(entry)
    properties: dict[str, Any] = {}
    if finding.pointer is not None:
        properties["jsonPointer"] = finding.pointer
    if finding.hint is not None:
        properties["hint"] = finding.hint
    if finding.at is not None:
        properties["subject"] = finding.path  # the listed file a manifest line is about
    if finding.cause is not None:
        properties["cause"] = finding.cause.to_dict()
    if finding.related is not None:
        properties["specEntry"] = finding.related.to_dict()
    if properties:
        result["properties"] = properties
    return result


def render(
    report: Report, settings: RenderSettings = DEFAULT_SETTINGS, limit: int = MAX_RESULTS
) -> str:
    fail_on = settings.fail_on
    rules = _rules()
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    findings = report.findings
    prints = dict(zip(map(id, findings), fingerprints(findings), strict=True))
    groups = cascade(findings)
    blocks = {id(f): items for f, items in groups}
    cause_of = {id(b): f for f, items in groups for b in items}
    ordered = [f for f, _ in groups] + [b for _, items in groups for b in items]
    baselined = report.acceptance is not None and report.acceptance.baseline is not None
    accepted = [a.finding for a in report.accepted if a.by == "baseline"] if baselined else []
    room = limit - 1 if len(findings) + len(accepted) > limit else limit
    kept, left_out = capped(ordered, room)
    results = [
        _result(settings, f, index[f.code], prints[id(f)], blocks.get(id(f)), cause_of.get(id(f)))
        for f in kept
    ]
    if baselined:
        for result, finding in zip(results, kept, strict=True):
            result["baselineState"] = "absent" if finding.code == UNMATCHED else "new"
        taken = accepted[: max(0, room - len(results))]
        left_out += len(accepted) - len(taken)
        for finding, fingerprint in zip(taken, fingerprints(taken), strict=True):
            result = _result(settings, finding, index[finding.code], fingerprint)
            result["baselineState"] = "unchanged"
            result["suppressions"] = [
                {
                    "kind": "external",
                    "status": "accepted",
                    "justification": "accepted by the baseline (--baseline): not counted",
                }
            ]
            results.append(result)
    if left_out:
        results.append(
            {
                "ruleId": TRUNCATED,
                "ruleIndex": index[TRUNCATED],
                "level": "warning",
                "message": {
                    "text": f"{left_out} more findings are not in this SARIF run (at most "
                    f"{limit} results a run); verify-evidence check --format json lists all "
                    f"{len(findings)}."
                },
                "partialFingerprints": {FINGERPRINT: TRUNCATED},
            }
        )
    if cause_of or any("suppressions" in r for r in results):  # on every result, or none
        for result in results:
            result.setdefault("suppressions", [])
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "verify-evidence",
                        "version": report.tool_version,
                        "rules": rules,
                    }
                },
                # the run's verdict as its exit code: 1 when a counted finding reaches
                # --fail-on (the rule of the exit code and of every view)
                "invocations": [
                    {"executionSuccessful": True, "exitCode": int(report.fails(fail_on))}
                ],
                "columnKind": "unicodeCodePoints",
                "originalUriBaseIds": {
                    "%SRCROOT%": {
                        "description": {
                            "text": "The working directory the check ran in (paths carry the "
                            "archive's folder, or --path-prefix)."
                        }
                    }
                },
                "results": results,
                "properties": {
                    "summary": report.summary_line,
                    "verdict": report.verdict(fail_on),
                    "failOn": fail_on.value,
                    "acceptedFindings": len(report.accepted),
                    "stages": {s.stage.value: s.status.value for s in report.checks},
                    "signatures": [c.to_dict() for c in report.signatures],
                    "findings": len(findings),
                    "resultsLeftOut": left_out,
                    "blockedFindings": len(cause_of),
                },
            }
        ],
    }
    return dumps_clean(log, sort_keys=False) + "\n"

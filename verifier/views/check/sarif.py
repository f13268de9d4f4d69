"""SARIF 2.1.0: one result per finding, a rule per finding code, the file as artifact location.
A result's ``level`` is its finding's severity (``error``, ``warning``, ``note``), and each rule's
default level the severity fixed for its code. Text is kept exactly (JSON escaping is inert).

Deterministic: no timestamps, no absolute paths; artifact URIs are relative to the archive
root (``%SRCROOT%``), so code-scanning UIs show them on the repository's files.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from verifier.findings import CODES, Stage, severity_of
from verifier.json.write import dumps_report
from verifier.report import Report
from verifier.views.clean import clean, clean_str

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _rules() -> list[dict[str, Any]]:
    return [
        {
            "id": code,
            "name": "".join(part.title() for part in code.replace(".", "-").split("-")),
            "shortDescription": {"text": meaning[0].upper() + meaning[1:] + "."},
            "defaultConfiguration": {"level": severity_of(code).value},
            "properties": {"stage": stage.value},
        }
        for code, (stage, meaning) in sorted(CODES.items())
        if stage is not Stage.COVERAGE  # verify-evidence coverage's own report, not check's
    ]


def render(report: Report) -> str:
    rules = _rules()
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = []
    for finding in report.findings:
        location: dict[str, Any] = {
            "physicalLocation": {
                "artifactLocation": {
                    "uri": quote(clean_str(finding.location_path), safe="/-._~"),
                    "uriBaseId": "%SRCROOT%",
                }
            }
        }
        if finding.line is not None:
            region: dict[str, Any] = {"startLine": finding.line}
            if finding.column is not None:
                region["startColumn"] = finding.column
            location["physicalLocation"]["region"] = region
        result: dict[str, Any] = {
            "ruleId": finding.code,
            "ruleIndex": index[finding.code],
            "level": finding.severity.value,
            "message": {"text": finding.message},
            "locations": [location],
        }
        properties = {}
        if finding.pointer is not None:
            properties["jsonPointer"] = finding.pointer
        if finding.hint is not None:
            properties["hint"] = finding.hint
        if finding.at is not None:
            properties["subject"] = finding.path  # the listed file a manifest line is about
        if properties:
            result["properties"] = properties
        results.append(result)
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
                "columnKind": "unicodeCodePoints",
                "originalUriBaseIds": {
                    "%SRCROOT%": {
                        "description": {
                            "text": "The archive root the manifest's names are relative to."
                        }
                    }
                },
                "results": results,
                "properties": {
                    "summary": report.summary_line,
                    "stages": {s.stage.value: s.status.value for s in report.stages},
                },
            }
        ],
    }
    return dumps_report(clean(log), sort_keys=False) + "\n"

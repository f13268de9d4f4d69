"""The audit record: what was verified, from where, by which verifier, with what result.

``audit_record`` turns a :class:`~verifier.pipeline.Run` into plain data documented by
``verifier/schemas/audit.schema.json``: the source's identity (the SHA-256 of a zip or tarball, the
commit and tree ids of a git commit), the manifest's digest and base, the limits in force,
counts per stage, every finding and every file's digest. Everything is deterministic except
``createdAt`` (which ``SOURCE_DATE_EPOCH`` fixes, as for reproducible builds).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import Any

from verifier.pipeline import Run
from verifier.plan.option_values import source_date_epoch
from verifier.schema import own as own_schemas
from verifier.sources.safety import Limits
from verifier.views.clean import dumps_clean

AUDIT_VERSION = 1
SCHEMA_ID = own_schemas.schema_id(own_schemas.AUDIT)


def timestamp(environ: dict[str, str] | None = None) -> str:
    """Now, in UTC to the second; ``SOURCE_DATE_EPOCH`` (seconds, ASCII digits, up to the end
    of year 9999) overrides the clock. Raises :class:`~verifier.errors.UsageError` when it is
    set but malformed (the reproducible-builds specification asks to stop, not to guess)."""
    env = os.environ if environ is None else environ
    epoch = source_date_epoch(env.get("SOURCE_DATE_EPOCH", ""))  # UsageError if malformed
    when = datetime.now(UTC) if epoch is None else datetime.fromtimestamp(epoch, UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def audit_record(run: Run, location: str, limits: Limits, created_at: str) -> dict[str, Any]:
    report = run.report
    findings = [
        {"stage": stage.stage.value, **f.to_dict()}
        for stage in report.checks  # authenticity first, then the three content stages
        for f in sorted(stage.findings, key=lambda f: f.sort_key())
    ]
    files = []
    for entry in sorted(report.files, key=lambda f: f.path):
        item = entry.to_dict()
        item.update(run.details.get(entry.path, {}))
        files.append(item)
    return {
        "$schema": SCHEMA_ID,
        "auditVersion": AUDIT_VERSION,
        "createdAt": created_at,
        "tool": {"name": "verify-evidence", "version": report.tool_version},
        "source": {**run.source, "location": location},
        "manifest": {"path": report.manifest, "sha256": run.manifest_sha256, "base": run.base},
        "scope": list(report.scope),
        "limits": limits.to_dict(),
        "ok": report.ok,
        "summary": report.summary_line,
        "stages": [
            {
                "stage": s.stage.value,
                "status": s.status.value,
                "counts": dict(sorted(s.counts.items())),
                "findings": len(s.findings),
            }
            for s in report.stages
        ],
        "authenticity": {
            "status": report.authenticity.status.value,
            "findings": len(report.authenticity.findings),
            "signatures": [c.to_dict() for c in report.signatures],
        },
        "findings": findings,
        "files": files,
    }


def render(record: dict[str, Any]) -> str:
    """The record as JSON: sorted keys, two-space indent, LF."""
    return dumps_clean(record) + "\n"

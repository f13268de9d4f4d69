"""Stage 2, validity: is every record well formed?

Records are parsed strictly from the bytes the integrity stage hashed. Each names its schema
by ``$id`` in its ``"$schema"`` member; schemas come only from the archive's ``schemas/``
folder (and the JSON Schema metaschemas bundled with ``jsonschema``). Any other reference is a
``schema.unresolved`` finding: the registry's retrieve function refuses, so no network call
can ever happen.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from verifier.findings import Stage
from verifier.inspect.record import RecordResult
from verifier.inspect.schemas import Prepared
from verifier.judge.records import Records
from verifier.report import StageResult


@dataclass(slots=True)
class ValidityOutcome:
    stage: StageResult
    records: Records = field(default_factory=Records)
    schemas: dict[str, str] = field(default_factory=dict)  # $id -> path


def check_validity(
    prep: Prepared, results: dict[str, RecordResult], records: Records
) -> ValidityOutcome:
    """The validity stage from the prepared schemas and each record's result (``results``:
    archive path -> result; ``records`` receives what was extracted)."""
    if not prep.validate:
        skipped = ValidityOutcome(
            StageResult(Stage.VALIDITY, skipped=True, note="Not run (--stages)."), records
        )
        records.add_unseen((p, r.extracted) for p in sorted(results) if (r := results[p]).parsed)
        return skipped
    stage = StageResult(Stage.VALIDITY)
    out = ValidityOutcome(stage, records, prep.schemas)
    findings = stage.findings
    findings.extend(prep.findings)
    record_paths = sorted(results)
    ordered = list(map(results.__getitem__, record_paths))  # each a RecordResult
    validated = 0
    for found, _, _, count, _ in ordered:
        if found:
            findings.extend(found)
        validated += count
    records.add_unseen((p, r[4]) for p, r in zip(record_paths, ordered, strict=True) if r[2])
    for _, transcript, _, _, _ in ordered:
        if transcript:
            findings.extend(transcript)
    stage.counts = {
        "records": len(record_paths),
        "schemas": prep.schema_count,
        "validated": validated,
    }
    if not record_paths and not prep.schema_count:
        stage.note = "No records or schemas in the manifest's scope: nothing to check."
    elif not record_paths:
        stage.note = "No records in the manifest's scope: only the schemas themselves were checked."
    return out

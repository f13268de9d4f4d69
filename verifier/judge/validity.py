"""Stage 2, validity: is every record well formed?

Records are parsed strictly from the bytes the integrity stage hashed. Each names its schema
by ``$id`` in its ``"$schema"`` member; schemas come only from the archive's ``schemas/``
folder (and the JSON Schema metaschemas bundled with ``jsonschema``). Any other reference is a
``schema.unresolved`` finding: the registry's retrieve function refuses, so no network call
can ever happen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from verifier.findings import Stage
from verifier.record.check import RecordResult, judged_form
from verifier.report import StageResult
from verifier.schema.bundle import Prepared
from verifier.values.needs import Flat
from verifier.values.records import Records


@dataclass(slots=True)
class ValidityOutcome:
    stage: StageResult
    records: Records = field(default_factory=Records)
    schemas: dict[str, str] = field(default_factory=dict)  # $id -> path


def check_validity(
    prep: Prepared, results: Mapping[str, RecordResult | Flat], records: Records
) -> ValidityOutcome:
    """The validity stage from the prepared schemas and each record's result (``results``:
    archive path -> result; ``records`` receives what was extracted)."""
    if not prep.validate:
        skipped = ValidityOutcome(
            StageResult(Stage.VALIDITY, skipped=True, note="Not run (--stages)."), records
        )
        records.add_unseen(
            (p, r.extracted) for p in sorted(results) if (r := judged_form(results[p])).parsed
        )
        return skipped
    stage = StageResult(Stage.VALIDITY)
    out = ValidityOutcome(stage, records, prep.schemas)
    findings = stage.findings
    findings.extend(prep.findings)
    record_paths = sorted(results)
    # each a RecordResult, or a plain one's extracted values held flat (held_form): parsed,
    # validated against one schema, with no finding
    ordered = list(map(results.__getitem__, record_paths))
    validated = 0
    for held in ordered:
        if not isinstance(held, RecordResult):
            validated += 1
            continue
        if held.findings:
            findings.extend(held.findings)
        validated += held.validated
    records.add_unseen(
        (path, held if not isinstance(held, RecordResult) else held.extracted)
        for path, held in zip(record_paths, ordered, strict=True)
        if not isinstance(held, RecordResult) or held.parsed
    )
    for held in ordered:
        if isinstance(held, RecordResult) and held.transcript:
            findings.extend(held.transcript)
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

"""The verifier's own schemas, shipped as package data in ``verifier/schemas/``: what it
writes (the check report, the transcript report, the coverage report, the outcome table, the
audit record, the in-toto statement), what it reads from its user (the baseline) and the
record schema it defines for harness containers. None of them is part of an archive: an
archive's records are validated only against the archive's own ``schemas/``
(:mod:`verifier.schema.bundle`), so an archive that keeps harness containers as records
copies ``transcript-container.schema.json`` into its ``schemas/``.

Their ``$id`` is ``https://verifier.invalid/schemas/<file name>``, as an archive's schemas'.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

BASE = "https://verifier.invalid/schemas/"
#: the folder inside the ``verifier`` package
FOLDER = "schemas"

REPORT = "report.schema.json"
TRANSCRIPT_REPORT = "transcript-report.schema.json"
COVERAGE = "coverage.schema.json"
TABLE = "table.schema.json"
AUDIT = "audit.schema.json"
IN_TOTO = "in-toto-statement.schema.json"
VSA = "slsa-vsa.schema.json"
BASELINE = "baseline.schema.json"
TRANSCRIPT_CONTAINER = "transcript-container.schema.json"

#: every schema in ``verifier/schemas/``
NAMES = (
    AUDIT,
    BASELINE,
    COVERAGE,
    IN_TOTO,
    REPORT,
    TABLE,
    TRANSCRIPT_CONTAINER,
    TRANSCRIPT_REPORT,
    VSA,
)


def schema_id(name: str) -> str:
    """The ``$id`` of the schema ``name`` (one of :data:`NAMES`)."""
    if name not in NAMES:
        raise KeyError(name)
    return BASE + name


def load(name: str) -> dict[str, Any]:
    """The schema ``name`` (one of :data:`NAMES`), read from the installed package."""
    if name not in NAMES:
        raise KeyError(name)
    text = resources.files("verifier").joinpath(FOLDER).joinpath(name).read_text(encoding="utf-8")
    value = json.loads(text)
    if not isinstance(value, dict):  # pragma: no cover - the package's own files
        raise ValueError(f"{name} is not a JSON object")
    return value

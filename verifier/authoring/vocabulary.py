"""The scaffold's own vocabulary: how ``init``'s schemas derive from the project's.

The project's ``case-catalogue.schema.json`` and ``assertion-spec.schema.json`` name the
bundled case study's vocabulary (its case kinds, evidence ids ``E1``..., definitions in its
``common.schema.json``). A new archive must not inherit it: ``init`` writes
``cases.schema.json`` and ``assertion-spec.schema.json`` (its ``$id`` kept, so specs written
for the project's schema validate in a new archive too), the same schemas with every
reference to that vocabulary pointed at ``archive.schema.json``, the scaffold's own small
file of definitions (any case kind, any evidence id of letters, digits, ``.``, ``_`` and
``-``). Adding a case kind or an evidence id then needs no schema edit; narrowing them is
one edit in ``archive.schema.json``.

The template files are these substitutions applied (a test keeps them so: no drift).
"""

from __future__ import annotations

import json
from typing import Any

BASE = "https://verifier.invalid/schemas/"

#: (project schema, template schema): the files the substitutions apply to
DERIVED = (
    ("case-catalogue.schema.json", "cases.schema.json"),
    ("assertion-spec.schema.json", "assertion-spec.schema.json"),
)

#: strings replaced wherever they occur in the project's schemas (whole values, or the part
#: of a ``$ref`` before its ``#``)
RENAMES = (
    (BASE + "case-catalogue.schema.json", BASE + "cases.schema.json"),
    ("common.schema.json#", "archive.schema.json#"),
)
#: a case's kind: any name the archive's author chooses (``archive.schema.json#/$defs/caseKind``)
CASE_KIND_REF = "archive.schema.json#/$defs/caseKind"


def _rename(value: Any) -> Any:
    if isinstance(value, str):
        for old, new in RENAMES:
            if value == old or (old.endswith("#") and value.startswith(old)):
                return new + value[len(old) :]
        return value
    if isinstance(value, list):
        return [_rename(v) for v in value]
    if isinstance(value, dict):
        return {k: _rename(v) for k, v in value.items()}
    return value


def derive(schema: dict[str, Any]) -> dict[str, Any]:
    """A project schema with the scaffold's vocabulary in place of the case study's."""
    out: dict[str, Any] = _rename(schema)
    case = out.get("$defs", {}).get("case", {}).get("properties", {})
    if "kind" in case:
        case["kind"] = {"$ref": CASE_KIND_REF}
    return out


def derive_text(text: str) -> str:
    """:func:`derive` of a schema file's text, written back two-space indented."""
    return json.dumps(derive(json.loads(text)), indent=2, ensure_ascii=False) + "\n"

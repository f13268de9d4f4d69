"""A kept document (the assertion spec, the case catalogue) is parsed from its hashed bytes,
which are let go before it is validated; its result is the one :func:`process_record` gives,
but for the positions of its schema findings (placed once the report is judged)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from verifier.findings import Finding
from verifier.inspect.record import process_document, process_record
from verifier.inspect.schemas import prepare_validity

ROOT = Path(__file__).resolve().parents[2]
SPEC = "evidence/assertions.json"


def _bundle() -> Any:
    contents = {
        f"schemas/{p.name}": p.read_bytes() for p in sorted((ROOT / "schemas").glob("*.json"))
    }
    return prepare_validity(contents, "schemas", True)


def test_the_bytes_are_let_go_before_validation(monkeypatch: pytest.MonkeyPatch) -> None:
    prep = _bundle()
    data = (ROOT / SPEC).read_bytes()
    pending = {SPEC: data}
    seen: list[bool] = []
    record = prep.validators.record

    def watching(path: str, value: Any) -> tuple[list[Finding], int]:
        caller = sys._getframe(1)  # process_document's frame, as it validates
        held = [v for v in caller.f_locals.values() if type(v) is bytes]
        seen.append(not held and SPEC not in pending)
        found: tuple[list[Finding], int] = record(path, value)
        return found

    monkeypatch.setattr(prep.validators, "record", watching)
    del data
    result, value = process_document(prep, SPEC, pending, {})
    assert seen == [True]
    assert isinstance(value, dict) and value["assertions"]
    reference, same = process_record(_bundle(), SPEC, (ROOT / SPEC).read_bytes(), (), True, {})
    assert result == reference and same == value


def test_an_unparsable_document_is_placed_from_its_bytes() -> None:
    prep = _bundle()
    text = b'{\n  "assertions": [\n    {"id": 1,}\n  ]\n}\n'
    result, value = process_document(prep, SPEC, {SPEC: text}, {})
    assert value is None and not result.parsed
    assert [(f.code, f.line) for f in result.findings] == [("record.invalid-json", 3)]


def test_a_schema_finding_is_left_for_the_report_to_place() -> None:
    prep = _bundle()
    text = (
        b'{\n  "$schema": "https://verifier.invalid/schemas/assertion-spec.schema.json",\n'
        b'  "assertions": [],\n  "extra": 1\n}\n'
    )
    result, value = process_document(prep, SPEC, {SPEC: text}, {})
    assert value is not None and result.parsed
    codes = [(f.code, f.line) for f in result.findings]
    assert codes and all(code == "schema.invalid" and line is None for code, line in codes)
    placed, _ = process_record(prep, SPEC, text, (), True, {})
    assert [f.code for f in placed.findings] == [f.code for f in result.findings]

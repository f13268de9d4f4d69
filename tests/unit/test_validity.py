from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.conftest import write_archive
from verifier import verify
from verifier.report import Report

ID = "https://verifier.invalid/schemas/"
DRAFT = "https://json-schema.org/draft/2020-12/schema"


def schema(name: str, **body: Any) -> str:
    return json.dumps({"$schema": DRAFT, "$id": ID + name, **body})


THING = schema(
    "thing.schema.json",
    type="object",
    required=["$schema", "at", "n"],
    properties={
        "$schema": {"const": ID + "thing.schema.json"},
        "at": {"$ref": "common.schema.json#/$defs/time"},
        "n": {"type": "integer", "maximum": 10},
    },
)
COMMON = schema(
    "common.schema.json", **{"$defs": {"time": {"type": "string", "format": "date-time"}}}
)


def record(**extra: Any) -> str:
    return json.dumps(
        {"$schema": ID + "thing.schema.json", "at": "2026-10-22T19:27:27Z", "n": 1} | extra
    )


def run(tmp_path: Path, files: Mapping[str, str | bytes]) -> Report:
    return verify(write_archive(tmp_path, files))


def found(report: Report) -> list[tuple[str, str, str | None]]:
    return [(f.code, f.path, f.pointer) for f in report.validity.findings]


BASE = {"schemas/thing.schema.json": THING, "schemas/common.schema.json": COMMON}


def test_valid_record_has_no_findings(tmp_path: Path) -> None:
    report = run(tmp_path, BASE | {"evidence/r.json": record()})
    assert found(report) == []
    assert report.validity.counts == {"records": 1, "schemas": 2, "validated": 1}


def test_every_schema_error_is_reported_with_its_pointer(tmp_path: Path) -> None:
    report = run(tmp_path, BASE | {"evidence/r.json": record(n=11, at="yesterday")})
    assert found(report) == [
        ("schema.invalid", "evidence/r.json", "/at"),
        ("schema.invalid", "evidence/r.json", "/n"),
    ]


def test_date_time_format_is_enforced(tmp_path: Path) -> None:
    report = run(tmp_path, BASE | {"evidence/r.json": record(at="2026-02-30T00:00:00Z")})
    assert found(report) == [("schema.invalid", "evidence/r.json", "/at")]
    assert "date-time" in report.validity.findings[0].message


def test_remote_ref_is_a_finding_and_no_network_call(tmp_path: Path) -> None:
    remote = schema(
        "thing.schema.json",
        type="object",
        properties={"x": {"$ref": "https://example.com/remote.schema.json"}},
    )
    report = run(tmp_path, {"schemas/thing.schema.json": remote, "evidence/r.json": record(x=1)})
    codes = [c for c, _, _ in found(report)]
    assert "schema.unresolved" in codes
    assert any(f.pointer == "/properties/x/$ref" for f in report.validity.findings)


def test_unknown_schema_is_unresolved(tmp_path: Path) -> None:
    rec = json.dumps({"$schema": "https://example.com/other.json"})
    report = run(tmp_path, BASE | {"evidence/r.json": rec})
    assert found(report) == [("schema.unresolved", "evidence/r.json", "/$schema")]


def test_record_without_schema(tmp_path: Path) -> None:
    report = run(tmp_path, BASE | {"evidence/r.json": "[1, 2]", "evidence/s.json": "{}"})
    assert [c for c, _, _ in found(report)] == ["record.no-schema", "record.no-schema"]


def test_bad_schema(tmp_path: Path) -> None:
    report = run(
        tmp_path,
        BASE
        | {
            "schemas/bad.schema.json": schema("bad.json", type=12),
            "schemas/old.schema.json": json.dumps({"$schema": "x"}),
            "schemas/noid.schema.json": json.dumps({"$schema": DRAFT}),
        },
    )
    assert sorted(p for c, p, _ in found(report) if c == "schema.bad-schema") == [
        "schemas/bad.schema.json",
        "schemas/noid.schema.json",
        "schemas/old.schema.json",
    ]


def test_strict_parsing_findings(tmp_path: Path) -> None:
    report = run(
        tmp_path,
        BASE
        | {
            "evidence/bom.json": b"\xef\xbb\xbf" + record().encode(),
            "evidence/dup.json": f'{{"$schema": "{ID}thing.schema.json", "n": 1, "n": 2, '
            '"at": "2026-10-22T19:27:27Z"}',
            "evidence/nan.json": '{"n": NaN}',
            "evidence/big.json": record(n=2**70),
        },
    )
    assert found(report) == [
        ("schema.invalid", "evidence/big.json", "/n"),
        ("record.invalid-json", "evidence/bom.json", None),
        ("record.duplicate-key", "evidence/dup.json", ""),
        ("record.invalid-json", "evidence/nan.json", None),
    ]


def test_foreign_snapshot_without_records_has_nothing_to_check(tmp_path: Path) -> None:
    report = run(tmp_path, {"data/a.csv": "1,2\n", "README": "x"})
    assert report.ok
    assert report.validity.status.value == "nothing-to-check"
    assert report.consistency.status.value == "nothing-to-check"
    assert report.integrity.status.value == "passed"


def test_schemas_without_records_say_only_the_schemas_were_checked(tmp_path: Path) -> None:
    report = run(tmp_path, BASE | {"README": "x"})
    assert report.ok
    assert report.validity.status.value == "passed"
    assert report.validity.note is not None
    assert "only the schemas themselves were checked" in report.validity.note
    assert report.consistency.status.value == "nothing-to-check"


def test_records_all_without_a_schema_are_each_a_finding(tmp_path: Path) -> None:
    """Validity's vacuous case: records that name no schema validate nothing, and each says
    so (no schema folder either: still a finding per record, never a pass)."""
    report = run(tmp_path, {"evidence/a.json": "{}", "evidence/b.json": "[]"})
    assert not report.ok
    assert report.validity.counts["validated"] == 0
    assert found(report) == [
        ("record.no-schema", "evidence/a.json", "/$schema"),
        ("record.no-schema", "evidence/b.json", ""),
    ]

"""Errors that say what to do (issue 16): did-you-mean for assertion kinds, files in
selectors, pointers and schema ids; no Python reprs of records in messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import rewrite_manifest
from verifier.findings import Finding
from verifier.pipeline import verify
from verifier.suggest import close_matches, did_you_mean

SPEC = "evidence/assertions.json"


def edit_spec(archive: Path, change: Any) -> None:
    path = archive / SPEC
    spec = json.loads(path.read_text(encoding="utf-8"))
    change(spec["assertions"])
    path.write_text(json.dumps(spec, indent=2), encoding="utf-8")
    rewrite_manifest(archive)


def only(archive: Path, code: str) -> list[Finding]:
    return [f for f in verify(archive).findings if f.code == code]


def test_suggestions_are_close_and_case_blind() -> None:
    assert close_matches("Manifest.Unlisted", ["manifest.unlisted", "x"]) == ["manifest.unlisted"]
    assert did_you_mean("zzzz", ["manifest.unlisted"]) == ""
    assert did_you_mean("equalx", ["equals", "count"], quote='"') == '; did you mean "equals"?'


def test_a_misspelt_kind_names_the_kind_and_lists_them(archive: Path) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[0]["kind"] = "equalx"

    edit_spec(archive, change)
    errors = [f for f in only(archive, "assertion.error") if "kind" in f.message]
    assert len(errors) == 1
    message = errors[0].message
    assert 'unknown assertion kind "equalx"; did you mean "equals"?' in message
    assert "(kinds: equals, in-set, same-value, count" in message
    assert "{" not in message


def test_a_misspelt_file_and_pointer_suggest_the_right_ones(archive: Path) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[0]["select"] = {"file": "evidence/stdy.json", "pointer": "/pinnedVersions/agents"}
        items[1]["select"] = {"file": "evidence/study.json", "pointer": "/pinnedVersion/agents"}

    edit_spec(archive, change)
    messages = [f.message for f in only(archive, "assertion.error")]
    assert any(
        '"evidence/stdy.json" is not listed in the manifest; did you mean "evidence/study.json"?'
        in m
        for m in messages
    ), messages
    assert any('(no member "pinnedVersion"; did you mean "pinnedVersions"?)' in m for m in messages)
    assert not any(m.endswith("?.") for m in messages)


def test_a_misspelt_schema_id_suggests_the_id(archive: Path) -> None:
    path = archive / "evidence/e1-local-crash/ledger.json"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("payment-ledger.schema", "payment-ledgr.schema"), "utf-8")
    rewrite_manifest(archive)
    (finding,) = only(archive, "schema.unresolved")
    assert finding.message.endswith(
        "did you mean 'https://verifier.invalid/schemas/payment-ledger.schema.json'?"
    )


def test_a_schema_file_with_another_id_is_named(archive: Path) -> None:
    path = archive / "schemas/payment-ledger.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    schema["$id"] = "https://verifier.invalid/schemas/other-ledger.schema.json"
    path.write_text(json.dumps(schema), encoding="utf-8")
    rewrite_manifest(archive)
    messages = [f.message for f in only(archive, "schema.unresolved")]
    assert any(
        "schemas/payment-ledger.schema.json exists, but its $id is "
        "'https://verifier.invalid/schemas/other-ledger.schema.json'" in m
        for m in messages
    ), messages


def test_schema_messages_quote_an_excerpt_not_a_repr(archive: Path) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[0]["kind"] = "equalx"

    edit_spec(archive, change)
    (finding,) = [f for f in only(archive, "schema.invalid") if f.path == SPEC]
    assert finding.message.startswith('the object {"id": ')
    assert len(finding.message) < 200 and "'id':" not in finding.message


def test_only_manifest_drift_suggests_manifest_write(archive: Path) -> None:
    from verifier.views.check.text import render

    assert "manifest --write" not in render(verify(archive))
    (archive / "evidence/notes.txt").write_text("a new file\n", encoding="utf-8")
    text = render(verify(archive))
    assert "run 'verify-evidence manifest --write' and review the diff" in text
    # a finding of another kind: the hint would hide the real problem, so it is not given
    record = archive / "evidence/e1-local-crash/ledger.json"
    record.write_text(record.read_text(encoding="utf-8").replace("{", "[", 1), "utf-8")
    assert "manifest --write" not in render(verify(archive))


def test_a_ref_to_a_missing_defs_entry_is_quoted_not_printed_whole(archive: Path) -> None:
    path = archive / "schemas/payment-ledger.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    schema.setdefault("$defs", {})["count"] = {"type": "integer"}
    schema["properties"]["evidenceId"] = {"$ref": "#/$defs/countt"}
    path.write_text(json.dumps(schema), encoding="utf-8")
    rewrite_manifest(archive)
    found = only(archive, "schema.unresolved")
    assert found, "the broken $ref is reported"
    for finding in found:
        assert "did you mean '#/$defs/count'?" in finding.message
        assert "{'" not in finding.message and len(finding.message) < 300

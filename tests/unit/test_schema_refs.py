"""References resolve against the nearest enclosing schema resource (12.2), a schema that
cannot be compiled affects only the records that need it (12.4), and the bounded-regex
helper's contract (11.4)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_archive
from verifier import verify
from verifier.schema import bounded_regex
from verifier.schema.bundle import Validators, prepare_validity

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE = "https://verifier.invalid/schemas/"
FAST = os.environ.get("VERIFIER_ENGINE") != "reference"

# One document holding three schema resources: the root, "folder/" (relative to the root)
# and "folder/child.json" (relative to "folder/"); each $ref is relative to its own resource.
NESTED = {
    "$schema": DRAFT,
    "$id": BASE + "root.schema.json",
    "type": "object",
    "properties": {
        "$schema": {"type": "string"},
        "name": {"$ref": "folder/#name"},  # the anchor in the "folder/" resource
        "count": {"$ref": "folder/child.json#/$defs/count"},
        "tag": {"$ref": "#/$defs/folder/$defs/tag"},  # a pointer through the root
    },
    "$defs": {
        "folder": {
            "$id": "folder/",
            "$defs": {
                "name": {"$anchor": "name", "$ref": "child.json#/$defs/text"},
                "tag": {"$ref": "child.json#/$defs/text"},
                "child": {
                    "$id": "child.json",
                    "$defs": {
                        "text": {"type": "string", "pattern": "^\\p{L}+$"},
                        "count": {"$ref": "#/$defs/integer"},  # child.json's own $defs
                        "integer": {"type": "integer", "minimum": 0},
                    },
                },
            },
        },
    },
}

# $dynamicRef: a generic list whose items a second schema of the archive extends.
LIST = {
    "$schema": DRAFT,
    "$id": BASE + "list.schema.json",
    "$dynamicAnchor": "item",
    "type": "array",
    "items": {"$dynamicRef": "#item"},
}
INTS = {
    "$schema": DRAFT,
    "$id": BASE + "ints.schema.json",
    "type": "object",
    "properties": {"$schema": {"type": "string"}, "values": {"$ref": "list.schema.json"}},
    "$defs": {"item": {"$dynamicAnchor": "item", "type": "integer"}},
}


def run(tmp_path: Path, records: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    files: dict[str, str | bytes] = {
        "schemas/root.schema.json": json.dumps(NESTED),
        "schemas/list.schema.json": json.dumps(LIST),
        "schemas/ints.schema.json": json.dumps(INTS),
    }
    files |= {f"evidence/{n}.json": json.dumps(r) for n, r in records.items()}
    report = verify(write_archive(tmp_path, files))
    return [(f.code, f.path, f.pointer) for f in report.validity.findings]


def test_refs_in_nested_resources_resolve_and_validate(tmp_path: Path) -> None:
    root = BASE + "root.schema.json"
    ints = BASE + "ints.schema.json"
    found = run(
        tmp_path,
        {
            "good": {"$schema": root, "name": "Ωμέγα", "count": 3, "tag": "x"},
            "bad": {"$schema": root, "name": "a1", "count": -1, "tag": 5},
            "ints": {"$schema": ints, "values": [1, 2]},
            "strs": {"$schema": ints, "values": [1, "two"]},
        },
    )
    assert found == [
        ("schema.invalid", "evidence/bad.json", "/count"),
        ("schema.invalid", "evidence/bad.json", "/name"),
        ("schema.invalid", "evidence/bad.json", "/tag"),
        ("schema.invalid", "evidence/strs.json", "/values/1"),
    ]


def test_a_ref_that_needs_the_root_base_is_unresolved_in_a_nested_resource(
    tmp_path: Path,
) -> None:
    """Inside "folder/", "child.json" is folder/child.json: a $ref resolved against the
    root's $id instead would reach schemas/child.json, which does not exist."""
    broken = json.loads(json.dumps(NESTED))
    broken["$defs"]["folder"]["$defs"]["tag"]["$ref"] = "../child.json#/$defs/text"
    files: dict[str, str | bytes] = {"schemas/root.schema.json": json.dumps(broken)}
    report = verify(write_archive(tmp_path, files))
    assert [(f.code, f.pointer) for f in report.validity.findings] == [
        ("schema.unresolved", "/$defs/folder/$defs/tag/$ref")
    ]


def _schema(name: str, **body: Any) -> dict[str, Any]:
    return {"$schema": DRAFT, "$id": BASE + name, **body}


def test_one_unresolvable_schema_affects_only_the_records_that_need_it() -> None:
    """12.4: the fast engine keeps every schema that does not reach the broken one."""
    docs = {
        "schemas/remote.json": _schema("remote.json", **{"$ref": "https://example.com/x.json"}),
        "schemas/uses-remote.json": _schema("uses-remote.json", **{"$ref": "remote.json"}),
        "schemas/ok.json": _schema("ok.json", type="object"),
        "schemas/uses-ok.json": _schema("uses-ok.json", **{"$ref": "ok.json"}),
    }
    contents = {p: json.dumps(d).encode() for p, d in docs.items()}
    prep = prepare_validity(contents, "schemas", True)
    assert [(f.code, f.path) for f in prep.findings] == [
        ("schema.unresolved", "schemas/remote.json")
    ]
    engines = prep.validators
    assert engines is not None
    if not FAST:
        pytest.skip("the fast engine is switched off (VERIFIER_ENGINE=reference)")
    assert engines.fast("schemas/ok.json") is not None
    assert engines.fast("schemas/uses-ok.json") is not None
    assert engines.fast("schemas/remote.json") is None


def test_validators_are_built_for_nested_ids_across_documents() -> None:
    """The fast engine reaches a nested resource of another document by its own URI."""
    docs = {
        "schemas/root.schema.json": NESTED,
        "schemas/other.json": _schema(
            "other.json", **{"$ref": "root.schema.json/../folder/child.json#/$defs/count"}
        ),
    }
    engines = Validators(docs, {d["$id"]: p for p, d in docs.items()}, "schemas")
    assert engines.schema_findings() == []
    reference = engines.reference("schemas/other.json")
    assert reference.is_valid(1) and not reference.is_valid(-1)
    fast = engines.fast("schemas/other.json")
    if FAST:
        assert fast is not None
        assert fast.is_valid(1) and not fast.is_valid(-1)


def test_bounded_regex_contract() -> None:
    assert bounded_regex.compile("^\\p{Letter}+$").search("héllo")
    assert not bounded_regex.compile("^\\p{Letter}+$").search("héllo1")
    assert not bounded_regex.compile("^(a+)+$").search("a" * 5000 + "b")  # linear engine
    assert bounded_regex.compile("b").search("abc")  # a search, not a full match
    assert bounded_regex.compile("^.$").search("\ud800")  # a lone surrogate is one character
    with pytest.raises(bounded_regex.RegexBudgetExceeded, match="backtracking steps"):
        bounded_regex.compile("^(a|aa)+\\1$").search("a" * 40 + "b")
    with pytest.raises(bounded_regex.RegexError):
        bounded_regex.compile("(")
    with pytest.raises(ValueError, match="dialect"):
        bounded_regex.compile("a", "python")
    assert bounded_regex.is_regex("(?<=a)b") and not bounded_regex.is_regex("\\Z")

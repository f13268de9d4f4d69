"""Whether a schema may reach a ``format`` keyword (``may_assert_format``): ``False`` is a
proof, so a fast validator is then built without ``formats=`` (and reads a large document in
place instead of converting a copy of it); anything it cannot follow for certain answers
``True``. Each case below, and the bundled schemas: the assertion spec's schema reaches
``common.schema.json`` for its provenance but not that document's timestamp."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from verifier.schema.bundle import Validators, prepare_validity
from verifier.schema.format_policy import DRAFT_2020_12, may_assert_format

ROOT = Path(__file__).resolve().parents[2]
BASE = "https://verifier.invalid/reach/"
OTHER = {
    "$schema": DRAFT_2020_12,
    "$id": BASE + "other.json",
    "$defs": {
        "plain": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "when": {"type": "string", "format": "date-time"},
        "via": {"$ref": "#/$defs/when"},
        "loop": {"items": {"$ref": "#/$defs/loop"}},
        "a~b/c": {"type": "string"},
    },
    "$anchor": "top",
}


def _reach(schema: dict[str, Any], *others: dict[str, Any]) -> bool:
    root = {"$schema": DRAFT_2020_12, "$id": BASE + "root.json", **schema}
    docs = {f"schemas/{i}.json": d for i, d in enumerate((root, OTHER, *others))}
    validators = Validators(docs, {d["$id"]: p for p, d in docs.items()}, "schemas")
    return may_assert_format(root, validators._resources)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object"},
        {"properties": {"a": {"$ref": "other.json#/$defs/plain"}}},  # the rest of it unread
        {"items": {"$ref": "other.json#/$defs/loop"}},  # a cycle ends
        {"$ref": "other.json#/$defs/a~0b~1c"},  # escaped tokens
        {"$ref": "other.json#/$defs/a~0b%7E1c"},  # percent-encoded too
        {"$defs": {"x": {"type": "string"}}, "$ref": "#/$defs/x"},
    ],
    ids=["plain", "other-plain", "cycle", "escaped", "percent", "local"],
)
def test_a_schema_that_reaches_no_format(schema: dict[str, Any]) -> None:
    assert _reach(schema) is False


@pytest.mark.parametrize(
    "schema",
    [
        {"format": "date-time"},
        {"properties": {"a": {"anyOf": [{"type": "integer"}, {"format": "ipv4"}]}}},
        {"format": "email"},  # annotation only, but a format keyword all the same
        {"$ref": "other.json#/$defs/when"},
        {"$ref": "other.json#/$defs/via"},  # through a reference in the other document
        {"$ref": "other.json"},  # the whole document
        {"$ref": "other.json#top"},  # an anchor: the whole resource is read
        {"x-unknown": {"format": "date"}},  # under a keyword unknown here: still counted
        {"dependencies": {"a": {"$ref": "other.json#/$defs/when"}}},
        {"$dynamicRef": "#meta"},
        {"$defs": {"e": {"$id": "embedded.json", "type": "string"}}},  # an embedded $id
        {"$ref": "missing.json"},  # does not resolve here
        {"$ref": "other.json#/$defs/nothing"},
        {"$ref": "other.json#/$defs/loop/items/01"},  # not an index
        {"$ref": "http://[::1"},  # not a URI
    ],
    ids=[
        "direct",
        "nested",
        "annotation",
        "other",
        "through",
        "document",
        "anchor",
        "unknown-keyword",
        "draft7-keyword",
        "dynamic",
        "embedded-id",
        "missing",
        "no-target",
        "bad-index",
        "bad-uri",
    ],
)
def test_a_schema_that_may_reach_one_or_cannot_be_followed(schema: dict[str, Any]) -> None:
    assert _reach(schema) is True


def test_another_dialect_is_not_followed() -> None:
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "$id": BASE + "d7.json"}
    assert may_assert_format(schema, {}) is True
    assert may_assert_format({"$schema": DRAFT_2020_12}, {}) is True  # no $id to read from


def _bundle() -> Validators:
    contents = {
        f"schemas/{p.name}": p.read_bytes() for p in sorted((ROOT / "schemas").glob("*.json"))
    }
    validators = prepare_validity(contents, "schemas", True).validators
    assert validators is not None
    return validators


def test_the_bundled_spec_schema_reaches_no_format_and_a_run_schema_does() -> None:
    validators = _bundle()
    resources = validators._resources
    spec = validators.docs["schemas/assertion-spec.schema.json"]
    assert may_assert_format(spec, resources) is False
    assert '"format"' in (ROOT / "schemas/common.schema.json").read_text()  # (not reached)
    run = validators.docs["schemas/local-runner-result.schema.json"]
    assert may_assert_format(run, resources) is True


@pytest.mark.skipif(
    os.environ.get("VERIFIER_ENGINE") == "reference", reason="the fast engine is not used"
)
def test_the_fast_validator_is_given_formats_only_where_one_is_reached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import jsonschema_rs

    given: dict[str, Any] = {}
    real = jsonschema_rs.validator_for

    def watched(schema: Any, **options: Any) -> Any:
        given[schema["$id"].rsplit("/", 1)[1]] = options
        return real(schema, **options)

    monkeypatch.setattr(jsonschema_rs, "validator_for", watched)
    validators = _bundle()
    assert validators.fast("schemas/assertion-spec.schema.json") is not None
    assert validators.fast("schemas/local-runner-result.schema.json") is not None
    spec, run = given["assertion-spec.schema.json"], given["local-runner-result.schema.json"]
    assert spec["formats"] is None and spec["validate_formats"] is False
    assert run["formats"] and run["validate_formats"] is True
    # and its verdicts are those of a validator given the formats, on the bundled spec and
    # on broken copies of it (a date-time that is not one, where no format is reached)
    import json

    spec_doc = validators.docs["schemas/assertion-spec.schema.json"]
    with_formats = real(spec_doc, **{**run, "retriever": spec["retriever"]})
    without = real(spec_doc, **spec)
    value = json.loads((ROOT / "evidence/assertions.json").read_text())
    broken = json.loads(json.dumps(value))
    broken["assertions"][0]["description"] = "2026-02-30T99:00:00Z"
    missing = json.loads(json.dumps(value))
    del missing["assertions"][0]["kind"]
    verdicts = [
        (v.is_valid(value), v.is_valid(broken), v.is_valid(missing))
        for v in (with_formats, without)
    ]
    assert verdicts == [(True, True, False)] * 2


def test_each_object_is_read_once_however_many_references_reach_into_it() -> None:
    """References into every level of a deep chain (each level's subtree holding all the
    deeper ones) read each object once in all, not once per reference: a schema cannot make
    the walk quadratic."""
    reads: list[int] = []

    class Counted(dict[str, Any]):
        def values(self) -> Any:
            reads.append(1)
            return super().values()

    depth = 300
    chain: Any = Counted(type="string")
    for _ in range(depth):
        chain = Counted(items=chain)
    refs = [{"$ref": "#/$defs/c" + "/items" * level} for level in range(depth)]
    assert _reach({"$defs": {"c": chain}, "allOf": refs}) is False
    objects = depth + 1
    assert len(reads) <= objects + 1  # (and the root's own copy, once)

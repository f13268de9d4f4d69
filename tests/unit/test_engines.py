"""Whichever engine looks first, the findings are the reference's.

jsonschema-rs decides the common valid case quickly; python-jsonschema (the reference)
explains every failure. That is only sound if jsonschema-rs never passes a record that the
reference fails: this differential test checks the two agree on every bundled record and on
many broken variants of each."""

from __future__ import annotations

import copy
import json
import os
from typing import Any

import pytest

from tests.conftest import REPO, require_module
from verifier.schema.bundle import Validators

require_module("jsonschema_rs")
if os.environ.get("VERIFIER_ENGINE") == "reference":
    pytest.skip(
        "the fast engine is switched off (VERIFIER_ENGINE=reference)", allow_module_level=True
    )


def validators() -> Validators:
    docs: dict[str, Any] = {}
    ids: dict[str, str] = {}
    for path in sorted((REPO / "schemas").glob("*.json")):
        rel = f"schemas/{path.name}"
        docs[rel] = json.loads(path.read_text(encoding="utf-8"))
        ids[docs[rel]["$id"]] = rel
    return Validators(docs, ids, "schemas")


def records() -> list[tuple[str, Any]]:
    return [
        (str(p.relative_to(REPO)), json.loads(p.read_text(encoding="utf-8")))
        for p in sorted((REPO / "evidence").rglob("*.json"))
    ]


def variants(value: dict[str, Any]) -> list[dict[str, Any]]:
    """Broken copies: each member deleted, or replaced by values of the wrong type or form."""
    out = []
    stack: list[tuple[Any, list[Any]]] = [(value, [])]
    paths: list[list[Any]] = []
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for key, child in node.items():
                paths.append([*path, key])
                stack.append((child, [*path, key]))
        elif isinstance(node, list):
            for i, child in enumerate(node[:3]):
                paths.append([*path, i])
                stack.append((child, [*path, i]))
    replacements: tuple[Any, ...] = (
        None,
        12345,
        "2026-02-30T00:00:00Z",
        "x",
        [],
        {},
        True,
        -1,
        1.5,
    )
    for path in paths[:400]:
        for replacement in replacements:
            broken = copy.deepcopy(value)
            node = broken
            for part in path[:-1]:
                node = node[part]
            node[path[-1]] = replacement
            out.append(broken)
        broken = copy.deepcopy(value)
        node = broken
        for part in path[:-1]:
            node = node[part]
        if isinstance(node, dict):
            del node[path[-1]]
            out.append(broken)
    return out


@pytest.mark.slow  # every bundled record and its broken variants, both engines: about a minute
@pytest.mark.parametrize(
    ("path", "value"), records(), ids=lambda x: x if isinstance(x, str) else ""
)
def test_the_fast_engine_agrees_with_the_reference(path: str, value: Any) -> None:
    engines = validators()
    schema_path = engines.ids[value["$schema"]]
    fast = engines.fast(schema_path)
    assert fast is not None, "jsonschema-rs refused a bundled schema"
    reference = engines.reference(schema_path)
    assert fast.is_valid(value) and reference.is_valid(value)
    disagreements = []
    for broken in variants(value):
        if fast.is_valid(broken) != reference.is_valid(broken):
            disagreements.append(json.dumps(broken)[:200])
    assert disagreements == []


def test_findings_come_from_the_reference_whichever_engine_looked_first() -> None:
    engines = validators()
    path, value = next(
        r for r in records() if r[0].endswith("e2-hosted-original/runner-result.json")
    )
    broken = copy.deepcopy(value)
    broken["startedAt"] = "yesterday"
    broken["counters"]["toolExecutions"] = "one"
    with_fast, _ = engines.record(path, broken)
    engines._fast = {p: None for p in engines.docs}  # reference alone
    alone, _ = engines.record(path, broken)
    assert with_fast == alone
    assert {f.pointer for f in alone} == {"/startedAt", "/counters/toolExecutions"}


@pytest.mark.parametrize(
    "schema",
    [
        {"type": 12},
        {"properties": {"a": {"minimum": "x"}}},
        {"required": "a"},
        {"$defs": {"x": {"enum": 3}}},
        {"type": "object", "properties": {"a": {"type": "string"}}},
    ],
)
def test_metaschema_checks_agree(schema: dict[str, Any]) -> None:
    import jsonschema_rs
    from jsonschema import Draft202012Validator

    full = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
    assert jsonschema_rs.meta.is_valid(full) == Draft202012Validator(
        Draft202012Validator.META_SCHEMA
    ).is_valid(full)

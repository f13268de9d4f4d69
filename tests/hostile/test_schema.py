"""Hostile schemas and records: patterns built to backtrack, patterns in the ECMA-262 dialect
Python's ``re`` cannot read, schemas nested to exhaust recursion, ``$id``s and ``$ref``s that
URI parsing rejects, pointers with huge indices, leap seconds; and the choice among several
metaschema errors must not depend on the hash seed. Each runs the real CLI under the
harness, with both engines and with the reference engine alone (``VERIFIER_ENGINE``).

To keep the runs few, each test puts its variants side by side in one archive: schema
``schemas/<name>.schema.json`` (``$id`` :func:`sid` of the name) and its record
``evidence/<name>.json``, and checks the findings per file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, write_archive
from tests.hostile.harness import assert_safe, run_cli

DRAFT = "https://json-schema.org/draft/2020-12/schema"
ENGINES = [{}, {"VERIFIER_ENGINE": "reference"}]
ENGINE_IDS = ["both-engines", "reference-alone"]
EVIL = "^(a+)+$"  # exponential for a backtracking engine on "aaa...b"
BUDGET = "^(a|aa)+\\1$"  # needs backtracking (a backreference): over budget on "aaa...b"


def sid(name: str) -> str:
    return f"https://verifier.invalid/schemas/{name}.schema.json"


def schema(name: str, **body: Any) -> dict[str, Any]:
    return {"$schema": DRAFT, "$id": sid(name), **body}


def record(name: str, **body: Any) -> dict[str, Any]:
    return {"$schema": sid(name), **body}


def build(root: Path, schemas: dict[str, dict[str, Any] | str], records: dict[str, Any]) -> Path:
    files: dict[str, str | bytes] = {
        f"schemas/{n}.schema.json": s if isinstance(s, str) else json.dumps(s)
        for n, s in schemas.items()
    }
    files |= {f"evidence/{n}.json": json.dumps(r) for n, r in records.items()}
    return write_archive(root, files)


def check(root: Path, env: dict[str, str], rc: int, codes: list[str]) -> dict[str, list[str]]:
    """Run ``check`` on integrity and validity (the archives have records and no assertion
    spec, on purpose); the finding codes per path (sorted by pointer, as reported)."""
    args = ["check", str(root), "--format", "json", "--stages", "integrity,validity"]
    run = run_cli(args, watch=[root], env=env)
    assert_safe(run, rc=rc, codes=codes)
    out: dict[str, list[str]] = {}
    for f in run.findings():
        out.setdefault(f["path"], []).append(f"{f['code']} {f.get('pointer')}")
    return out


@pytest.mark.parametrize("env", ENGINES, ids=ENGINE_IDS)
def test_catastrophic_patterns_on_failing_records_finish(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """11.4: ``^(a+)+$`` on a failing 30-character value, in every keyword that matches."""
    bad = "a" * 30 + "b"
    keywords: dict[str, dict[str, Any]] = {
        "pattern": {"properties": {"a": {"pattern": EVIL}}},
        "names": {"properties": {"a": {"propertyNames": {"pattern": EVIL}}}},
        "additional": {
            "properties": {"a": {"patternProperties": {EVIL: True}, "additionalProperties": False}}
        },
        "unevaluated": {
            "properties": {"a": {"patternProperties": {EVIL: True}, "unevaluatedProperties": False}}
        },
    }
    schemas: dict[str, dict[str, Any] | str] = {n: schema(n, **b) for n, b in keywords.items()}
    records = {n: record(n, a=bad if n == "pattern" else {bad: 1}) for n in keywords}
    found = check(build(tmp_path / "a", schemas, records), env, 1, ["schema.invalid"])
    assert sorted(found) == sorted(f"evidence/{n}.json" for n in keywords)
    assert all(
        codes and all(c.startswith("schema.invalid /a") for c in codes) for codes in found.values()
    )


@pytest.mark.parametrize("env", ENGINES, ids=ENGINE_IDS)
def test_a_pattern_over_its_budget_is_a_finding_never_a_verdict(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Over budget, inside ``not`` or ``oneOf`` either guess could pass the record."""
    rules: dict[str, Any] = {
        "plain": {"pattern": BUDGET},
        "not": {"not": {"pattern": BUDGET}},
        "oneof": {"oneOf": [{"pattern": BUDGET}, {"type": "integer"}]},
        "lookahead": {"pattern": "^(?=(a|aa)+\\1$)"},
    }
    schemas: dict[str, dict[str, Any] | str] = {
        n: schema(n, properties={"a": r}) for n, r in rules.items()
    }
    records = {n: record(n, a="a" * 40 + "b") for n in rules}
    found = check(build(tmp_path / "a", schemas, records), env, 1, ["schema.pattern-budget"])
    assert found == {f"evidence/{n}.json": ["schema.pattern-budget /$schema"] for n in rules}


ECMA = [  # pattern, a value it matches, a value it does not (ECMA-262, Unicode mode)
    ("^\\p{Letter}+$", "héllo", "héllo1"),
    ("^\\p{L}+$", "Ωμέγα", "a b"),
    ("^\\P{L}+$", "123", "1a"),
    ("^\\d+$", "123", "\u0661\u0662"),
    ("^abc$", "abc", "abc\n"),
    ("^\\w+$", "abc_1", "é"),
    ("^.$", "\U0001f600", "ab"),
]


@pytest.mark.parametrize("env", ENGINES, ids=ENGINE_IDS)
def test_ecma262_patterns_in_both_engines(tmp_path: Path, env: dict[str, str]) -> None:
    """12.1: ``\\p{...}`` compiles and every pattern reads as ECMA-262 in both engines."""
    props = {f"p{i}": {"pattern": p} for i, (p, _, _) in enumerate(ECMA)}
    schemas: dict[str, dict[str, Any] | str] = {"t": schema("t", properties=props)}
    good = record("t", **{f"p{i}": g for i, (_, g, _) in enumerate(ECMA)})
    bad = record("t", **{f"p{i}": b for i, (_, _, b) in enumerate(ECMA)})
    found = check(build(tmp_path / "a", schemas, {"good": good, "bad": bad}), env, 1, [])
    assert found == {"evidence/bad.json": [f"schema.invalid /p{i}" for i in range(len(ECMA))]}


@pytest.mark.parametrize("env", ENGINES, ids=ENGINE_IDS)
def test_a_pattern_that_is_not_ecma262_is_a_bad_schema(tmp_path: Path, env: dict[str, str]) -> None:
    patterns = ["\\Z", "(", "a{2,1}", "(?<n>a)\\k<m>"]
    props = {f"p{i}": {"pattern": p} for i, p in enumerate(patterns)}
    body = schema("t", properties=props, patternProperties={"(?P<x>": True})
    found = check(build(tmp_path / "a", {"t": body}, {}), env, 1, ["schema.bad-schema"])
    assert found == {
        "schemas/t.schema.json": [
            "schema.bad-schema /patternProperties/(?P<x>",
            *(f"schema.bad-schema /properties/p{i}/pattern" for i in range(len(patterns))),
        ]
    }


NESTINGS = {"not": ('"not": {', "}", 1), "props": ('"properties": {"a": {', "}}", 2)}
NESTINGS["anyof"] = ('"anyOf": [{', "}]", 2)


@pytest.mark.parametrize("env", ENGINES, ids=ENGINE_IDS)
def test_a_schema_nested_to_exhaust_recursion_is_a_bad_schema(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """11.7: nesting the parser allows (under 256) but the metaschema check cannot follow."""
    schemas: dict[str, dict[str, Any] | str] = {}
    for kind, (nest, close, per) in NESTINGS.items():
        for leaf in ('"type": "string"', '"type": 12'):
            name = f"{kind}-{'valid' if 'string' in leaf else 'invalid'}"
            depth = 250 // per
            head = f'{{"$schema": "{DRAFT}", "$id": "{sid(name)}", '
            schemas[name] = head + nest * depth + leaf + close * depth + "}"
    within = f'{{"$schema": "{DRAFT}", "$id": "{sid("within")}", ' + '"allOf": [{' * 40
    schemas["within"] = within + '"type": "object"' + "}]" * 40 + "}"
    found = check(build(tmp_path / "a", schemas, {"within": record("within")}), env, 1, [])
    assert sorted(found) == sorted(f"schemas/{n}.schema.json" for n in schemas if n != "within")
    assert all(len(c) == 1 and c[0].startswith("schema.bad-schema /") for c in found.values())


BAD_URIS = ["https://verifier.inval[id/x.json", "http://[::1/x", "http://]/x"]


@pytest.mark.parametrize("env", ENGINES, ids=ENGINE_IDS)
def test_a_uri_that_does_not_parse_is_a_finding(tmp_path: Path, env: dict[str, str]) -> None:
    """11.7: urljoin's ValueError ("Invalid IPv6 URL") on an $id or a $ref, root or nested."""
    schemas: dict[str, dict[str, Any] | str] = {}
    records: dict[str, Any] = {}
    expect: dict[str, list[str]] = {}
    for i, uri in enumerate(BAD_URIS):
        schemas[f"root{i}"] = {
            "$schema": DRAFT,
            "$id": uri,
            "$defs": {"a": True},
            "$ref": "#/$defs/a",
        }
        records[f"root{i}"] = {"$schema": uri}
        expect[f"schemas/root{i}.schema.json"] = ["schema.bad-schema /$id"]
        schemas[f"nested{i}"] = schema(f"nested{i}", **{"$defs": {"a": {"$id": uri, "$ref": "y"}}})
        expect[f"schemas/nested{i}.schema.json"] = ["schema.bad-schema /$defs/a/$id"]
        schemas[f"ref{i}"] = schema(f"ref{i}", properties={"a": {"$id": "sub/", "$ref": uri}})
        records[f"ref{i}"] = record(f"ref{i}", a=1)
        expect[f"schemas/ref{i}.schema.json"] = ["schema.unresolved /properties/a/$ref"]
    found = check(build(tmp_path / "a", schemas, records), env, 1, [])
    for path, codes in expect.items():
        assert found[path] == codes, path
    for i in range(len(BAD_URIS)):  # its record is refused, never validated as if it passed
        assert found[f"evidence/root{i}.json"] == ["schema.unresolved /$schema"]
        assert len(found[f"evidence/ref{i}.json"]) == 1


REFS = {  # $ref -> resolves
    "#/allOf/" + "1" * 5000: False,  # beyond int()'s digit limit
    "#/$defs/" + "9" * 5000: False,
    "#/$defs/a~1b~0c": True,  # RFC 6901 escapes
    "#/$defs/a~2": False,  # an escape RFC 6901 does not define
    "#/$defs/%61": True,  # percent-encoded in the fragment: "a"
    "#nosuchanchor": False,
    "#here": True,
}


@pytest.mark.parametrize("env", ENGINES, ids=ENGINE_IDS)
def test_pointer_and_anchor_refs(tmp_path: Path, env: dict[str, str]) -> None:
    schemas: dict[str, dict[str, Any] | str] = {}
    records: dict[str, Any] = {}
    for i, ref in enumerate(REFS):
        defs = {"a/b~c": True, "a": True, "h": {"$anchor": "here"}}
        schemas[f"s{i}"] = schema(f"s{i}", allOf=[True], **{"$defs": defs, "$ref": ref})
        records[f"s{i}"] = record(f"s{i}")
    found = check(build(tmp_path / "a", schemas, records), env, 1, ["schema.unresolved"])
    for i, resolves in enumerate(REFS.values()):
        assert (f"schemas/s{i}.schema.json" not in found) is resolves
        if not resolves:
            assert found[f"schemas/s{i}.schema.json"] == ["schema.unresolved /$ref"]


WRONG_TYPES: dict[str, dict[str, Any]] = {
    "int-id": {"$id": 5},
    "list-id": {"$id": ["x"]},
    "int-ref": {"properties": {"a": {"$ref": 5}}},
    "object-dynamic-ref": {"properties": {"a": {"$dynamicRef": {}}}},
    "null-nested-id": {"$defs": {"a": {"$id": None}}},
}


@pytest.mark.parametrize("env", ENGINES, ids=ENGINE_IDS)
def test_ids_and_refs_of_the_wrong_type(tmp_path: Path, env: dict[str, str]) -> None:
    schemas: dict[str, dict[str, Any] | str] = {
        n: {**schema(n), **body} for n, body in WRONG_TYPES.items()
    }
    found = check(build(tmp_path / "a", schemas, {}), env, 1, ["schema.bad-schema"])
    assert sorted(found) == sorted(f"schemas/{n}.schema.json" for n in WRONG_TYPES)
    assert all(c[0].startswith("schema.bad-schema") for c in found.values())


@pytest.mark.parametrize("env", ENGINES, ids=ENGINE_IDS)
def test_a_huge_id_is_only_an_id(tmp_path: Path, env: dict[str, str]) -> None:
    huge = "https://verifier.invalid/" + "x" * 500_000
    body = {"$schema": DRAFT, "$id": huge, "$defs": {"a": {"type": "integer"}}}
    body["properties"] = {"n": {"$ref": "#/$defs/a"}}
    root = build(tmp_path / "a", {"t": body}, {"r": {"$schema": huge, "n": "one"}})
    assert check(root, env, 1, []) == {"evidence/r.json": ["schema.invalid /n"]}


def test_a_ref_inside_data_is_not_a_reference(tmp_path: Path) -> None:
    nowhere = {"$ref": "https://example.com/nowhere"}
    body = schema("t", properties={"a": {"const": nowhere, "enum": [nowhere]}})
    root = build(tmp_path / "a", {"t": body}, {"r": record("t", a=nowhere)})
    assert check(root, {}, 0, []) == {}


def test_the_reported_metaschema_errors_do_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    """11.13: every metaschema error is reported, sorted by pointer then message."""
    body = schema("t", type=12, minimum="x", required=3, properties={"a": {"enum": 3}, "b": []})
    root = build(tmp_path / "a", {"t": body}, {})
    outputs = []
    for seed in ("0", "1", "12345"):
        for env in ENGINES:
            run = run_cli(
                ["check", str(root), "--format", "json"],
                watch=[root],
                env={**env, "PYTHONHASHSEED": seed},
            )
            assert_safe(run, rc=1, codes=["schema.bad-schema"])
            outputs.append(run.stdout)
    assert len(set(outputs)) == 1
    stages = json.loads(outputs[0])["stages"]
    pointers = [f["pointer"] for s in stages for f in s["findings"]]
    assert pointers == ["/minimum", "/properties/a/enum", "/properties/b", "/required", "/type"]


ORDERS = [  # t0, t1, passes
    ("1998-12-31T15:59:60-08:00", "1999-01-01T00:00:00Z", True),
    ("1998-12-31T23:59:59.5Z", "1998-12-31T23:59:60Z", True),
    ("1999-01-01T00:00:00Z", "1998-12-31T23:59:60Z", False),
]


@pytest.mark.parametrize("env", ENGINES, ids=ENGINE_IDS)
def test_leap_seconds_in_records_and_in_an_order_assertion(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """12.3: a leap second is valid only at 23:59:60 UTC, and ``order`` compares it."""
    times = schema("t", properties={"t0": {"format": "date-time"}, "t1": {"format": "date-time"}})
    assertions = [
        {
            "id": f"leap{i}",
            "kind": "order",
            "description": "t0 is before t1.",
            "source": ["test"],
            "selects": [
                {"file": f"evidence/o{i}.json", "pointer": "/t0"},
                {"file": f"evidence/o{i}.json", "pointer": "/t1"},
            ],
        }
        for i in range(len(ORDERS))
    ]
    spec = {"$schema": sid("assertion-spec"), "assertions": assertions}
    records: dict[str, Any] = {
        f"o{i}": record("t", t0=a, t1=b) for i, (a, b, _) in enumerate(ORDERS)
    }
    records["wrong-minute"] = record("t", t0="1998-12-31T23:58:60Z")
    records["assertions"] = spec
    schemas: dict[str, dict[str, Any] | str] = {
        n: (REPO / "schemas" / f"{n}.schema.json").read_text(encoding="utf-8")
        for n in ("assertion-spec", "common")
    }
    schemas["t"] = times
    run = run_cli(
        ["check", str(build(tmp_path / "a", schemas, records)), "--format", "json"],
        watch=[tmp_path / "a"],
        env=env,
    )
    assert_safe(run, rc=1, codes=["schema.invalid", "assertion.failed"])
    assert [(f["path"], f["pointer"]) for f in run.findings("schema.invalid")] == [
        ("evidence/wrong-minute.json", "/t0")
    ]
    statuses = [a["status"] for a in run.report()["assertions"]]
    assert statuses == ["passed" if ok else "failed" for _, _, ok in ORDERS]

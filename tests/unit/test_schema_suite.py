"""The official JSON-Schema-Test-Suite (selected Draft 2020-12 files, tests/data/) through both
engines as the verifier builds them.

Each case's schema goes into a ``Validators`` with the suite's remote schemas beside it (as
the other schemas of an archive would be); its ``$ref``s must resolve (no
``schema.unresolved``), and each test's verdict must be the suite's in the reference engine
and in the fast engine. References, nested schema resources, anchors and dynamic references
test base-URI resolution; the pattern files test the ECMA-262 dialect; the format files test
the formats the project asserts (docs/format-policy.md).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from verifier.schema.bundle import Validators
from verifier.schema.format_policy import ASSERTED

SUITE = REPO / "tests" / "data" / "json-schema-test-suite"
CASES = SUITE / "tests" / "draft2020-12"
REMOTE = "http://localhost:1234/"

# Retrieving a schema by a URL that is not its $id needs the network (or a server): offline,
# schemas are known by their $id only, so these must be schema.unresolved (and are checked).
BY_URL_NOT_ID = {
    ("refRemote.json", "remote HTTP ref with different $id"),
    ("refRemote.json", "remote HTTP ref with different URN $id"),
}


def _remotes() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for path in sorted((SUITE / "remotes").rglob("*.json")):
        value = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(value, dict):
            out[REMOTE + path.relative_to(SUITE / "remotes").as_posix()] = value
    return out


REMOTES = _remotes()


def _cases() -> list[Any]:
    params = []
    for path in sorted(CASES.rglob("*.json")):
        name = path.relative_to(CASES).as_posix()
        for i, case in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            params.append(pytest.param(name, i, case, id=f"{name}:{i}:{case['description']}"))
    return params


def _validators(schema: dict[str, Any], index: int) -> Validators:
    root = dict(schema)
    root.setdefault("$id", f"https://verifier.invalid/suite/{index}.json")
    docs: dict[str, Any] = {"schemas/case.json": root}
    ids = {root["$id"]: "schemas/case.json"}
    for url, remote in REMOTES.items():
        doc = {"$id": url, **remote}
        if doc["$id"] not in ids:
            docs[f"schemas/remote/{url[len(REMOTE) :]}"] = doc
            ids[doc["$id"]] = f"schemas/remote/{url[len(REMOTE) :]}"
    return Validators(docs, ids, "schemas")


@pytest.mark.parametrize(("name", "index", "case"), _cases())
def test_suite_case(name: str, index: int, case: dict[str, Any]) -> None:
    schema = case["schema"]
    if not isinstance(schema, dict):
        pytest.skip("a boolean schema cannot be an archive's schema file")
    engines = _validators(schema, index)
    unresolved = [f for f in engines.schema_findings() if f.path == "schemas/case.json"]
    if (name, case["description"]) in BY_URL_NOT_ID:
        assert [f.code for f in unresolved] == ["schema.unresolved"]
        return
    assert unresolved == []
    reference = engines.reference("schemas/case.json")
    fast = engines.fast("schemas/case.json")
    if os.environ.get("VERIFIER_ENGINE") != "reference":
        assert fast is not None, "jsonschema-rs refused a schema the suite calls valid"
    for test in case["tests"]:
        assert reference.is_valid(test["data"]) is test["valid"], test["description"]
        if fast is not None:
            assert fast.is_valid(test["data"]) is test["valid"], test["description"]


def test_every_asserted_format_has_suite_cases() -> None:
    present = {p.stem for p in (CASES / "optional" / "format").glob("*.json")}
    assert set(ASSERTED) <= present


def test_the_vendored_suite_is_whole() -> None:
    assert (SUITE / "LICENSE").is_file()
    assert len(_cases()) > 100
    assert all(isinstance(v, dict) for v in REMOTES.values())
    assert Path(SUITE / "remotes" / "draft2020-12" / "subSchemas.json").is_file()

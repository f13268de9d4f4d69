"""The tool's own schemas (its outputs, the baseline it reads, the harness-container record
schema it defines) are package data in ``verifier/schemas/`` and none of them is part of the
bundled archive (issue 36): the archive's ``schemas/`` holds only what its records and its
documents (the assertion spec, the case catalogue) declare or refer to."""

from __future__ import annotations

import fnmatch
import json
import re
import tomllib
from importlib import resources
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource

from tests.conftest import REPO
from verifier.schema import own
from verifier.schema.walk import join, subschemas

TOOL_IDS = {own.BASE + name for name in own.NAMES}


def listed() -> list[str]:
    lines = (REPO / "manifest.sha256").read_text(encoding="utf-8").splitlines()
    return [line.split("  ", 1)[1] for line in lines if line.strip()]


def test_the_bundled_manifest_lists_no_tool_schema() -> None:
    paths = listed()
    schemas = [p for p in paths if p.startswith("schemas/")]
    assert schemas  # the check looked at something
    assert not {p.removeprefix("schemas/") for p in schemas} & set(own.NAMES)
    for path in schemas:  # nor one of them under another name
        assert json.loads((REPO / path).read_text(encoding="utf-8"))["$id"] not in TOOL_IDS
    on_disk = sorted(f"schemas/{p.name}" for p in (REPO / "schemas").iterdir())
    assert on_disk == sorted(schemas)  # the folder holds no unlisted leftover


def test_the_bundled_archive_keeps_only_the_schemas_its_documents_name() -> None:
    """Every schema of the bundled archive is declared by a record or a document
    (``$schema``), or referred to by one that is: nothing kept that the archive does not use."""
    paths = listed()
    docs = {
        p: json.loads((REPO / p).read_text(encoding="utf-8"))
        for p in paths
        if p.startswith("schemas/")
    }
    by_id = {d["$id"]: p for p, d in docs.items()}
    wanted = [
        by_id[json.loads((REPO / p).read_text(encoding="utf-8"))["$schema"]]
        for p in paths
        if p.startswith("evidence/") and p.endswith(".json")
    ]
    used: set[str] = set()
    while wanted:
        path = wanted.pop()
        if path in used:
            continue
        used.add(path)
        for sub in subschemas(docs[path], docs[path]["$id"]):
            ref = sub.node.get("$ref")
            if isinstance(ref, str):
                assert sub.base is not None, sub.error
                target = join(sub.base, ref).split("#", 1)[0]
                wanted.append(by_id[target])
    assert sorted(used) == sorted(docs)


@pytest.mark.parametrize("name", own.NAMES)
def test_every_tool_schema_is_package_data(name: str) -> None:
    """Read through importlib.resources as an installed wheel has it: a Draft 2020-12 schema
    whose ``$id`` is the one the code names, and every ``$ref`` in it resolves among the tool's
    own schemas (no longer checked by ``verify-evidence check`` of the bundled archive)."""
    data = resources.files("verifier").joinpath("schemas").joinpath(name)
    assert data.is_file()
    schema = own.load(name)
    assert schema["$id"] == own.schema_id(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)

    def refuse(uri: str) -> Resource[Any]:
        raise NoSuchResource(ref=uri)  # type: ignore[call-arg]

    registry: Registry[Any] = Registry(retrieve=refuse).with_resources(  # type: ignore[call-arg]
        (own.schema_id(n), Resource.from_contents(own.load(n))) for n in own.NAMES
    )
    for sub in subschemas(schema, schema["$id"]):
        ref = sub.node.get("$ref")
        if isinstance(ref, str):
            assert sub.base is not None, sub.error
            registry.resolver(sub.base).lookup(ref)  # raises when it does not resolve


def test_the_package_folder_holds_exactly_the_named_schemas() -> None:
    folder = resources.files("verifier").joinpath("schemas")
    assert sorted(p.name for p in folder.iterdir() if p.name.endswith(".json")) == sorted(own.NAMES)


def test_the_wheel_takes_every_tool_schema() -> None:
    """pyproject's package data takes each schema (an editable install would find them
    without it; a wheel would not)."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["verifier"]
    for name in own.NAMES:
        assert any(fnmatch.fnmatch(f"schemas/{name}", p) for p in patterns), name


def test_every_schema_the_code_names_is_where_it_says() -> None:
    """A ``verifier/schemas/NAME`` the package's source names is package data, and a schema
    id the code compares with (the audit record's, the container records') is a tool
    schema's."""
    from verifier.audit import SCHEMA_ID
    from verifier.transcripts.archive import CONTAINER_SCHEMA

    assert {SCHEMA_ID, CONTAINER_SCHEMA} <= TOOL_IDS
    named: set[str] = set()
    for path in (REPO / "verifier").rglob("*.py"):
        named.update(re.findall(r"verifier/schemas/([\w.-]+\.json)", path.read_text("utf-8")))
    assert named  # the views name their schemas
    assert named <= set(own.NAMES), named - set(own.NAMES)

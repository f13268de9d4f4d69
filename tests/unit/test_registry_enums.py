"""The JSON Schemas that list a plug-in family's members are committed files: each list must
be its registry's members, in the registry's order (a member added to a registry fails here
until the schema says it too)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from verifier.assertions import KINDS
from verifier.authenticity.registry import FORMATS
from verifier.registry import Plugin, Registry
from verifier.sources import LAYOUTS, SOURCES
from verifier.transcripts import SHAPES
from verifier.transcripts.containers import CONTAINERS

ROOT = Path(__file__).resolve().parents[2]


def at(document: Any, pointer: str) -> Any:
    for part in pointer.strip("/").split("/"):
        document = document[int(part) if isinstance(document, list) else part]
    return document


def kind_consts(schema: Any) -> list[Any]:
    """The assertion spec's kinds: the ``const`` of each branch of its ``oneOf``."""
    return [
        branch["properties"]["kind"]["const"] for branch in at(schema, "/$defs/assertion/oneOf")
    ]


def enum_at(pointer: str) -> Callable[[Any], list[Any]]:
    return lambda schema: list(at(schema, pointer)["enum"])


#: (schema file, what it lists, the registries' members it must list)
LISTS: list[tuple[str, Callable[[Any], list[Any]], Callable[[], list[Any]]]] = [
    ("schemas/assertion-spec.schema.json", kind_consts, lambda: [*KINDS]),
    (
        "verifier/schemas/report.schema.json",
        enum_at("/$defs/signature/properties/format"),
        lambda: [*FORMATS, "unknown"],
    ),
    (
        "verifier/schemas/transcript-report.schema.json",
        enum_at("/$defs/file/properties/shape"),
        lambda: [*SHAPES, *CONTAINERS, None],
    ),
    (
        "verifier/schemas/audit.schema.json",
        enum_at("/$defs/source/properties/kind"),
        lambda: [*SOURCES, *LAYOUTS],
    ),
    (
        "verifier/schemas/audit.schema.json",
        enum_at("/$defs/source/properties/container"),
        lambda: [*SOURCES],
    ),
]


def differs(listed: Iterable[Any], members: Iterable[Any]) -> str | None:
    """Why a schema's list is not the registry's members (``None``: it is)."""
    listed, members = list(listed), list(members)
    if listed == members:
        return None
    extra = [m for m in listed if m not in members]
    lacking = [m for m in members if m not in listed]
    return f"lists {listed}, the registry {members} (extra {extra}, lacking {lacking})"


@pytest.mark.parametrize(
    ("path", "listed", "members"),
    LISTS,
    ids=["assertion-kinds", "signature-formats", "shapes", "source-kinds", "containers"],
)
def test_each_schema_lists_its_registrys_members(
    path: str, listed: Callable[[Any], list[Any]], members: Callable[[], list[Any]]
) -> None:
    schema = json.loads((ROOT / path).read_text(encoding="utf-8"))
    assert differs(listed(schema), members()) is None


def test_the_views_page_lists_every_format_of_each_family() -> None:
    """docs/views.md's table names each report family's registry and its formats in order."""
    from verifier.views.check import CHECK
    from verifier.views.coverage import COVERAGE
    from verifier.views.table import TABLE
    from verifier.views.transcript import TRANSCRIPT

    page = (ROOT / "docs/views.md").read_text(encoding="utf-8")
    rows = {
        cells[2].strip("`"): [f.strip() for f in cells[3].split(",")]
        for line in page.splitlines()
        if line.startswith("| `views/")
        for cells in [[c.strip() for c in line.strip("|").split("|")]]
    }
    families: dict[str, Iterable[str]] = {
        "CHECK": CHECK,
        "TABLE": TABLE,
        "TRANSCRIPT": TRANSCRIPT,
        "COVERAGE": COVERAGE,
    }
    assert set(rows) == set(families)
    for name, registry in families.items():
        assert differs(rows[name], registry) is None, name


def test_a_member_the_schema_does_not_list_fails() -> None:
    """The comparison above can fail: a registry with one member more than the schema."""
    schema = json.loads((ROOT / "schemas/assertion-spec.schema.json").read_text("utf-8"))
    more: Registry[object] = Registry(
        "assertion kind",
        *(KINDS.entry(name) for name in KINDS),
        Plugin("new-kind", "verifier.assertions.count:COUNT"),
    )
    problem = differs(kind_consts(schema), more)
    assert problem is not None
    assert "lacking ['new-kind']" in problem
    assert differs([*kind_consts(schema), "gone"], KINDS) is not None  # and one fewer
    assert differs(reversed(kind_consts(schema)), KINDS) is not None  # and another order

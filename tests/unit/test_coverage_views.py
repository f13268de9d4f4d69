"""The coverage report's views: one registry that is the CLI's choices, every view renders
every section (the Mutation section too, from a hand-built :class:`Mutation`), the JSON is
valid against ``verifier/schemas/coverage.schema.json``, and archive text stays inert in each."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.conftest import REPO
from verifier.commands.coverage import CoverageFormat
from verifier.coverage import audit
from verifier.coverage.report import (
    CoverageReport,
    Excuse,
    FileCoverage,
    Leaf,
    LeafStatus,
    Mutant,
    MutantOutcome,
    Mutation,
)
from verifier.findings import CODES, Finding, Stage
from verifier.views.coverage import COVERAGE as FORMATS
from verifier.views.coverage.rich_view import render as render_rich

SCHEMA = REPO / "verifier" / "schemas" / "coverage.schema.json"
HOSTILE = "\x1b[31mred\x1b]0;title\x07 <script>x</script> [a](javascript:1) | *b* `c`\ninjected"
ESC = "\x1b"


def validate(data: Any) -> None:
    from jsonschema import Draft202012Validator

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    errors = list(Draft202012Validator(schema).iter_errors(data))
    assert not errors, "; ".join(f"{e.json_path}: {e.message}" for e in errors[:5])


def hand_built(text: str = "plain") -> CoverageReport:
    """A report with every section filled, ``text`` in each place archive text can reach."""
    path = f"evidence/{text}.json"
    leaves = [
        Leaf("/$schema", LeafStatus.EXCUSED, "string", ("the record's declared schema",)),
        Leaf(f"/{text}/a", LeafStatus.COVERED, "integer", ("count.a",), True),
        Leaf(f"/{text}/b", LeafStatus.COVERED, "string", ("evidence/cases.json#/cases/0",)),
        Leaf(f"/{text}/c", LeafStatus.UNCOVERED, "boolean"),
        Leaf("/note", LeafStatus.EXCUSED, "string", (f"reason {text}",)),
    ]
    report = CoverageReport(
        "0.1.0",
        f"src-{text}",
        "manifest.sha256",
        "evidence/assertions.json",
        "evidence/cases.json",
        files=[FileCoverage(path, leaves)],
        excuses=[
            Excuse(path, "/note", f"reason {text}", "/unasserted/0", 1),
            Excuse("evidence/*.json", f"/{text}", "matches nothing", "/unasserted/1", 0),
        ],
        not_audited=[(f"evidence/{text}-broken.json", "it could not be read or parsed as JSON")],
        findings=[
            Finding("coverage.uncovered", path, "No assertion compares this value", f"/{text}/c"),
            Finding("coverage.unread", f"evidence/{text}-broken.json", f"unread {text}"),
            Finding("coverage.survived", path, f"survived {text}", f"/{text}/a"),
        ],
        mutation=Mutation(
            seed=7,
            max_mutants=10,
            time_budget=30.0,
            mutants=[
                Mutant(path, f"/{text}/a", MutantOutcome.KILLED, 1, 2, "", ("count.a",)),
                Mutant(path, f"/{text}/b", MutantOutcome.SURVIVED, "x", text, f"rule {text}"),
                Mutant(path, "/other", MutantOutcome.SKIPPED, True, None, "const: no other"),
            ],
            not_run=1,
        ),
    )
    return report


def test_the_cli_choices_are_the_registry() -> None:
    assert {f.value for f in CoverageFormat} == set(FORMATS) | {"auto"}


def test_the_json_schema_lists_every_coverage_code() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    enum = schema["$defs"]["finding"]["properties"]["code"]["enum"]
    assert set(enum) == {code for code, (stage, _) in CODES.items() if stage is Stage.COVERAGE}
    assert schema["$id"].startswith("https://verifier.invalid/schemas/")


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_view_renders_the_bundled_archive_deterministically(name: str) -> None:
    first = FORMATS[name](audit(REPO))
    assert first == FORMATS[name](audit(REPO)) and first.endswith("\n")


@pytest.mark.parametrize("name", [*sorted(FORMATS), "rich"])
def test_every_view_shows_every_section(name: str) -> None:
    report = hand_built()
    shown = render_rich(report, width=400) if name == "rich" else FORMATS[name](report)
    if name == "rich":
        shown = re.sub("\x1b\\[[0-9;]*m", "", shown)
    for expected in (
        "src-plain",
        "manifest.sha256",
        "evidence/assertions.json",
        "evidence/cases.json",
        "/plain/c",  # the uncovered leaf
        "reason plain",  # an excuse by reason and its entry
        "matches nothing",
        "evidence/plain-broken.json",  # not audited
        "coverage.survived",  # a finding
        "rule plain",  # a survivor's rule, and the value tried
        '"plain"',
    ):
        assert expected in shown, (name, expected)
    if name != "json":
        assert "50%" in shown  # the mutation score: one killed of two run
        assert "66.67%" in shown  # coverage: two covered of three that need covering


def test_the_json_of_a_report_with_a_mutation_is_valid() -> None:
    data = json.loads(FORMATS["json"](hand_built()))
    validate(data)
    assert data["mutation"]["score"] == 50.0
    assert [m["outcome"] for m in data["mutation"]["mutants"]] == ["killed", "survived", "skipped"]


def test_the_json_of_the_bundled_archive_is_valid() -> None:
    validate(json.loads(FORMATS["json"](audit(REPO))))


def test_json_keys_are_sorted() -> None:
    text = FORMATS["json"](hand_built())
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("name", ["text", "markdown", "rich"])
def test_archive_text_stays_inert(name: str) -> None:
    report = hand_built(HOSTILE)
    shown = render_rich(report, width=400) if name == "rich" else FORMATS[name](report)
    if name == "rich":  # rich's own colour codes are SGR sequences; nothing else may be there
        shown = re.sub("\x1b\\[[0-9;]*m", "", shown)
    assert ESC not in shown and "\x07" not in shown
    assert "\ninjected" not in shown  # a newline in a name never starts a line
    assert "\\x1b" in shown  # shown as an escape instead
    if name == "markdown":
        assert "<script>" not in shown and "[a](javascript:1)" not in shown
        assert "*b*" not in shown and "`c`" not in shown
        widths: set[int] = set()  # no forged table cell: each table's rows agree
        for line in [*shown.splitlines(), ""]:
            if line.startswith("|"):
                widths.add(len(re.findall(r"(?<!\\)\|", line)))
            else:
                assert len(widths) <= 1, shown
                widths = set()


def test_json_keeps_archive_text_exactly() -> None:
    data = json.loads(FORMATS["json"](hand_built(HOSTILE)))
    validate(data)
    assert data["mutation"]["mutants"][1]["tried"] == HOSTILE
    assert data["excuses"][0]["reason"] == f"reason {HOSTILE}"


def test_the_text_view_of_a_clean_report_says_no_findings() -> None:
    report = hand_built()
    report.findings = []
    assert "No findings." in FORMATS["text"](report)
    assert "No findings." in FORMATS["markdown"](report)

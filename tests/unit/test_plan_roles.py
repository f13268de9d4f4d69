"""A file's role in the plan is decided once (RecordPlan.classify) and says what parsed(),
inner() and early() say together, for every kind of name: records, the spec, the catalogue,
schemas, transcript containers the spec declares, files outside the content root."""

from __future__ import annotations

import pytest

from verifier.plan.records import RecordPlan

NAMES = [
    "c/evidence/a.json",
    "c/evidence/sub/b.json",
    "c/evidence/assertions.json",
    "c/evidence/cases.json",
    "c/evidence/notes.txt",
    "c/schemas/x.schema.json",
    "c/schemas/readme.md",
    "c/logs/run.jsonl",
    "c/logs/other.txt",
    "c/other.json",
    "evidence/a.json",
    "x/c/evidence/a.json",
    "c/schemas/evidence/a.json",
]


def _old_role(plan: RecordPlan, name: str) -> tuple[str, str | None]:
    """The role as the plan decided it before classify: from three separate questions."""
    role, inner = "other", None
    if plan.parsed(name):
        inner = plan.inner(name)
        if plan.early(name):
            role = "document" if inner is not None else "schema"
        elif inner is not None:
            role = "record"
    return role, inner


@pytest.mark.parametrize(
    "containers", [(), (("logs/*.jsonl", None, False, "/transcripts/0/files"),)]
)
@pytest.mark.parametrize("prefix", ["c/", ""])
def test_classify_says_what_parsed_inner_and_early_say(
    containers: tuple[tuple[str, str | None, bool, str], ...], prefix: str
) -> None:
    plan = RecordPlan(prefix, containers=containers)
    names = NAMES if prefix else [n.removeprefix("c/") for n in NAMES]
    roles = {name: plan.classify(name) for name in names}
    assert roles == {name: _old_role(plan, name) for name in names}
    assert {role for role, _ in roles.values()} == {"record", "document", "schema", "other"}
    if containers:
        assert roles[prefix + "logs/run.jsonl"] == ("record", "logs/run.jsonl")


@pytest.mark.parametrize(
    "containers", [(), (("logs/*.jsonl", None, False, "/transcripts/0/files"),)]
)
@pytest.mark.parametrize("prefix", ["c/", ""])
def test_the_classifier_made_once_per_run_says_what_classify_says(
    containers: tuple[tuple[str, str | None, bool, str], ...], prefix: str
) -> None:
    plan = RecordPlan(prefix, containers=containers)
    names = NAMES if prefix else [n.removeprefix("c/") for n in NAMES]
    names += [prefix + "logs/run.json", prefix + "schemas/x.jsonl", prefix + "evidence/a.jsonl"]
    classify = plan.classifier()
    assert [classify(name) for name in names] == [plan.classify(name) for name in names]

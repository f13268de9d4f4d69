"""The bundled archive's spec covers every recorded value: each leaf of each record is compared
by an assertion (not only displayed by a catalogue cell), or excused by provenance, ``$schema``
or an ``unasserted`` entry whose reason says why. Breaking a copy of the spec (an assertion or
an excuse removed, an excuse that excuses nothing) shows the finding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, copy_bundled, rewrite_manifest
from verifier.coverage import CoverageReport, LeafStatus, MutationOptions, audit
from verifier.coverage.measure import ancestors
from verifier.coverage.report import MutantOutcome
from verifier.json.pointer import Glob

SPEC = "evidence/assertions.json"
CASES = "evidence/cases.json"
DIAGNOSTIC = "evidence/e8-preflight/diagnostic.json"
READBACK = "evidence/e3-hosted-readback/readback.json"
STRIPE = "evidence/e7-stripe-readback/payment-intents.json"
SHAPE = "evidence/e9-webhook-handler/stored-record-shape.json"
HOSTED = "evidence/e2-hosted-original/runner-result.json"


@pytest.fixture(scope="module")
def bundled() -> CoverageReport:
    return audit(REPO)


def spec_of(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / SPEC).read_text(encoding="utf-8"))
    return data


def edit(root: Path, name: str, change: Any) -> None:
    data = json.loads((root / name).read_text(encoding="utf-8"))
    change(data)
    (root / name).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def with_spec(tmp_path: Path, change: Any, catalogue: Any = None) -> CoverageReport:
    """The coverage of a copy of the bundled archive whose spec ``change`` (and catalogue,
    ``catalogue``) edited in place, the manifest rewritten: only the coverage differs."""
    root = copy_bundled(tmp_path / "archive")
    edit(root, SPEC, change)
    if catalogue is not None:
        edit(root, CASES, catalogue)
    rewrite_manifest(root)
    report = audit(root)
    assert report.check_findings == 0  # the copy still passes check: only coverage differs
    return report


def drop_assertion(assertion_id: str) -> Any:
    def change(spec: dict[str, Any]) -> None:
        before = len(spec["assertions"])
        spec["assertions"] = [a for a in spec["assertions"] if a["id"] != assertion_id]
        assert len(spec["assertions"]) == before - 1

    return change


def leaf_status(report: CoverageReport, path: str, pointer: str) -> tuple[LeafStatus, bool]:
    for file in report.files:
        if file.path == path:
            for leaf in file.leaves:
                if leaf.pointer == pointer:
                    return leaf.status, leaf.asserted
    raise AssertionError(f"{path}#{pointer} is not a leaf of the audit")


def codes_at(report: CoverageReport) -> list[tuple[str, str, str | None]]:
    return [(f.code, f.path, f.pointer) for f in report.findings]


def test_the_bundled_archive_passes_check_and_has_no_uncovered_value(
    bundled: CoverageReport,
) -> None:
    assert bundled.check_findings == 0
    assert bundled.counts["uncovered"] == 0
    assert bundled.counts["covered"] > 0
    assert bundled.findings == []  # no uncovered leaf, no unused excuse, nothing unread
    assert bundled.percent == 100.0


def test_every_covered_value_of_the_bundled_archive_is_asserted(bundled: CoverageReport) -> None:
    """A value only a catalogue cell reads is displayed, not checked: it could change and
    check would still pass, so each covered leaf must be compared by some assertion."""
    only_catalogue = [
        (f.path, leaf.pointer)
        for f in bundled.files
        for leaf in f.leaves
        if leaf.status is LeafStatus.COVERED and not leaf.asserted
    ]
    assert only_catalogue == []


def test_every_unasserted_entry_is_scoped_used_and_gives_its_own_reason(
    bundled: CoverageReport,
) -> None:
    entries = spec_of(REPO)["unasserted"]
    assert entries, "the bundled spec lists its deliberately unasserted values"
    assert len(bundled.excuses) == len(entries)
    reasons = [e["reason"] for e in entries]
    assert len(set(reasons)) == len(reasons), "each entry says why in its own words"
    keys = [(e["file"], e["pointer"]) for e in entries]
    assert len(set(keys)) == len(keys)
    for entry, excuse in zip(entries, bundled.excuses, strict=True):
        assert excuse.matched > 0, entry  # it excuses something (else: coverage.unused-excuse)
        assert len(entry["reason"].split()) >= 8, entry  # a reason, not a label
        # scoped: a pointer below the root, never a catch-all over whole records
        assert entry["pointer"].startswith("/") and entry["pointer"].strip("/*"), entry


def test_no_unasserted_entry_claims_a_value_something_compares(bundled: CoverageReport) -> None:
    """An excuse is read as 'nothing checks this'; it must not also match an asserted value
    (that would misdescribe the spec to a reader of the list)."""
    entries = [(Glob(e["file"]), Glob(e["pointer"]), e) for e in spec_of(REPO)["unasserted"]]
    overlaps = []
    for file in bundled.files:
        for leaf in file.leaves:
            if leaf.status is not LeafStatus.COVERED:
                continue
            for fglob, pglob, entry in entries:
                if fglob.match(file.path) and any(pglob.match(a) for a in ancestors(leaf.pointer)):
                    overlaps.append((file.path, leaf.pointer, entry["pointer"]))
    assert overlaps == []


def test_an_empty_array_an_assertion_counts_is_asserted(bundled: CoverageReport) -> None:
    # e9.downstream-calls counts /downstreamCalls (empty): its length is all there is to it
    assert leaf_status(bundled, SHAPE, "/downstreamCalls") == (LeafStatus.COVERED, True)


def test_removing_an_assertion_leaves_its_value_uncovered(tmp_path: Path) -> None:
    report = with_spec(tmp_path, drop_assertion("e8.failure.setting"))
    assert codes_at(report) == [("coverage.uncovered", DIAGNOSTIC, "/failure/setting")]


def test_removing_an_outcome_assertion_leaves_it_to_the_catalogue_only(tmp_path: Path) -> None:
    dropped = "e3.terminal-tool-result.outcome"

    def unname(catalogue: dict[str, Any]) -> None:
        cell = catalogue["cases"][1]["outcomes"][1]
        assert cell["select"]["pointer"] == "/terminalToolResult/outcome"
        cell["assertions"].remove(dropped)

    report = with_spec(tmp_path, drop_assertion(dropped), unname)
    # the table still shows the cell, so it is covered, but no assertion compares it
    assert leaf_status(report, READBACK, "/terminalToolResult/outcome") == (
        LeafStatus.COVERED,
        False,
    )


def test_removing_the_count_of_an_empty_array_leaves_it_uncovered(tmp_path: Path) -> None:
    report = with_spec(tmp_path, drop_assertion("e9.downstream-calls"))
    assert codes_at(report) == [("coverage.uncovered", SHAPE, "/downstreamCalls")]


def test_removing_an_unasserted_entry_leaves_its_values_uncovered(tmp_path: Path) -> None:
    def change(spec: dict[str, Any]) -> None:
        spec["unasserted"] = [e for e in spec["unasserted"] if e["pointer"] != "/response/url"]

    report = with_spec(tmp_path, change)
    assert codes_at(report) == [("coverage.uncovered", STRIPE, "/response/url")]


def test_an_unasserted_entry_over_asserted_values_is_an_unused_excuse(tmp_path: Path) -> None:
    def change(spec: dict[str, Any]) -> None:
        spec["unasserted"].append(
            {"file": STRIPE, "pointer": "/response/data/*/id", "reason": "never needed"}
        )

    report = with_spec(tmp_path, change)
    at = f"/unasserted/{len(spec_of(REPO)['unasserted'])}"
    assert [(f.code, f.pointer) for f in report.findings] == [("coverage.unused-excuse", at)]


def placeholder_mutants(report: CoverageReport, path: str, pointer: str) -> list[MutantOutcome]:
    assert report.mutation is not None
    return [m.outcome for m in report.mutation.mutants if (m.path, m.pointer) == (path, pointer)]


def test_a_placeholder_only_ordered_survives_as_no_finding_until_unlisted(tmp_path: Path) -> None:
    """E2's acceptance time is a placeholder the order assertions relate but nothing pins:
    its surviving mutant is skipped with the reason while provenance lists it, and becomes a
    coverage.survived finding once the record no longer says it is a placeholder."""
    options = MutationOptions(workers=1, max_mutants=None)
    bundled = audit(REPO, mutation=options)
    assert bundled.mutation is not None
    assert bundled.mutation.counts()["survived"] == 0
    assert placeholder_mutants(bundled, HOSTED, "/acceptance/recordedAt") == [MutantOutcome.SKIPPED]
    root = copy_bundled(tmp_path / "archive")
    edit(root, HOSTED, lambda d: d["provenance"]["placeholders"].remove("/acceptance/recordedAt"))
    rewrite_manifest(root)
    report = audit(root, mutation=options)
    assert placeholder_mutants(report, HOSTED, "/acceptance/recordedAt") == [MutantOutcome.SURVIVED]
    assert [(f.code, f.pointer) for f in report.findings if f.code == "coverage.survived"] == [
        ("coverage.survived", "/acceptance/recordedAt")
    ]

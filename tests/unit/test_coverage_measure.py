"""``verifier.coverage.measure``: which leaves each assertion kind and each catalogue cell
covers, what is excused and why, and the findings for what cannot be measured.

Each test writes a spec (and, where it matters, a catalogue) into a copy of the
``verify-evidence init`` scaffold, whose run record has counters, a receipt, a readback,
an acceptance result and a three-message transcript, and audits it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, rewrite_manifest
from verifier.authoring.scaffold import scaffold
from verifier.coverage import audit
from verifier.coverage.measure import PROVENANCE_REASON, SCHEMA_REASON
from verifier.coverage.report import CoverageReport, Leaf, LeafStatus

RUN = "evidence/example-run/run.json"
READBACK = "evidence/example-run/readback.json"
SPEC_SCHEMA = "https://verifier.invalid/schemas/assertion-spec.schema.json"
COUNTERS = ("toolExecutions", "gatewayRequests", "createRequests")


def sel(pointer: str, file: str = RUN) -> dict[str, str]:
    return {"file": file, "pointer": pointer}


def rule(name: str, kind: str, **params: Any) -> dict[str, Any]:
    return {"id": name, "kind": kind, "description": f"{kind} under test", **params}


def archive(
    tmp_path: Path,
    assertions: list[dict[str, Any]],
    unasserted: list[dict[str, str]] | None = None,
    cases: list[dict[str, Any]] | None = None,
) -> Path:
    """The scaffold with this spec; its catalogue replaced by ``cases``, or removed."""
    root = tmp_path / "archive"
    scaffold(root)
    spec: dict[str, Any] = {
        "$schema": SPEC_SCHEMA,
        "description": "a spec under test",
        "assertions": assertions,
    }
    if unasserted is not None:
        spec["unasserted"] = unasserted
    (root / "evidence/assertions.json").write_text(json.dumps(spec), encoding="utf-8")
    catalogue = root / "evidence/cases.json"
    if cases is None:
        catalogue.unlink()
    else:
        data = json.loads(catalogue.read_text(encoding="utf-8"))
        data["cases"] = cases
        catalogue.write_text(json.dumps(data), encoding="utf-8")
    rewrite_manifest(root)
    return root


def measured(tmp_path: Path, assertions: list[dict[str, Any]], **more: Any) -> CoverageReport:
    report = audit(archive(tmp_path, assertions, **more))
    assert report.check_findings == 0, [f.to_dict() for f in report.findings]
    return report


def leaves(report: CoverageReport, path: str = RUN) -> dict[str, Leaf]:
    (found,) = [f for f in report.files if f.path == path]
    return {leaf.pointer: leaf for leaf in found.leaves}


def covered(report: CoverageReport, path: str = RUN) -> set[str]:
    return {p for p, leaf in leaves(report, path).items() if leaf.status is LeafStatus.COVERED}


def codes(report: CoverageReport) -> set[str]:
    return {f.code for f in report.findings}


def test_equals_covers_the_whole_subtree_it_selects(tmp_path: Path) -> None:
    report = measured(
        tmp_path,
        [rule("c", "equals", select=sel("/counters"), value=dict.fromkeys(COUNTERS, 1))],
    )
    found = leaves(report)
    assert covered(report) == {f"/counters/{k}" for k in COUNTERS}
    assert all(
        found[f"/counters/{k}"].by == ("c",) and found[f"/counters/{k}"].asserted for k in COUNTERS
    )
    assert found["/countersAfterDuplicate/toolExecutions"].status is LeafStatus.UNCOVERED
    assert "coverage.uncovered" in codes(report)


def test_in_set_and_same_value_cover_what_they_compare(tmp_path: Path) -> None:
    report = measured(
        tmp_path,
        [
            rule("s", "in-set", select=sel("/providerReadback/status"), values=["succeeded"]),
            rule(
                "v",
                "same-value",
                selects=[sel("/receipt/externalId"), sel("/providerReadback/externalId")],
            ),
        ],
    )
    assert report.catalogue is None  # this archive has none
    assert covered(report) == {
        "/providerReadback/status",
        "/receipt/externalId",
        "/providerReadback/externalId",
    }


def test_same_value_of_objects_covers_every_leaf_under_both(tmp_path: Path) -> None:
    report = measured(
        tmp_path,
        [rule("v", "same-value", selects=[sel("/counters"), sel("/countersAfterDuplicate")])],
    )
    assert covered(report) == {
        f"/{side}/{k}" for side in ("counters", "countersAfterDuplicate") for k in COUNTERS
    }


def test_count_without_distinct_reads_only_the_length(tmp_path: Path) -> None:
    report = measured(tmp_path, [rule("n", "count", select=sel("/messages"), equals=3)])
    assert not any(p.startswith("/messages") for p in covered(report))


def test_count_with_distinct_reads_one_value_per_element(tmp_path: Path) -> None:
    report = measured(
        tmp_path, [rule("n", "count", select=sel("/messages"), distinct="/role", equals=3)]
    )
    assert covered(report) == {f"/messages/{i}/role" for i in range(3)}
    assert leaves(report)["/messages/0/content"].status is LeafStatus.UNCOVERED


def test_count_over_files_with_distinct_reads_that_pointer_in_each_file(tmp_path: Path) -> None:
    report = measured(
        tmp_path,
        [rule("n", "count", files="evidence/example-run/*.json", distinct="/$schema", equals=2)],
    )
    for path in (RUN, READBACK):
        assert covered(report, path) == {"/$schema"}
        assert leaves(report, path)["/$schema"].by == ("n",)


def test_unchanged_without_keys_covers_both_objects_whole(tmp_path: Path) -> None:
    report = measured(
        tmp_path,
        [rule("u", "unchanged", before=sel("/counters"), after=sel("/countersAfterDuplicate"))],
    )
    assert covered(report) == {
        f"/{side}/{k}" for side in ("counters", "countersAfterDuplicate") for k in COUNTERS
    }


def test_unchanged_with_keys_covers_only_those_keys(tmp_path: Path) -> None:
    report = measured(
        tmp_path,
        [
            rule(
                "u",
                "unchanged",
                before=sel("/counters"),
                after=sel("/countersAfterDuplicate"),
                keys=["toolExecutions"],
            )
        ],
    )
    assert covered(report) == {"/counters/toolExecutions", "/countersAfterDuplicate/toolExecutions"}
    assert leaves(report)["/counters/gatewayRequests"].status is LeafStatus.UNCOVERED


def test_order_covers_each_timestamp(tmp_path: Path) -> None:
    report = measured(
        tmp_path,
        [
            rule(
                "o",
                "order",
                selects=[sel("/startedAt"), sel("/endedAt"), sel("/performedAt", READBACK)],
            )
        ],
    )
    assert covered(report) == {"/startedAt", "/endedAt"}
    assert covered(report, READBACK) == {"/performedAt"}


def test_acceptance_separation_covers_both_sides(tmp_path: Path) -> None:
    report = measured(
        tmp_path,
        [
            rule(
                "a",
                "acceptance-separation",
                expectAcceptance="failed",
                acceptance={
                    "file": RUN,
                    "result": "/acceptance/result",
                    "time": "/acceptance/recordedAt",
                },
                readback={
                    "file": READBACK,
                    "refersTo": "/refersTo",
                    "time": "/performedAt",
                    "preregistered": "/preregistered",
                    "result": "/result",
                },
            )
        ],
    )
    assert covered(report) == {"/acceptance/result", "/acceptance/recordedAt"}
    assert covered(report, READBACK) == {"/refersTo", "/performedAt", "/preregistered", "/result"}


def test_interrupted_tool_result_covers_none_of_the_transcript(tmp_path: Path) -> None:
    report = measured(
        tmp_path,
        [
            rule(
                "i",
                "interrupted-tool-result",
                transcript=RUN,
                marker="not run: the turn was interrupted",
                terminalStatus={"select": sel("/status"), "value": "done"},
                toolExecutions={"select": sel("/counters/toolExecutions"), "value": 1},
            )
        ],
    )
    assert covered(report) == {"/status", "/counters/toolExecutions"}
    found = leaves(report)
    assert all(
        leaf.status is LeafStatus.UNCOVERED
        for p, leaf in found.items()
        if p.startswith("/messages")
    )


def test_catalogue_cells_cover_select_preregistered_count_and_distinct(tmp_path: Path) -> None:
    case = {
        "id": "c1",
        "title": "case",
        "kind": "provider-backed run",
        "evidence": ["E1"],
        "counts": [
            {"label": "tool", "select": sel("/counters/toolExecutions")},
            {"label": "messages", "count": sel("/messages")},
            {"label": "roles", "count": sel("/messages"), "distinct": "/role"},
        ],
        "outcomes": [{"label": "status", "select": sel("/status")}],
        "readbacks": [
            {
                "label": "readback",
                "select": sel("/result", READBACK),
                "evidence": "E1",
                "preregistered": sel("/preregistered", READBACK),
            }
        ],
        "acceptance": {"label": "acceptance", "select": sel("/acceptance/result")},
        "limits": ["a test"],
        "assertions": ["s"],
    }
    report = measured(
        tmp_path,
        [rule("s", "equals", select=sel("/endedAt"), value="2026-01-01T12:00:30Z")],
        cases=[case],
    )
    assert covered(report) == {
        "/endedAt",
        "/acceptance/result",
        "/counters/toolExecutions",
        "/status",
        *(f"/messages/{i}/role" for i in range(3)),
    }
    assert covered(report, READBACK) == {"/result", "/preregistered"}
    assert report.catalogue == "evidence/cases.json"
    status = leaves(report)["/status"]
    assert not status.asserted and status.by == ("evidence/cases.json#/cases/0/outcomes/0",)
    assert leaves(report)["/endedAt"].asserted


def test_schema_member_and_provenance_are_excused_with_their_reasons() -> None:
    report = audit(REPO)
    excused = [
        (f.path, leaf)
        for f in report.files
        for leaf in f.leaves
        if leaf.status is LeafStatus.EXCUSED
    ]
    schema = [leaf for _, leaf in excused if leaf.pointer == "/$schema"]
    provenance = [leaf for _, leaf in excused if leaf.pointer.startswith("/provenance/")]
    assert len(schema) == len(report.files) and provenance
    assert {leaf.by for leaf in schema} == {(SCHEMA_REASON,)}
    assert {leaf.by for leaf in provenance} == {(PROVENANCE_REASON,)}
    for f in report.files:  # nothing under provenance is anything but excused
        assert all(
            leaf.status is LeafStatus.EXCUSED
            for leaf in f.leaves
            if leaf.pointer == "/provenance" or leaf.pointer.startswith("/provenance/")
        )


def test_unasserted_entries_excuse_by_pointer_glob_and_file_glob(tmp_path: Path) -> None:
    entries = [
        {"file": RUN, "pointer": "/runId", "reason": "an opaque id"},
        {"file": RUN, "pointer": "/countersAfterDuplicate/*", "reason": "the second snapshot"},
        {"file": "evidence/**/readback.json", "pointer": "/refersTo", "reason": "a back link"},
        {"file": RUN, "pointer": "/acceptance", "reason": "a whole subtree"},
        {"file": RUN, "pointer": "/no/such/value", "reason": "matches nothing"},
    ]
    report = measured(
        tmp_path,
        [rule("s", "equals", select=sel("/status"), value="done")],
        unasserted=entries,
    )
    found = leaves(report)
    assert found["/runId"].status is LeafStatus.EXCUSED and found["/runId"].by == ("an opaque id",)
    assert all(
        found[f"/countersAfterDuplicate/{k}"].by == ("the second snapshot",) for k in COUNTERS
    )
    assert leaves(report, READBACK)["/refersTo"].by == ("a back link",)
    assert found["/acceptance/recordedAt"].status is LeafStatus.EXCUSED
    assert found["/counters/toolExecutions"].status is LeafStatus.UNCOVERED
    assert [e.matched for e in report.excuses] == [1, 3, 1, 2, 0]
    (unused,) = [f for f in report.findings if f.code == "coverage.unused-excuse"]
    assert unused.pointer == "/unasserted/4" and unused.path == "evidence/assertions.json"


def test_a_covered_value_is_not_excused_and_its_entry_counts_nothing(tmp_path: Path) -> None:
    report = measured(
        tmp_path,
        [rule("s", "equals", select=sel("/status"), value="done")],
        unasserted=[{"file": RUN, "pointer": "/status", "reason": "both"}],
    )
    assert leaves(report)["/status"].status is LeafStatus.COVERED
    assert report.excuses[0].matched == 0 and "coverage.unused-excuse" in codes(report)


def test_an_unparsable_record_is_a_finding_never_dropped(tmp_path: Path) -> None:
    root = archive(tmp_path, [rule("s", "equals", select=sel("/status"), value="done")])
    (root / "evidence/broken.json").write_text('{"open": ', encoding="utf-8")
    rewrite_manifest(root)
    report = audit(root)
    assert ("evidence/broken.json", "it could not be read or parsed as JSON") in report.not_audited
    assert {"coverage.unread", "coverage.check-failed"} <= codes(report)
    assert report.fails()


def test_a_failing_archive_is_check_failed(tmp_path: Path) -> None:
    report = audit(archive(tmp_path, [rule("s", "equals", select=sel("/status"), value="other")]))
    assert report.check_findings >= 1 and "coverage.check-failed" in codes(report)
    assert report.fails()


def test_the_untouched_scaffold_is_neither_failed_nor_empty(tmp_path: Path) -> None:
    root = tmp_path / "scaffold"
    scaffold(root)
    report = audit(root)
    assert not report.fails() and report.files and report.check_findings == 0
    assert not codes(report) & {"coverage.check-failed", "coverage.nothing", "coverage.unread"}


def test_no_records_is_nothing_to_measure(tmp_path: Path) -> None:
    root = archive(
        tmp_path,
        [
            rule(
                "d",
                "equals",
                select=sel("/description", "evidence/assertions.json"),
                value="a spec under test",
            )
        ],
    )
    for name in (RUN, READBACK):
        (root / name).unlink()
    rewrite_manifest(root)
    report = audit(root)
    assert report.check_findings == 0 and report.files == []
    assert "coverage.nothing" in codes(report) and report.fails()


@pytest.mark.parametrize("margin", [-1.0, 1.0])
def test_fail_under_below_and_above_the_measured_share(tmp_path: Path, margin: float) -> None:
    root = archive(tmp_path, [rule("s", "equals", select=sel("/status"), value="done")])
    share = audit(root).percent
    assert share is not None
    report = audit(root, fail_under=min(100.0, max(0.0, share + margin)))
    below = "coverage.below-threshold" in codes(report)
    assert below is (margin > 0) and report.fails() is (margin > 0)

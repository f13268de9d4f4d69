"""Hostile assertion specs, through the real CLI under the harness: globs built to make a
backtracking matcher run for ever, JSON pointer tokens of thousands of digits or of digits
that are not ASCII, spec pointers that are not JSON pointers (with newlines and markup), and
assertions that check nothing. Each must end promptly in a finding, with a JSON report valid
against its own schema, never a hang, a crash or a pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, rewrite_manifest
from tests.hostile.harness import Run, assert_safe, run_cli
from verifier.json.pointer import is_pointer

SPEC = "evidence/assertions.json"
CATALOGUE = "evidence/cases.json"
STUDY = "evidence/study.json"


def add_assertions(root: Path, *assertions: dict[str, Any]) -> None:
    path = root / SPEC
    spec = json.loads(path.read_text(encoding="utf-8"))
    for number, assertion in enumerate(assertions):
        spec["assertions"].append({"id": f"hostile.{number}", "description": "x"} | assertion)
    path.write_text(json.dumps(spec, indent=1), encoding="utf-8")
    rewrite_manifest(root)


def check(root: Path, timeout: float = 60.0) -> Run:
    return run_cli(["check", str(root), "--format", "json"], watch=[root], timeout=timeout)


def hostile(run: Run) -> list[dict[str, Any]]:
    """The findings of the added assertions (every finding's pointer is a JSON pointer)."""
    found = run.findings()
    assert all(is_pointer(f["pointer"]) for f in found if "pointer" in f), found
    return [f for f in found if f["message"].startswith("hostile.")]


# --- 11.4: globs ---------------------------------------------------------------------------

STARS = 40


@pytest.mark.parametrize("star", ["**", "*"])
def test_a_backtracking_glob_ends_promptly_in_a_finding(archive: Path, star: str) -> None:
    folder = archive / "evidence" / "zz"
    folder.mkdir()
    # one name a character short of matching, one without the glob's last letter, one record
    # (read by the need index in every worker) of the same kind
    (folder / ("a" * (STARS - 1) + "c" * 150 + "b")).write_bytes(b"x")
    (folder / ("a" * 200 + "c")).write_bytes(b"x")
    (folder / ("a" * (STARS - 1) + "c" * 150 + "b.json")).write_text("{}", encoding="utf-8")
    glob = "evidence/zz/" + f"{star}a" * STARS + f"{star}b"
    add_assertions(
        archive,
        {"kind": "count", "files": glob, "equals": 1},
        {"kind": "count", "files": glob + ".json", "distinct": "/x", "equals": 1},
    )
    run = check(archive, timeout=30)
    assert_safe(run, rc=1, codes=["assertion.failed"])
    assert [f["code"] for f in hostile(run)] == ["assertion.failed", "assertion.failed"]


def test_a_glob_that_matches_nothing_under_a_bare_maximum_is_vacuous(archive: Path) -> None:
    add_assertions(archive, {"kind": "count", "files": "evidence/none-such/**", "max": 3})
    run = check(archive)
    assert_safe(run, rc=1, codes=["assertion.vacuous"])
    assert [(f["code"], f["path"]) for f in hostile(run)] == [("assertion.vacuous", SPEC)]


def test_a_glob_that_matches_nothing_where_none_is_the_claim_passes(archive: Path) -> None:
    add_assertions(archive, {"kind": "count", "files": "evidence/none-such/**", "equals": 0})
    run = check(archive)
    assert_safe(run, rc=0)
    assert hostile(run) == []


# --- 11.7: pointer tokens ------------------------------------------------------------------

TOKENS = ["9" * 5000, "1" + "0" * 40, "01", "-", "-1", "+1", "\u00b2", "\u0661", "\uff11"]


def test_index_tokens_that_name_nothing_are_errors_never_a_crash(archive: Path) -> None:
    add_assertions(
        archive,
        *[
            {"kind": "equals", "select": {"file": STUDY, "pointer": f"/providerScenarios/{t}"}}
            | {"value": 1}
            for t in TOKENS
        ],
        {
            "kind": "count",
            "select": {"file": STUDY, "pointer": "/providerScenarios"},
            "distinct": "/" + "9" * 5000,
            "equals": 1,
        },
    )
    run = check(archive)
    assert_safe(run, rc=1, codes=["assertion.error"])
    found = hostile(run)
    assert [f["code"] for f in found] == ["assertion.error"] * (len(TOKENS) + 1)
    assert all(f["path"] == STUDY and "resolves to nothing" in f["message"] for f in found)
    assert max(len(f["message"]) for f in found) < 1000  # a huge token is cut


def test_a_catalogue_cell_with_a_huge_index_is_unresolved(archive: Path) -> None:
    path = archive / CATALOGUE
    catalogue = json.loads(path.read_text(encoding="utf-8"))
    cell = catalogue["cases"][0]["counts"][0]
    cell["select"] = {"file": STUDY, "pointer": "/providerScenarios/" + "9" * 5000}
    catalogue["cases"][0]["counts"][1]["select"] = {
        "file": STUDY,
        "pointer": "/providerScenarios/²",
    }
    path.write_text(json.dumps(catalogue), encoding="utf-8")
    rewrite_manifest(archive)
    run = check(archive)
    assert_safe(run, rc=1, codes=["catalogue.unresolved"])
    assert len(run.findings("catalogue.unresolved")) == 2


# --- 11.12: spec pointers that are not JSON pointers ---------------------------------------

BAD_POINTERS = ["nope", "/a~2", "~", "x\n[/bold]\x1b[2J", " /providerScenarios"]


def test_spec_pointers_that_are_not_json_pointers_are_errors_at_their_place(
    archive: Path,
) -> None:
    add_assertions(
        archive,
        *[
            {"kind": "equals", "select": {"file": STUDY, "pointer": bad}, "value": 1}
            for bad in BAD_POINTERS
        ],
        {
            "kind": "count",
            "select": {"file": STUDY, "pointer": "/providerScenarios"},
            "distinct": "nope",
            "equals": 1,
        },
        {
            "kind": "acceptance-separation",
            "expectAcceptance": "failed",
            "acceptance": {"file": STUDY, "result": "result", "time": "/t"},
            "readback": {
                "file": STUDY,
                "refersTo": "/r",
                "time": "/t",
                "preregistered": "/p",
                "result": "/r",
            },
        },
    )
    run = check(archive)
    assert_safe(run, rc=1, codes=["assertion.error"])  # the report validates
    found = hostile(run)
    bundled = json.loads((REPO / SPEC).read_text(encoding="utf-8"))
    first = len(bundled["assertions"])  # the bundled spec's own assertions come first
    where = [f"/assertions/{first + i}/select/pointer" for i in range(len(BAD_POINTERS))]
    where += [
        f"/assertions/{first + len(BAD_POINTERS)}/distinct",
        f"/assertions/{first + len(BAD_POINTERS) + 1}/acceptance/result",
    ]
    assert [(f["code"], f["path"], f["pointer"]) for f in found] == [
        ("assertion.error", SPEC, w) for w in where
    ]
    assert all("not a JSON pointer" in f["message"] for f in found)
    assert all("\n" not in f["message"] and "\x1b" not in f["message"] for f in found)


# --- 12.6: an assertion that checks nothing --------------------------------------------------


def test_unchanged_over_empty_snapshots_is_vacuous(archive: Path) -> None:
    path = archive / STUDY
    study = json.loads(path.read_text(encoding="utf-8"))
    study["emptyBefore"], study["emptyAfter"] = {}, {}
    path.write_text(json.dumps(study), encoding="utf-8")
    add_assertions(
        archive,
        {
            "kind": "unchanged",
            "before": {"file": STUDY, "pointer": "/emptyBefore"},
            "after": {"file": STUDY, "pointer": "/emptyAfter"},
        },
        {
            "kind": "unchanged",
            "before": {"file": STUDY, "pointer": "/pinnedVersions"},
            "after": {"file": STUDY, "pointer": "/snapshots"},
            "keys": [],
        },
    )
    run = check(archive)
    assert_safe(run, rc=1, codes=["assertion.vacuous"])
    assert [f["code"] for f in hostile(run)] == ["assertion.vacuous"] * 2

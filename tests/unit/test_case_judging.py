"""Rule instances judged where their case is read (issue 35, ``verifier.inspect.cases``): a
worker judges the instances its batch's records decide, and the report is byte for byte the
one the main process's judging of every instance gives, whatever the executor, however the
batches cut the cases, and whatever the damage (an instance whose file is missing, unlisted,
unparsable or read in another batch is judged by the consistency stage)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import rewrite_manifest
from tests.unit.test_benchmark_generate import _generator
from verifier.execute.interface import batches
from verifier.judge import report as judging
from verifier.pipeline import Options, run
from verifier.plan import build
from verifier.plan.cases import CASE, CaseRules, confined, expand
from verifier.plan.records import RecordPlan
from verifier.plan.spec import needs_of
from verifier.values.needs import NeedIndex
from verifier.views.check import CHECK as FORMATS

CASES = [f"evidence/cases/000/case-{i:06d}" for i in range(20)]


@pytest.fixture(scope="module")
def damaged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A rule-form archive of 400 cases with every kind of damage a case's files can have."""
    root = tmp_path_factory.mktemp("cases") / "archive"
    _generator().generate(str(root), 1200, 11, 0, 0, True)
    case = [root / name for name in CASES]
    (case[5] / "run.json").write_text("{not json")  # unparsable: no values
    path = case[9] / "run.json"
    record = json.loads(path.read_text())
    record["counters"]["toolExecutions"] += 1  # a failed instance, judged in a worker
    record["status"] = "sideways"
    path.write_text(json.dumps(record))
    (case[11] / "transcript.json").unlink()  # not listed at all: "not listed"
    rewrite_manifest(root)
    readback = case[3] / "readback.json"  # listed, read, another digest: still judged
    readback.write_text(readback.read_text().replace('"pi_', '"px_', 1))
    (case[7] / "readback.json").unlink()  # listed, missing
    (case[13] / "stray.json").write_text('{"a": 1}')  # unlisted, not read by a rule
    return root


def _report(root: Path, executor: str, apart: bool, monkeypatch: Any) -> tuple[str, int]:
    """The JSON report and how many instances the workers judged."""
    made = RecordPlan

    def plan(*args: Any, **kwargs: Any) -> Any:
        kwargs["judge_cases"] = apart and kwargs.get("judge_cases", True)
        return made(*args, **kwargs)

    judged: list[int] = []
    judge = judging.judge_records

    def counted(plan: Any, facts: Any, *args: Any) -> Any:
        judged.append(sum(len(results) for _, results in facts.judged.items()))
        return judge(plan, facts, *args)

    with monkeypatch.context() as patch:
        patch.setattr(build, "RecordPlan", plan)
        patch.setattr("verifier.pipeline.judge_records", counted)
        result = run(root, Options(executor=executor, workers=2))
    return FORMATS["json"](result.report), judged[0]


@pytest.fixture(scope="module")
def reference(damaged: Path) -> str:
    with pytest.MonkeyPatch.context() as patch:
        report, judged = _report(damaged, "inline", False, patch)
    assert judged == 0
    return report


def test_the_damage_is_seen(reference: str) -> None:
    report = json.loads(reference)
    codes = {f["code"] for s in report["stages"] for f in s["findings"]}
    assert {"manifest.mismatch", "manifest.missing", "record.invalid-json"} <= codes
    assert {"assertion.failed", "assertion.error"} <= codes
    statuses = {a["id"]: a["status"] for a in report["assertions"]}
    assert len(statuses) == 1200
    assert statuses[f"unchanged@{CASES[9]}"] == "failed"
    assert statuses[f"same-payment@{CASES[3]}"] == "failed"
    assert statuses[f"same-payment@{CASES[7]}"] == "error"
    assert statuses[f"messages@{CASES[11]}"] == "error"


@pytest.mark.parametrize("executor", ["inline", "processes", "threads"])
def test_workers_judge_what_the_main_process_would(
    damaged: Path, reference: str, executor: str, monkeypatch: Any
) -> None:
    report, judged = _report(damaged, executor, True, monkeypatch)
    assert report == reference
    # most instances were judged where their case was read; the damaged ones were not
    assert 1190 <= judged < 1200


def test_a_case_cut_by_its_batch_is_judged_all_the_same(
    damaged: Path, reference: str, monkeypatch: Any
) -> None:
    """Batches of two files cut anywhere (a case too large for one batch is cut after all):
    the instances reading files of two batches are judged by the consistency stage; the
    report is the same."""
    monkeypatch.setattr("verifier.execute.interface.BATCH_ITEMS", 2)
    monkeypatch.setattr("verifier.inspect.gather._case_of", lambda cases: None)
    report, judged = _report(damaged, "processes", True, monkeypatch)
    assert report == reference
    assert 0 < judged < 1000


def test_batches_are_not_cut_inside_a_case(damaged: Path, reference: str, monkeypatch: Any) -> None:
    """Batches of two files: a case's three files stay in one batch, so every instance the
    damage leaves decidable is judged where its case was read, as with full batches."""
    full = _report(damaged, "processes", True, monkeypatch)
    monkeypatch.setattr("verifier.execute.interface.BATCH_ITEMS", 2)
    small = _report(damaged, "processes", True, monkeypatch)
    assert small[0] == full[0] == reference
    assert small[1] == full[1] >= 1190


def test_a_batch_is_cut_between_groups_or_past_twice_its_bounds(monkeypatch: Any) -> None:
    names = ["a/1", "a/2", "a/3", "b/1", "x", "y", "c/1", "c/2", "c/3", "c/4", "c/5"]

    def group(name: str) -> str | None:
        return name.split("/")[0] if "/" in name else None

    monkeypatch.setattr("verifier.execute.interface.BATCH_ITEMS", 2)
    cut = list(batches(names, group=group))
    plain = list(batches(names))
    # a full batch goes on while its group does, up to twice its bounds
    assert cut == [["a/1", "a/2", "a/3"], ["b/1", "x"], ["y", "c/1", "c/2", "c/3"], ["c/4", "c/5"]]
    assert plain == [names[i : i + 2] for i in range(0, len(names), 2)]


def _rule(**extra: Any) -> dict[str, Any]:
    return {
        "id": "r",
        "kind": "equals",
        "select": {"file": "{case}/run.json", "pointer": "/status"},
        "value": "done",
        **extra,
    }


def _spec(*rules: dict[str, Any], written: list[Any] | None = None) -> dict[str, Any]:
    return {
        "cases": {"folders": "evidence/cases/*/*"},
        "rules": list(rules),
        "assertions": written or [],
    }


def test_rules_that_read_their_case_alone_are_judged_apart() -> None:
    rules = confined(_spec(_rule(), _rule(id="s")), tuple(CASES), 1000, "a.json")
    assert isinstance(rules, CaseRules)
    assert [r.files for r in rules.rules] == [("run.json",), ("run.json",)]
    assert rules.cases_of(f"{CASES[2]}/run.json") == [CASES[2]]
    assert rules.cases_of(f"{CASES[2]}/other.json") == []
    assert rules.cases_of("evidence/cases/000/elsewhere/run.json") == []


@pytest.mark.parametrize(
    "spec",
    [
        _spec(_rule(select={"file": "evidence/run.json", "pointer": "/s"})),  # not the case's
        _spec(_rule(), _rule()),  # one id twice
        _spec(_rule(id=3)),  # no string id
        _spec(_rule(id="a@b")),  # an id an instance id cannot be told apart from
        _spec(_rule(kind="nope")),  # an unknown kind
        _spec({"id": "c", "kind": "count", "files": "{case}/*.json", "equals": 1}),  # a glob
        _spec(_rule(), written=[{"id": f"r@{CASES[1]}", "kind": "equals"}]),  # a clash
    ],
)
def test_a_rule_that_is_not_its_case_s_alone_is_judged_with_every_record(
    spec: dict[str, Any],
) -> None:
    assert confined(spec, tuple(CASES), 1000, "a.json") is None


@pytest.mark.parametrize(
    "spec",
    [
        _spec(_rule(value={"file": "{case}/z.json"})),  # a literal value is no file read
        # a name no manifest lists: never among a batch's records, so it is judged by the
        # consistency stage, as not listed
        _spec(_rule(select={"file": "{case}/../x.json", "pointer": "/s"})),
    ],
)
def test_a_rule_reading_only_names_under_its_case_is_judged_apart(spec: dict[str, Any]) -> None:
    assert confined(spec, tuple(CASES), 1000, "a.json") is not None


def test_no_cases_or_too_many_instances_are_judged_as_before() -> None:
    assert confined(_spec(_rule()), (), 1000, "a.json") is None
    assert confined(_spec(_rule(), _rule(id="s")), tuple(CASES), 39, "a.json") is None
    assert confined(_spec(_rule(), _rule(id="s")), tuple(CASES), 40, "a.json") is not None


def _walk(index: NeedIndex, names: list[str]) -> Iterator[tuple[str, Any]]:
    for name in names:
        yield name, index.wants(name)


def test_the_per_case_needs_are_the_instances_needs() -> None:
    """What each file wants is the same from the rules' needs per case as from every
    instance's needs, written-out assertions beside them."""
    written = [
        {"id": "w", "kind": "equals", "select": {"file": f"{CASES[0]}/run.json", "pointer": "/a"}}
    ]
    spec = _spec(
        _rule(),
        {
            "id": "n",
            "kind": "count",
            "select": {"file": "{case}/t.json", "pointer": "/messages"},
            "equals": 5,
        },
        written=written,
    )
    rules = confined(spec, tuple(CASES), 1000, "a.json")
    assert rules is not None and all(r.files[0].find(CASE) == -1 for r in rules.rules)
    instances = [made for _, _, made in expand(spec, CASES)]
    whole = NeedIndex(needs_of({"assertions": [*written, *instances]}))
    apart = NeedIndex(needs_of({"assertions": written}))
    apart.add_per_case(rules.members, rules.needs())
    names = sorted(
        {f"{c}/{n}" for c in CASES for n in ("run.json", "t.json", "x.json")}
        | {"evidence/cases/000/run.json", "evidence/run.json"}
    )
    for (name, left), (_, right) in zip(_walk(whole, names), _walk(apart, names), strict=True):
        assert sorted(left) == sorted(right), name


def test_the_workers_results_are_read_case_by_case_whatever_their_order() -> None:
    """``c1-2/`` sorts before ``c1/`` in task order, after it in case order: held until asked
    for. A result that comes after the next case's is not given to its case (the stage judges
    that instance again); a case nothing was judged for gets nothing."""
    from verifier.inspect.gather import Arrived, RecordLog

    log = RecordLog()
    for case, place in [("c1-2", 0), ("c1", 0), ("c1", 1), ("c2", 0), ("c1", 2)]:
        log.add(case, ((place, "passed", "", (), None),))
    arrived = Arrived(log)
    assert sorted(arrived.pop("c1")) == [0, 1]
    assert sorted(arrived.pop("c1-2")) == [0]
    assert arrived.pop("c10") == {}
    assert sorted(arrived.pop("c2")) == [0]
    assert arrived.pop("c3") == {}

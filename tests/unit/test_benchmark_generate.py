"""The benchmark's archive generator (``benchmarks/generate.py``): the same bytes for the same
arguments, in both spec forms, and the per-case rule form exactly as issue 35 fixes it (a
literal expectation: the rule form stands for the written-out assertions, case by case)."""

from __future__ import annotations

import copy
import fnmatch
import gc
import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

RECORDS = 30  # ten cases


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("generate", REPO / "benchmarks" / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _files(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _spec(root: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((root / "evidence" / "assertions.json").read_bytes())
    return loaded


RULE_SPEC = {
    "$schema": "https://verifier.invalid/schemas/assertion-spec.schema.json",
    "cases": {"folders": "evidence/cases/*/*"},
    "everyCaseJudged": True,
    "rules": [
        {
            "id": "same-payment",
            "kind": "same-value",
            "description": "Receipt and readback agree.",
            "selects": [
                {"file": "{case}/run.json", "pointer": "/receipt/paymentIntent"},
                {"file": "{case}/readback.json", "pointer": "/object/id"},
            ],
        },
        {
            "id": "messages",
            "kind": "count",
            "description": "Five messages.",
            "select": {"file": "{case}/transcript.json", "pointer": "/messages"},
            "equals": 5,
        },
        {
            "id": "unchanged",
            "kind": "unchanged",
            "description": "Counters unchanged.",
            "before": {"file": "{case}/run.json", "pointer": "/counters"},
            "after": {"file": "{case}/run.json", "pointer": "/countersAfterDuplicate"},
        },
    ],
}


def test_the_same_arguments_give_the_same_bytes_in_both_forms(tmp_path: Path) -> None:
    gen = _generator()
    for rules in (False, True):
        a, b = tmp_path / f"a{rules}", tmp_path / f"b{rules}"
        gen.generate(str(a), RECORDS, 3, 0, 0, rules)
        gen.generate(str(b), RECORDS, 3, 0, 0, rules=rules)
        assert _files(a) == _files(b)
    other = tmp_path / "seed4"
    gen.generate(str(other), RECORDS, 4, 0, 0)
    assert _files(other) != _files(tmp_path / "aFalse")


def test_the_rule_form_is_the_same_archive_but_its_spec(tmp_path: Path) -> None:
    gen = _generator()
    written, ruled = tmp_path / "written", tmp_path / "rules"
    gen.generate(str(written), RECORDS, 1, 0, 0)
    gen.generate(str(ruled), RECORDS, 1, 0, 0, rules=True)
    a, b = _files(written), _files(ruled)
    spec, manifest = "evidence/assertions.json", "manifest.sha256"
    assert set(a) == set(b)
    assert {k for k in a if a[k] != b[k]} == {spec, manifest}
    listed = (ruled / manifest).read_text().splitlines()
    assert f"{b[spec]}  {spec}" in listed and len(listed) == len(b) - 1
    assert _spec(ruled) == RULE_SPEC  # the target design's format, literally
    assert "assertions" not in _spec(ruled)


def test_each_rule_instance_is_the_written_out_assertion_of_its_case(tmp_path: Path) -> None:
    """Substituting a case folder for ``{case}`` in a rule gives, apart from the id
    (``RULE@CASE`` against ``cNNNNNN.RULE``), the assertion the written-out form has for that
    case; and the folder glob matches exactly the folders holding the cases' files."""
    gen = _generator()
    root = tmp_path / "written"
    gen.generate(str(root), RECORDS, 1, 0, 0)
    listed = [line[66:] for line in (root / "manifest.sha256").read_text().splitlines()]
    folders = sorted({name.rsplit("/", 1)[0] for name in listed})
    glob = RULE_SPEC["cases"]["folders"]  # type: ignore[index]
    cases = [f for f in folders if fnmatch.fnmatchcase(f, glob) and f.count("/") == 3]
    assert cases == [f"evidence/cases/000/case-{i:06d}" for i in range(RECORDS // 3)]
    assert not any(fnmatch.fnmatchcase(f, glob) for f in folders if f not in cases)
    written = {a["id"]: a for a in _spec(root)["assertions"]}
    assert len(written) == len(cases) * len(RULE_SPEC["rules"])  # type: ignore[arg-type]
    for case in cases:
        for rule in RULE_SPEC["rules"]:  # type: ignore[attr-defined]
            instance = json.loads(json.dumps(copy.deepcopy(rule)).replace("{case}", case))
            number = case.rsplit("-", 1)[1]
            expected = dict(written[f"c{number}.{rule['id']}"])
            assert instance.pop("id") == rule["id"] and expected.pop("id")
            assert instance == expected


def test_serial_py_times_every_part_on_a_generated_archive(tmp_path: Path) -> None:
    """``benchmarks/serial.py`` finds every library function it times (a part it cannot find
    is reported missing, and would leave a column of the runner's table empty), and sums
    every part but those shown apart."""
    spec = importlib.util.spec_from_file_location("serial", REPO / "benchmarks" / "serial.py")
    assert spec and spec.loader
    serial = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(serial)
    root = tmp_path / "rules"
    _generator().generate(str(root), 600, 1, 0, 0, rules=True)
    try:
        out = serial.measure(root, 1)
    finally:
        gc.enable()  # (it times with the collector off, as a check runs)
    assert out["form"] == "rules" and out["missing"] == {}
    seconds = out["seconds"]
    assert {"manifest parse", "scope walk", "scope walk in one process", "case set"} <= set(seconds)
    assert all(v >= 0 for v in seconds.values())
    summed = sum(v for k, v in seconds.items() if k != "scope walk in one process")
    assert out["sum"] == pytest.approx(summed)

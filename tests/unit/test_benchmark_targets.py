"""The benchmark runner's targets table (``benchmarks/run.py``): Amdahl's projection from the
pass's own figures, ratios to peers, and a figure of a run that did not pass is a MISS. Made-up
times: no test here runs a command or reads the clock."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from tests.conftest import REPO


def _runner() -> Any:
    spec = importlib.util.spec_from_file_location("bench_run", REPO / "benchmarks" / "run.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_run", module)  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


def _point(run: Any, seconds: dict[str, float], failed: str = "") -> Any:
    cmds = [
        run.Command(name, [], Path("."), "", times=[s], peaks=[100_000_000], pss=[1], codes=[0])
        for name, s in seconds.items()
    ]
    for c in cmds:
        if c.name == failed:
            c.codes = [1]
    return run.Point("100,000 records", 100_000, False, 100_007, 10**8, cmds)


def _row(table: str, start: str) -> str:
    return next(line for line in table.splitlines() if line.startswith("| " + start))


def test_amdahl_projects_from_the_measured_serial_and_parallel_seconds() -> None:
    run = _runner()
    point = _point(run, {run.ONE: 4.0, run.TWO: 2.2, run.START_UP: 0.1, "sha256sum -c": 1.0})
    serial = run.Serial(100_000, "rules", {"manifest parse": 0.2}, 0.2)
    table = run.targets([point], [serial], [], 100_000, "rules")
    # S = 0.2 + 0.1, P = 4.0 - 0.3, T(16) = 0.3 + 3.7 / 16 = 0.53125, 4.0 / 0.53125 = 7.53
    assert "T(16) = 0.300 + 3.700 / 16 = 0.531 s" in table
    assert "**7.53x**" in table
    assert _row(table, "Amdahl").endswith("| **MISS** |")
    assert "1.82x faster (2.20 s against 4.00 s)" in _row(table, "2 workers")
    assert _row(table, "2 workers").endswith("| PASS |")
    assert _row(table, "serial main-process parts summed <").endswith("0.200 s | PASS |")
    fast = run.Serial(100_000, "rules", {"manifest parse": 0.05}, 0.05)
    point = _point(run, {run.ONE: 4.0, run.START_UP: 0.05})
    assert _row(run.targets([point], [fast], [], 100_000, "rules"), "Amdahl").endswith("PASS |")


def test_a_figure_of_a_run_that_did_not_pass_is_a_miss() -> None:
    run = _runner()
    point = _point(run, {run.FULL: 2.0, "sha256sum -c": 1.0}, failed=run.FULL)
    table = run.targets([point], [], [], 100_000, "rules")
    row = _row(table, "full check within 3x")
    assert "2.00x its time" in row and "not a passing run" in row and row.endswith("**MISS** |")
    point = _point(run, {run.FULL: 2.0, "sha256sum -c": 1.0})
    assert _row(run.targets([point], [], [], 100_000, "rules"), "full check within").endswith(
        "| PASS |"
    )


def test_the_written_out_form_is_held_to_the_last_pass_before_rules() -> None:
    run = _runner()
    slow = run.BEFORE_RATIO + 0.5
    point = _point(run, {run.STRESS: slow, "sha256sum -c": 1.0})
    table = run.targets([point], [], [], 100_000, "rules")
    assert _row(table, "written-out spec no slower").endswith("**MISS** |")
    assert _row(table, "written-out spec no larger").endswith("100 MB | PASS |")
    assert "targets are at 100,000" not in table
    assert "the issue's targets are at 100,000" in run.targets([point], [], [], 10_000, "rules")

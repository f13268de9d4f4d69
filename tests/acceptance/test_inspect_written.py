"""Differential test against Inspect AI itself: logs its own writer wrote, and our repairs read
back by its own reader.

Inspect runs in a virtual environment of its own (``VERIFIER_INSPECT_PYTHON`` names its
interpreter; ``.ci/run`` builds it with a pinned ``inspect_ai``), never in the test
environment: its dependencies must not change ours. The tasks are
``tests/real_files/inspect_tasks.py``, run offline with Inspect's ``mockllm`` model and fixed
model outputs, once writing ``.eval`` zips and once single ``.json`` logs. What the checker must
say of each log is written here from what each task does (a call answered; a call left
unanswered when a time limit stops the sample; a call left unanswered when the tool raises),
not from our reader's output.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.acceptance.test_transcript_cli import cli
from tests.conftest import REPO, missing_oracle

# slow: Inspect AI writes and reads logs in its own interpreter (-m "not slow" leaves it out)
pytestmark = pytest.mark.slow

TASKS = REPO / "tests" / "real_files" / "inspect_tasks.py"
ENV = "VERIFIER_INSPECT_PYTHON"
MARKER = "not run: the turn was interrupted"
# per task: (calls, results) over its samples, and the dangling calls that are truly there
EXPECTED = {"calls": (3, 3, 0), "limit": (1, 0, 1), "crash": (1, 0, 1)}

READ_BACK = """
import json, sys
from inspect_ai.log import read_eval_log
log = read_eval_log(sys.argv[1])
print(json.dumps([
    [[m.role, getattr(getattr(m, "error", None), "type", None), m.text] for m in s.messages]
    for s in log.samples or []
]))
"""


def inspect_python() -> Path:
    named = os.environ.get(ENV, "")
    python = Path(named) if named else None
    if python is None or not python.is_file():
        missing_oracle(f"{ENV} does not name an interpreter with inspect_ai (see .ci/run)")
    return python


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(cwd),  # Inspect keeps its own data under HOME: not the tester's
        "NO_COLOR": "1",
        "COLUMNS": "120",
    }
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=600
    )


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    python = inspect_python()
    work = tmp_path_factory.mktemp("inspect")
    shutil.copy(TASKS, work / TASKS.name)  # Inspect takes a task file by a relative name
    inspect = python.parent / "inspect"
    for extra in ([], ["--log-format", "json"]):
        proc = run([str(inspect), "eval", TASKS.name, "--log-dir", "logs", *extra], work)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    found: dict[str, Path] = {}
    for path in sorted((work / "logs").iterdir()):
        task = path.name.split("_")[1]
        found[f"{task}{path.suffix}"] = path
    assert sorted(found) == sorted(f"{t}{s}" for t in EXPECTED for s in (".eval", ".json"))
    return found


@pytest.mark.parametrize("suffix", [".eval", ".json"])
@pytest.mark.parametrize("task", sorted(EXPECTED))
def test_inspect_logs_check_with_only_the_findings_there(
    logs: dict[str, Path], task: str, suffix: str
) -> None:
    proc = cli("check", logs[f"{task}{suffix}"], "--format", "json")
    report = json.loads(proc.stdout)
    (entry,) = report["files"]
    calls, results, dangling = EXPECTED[task]
    assert entry["shape"] == "inspect" and entry["shapeSource"] == "detected"
    assert (entry["calls"], entry["results"]) == (calls, results)
    assert [f["code"] for f in entry["findings"]] == ["transcript.dangling-call"] * dangling
    assert proc.returncode == (1 if dangling else 0)


@pytest.mark.parametrize("suffix", [".eval", ".json"])
@pytest.mark.parametrize("task", ["limit", "crash"])
def test_inspect_reads_our_repair(
    logs: dict[str, Path], task: str, suffix: str, tmp_path: Path
) -> None:
    out = tmp_path / f"repaired{suffix}"
    proc = cli("repair", logs[f"{task}{suffix}"], "-o", out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert cli("check", out).returncode == 0
    read = run([str(inspect_python()), "-c", READ_BACK, str(out)], tmp_path)
    assert read.returncode == 0, read.stderr[-2000:]
    (messages,) = json.loads(read.stdout)
    # the history Inspect wrote, then one tool message: Inspect's cancelled error, our marker
    assert [m[0] for m in messages] == ["user", "assistant", "tool"]
    assert messages[-1][1] == "cancelled" and messages[-1][2] == MARKER

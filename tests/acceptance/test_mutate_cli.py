"""``verify-evidence coverage --mutate`` through the real CLI: JSON valid against
verifier/schemas/coverage.schema.json, the exit code follows the survivors, the same bytes
whatever the hash seed and the worker count, the source (a folder or a zip) never written and the
scratch copy removed (the hostile harness watches both and an empty TMPDIR), and bad
values of the mutation options exit 2 with one line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.acceptance.test_coverage_cli import cli, codes, one_line_usage_error, report_of
from tests.archives import zip_tree
from tests.conftest import REPO, copy_bundled
from tests.hostile.harness import assert_safe, run_cli


def test_mutate_reports_mutants_and_exits_on_survivors(archive: Path) -> None:
    proc = cli(".", "--mutate", "--max-mutants", "25", "-f", "json", cwd=archive)
    data = report_of(proc)
    mutation = data["mutation"]
    assert mutation is not None and len(mutation["mutants"]) == 25
    assert mutation["notRun"] > 0 and "coverage.mutation-incomplete" in codes(data)
    survived = [m for m in mutation["mutants"] if m["outcome"] == "survived"]
    assert proc.returncode == (1 if survived else 0), proc.stderr
    assert ("coverage.survived" in codes(data)) == bool(survived)
    for m in mutation["mutants"]:
        if m["outcome"] != "skipped":
            assert m["tried"] != m["original"] and m["rule"]


@pytest.mark.parametrize("fmt", ["json", "text", "markdown"])
def test_same_bytes_across_hash_seeds_and_worker_counts(archive: Path, fmt: str) -> None:
    outputs = set()
    for hash_seed, jobs in (("0", "1"), ("4242", "2"), ("7", "2")):
        env = {k: v for k, v in os.environ.items() if not k.startswith("VERIFIER_")}
        env["PYTHONHASHSEED"] = hash_seed
        proc = cli(
            ".",
            "--mutate",
            "--max-mutants",
            "40",
            "--seed",
            "9",
            "-j",
            jobs,
            "-f",
            fmt,
            cwd=archive,
            env=env,
        )
        assert proc.returncode in (0, 1) and proc.stderr == "", proc.stderr
        outputs.add(proc.stdout)
    assert len(outputs) == 1 and outputs.pop()


@pytest.mark.parametrize("full", [False, True])
def test_the_folder_source_is_never_written(tmp_path: Path, full: bool) -> None:
    root = copy_bundled(tmp_path / "a")
    args = ["coverage", str(root), "--mutate", "--max-mutants", "6", "-j", "2", "-f", "json"]
    run = run_cli([*args, *(["--full"] if full else [])], watch=[root])
    assert_safe(run, rc=(0, 1), json_report=False)
    assert len(run.report()["mutation"]["mutants"]) == 6


def test_a_zip_source_is_mutated_and_never_written(tmp_path: Path) -> None:
    root = copy_bundled(tmp_path / "a")
    (tmp_path / "zipped").mkdir()
    packed = zip_tree(root, tmp_path / "zipped" / "a.zip")
    args = ["coverage", str(packed), "--mutate", "--max-mutants", "6", "--full", "-f", "json"]
    run = run_cli(args, watch=[packed.parent])
    assert_safe(run, rc=(0, 1), json_report=False)
    folder = run_cli([*args[:1], str(root), *args[2:]], watch=[root])
    assert_safe(folder, rc=(0, 1), json_report=False)
    assert run.report()["mutation"] == folder.report()["mutation"]


@pytest.mark.parametrize(
    "args",
    [
        ["--mutate", "--max-mutants", "0"],
        ["--mutate", "--max-mutants", "many"],
        ["--mutate", "--max-mutants", "-3"],
        ["--mutate", "--time-budget", "0"],
        ["--mutate", "--time-budget", "nan"],
        ["--mutate", "--time-budget", "1e3"],
        ["--mutate", "--seed", "-1"],
        ["--mutate", "--seed", "1" * 40],
        ["--mutate", "-j", "0"],
        ["--mutate", "--jobs", "two"],
        ["--max-mutants", "5"],  # a mutation option without --mutate
        ["--full"],
    ],
)
def test_bad_mutation_options_are_one_line_and_exit_2(tmp_path: Path, args: list[str]) -> None:
    one_line_usage_error(cli(str(REPO), *args, cwd=tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_the_init_scaffold_is_mutated(tmp_path: Path) -> None:
    import subprocess
    import sys

    target = tmp_path / "new"
    made = subprocess.run(
        [sys.executable, "-m", "verifier", "init", str(target)], capture_output=True, check=False
    )
    assert made.returncode == 0
    proc = cli(str(target), "--mutate", "-f", "json")
    data = report_of(proc)
    mutation = data["mutation"]
    assert mutation["counts"]["killed"] > 0 and mutation["notRun"] == 0
    covered = data["counts"]["covered"]
    assert len(mutation["mutants"]) == covered
    assert proc.returncode == (1 if mutation["counts"]["survived"] else 0)


def test_mutation_is_bounded_by_default_and_says_so(archive: Path) -> None:
    """Issue 34, class 10: ``--mutate`` has a default bound (200 mutants), ``--max-mutants
    all`` lifts it, and a bounded run says so: a ``coverage.mutation-incomplete`` finding, and
    the score shown as that of the values tried, never as a bare 100%."""
    from verifier.coverage import DEFAULT_MAX_MUTANTS

    proc = cli(".", "--mutate", "-f", "json", cwd=archive)
    data = report_of(proc)
    covered = data["counts"]["covered"]
    assert covered > DEFAULT_MAX_MUTANTS  # the bundled archive asserts more than the bound
    mutation = data["mutation"]
    assert mutation["maxMutants"] == DEFAULT_MAX_MUTANTS
    assert len(mutation["mutants"]) == DEFAULT_MAX_MUTANTS
    assert mutation["notRun"] == covered - DEFAULT_MAX_MUTANTS
    assert "coverage.mutation-incomplete" in codes(data)
    for fmt in ("text", "markdown"):
        shown = cli(".", "--mutate", "-f", fmt, cwd=archive).stdout
        assert f"of the {DEFAULT_MAX_MUTANTS} tried, incomplete" in shown
    whole = report_of(cli(".", "--mutate", "--max-mutants", "all", "-f", "json", cwd=archive))
    assert whole["mutation"]["notRun"] == 0 and whole["mutation"]["maxMutants"] is None
    assert len(whole["mutation"]["mutants"]) == covered
    assert "coverage.mutation-incomplete" not in codes(whole)
    text = cli(".", "--mutate", "--max-mutants", "all", "-f", "text", cwd=archive).stdout
    assert "incomplete" not in text.split("mutation: score", 1)[1].split("\n", 1)[0]


def test_ci_mutates_every_covered_value_of_the_bundled_spec() -> None:
    """CI's audit of the project's own spec is complete: --mutate tries at most
    DEFAULT_MAX_MUTANTS covered values unless told otherwise, and the bundled spec covers
    more, so .ci/run's coverage line must say --max-mutants all (a bounded run passes on
    the values it tried)."""
    import shlex

    from verifier.coverage import DEFAULT_MAX_MUTANTS, audit

    ci = (REPO / ".ci/run").read_text(encoding="utf-8")
    lines = [shlex.split(x) for x in ci.splitlines() if x.startswith("verify-evidence coverage")]
    assert len(lines) == 1, lines
    args = lines[0]
    assert "--mutate" in args
    assert args[args.index("--fail-under") + 1] == "100"
    covered = audit(REPO).counts["covered"]
    if covered > DEFAULT_MAX_MUTANTS:
        assert args[args.index("--max-mutants") + 1] == "all", (covered, args)

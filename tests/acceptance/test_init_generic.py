"""init (issue 16): a generic scaffold whose vocabulary is its own (a new case kind and
evidence id need no schema edit), allowed in a fresh git repository, and CI files that work
as written: the workflow's steps run as a runner runs them, the pre-commit hook under real
pre-commit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]

from tests.acceptance.test_action import run_uses_step
from tests.acceptance.test_init import cli
from tests.archives import git, need_git
from tests.conftest import REPO, require_module
from verifier.authoring.ci import ACTION as ACTION_REF
from verifier.authoring.scaffold import template_files
from verifier.authoring.vocabulary import DERIVED, derive_text


def test_the_scaffold_has_no_case_study_vocabulary() -> None:
    for name, data in template_files():
        text = data.decode("utf-8")
        for word in ("Stripe", "stripe", "webhook", "E9", "common.schema.json"):
            assert word not in text, f"{name} holds {word!r}"


def test_the_scaffold_schemas_derive_from_the_projects() -> None:
    files = dict(template_files())
    for project, template in DERIVED:
        expected = derive_text((REPO / "schemas" / project).read_text(encoding="utf-8"))
        assert files[f"schemas/{template}"].decode("utf-8") == expected, template


def test_a_new_case_kind_and_evidence_id_need_no_schema_edit(tmp_path: Path) -> None:
    target = tmp_path / "a"
    assert cli("init", str(target)).returncode == 0
    path = target / "evidence/cases.json"
    catalogue: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    case = json.loads(json.dumps(catalogue["cases"][0]))
    case.update(id="smoke-test", title="Smoke test", kind="nightly smoke test")
    case["evidence"] = ["run-2026-01-01"]
    catalogue["cases"].append(case)
    path.write_text(json.dumps(catalogue, indent=2) + "\n", encoding="utf-8")
    assert cli("manifest", str(target), "--write").returncode == 0
    proc = cli("check", str(target), "--format", "text")
    assert proc.returncode == 0, proc.stdout
    table = cli("table", str(target), "--format", "json")
    assert table.returncode == 0, table.stderr
    assert "nightly smoke test" in table.stdout


def test_init_in_a_fresh_git_repository(tmp_path: Path) -> None:
    need_git()
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / ".gitignore").write_text("*.sarif\n", encoding="utf-8")
    proc = cli("init", str(repo))
    assert proc.returncode == 0, proc.stderr
    assert cli("check", str(repo), "-q").returncode == 0
    again = cli("init", str(repo))
    assert again.returncode == 2 and "holds evidence" in again.stderr


def test_init_never_overwrites_a_dotfile(tmp_path: Path) -> None:
    (tmp_path / ".pre-commit-config.yaml").write_text("repos: []\n", encoding="utf-8")
    proc = cli("init", str(tmp_path), "--pre-commit")
    assert proc.returncode == 2 and "exists already" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [".pre-commit-config.yaml"]


def shim(folder: Path) -> Path:
    """A ``verify-evidence`` on PATH that runs this checkout's verifier."""
    folder.mkdir()
    script = folder / "verify-evidence"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m verifier "$@"\n', encoding="utf-8")
    script.chmod(0o755)
    return folder


def test_the_github_workflow_runs_as_written(tmp_path: Path) -> None:
    """``init --ci github``: the workflow's verify-evidence action step, run as a runner would
    (tests/acceptance/test_action.py), passes on the new archive and writes its reports."""
    target = tmp_path / "a"
    assert cli("init", str(target), "--ci", "github").returncode == 0
    workflow = yaml.safe_load((target / ".github/workflows/verify-evidence.yml").read_text())
    (job,) = workflow["jobs"].values()
    assert not [s for s in job["steps"] if "run" in s]  # everything is the action's
    (verify,) = [s for s in job["steps"] if s.get("uses") == ACTION_REF]
    assert "package" not in verify["with"]  # the version the action's ref names
    runner = run_uses_step(verify, target, tmp_path / "runner")
    assert runner.action_outputs() == {"exit-code": "0", "verdict": "passed"}, runner.stderr
    assert runner.codes == [0, 0, 0]
    assert json.loads((target / "verify-evidence.sarif").read_text())["runs"][0]["results"] == []
    assert (target / "verify-evidence.junit.xml").stat().st_size > 0
    assert (tmp_path / "runner" / "step-summary.md").stat().st_size > 0
    (upload,) = [s for s in job["steps"] if "upload-sarif" in s.get("uses", "")]
    assert upload["with"]["sarif_file"] == "verify-evidence.sarif"
    assert cli("init", str(tmp_path / "b"), "--ci", "gitlab").returncode == 2


@pytest.mark.parametrize(
    "install",
    [
        "verify-evidence==0.1.0",
        "verify-evidence @ git+https://example.invalid/v@1",
        'x", summary: "false',  # stays one YAML value: no input of its own
        "$(touch pwned) # \\",
    ],
)
def test_the_github_workflow_installs_what_install_names(install: str, tmp_path: Path) -> None:
    target = tmp_path / "c"
    assert cli("init", str(target), "--ci", "github", "--install", install).returncode == 0
    text = (target / ".github/workflows/verify-evidence.yml").read_text()
    (job,) = yaml.safe_load(text)["jobs"].values()
    (verify,) = [s for s in job["steps"] if s.get("uses") == ACTION_REF]
    assert verify["with"]["package"] == install
    assert verify["with"]["summary"] == "true"
    runner = run_uses_step(verify, target, tmp_path / "runner")
    assert runner.install_calls()[1][-2:] == ["--", install]  # one argument to pip
    assert runner.action_outputs()["verdict"] == "passed"
    assert not list(tmp_path.rglob("pwned"))


def test_the_pre_commit_hook_runs_as_written(tmp_path: Path) -> None:
    need_git()
    require_module("pre_commit", "pre-commit is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    assert cli("init", str(repo), "--pre-commit").returncode == 0
    config = yaml.safe_load((repo / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert config["repos"][0]["repo"] == "local"
    git(repo, "add", "-A")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(
        PRE_COMMIT_HOME=str(tmp_path / "home"),
        PRE_COMMIT_COLOR="never",
        PATH=f"{shim(tmp_path / 'bin')}{os.pathsep}{env['PATH']}",
    )

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "run", "--all-files"],
            cwd=repo, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip

    passed = run()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "verify-evidence check" in passed.stdout and "Passed" in passed.stdout
    record = repo / "evidence/example-run/run.json"
    record.write_text(record.read_text(encoding="utf-8").replace('"done"', '"failed"'), "utf-8")
    git(repo, "add", "-A")
    failed = run()
    assert failed.returncode == 1 and "manifest.mismatch" in failed.stdout


@pytest.mark.parametrize("args", [("--install", "x"), ("--ci", "github", "--install", "a\nb")])
def test_bad_init_options_are_exit_2(tmp_path: Path, args: tuple[str, ...]) -> None:
    proc = cli("init", str(tmp_path / "x"), *args)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert not (tmp_path / "x").exists()

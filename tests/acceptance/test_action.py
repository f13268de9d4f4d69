"""The GitHub Action (``action.yml`` at the repository's root), its steps run as a runner runs
a composite action: ``${{ ... }}`` expressions evaluated where the runner evaluates them
(``if:``, ``env:``, ``with:``, ``run:`` and the outputs' ``value:``), each ``run:`` script with
``bash --noprofile --norc -eo pipefail`` in ``GITHUB_WORKSPACE``, with ``GITHUB_ACTION_PATH``,
a fresh ``GITHUB_OUTPUT`` file per step and ``GITHUB_STEP_SUMMARY``.

The install step runs for real, except that the ``python3`` it finds on PATH is a stand-in
that records what it is asked and installs no package (nothing is fetched): it makes the
virtual environment's ``python`` and, for ``pip install``, a ``verify-evidence`` that runs
this checkout. A real wheel installed in a fresh venv is tests/acceptance/test_packaging.py's.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]

from tests.acceptance.test_formats import tampered
from tests.conftest import REPO
from verifier.authoring.ci import ACTION as ACTION_REF

ACTION = REPO / "action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")

# the stand-in python3: `-m venv DIR` makes DIR/bin/python (itself); `-m pip install ... SPEC`
# records its arguments and puts a verify-evidence running this checkout beside itself
FAKE_PYTHON = """\
#!{python}
import json, os, shutil, sys
from pathlib import Path
args = sys.argv[1:]
with open({log!r}, "a", encoding="utf-8") as log:
    log.write(json.dumps([sys.argv[0], *args]) + "\\n")
if args[:2] == ["-m", "venv"]:
    bin_dir = Path(args[2]) / "bin"
    bin_dir.mkdir(parents=True)
    shutil.copy(__file__, bin_dir / "python")
elif args[:3] == ["-m", "pip", "install"]:
    shim = Path(sys.argv[0]).parent / "verify-evidence"
    shim.write_text(
        "#!/bin/sh\\nPYTHONPATH={repo!r} exec {python!r} -m verifier \\"$@\\"\\n",
        encoding="utf-8",
    )
    shim.chmod(0o755)
else:
    sys.exit("unexpected: " + " ".join(args))
"""


def action() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    return loaded


@dataclass
class Runner:
    """One run of the action: its inputs, the folders a runner provides, what it recorded."""

    workspace: Path
    tmp: Path
    inputs: dict[str, str]
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    codes: list[int] = field(default_factory=list)
    stdout: str = ""
    stderr: str = ""

    def expression(self, text: str) -> str:
        """The value of one expression, as far as this action uses them."""
        if m := re.fullmatch(r"inputs\.([\w-]+)", text):
            return self.inputs[m[1]]
        if m := re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", text):
            return self.outputs.get(m[1], {}).get(m[2], "")
        if m := re.fullmatch(r"inputs\.([\w-]+) != ''", text):
            return "true" if self.inputs[m[1]] != "" else ""
        raise AssertionError(f"an expression this test does not evaluate: {text}")

    def substitute(self, value: object) -> str:
        return EXPRESSION.sub(lambda m: self.expression(m[1]), str(value))

    def env(self) -> dict[str, str]:
        fake = self.tmp / "fake-bin"
        if not fake.exists():
            fake.mkdir()
            python = fake / "python3"
            python.write_text(
                FAKE_PYTHON.format(
                    python=sys.executable, log=str(self.tmp / "python3.log"), repo=str(REPO)
                ),
                encoding="utf-8",
            )
            python.chmod(0o755)
        env = {
            "PATH": f"{fake}{os.pathsep}{os.environ.get('PATH', '')}",
            "HOME": str(self.tmp),
            "RUNNER_TEMP": str(self.tmp / "runner-temp"),
            "GITHUB_ACTION_PATH": str(REPO),
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_STEP_SUMMARY": str(self.tmp / "step-summary.md"),
            "GITHUB_ACTIONS": "true",
            "CI": "true",
        }
        (self.tmp / "runner-temp").mkdir(exist_ok=True)
        # as the runner sets them for an action (a composite action's scripts read env: only)
        env.update({f"INPUT_{k.upper()}": v for k, v in self.inputs.items()})
        return env

    def run(self) -> None:
        spec = action()
        for step in spec["runs"]["steps"]:
            if "if" in step and not self.substitute("${{ " + step["if"] + " }}"):
                continue
            if "uses" in step:
                raise AssertionError(f"a step this test cannot run: {step['uses']}")
            assert step["shell"] == "bash"
            env = self.env()
            env.update({k: self.substitute(v) for k, v in step.get("env", {}).items()})
            output = self.tmp / f"output-{len(self.codes)}"
            output.touch()
            env["GITHUB_OUTPUT"] = str(output)
            script = self.tmp / f"step-{len(self.codes)}.sh"
            # the runner evaluates expressions in a script's text too (the way an injection
            # gets in): test_expressions_only_where_the_runner_evaluates_them keeps them out
            script.write_text(self.substitute(step["run"]), encoding="utf-8")
            proc = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                cwd=self.workspace,
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            assert "Traceback" not in proc.stderr, proc.stderr
            self.stdout += proc.stdout
            self.stderr += proc.stderr
            self.codes.append(proc.returncode)
            if "id" in step:
                lines = output.read_text(encoding="utf-8").splitlines()
                self.outputs[step["id"]] = dict(line.split("=", 1) for line in lines)
            if proc.returncode != 0:
                return  # the job stops at a failed step

    def action_outputs(self) -> dict[str, str]:
        return {k: self.substitute(v["value"]) for k, v in action()["outputs"].items()}

    def install_calls(self) -> list[list[str]]:
        log = self.tmp / "python3.log"
        return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def run_action(workspace: Path, tmp: Path, **given: str) -> Runner:
    inputs = {name: str(spec.get("default", "")) for name, spec in action()["inputs"].items()}
    unknown = set(given) - set(inputs)
    assert not unknown, unknown
    inputs.update(given)
    tmp.mkdir(parents=True, exist_ok=True)
    runner = Runner(workspace, tmp, inputs)
    runner.run()
    return runner


def run_uses_step(step: dict[str, Any], workspace: Path, tmp: Path) -> Runner:
    """A workflow's step ``uses: OWNER/verify-evidence@v1`` with its ``with:`` inputs."""
    assert step["uses"] == ACTION_REF
    given = {
        k: "true" if v is True else "false" if v is False else str(v)
        for k, v in step.get("with", {}).items()
    }
    return run_action(workspace, tmp, **given)


def test_expressions_only_where_the_runner_evaluates_them() -> None:
    """No ``${{ }}`` in a script's text: an input's value is never pasted into bash."""
    spec = action()
    assert spec["runs"]["using"] == "composite"
    evaluated = 0
    for step in spec["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step["name"]
        for value in [*step.get("env", {}).values(), *step.get("with", {}).values()]:
            evaluated += len(EXPRESSION.findall(str(value)))
    assert evaluated >= len(spec["inputs"])  # every input reaches a step


def test_the_bundled_archive_passes(archive: Path, tmp_path: Path) -> None:
    runner = run_action(archive, tmp_path)
    assert runner.codes == [0, 0, 0]
    assert runner.action_outputs() == {"exit-code": "0", "verdict": "passed"}
    assert runner.stdout.startswith("::notice title=verify-evidence::passed")
    sarif = json.loads((archive / "verify-evidence.sarif").read_text(encoding="utf-8"))
    assert sarif["runs"][0]["results"] == []
    summary = (tmp_path / "step-summary.md").read_text(encoding="utf-8")
    assert summary.startswith("## verify-evidence: ")
    (venv, pip) = runner.install_calls()
    assert venv[1:3] == ["-m", "venv"] and venv[0].endswith("fake-bin/python3")
    assert pip[1:4] == ["-m", "pip", "install"] and pip[-2:] == ["--", str(REPO)]


def test_a_tampered_archive_fails_the_job_with_its_outputs(archive: Path, tmp_path: Path) -> None:
    runner = run_action(
        tampered(archive),
        tmp_path,
        formats="github, junit=report.xml",
        summary="false",
        package="verify-evidence==0.1.0",
    )
    assert runner.codes == [0, 0, 1], runner.stderr
    assert runner.action_outputs() == {"exit-code": "1", "verdict": "failed"}
    assert "::error" in runner.stdout
    assert (archive / "report.xml").read_text(encoding="utf-8").startswith("<?xml")
    assert not (tmp_path / "step-summary.md").exists()
    assert runner.install_calls()[1][-2:] == ["--", "verify-evidence==0.1.0"]


def test_the_trust_and_failure_inputs_reach_the_check(archive: Path, tmp_path: Path) -> None:
    runner = run_action(archive, tmp_path, **{"require-signature": "true"})
    assert runner.action_outputs() == {"exit-code": "1", "verdict": "failed"}
    assert "signature.absent" in runner.stdout
    runner = run_action(archive, tmp_path / "b", **{"fail-on": "sometimes"})
    assert runner.action_outputs() == {"exit-code": "2", "verdict": "error"}
    assert runner.codes[-1] == 2
    runner = run_action(archive, tmp_path / "c", summary="yes")
    assert runner.action_outputs()["verdict"] == "error"
    assert "summary must be true or false" in runner.stdout


HOSTILE = ["$(touch pwned)", "`touch pwned`", "; touch pwned #", "x' && touch pwned && '", "*"]


@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize(
    "name", ["source", "formats", "args", "identity", "config", "fail-on", "package"]
)
def test_a_hostile_input_is_a_value_never_a_command(
    name: str, value: str, archive: Path, tmp_path: Path
) -> None:
    runner = run_action(archive, tmp_path / "t", **{name: value})
    assert not list(tmp_path.rglob("pwned")) and not list(archive.rglob("pwned"))
    assert not (Path.cwd() / "pwned").exists()
    if name == "package":
        assert runner.install_calls()[1][-1] == value  # one argument, as given
        assert runner.action_outputs()["verdict"] == "passed"
    else:
        # a name that is no option, format, file or archive: the check could not run
        assert runner.action_outputs() == {"exit-code": "2", "verdict": "error"}, name
        assert runner.codes[-1] == 2


def test_the_source_is_never_read_as_an_option(archive: Path, tmp_path: Path) -> None:
    work = tmp_path / "t"
    work.mkdir()
    (archive / "--version").mkdir()
    runner = run_action(archive, work, source="--version")
    assert runner.action_outputs()["verdict"] == "error"
    assert "verify-evidence 0" not in runner.stdout

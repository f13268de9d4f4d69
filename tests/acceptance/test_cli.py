"""The real command, run as a user or CI would run it."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from tests.conftest import REPO, require_tool, write_archive


def cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verifier", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
    )


def test_check_on_the_bundled_archive_passes_and_prints_the_stage_summaries() -> None:
    proc = cli("check", cwd=REPO)
    assert proc.returncode == 0, proc.stdout
    out = proc.stdout
    for stage in ("integrity", "validity", "consistency"):
        assert f"  {stage} " in out
    manifested = len((REPO / "manifest.sha256").read_text(encoding="utf-8").splitlines())
    spec = json.loads((REPO / "evidence/assertions.json").read_text(encoding="utf-8"))
    assert f"{len(spec['assertions'])} assertions over {manifested} manifested files" in out
    assert "No findings." in out


def test_json_report_validates_against_its_schema_and_is_deterministic(tmp_path: Path) -> None:
    first = cli("check", str(REPO), "--format", "json")
    second = cli("check", "--format", "json", cwd=REPO)
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout
    schema = json.loads((REPO / "verifier/schemas/report.schema.json").read_text(encoding="utf-8"))
    report = json.loads(first.stdout)
    Draft202012Validator(schema).validate(report)
    assert report["ok"] is True
    assert len(report["files"]) == report["stages"][0]["counts"]["listed"]


def test_the_report_schema_lists_every_finding_code() -> None:
    from verifier.findings import CODES, Stage

    schema = json.loads((REPO / "verifier/schemas/report.schema.json").read_text(encoding="utf-8"))
    check_codes = {code for code, (stage, _) in CODES.items() if stage is not Stage.COVERAGE}
    assert set(schema["$defs"]["finding"]["properties"]["code"]["enum"]) == check_codes
    guide = (REPO / "docs" / "finding-codes.md").read_text(encoding="utf-8")
    assert all(f"`{code}`" in guide for code in CODES)


def test_coreutils_accepts_the_bundled_manifest() -> None:
    require_tool("sha256sum", "coreutils sha256sum is not installed")
    proc = subprocess.run(
        ["sha256sum", "-c", "--strict", "manifest.sha256"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count(": OK\n") == len(
        (REPO / "manifest.sha256").read_text(encoding="utf-8").splitlines()
    )


def test_manifest_write_reproduces_the_committed_manifest(archive: Path) -> None:
    committed = (archive / "manifest.sha256").read_bytes()
    printed = subprocess.run(
        [sys.executable, "-m", "verifier", "manifest", str(archive)],
        capture_output=True,
        check=True,
    ).stdout
    assert printed == committed
    (archive / "manifest.sha256").unlink()
    assert cli("manifest", str(archive), "--write").returncode == 0
    assert (archive / "manifest.sha256").read_bytes() == committed


def tree_digest(root: Path) -> dict[str, tuple[str, int]]:
    return {
        str(p.relative_to(root)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_check_writes_nothing_in_the_archive(archive: Path) -> None:
    (archive / "evidence/e1-local-crash/ledger.json").write_text("{}")  # a finding to report
    before = tree_digest(archive)
    for fmt in ("text", "json"):
        assert cli("check", str(archive), "--format", fmt).returncode == 1
    assert tree_digest(archive) == before


@pytest.mark.parametrize(
    "args",
    [
        ("check", "/nonexistent/archive"),
        ("check", "--format", "xml"),
        ("check", "--no-such-option"),
        ("no-such-command",),
        (),
        ("check", "--manifest", "/nonexistent/SHA256SUMS"),
    ],
)
def test_bad_invocations_exit_2_with_one_line(args: tuple[str, ...], tmp_path: Path) -> None:
    proc = cli(*args, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1
    assert proc.stderr.startswith("verify-evidence: error: ")
    assert "Traceback" not in proc.stderr


def test_root_without_manifest_exits_2(tmp_path: Path) -> None:
    proc = cli("check", str(tmp_path))
    assert proc.returncode == 2
    assert "no manifest" in proc.stderr


def test_root_that_is_a_file_exits_2(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    assert cli("check", str(tmp_path / "f")).returncode == 2


def test_a_folder_with_only_a_published_manifest(tmp_path: Path) -> None:
    root = write_archive(tmp_path, {"release/a.tar": b"tarball", "release/b.txt": b"notes\n"})
    (root / "manifest.sha256").rename(root / "SHA256SUMS")
    proc = cli("check", str(root), "--manifest", str(root / "SHA256SUMS"), "--format", "json")
    assert proc.returncode == 0
    report = json.loads(proc.stdout)
    assert [s["status"] for s in report["stages"]] == [
        "passed",
        "nothing-to-check",
        "nothing-to-check",
    ]
    assert report["scope"] == ["release"]
    text = cli("check", str(root), "--manifest", str(root / "SHA256SUMS")).stdout
    assert "nothing to check" in text
    # said plainly, once, beside the summary line: a pass on integrity alone
    lines = text.splitlines()
    summary = lines.index("0 assertions over 2 manifested files")
    assert lines[summary + 1] == (
        "Validity and consistency had nothing to check; only integrity checked anything."
    )
    markdown = cli("check", str(root), "--manifest", str(root / "SHA256SUMS"), "-f", "markdown")
    assert "only integrity checked anything" in markdown.stdout


def test_text_output_lists_findings_with_location(archive: Path) -> None:
    (archive / "evidence/stray.json").write_text("{}")
    proc = cli("check", str(archive), "--format", "text")
    assert proc.returncode == 1
    assert "evidence/stray.json: manifest.unlisted: " in proc.stdout


def test_no_color_and_piped_output_are_plain(archive: Path) -> None:
    env = dict(os.environ, NO_COLOR="1")
    proc = cli("check", str(archive), env=env)
    assert "\x1b[" not in proc.stdout
    assert proc.stdout == cli("check", str(archive), "--format", "text").stdout


def test_rich_view_on_a_terminal(archive: Path) -> None:
    from rich.console import Console

    from verifier import verify
    from verifier.views.check.rich_view import show

    (archive / "evidence/stray.json").write_text("{}")
    console = Console(record=True, width=120, force_terminal=True)
    show(verify(archive), console)
    text = console.export_text()
    assert "manifest.unlisted" in text
    assert "assertions over" in text


def test_version() -> None:
    from verifier import __version__

    proc = cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"verify-evidence {__version__}"


def test_internal_error_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import verifier.pipeline
    from verifier.cli import main

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("simulated")

    monkeypatch.setattr(verifier.pipeline, "verify", boom)
    with pytest.raises(SystemExit) as exit_info:
        main(["check", str(REPO)])
    assert exit_info.value.code == 2  # never exit 3: the command could not run
    err = capsys.readouterr().err
    assert err == "verify-evidence: error: internal error: RuntimeError: simulated\n"


def test_ci_runs_the_readme_test_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    ci = (REPO / ".ci/run").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0].strip() for b in readme.split("```sh\n")[1:3]]
    install_and_check, test_command = blocks
    assert "verify-evidence check" in install_and_check
    assert test_command in ci
    assert "verify-evidence check" in ci


def test_ci_runs_the_slow_tests_too() -> None:
    """Tests marked ``slow`` are still run: neither pyproject's addopts nor any pytest run of
    CI selects by marker (a `-m` on the command line replaces the addopts' one), so CI runs
    everything it ran before they were marked, and so does the README's command."""
    import itertools
    import shlex
    import tomllib

    def marker_expression(args: list[str]) -> str | None:
        chosen = None
        for flag, value in itertools.pairwise(args):
            if flag == "-m":
                chosen = value
        return chosen

    ini = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    options = ini["tool"]["pytest"]["ini_options"]
    assert any(marker.startswith("slow:") for marker in options["markers"])
    default = marker_expression(shlex.split(options["addopts"]))
    ci = (REPO / ".ci/run").read_text(encoding="utf-8")
    runs = [  # each pytest run's own arguments
        line.rstrip("\\").split("python -m pytest", 1)[1]
        for line in ci.splitlines()
        if "python -m pytest" in line and not line.lstrip().startswith("#")
    ]
    assert len(runs) >= 2
    for args in runs:
        chosen = marker_expression(shlex.split(args))
        assert (default if chosen is None else chosen) in (None, ""), args


def test_check_imports_only_what_it_needs() -> None:
    """Start-up stays small: a check does not import pydantic (typer 0.29 imports it for
    every option; the dependency is capped below that release)."""
    import subprocess
    import sys

    from tests.conftest import REPO

    code = (
        "import sys\n"
        "from verifier.cli import main\n"
        "try:\n"
        f"    main(['check', {str(REPO)!r}, '--quiet'])\n"
        "except SystemExit as exc:\n"
        "    assert exc.code == 0, exc.code\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('pydantic', 'pydantic_core')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_help_and_docs_count_the_stages_right() -> None:
    """``check`` runs four stages (issue 36: its help said "all three stages"). No help text,
    docstring, doc or benchmark label counts them as three."""
    import re

    from verifier.findings import Stage

    checked = [s for s in Stage if s is not Stage.COVERAGE]
    assert len(checked) == 4
    proc = cli("check", "--help", env={**os.environ, "COLUMNS": "200"})
    assert proc.returncode == 0
    assert "all four stages" in proc.stdout
    wrong = re.compile(r"\b(all three|three stages|3 stages)\b", re.IGNORECASE)
    texts = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    texts += sorted((REPO / "verifier").rglob("*.py")) + sorted((REPO / "benchmarks").glob("*.py"))
    bad = [
        f"{path.relative_to(REPO)}:{n}"
        for path in texts
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if wrong.search(line)
    ]
    assert not bad, bad
    assert not wrong.search(proc.stdout)

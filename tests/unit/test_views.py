"""The report families share one renderer interface (:mod:`verifier.views.interface`): every
registered renderer of every family renders the bundled archive's report, deterministically;
each command's ``--format`` choices are ``auto`` plus its registry's names, read from the
real click command; start-up imports the registries but no renderer; and the hostile-output
tests hold every registered format to an oracle of its own."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import REPO
from verifier.findings import Stage
from verifier.views.check import CHECK
from verifier.views.coverage import COVERAGE
from verifier.views.interface import Format, Registry
from verifier.views.table import TABLE, TableView
from verifier.views.transcript import TRANSCRIPT

FAMILIES: dict[str, Registry[Any]] = {
    "check": CHECK,
    "table": TABLE,
    "transcript": TRANSCRIPT,
    "coverage": COVERAGE,
}
# where each family's --format lives in the CLI
COMMANDS = {
    "check": ("check",),
    "table": ("table",),
    "transcript": ("transcript", "check"),
    "coverage": ("coverage",),
}
TRANSCRIPTS = sorted((REPO / "evidence").glob("*/transcript*.json"))
DAMAGED_TRANSCRIPTS = sorted((REPO / "tests/cases/transcripts").glob("*/seed-004.json*"))


def choices_of(path: tuple[str, ...]) -> tuple[str, ...]:
    import typer.main

    from verifier.cli import app

    command: Any = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    (param,) = [p for p in command.params if p.name == "fmt"]
    return tuple(param.type.choices)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_cli_choices_are_auto_and_the_registry(family: str) -> None:
    registry = FAMILIES[family]
    assert choices_of(COMMANDS[family]) == ("auto", *registry) == registry.choices("auto")
    assert registry.family == family


def reports() -> dict[str, list[Any]]:
    """Reports of every family on the bundled archive (the transcript family: its transcript
    records, and a damaged corpus file, so that findings are rendered too)."""
    from verifier import verify
    from verifier.coverage import audit
    from verifier.pipeline import Options
    from verifier.table import DEFAULT_CATALOGUE, build_table
    from verifier.transcripts.check import check_files

    report = verify(REPO, Options(documents=(DEFAULT_CATALOGUE,)))
    table = build_table(report)
    assert table.cases and not table.problems
    return {
        "check": [report],
        "table": [TableView(table), *(TableView(table, row) for row in table.cases)],
        "transcript": [
            check_files([str(p) for p in TRANSCRIPTS]),
            check_files([str(p) for p in DAMAGED_TRANSCRIPTS]),
        ],
        "coverage": [audit(REPO)],
    }


@pytest.fixture(scope="module")
def bundled() -> dict[str, list[Any]]:
    return reports()


@pytest.mark.parametrize(
    ("family", "name"), [(f, n) for f in sorted(FAMILIES) for n in FAMILIES[f]]
)
def test_every_registered_renderer_renders_the_bundled_archive(
    family: str, name: str, bundled: dict[str, list[Any]]
) -> None:
    render = FAMILIES[family][name]
    for report in bundled[family]:
        first = render(report)
        assert first and first.endswith("\n"), (family, name)
        assert render(report) == first, (family, name)


def test_the_bundled_inputs_are_what_the_test_says() -> None:
    assert len(TRANSCRIPTS) >= 3 and len(DAMAGED_TRANSCRIPTS) >= 3
    from verifier.transcripts.check import check_files

    assert check_files([str(p) for p in TRANSCRIPTS]).findings == 0
    assert check_files([str(p) for p in DAMAGED_TRANSCRIPTS]).findings > 0


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_entry_names_a_render_function_of_its_family(family: str) -> None:
    registry = FAMILIES[family]
    for name in registry:
        entry = registry.format(name)
        module, _, function = entry.where.partition(":")
        assert module.startswith(f"verifier.views.{family}.") and function == "render"
        assert entry.name == name and entry.suffix.startswith(".")
        assert callable(registry[name])


def test_a_registry_is_a_read_only_mapping_in_the_order_given() -> None:
    registry: Registry[str] = Registry(
        "demo",
        Format("upper", "builtins:str", ".txt"),
        Format("plain", "builtins:repr", ".txt"),
    )
    assert list(registry) == ["upper", "plain"] and len(registry) == 2
    assert registry.choices("auto") == ("auto", "upper", "plain")
    assert registry.listing() == "upper or plain"
    assert registry["plain"]("x") == "'x'"
    with pytest.raises(KeyError):
        registry["nothing"]
    with pytest.raises(TypeError):
        registry["new"] = registry["plain"]  # type: ignore[index]
    with pytest.raises(ValueError, match="twice"):
        Registry("demo", Format("a", "builtins:str", ".txt"), Format("a", "builtins:str", ".x"))
    assert Registry("one", Format("a", "builtins:str", ".txt")).listing() == "a"
    assert CHECK.listing() == "text, json, markdown, junit, sarif, github, jsonl or in-toto"


def test_start_up_imports_the_registries_but_no_renderer() -> None:
    code = (
        "import json, sys, verifier.cli; "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('verifier.views'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == [
        "verifier.views",
        "verifier.views.check",
        "verifier.views.coverage",
        "verifier.views.interface",
        "verifier.views.table",
        "verifier.views.transcript",
    ]


def marked_formats(test: Callable[..., None]) -> set[str]:
    (mark,) = [m for m in getattr(test, "pytestmark", []) if m.name == "parametrize"]
    return set(mark.args[1])


def test_the_hostile_output_tests_cover_every_registered_format() -> None:
    from tests.hostile import test_output as hostile

    assert {*hostile.CHECK_FILES, "json", "github"} == set(CHECK)
    assert marked_formats(hostile.test_table_formats_are_inert_for_hostile_values) == set(TABLE)
    assert marked_formats(hostile.test_transcript_check_is_inert) == set(TRANSCRIPT)


#: strings an archive can hold that no view may choke on or pass through raw: lone
#: surrogates of both halves (JSON "\ud800" reads as one), controls, ANSI escapes, bidi
#: overrides, markup of every format
HOSTILE_STRINGS = (
    "\ud800",
    "a\udfffb\udc80",
    "\x00\x07\x1b[31mred\x1b]0;title\x07",
    "\u202etxt.exe\u2066",
    "<!-- <script>x</script> ]]> &amp; [/bold] | `c` ::error::x %0A",
    "line\nforged.json: manifest.mismatch: forged\r",
)


JSON_FORMATS = frozenset({"json", "jsonl", "sarif", "in-toto"})


def _hostile_finding(text: str, code: str = "manifest.unlisted") -> Any:
    from verifier.findings import Finding

    return Finding(code, f"evidence/{text}", f"says {text}", pointer=f"/{text}", hint=text)


@pytest.mark.parametrize("name", list(CHECK))
@pytest.mark.parametrize("text", HOSTILE_STRINGS)
def test_every_check_format_writes_any_string_an_archive_holds(
    name: str, text: str, bundled: dict[str, list[Any]], tmp_path: Any
) -> None:
    """Issue 34 (class 9): a lone surrogate in a finding's path or pointer made the SARIF
    view raise UnicodeEncodeError (exit 3). Every format renders it, its text encodes as
    UTF-8 and writes to a file."""
    from dataclasses import replace

    from verifier.commands.output import write

    report = bundled["check"][0]
    stage = replace(report.integrity, findings=[_hostile_finding(text)])
    hostile = replace(report, integrity=stage)
    rendered = "".join(CHECK.parts(name)(hostile))
    rendered.encode("utf-8")  # strict: nothing UTF-8 cannot carry
    assert "\x1b" not in rendered and "\x07" not in rendered
    if name not in JSON_FORMATS:  # JSON keeps text exactly (its escaping is inert)
        assert "\u202e" not in rendered
    write(tmp_path / "out", rendered)
    assert (tmp_path / "out").read_bytes().decode("utf-8") == rendered


@pytest.mark.parametrize("text", HOSTILE_STRINGS)
def test_the_rich_check_view_writes_any_string_an_archive_holds(
    text: str, bundled: dict[str, list[Any]]
) -> None:
    import io
    from dataclasses import replace

    from rich.console import Console

    from verifier.views.check.rich_view import show

    report = bundled["check"][0]
    stage = replace(report.integrity, findings=[_hostile_finding(text)])
    out = io.StringIO()
    show(replace(report, integrity=stage), Console(file=out, width=100, force_terminal=True))
    shown = out.getvalue()
    shown.encode("utf-8")
    assert "\u202e" not in shown and "\x07" not in shown


@pytest.mark.parametrize("name", list(TRANSCRIPT))
@pytest.mark.parametrize("text", HOSTILE_STRINGS)
def test_every_transcript_format_writes_any_string_an_archive_holds(
    name: str, text: str, bundled: dict[str, list[Any]]
) -> None:
    from dataclasses import replace

    report = bundled["transcript"][1]
    files = [
        replace(f, findings=[*f.findings, _hostile_finding(text, "transcript.dangling-call")])
        for f in report.files
    ]
    rendered = TRANSCRIPT[name](replace(report, files=files))
    rendered.encode("utf-8")
    assert "\x1b" not in rendered and "\x07" not in rendered
    if name not in JSON_FORMATS:
        assert "\u202e" not in rendered


# --- one verdict: every view says what the exit code says (issue 34, class 12) ------------

#: a finding code of each severity (placed in its code's stage)
SEVERITY_CODE = {
    "error": "manifest.unlisted",
    "warning": "baseline.unmatched",
    "note": "signature.not-checked",
}


def _view_passed(name: str, text: str) -> bool:
    """The verdict a reader of format ``name`` takes from ``text`` (True: passed)."""
    import xml.etree.ElementTree as ET

    if name == "text":
        (line,) = [x for x in text.splitlines() if x.startswith("Verdict: ")]
        return line.startswith("Verdict: passed")
    if name == "markdown":
        head = text.splitlines()[0]
        assert head.startswith("## verify-evidence: ")
        return head.startswith("## verify-evidence: passed")
    if name == "junit":
        root = ET.fromstring(text)
        return int(root.get("failures", "0")) + int(root.get("errors", "0")) == 0
    if name == "sarif":
        run = json.loads(text)["runs"][0]
        (invocation,) = run["invocations"]
        assert (invocation["exitCode"] == 0) == (run["properties"]["verdict"] == "passed")
        return bool(invocation["exitCode"] == 0)
    if name == "github":
        last = text.splitlines()[-1]
        assert last.startswith(
            ("::notice title=verify-evidence::", "::error title=verify-evidence::")
        )
        data = last.split("::", 2)[2]
        assert data.startswith("passed") == last.startswith("::notice"), last
        return last.startswith("::notice")
    if name == "jsonl":
        summary = json.loads(text.splitlines()[-1])
        return bool(summary["verdict"] == "passed")
    if name == "json":
        return bool(json.loads(text)["verdict"] == "passed")
    if name == "in-toto":
        predicate = json.loads(text)["predicate"]
        assert (predicate["result"] == "FAILED") == bool(predicate["failedTests"])
        return bool(predicate["result"] != "FAILED")
    raise AssertionError(f"no verdict reader for the format {name}: add one")


SEVERITY_SETS = [(), ("error",), ("warning",), ("note",), ("warning", "note"), ("error", "note")]


@pytest.mark.parametrize("name", list(CHECK))
@pytest.mark.parametrize("fail_on", ["error", "warning", "note"])
@pytest.mark.parametrize("severities", SEVERITY_SETS, ids=lambda s: "+".join(s) or "none")
@pytest.mark.parametrize("accepted", [(), ("error",), ("warning",)], ids=["", "acc-e", "acc-w"])
def test_every_check_view_says_the_verdict_of_the_exit_code(
    name: str,
    fail_on: str,
    severities: tuple[str, ...],
    accepted: tuple[str, ...],
    bundled: dict[str, list[Any]],
) -> None:
    """Every registered format x --fail-on x the findings' severities (accepted ones too):
    the verdict the view gives is the exit code's, and the exit code is the rule's (a
    counted finding reaches --fail-on). On main, --fail-on warning with only warnings
    exited 1 while text, JUnit, SARIF, JSONL, JSON and in-toto said passed."""
    from dataclasses import replace

    from verifier.commands import exit_code
    from verifier.findings import Finding, Severity
    from verifier.report import Accepted
    from verifier.views.interface import RenderSettings

    report = bundled["check"][0]
    stages = {s.stage: s for s in report.checks}
    for severity in severities:
        finding = Finding(SEVERITY_CODE[severity], "evidence/x.json", f"a {severity}")
        stage = stages[finding.stage]
        stages[finding.stage] = replace(stage, findings=[*stage.findings, finding])
    for severity in accepted:
        finding = Finding(SEVERITY_CODE[severity], "evidence/y.json", f"an accepted {severity}")
        stage = stages[finding.stage]
        stages[finding.stage] = replace(
            stage, accepted=[*stage.accepted, Accepted(finding, "ignored")]
        )
    report = replace(
        report,
        authenticity=stages[Stage.AUTHENTICITY],
        integrity=stages[Stage.INTEGRITY],
        validity=stages[Stage.VALIDITY],
        consistency=stages[Stage.CONSISTENCY],
    )
    want = 1 if any(Severity(s).reaches(Severity(fail_on)) for s in severities) else 0
    assert exit_code(report, Severity(fail_on)) == want
    text = CHECK[name](report, RenderSettings(Severity(fail_on)))
    assert _view_passed(name, text) == (want == 0), text[-600:]
    if name == "in-toto" and want == 0:
        predicate = json.loads(text)["predicate"]
        if accepted:  # never simply passed: the acceptance is said, each finding listed
            assert predicate["result"] == "WARNED"
            listed = [
                c
                for c in predicate["configuration"]
                if c["annotations"].get("role") == "accepted-finding"
            ]
            assert len(listed) == len(accepted)


def _damaged_sources(tmp_path: Any) -> list[Any]:
    """Sources damaged before their first entry: a zip cut after its signature, a gzip
    tarball cut inside its first block."""
    import gzip
    import io
    import tarfile

    cut_zip = tmp_path / "cut.zip"
    cut_zip.write_bytes(b"PK\x03\x04 truncated")
    plain = io.BytesIO()
    with tarfile.open(fileobj=plain, mode="w") as tar:
        info = tarfile.TarInfo("manifest.sha256")
        info.size = 3000
        tar.addfile(info, io.BytesIO(b"x" * 3000))
    cut_tar = tmp_path / "cut.tar.gz"
    cut_tar.write_bytes(gzip.compress(plain.getvalue())[:40])
    return [cut_zip, cut_tar]


def test_a_finding_about_the_whole_source_names_it_in_every_view(tmp_path: Any) -> None:
    """Damage before a source's first entry is a finding on no member: it names the source
    as given, in the report and so in every view (issue 36: ``: source.unreadable``)."""
    import io

    from rich.console import Console

    from verifier import verify
    from verifier.views.check.rich_view import show

    for path in _damaged_sources(tmp_path):
        report = verify(path)
        found = report.findings
        assert found and all(f.code.startswith("source.") for f in found), found
        assert all(f.path == str(path) for f in found), found
        out = io.StringIO()
        show(report, Console(file=out, width=300, force_terminal=False))
        outputs = {name: CHECK[name](report) for name in CHECK}
        outputs["rich"] = out.getvalue()
        for name, text in outputs.items():
            assert path.name in text, (name, path)
            lines = text.splitlines()
            assert not [x for x in lines if x.lstrip().startswith(": ")], (name, text)
            assert '"path": ""' not in text and '"path":""' not in text, name

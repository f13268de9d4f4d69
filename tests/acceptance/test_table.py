"""``verify-evidence table``: golden files per format, Table 1's content, and honesty rules
(no aggregate, acceptance and readbacks apart, unverified cells marked, exit 1)."""

from __future__ import annotations

import base64
import csv
import hashlib
import html
import io
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from tests.conftest import REPO, check_golden, rewrite_manifest

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "table"
FORMATS = ("text", "markdown", "json", "csv", "html")
E1 = "evidence/e1-local-crash/runner-result.json"
E2 = "evidence/e2-hosted-original/runner-result.json"


def table(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verifier", "table", str(root), *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "SOURCE_DATE_EPOCH": "1767225600"},  # the HTML page's time (#16)
    )


def golden(name: str, actual: str) -> None:
    check_golden(GOLDEN / name, actual)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_matches_its_golden_file(fmt: str) -> None:
    proc = table(REPO, "--format", fmt)
    assert proc.returncode == 0, proc.stderr
    ext = {"text": "txt", "markdown": "md"}.get(fmt, fmt)
    golden(f"table.{ext}", proc.stdout)
    assert table(REPO, "--format", fmt).stdout == proc.stdout  # deterministic


@pytest.mark.parametrize("fmt", FORMATS)
def test_one_case_in_depth_matches_its_golden_file(fmt: str) -> None:
    proc = table(REPO, "--format", fmt, "--case", "hosted-stripe")
    assert proc.returncode == 0, proc.stderr
    ext = {"text": "txt", "markdown": "md"}.get(fmt, fmt)
    golden(f"case-hosted-stripe.{ext}", proc.stdout)


def rows_by_id() -> dict[str, dict[str, Any]]:
    data = json.loads(table(REPO, "--format", "json").stdout)
    return {case["id"]: case for case in data["cases"]}


def texts(cells: list[dict[str, Any]]) -> dict[str, str]:
    return {c["label"]: c["text"] for c in cells}


def test_the_six_rows_carry_table_1() -> None:
    rows = rows_by_id()
    assert list(rows) == [
        "local-stripe",
        "hosted-stripe",
        "before-request-fixture",
        "read-only-unsafe",
        "read-only-safe",
        "hosted-webhook",
    ]
    for case, counts in (
        ("local-stripe", "111"),
        ("hosted-stripe", "111"),
        ("before-request-fixture", "100"),
    ):
        got = texts(rows[case]["counts"])
        assert got["tool"] + got["gateway"] + got["create attempts"] == counts
    assert texts(rows["local-stripe"]["outcomes"]) == {
        "tool result": "interrupted",
        "same-operation duplicate": "rejected",
    }
    hosted = rows["hosted-stripe"]
    assert hosted["acceptance"]["text"] == "FAILED"
    assert hosted["acceptance"]["source"]["path"] == E2
    readback = hosted["readbacks"][0]
    assert (readback["text"], readback["preregistered"], readback["evidence"]) == (
        "passed",
        False,
        "E3",
    )
    assert texts(rows["read-only-unsafe"]["counts"]) == {"tool calls": "1"}
    assert texts(rows["read-only-unsafe"]["outcomes"]) == {"tool result": "interrupted"}
    assert texts(rows["read-only-safe"]["counts"]) == {"tool calls": "2"}
    assert texts(rows["read-only-safe"]["outcomes"]) == {"tool result": "completed"}
    webhook = rows["hosted-webhook"]
    assert texts(webhook["counts"]) == {
        "deliveries": "3",
        "event ids": "1",
        "payment ids": "1",
        "stored marker": "1",
    }
    assert texts(webhook["outcomes"])["invalid signature"] == "rejected"
    assert "downstream action unmeasured" in webhook["limits"]


def test_acceptance_and_readback_sit_in_separate_columns() -> None:
    out = table(REPO, "--format", "csv").stdout
    rows = list(csv.reader(io.StringIO(out)))
    header = rows[0]  # a plain header row (#16: the status is columns, not a preamble)
    hosted = dict(zip(header, next(r for r in rows if r[0] == "hosted-stripe"), strict=True))
    assert hosted["Original acceptance"] == "original assertion: FAILED"
    assert "passed" not in hosted["Original acceptance"]
    assert hosted["Later readbacks"].startswith(
        "same-operation readback: passed (not preregistered) [E3]"
    )


AGGREGATE = re.compile(
    r"success rate|pass rate|\d+\s*%|\d+\s*/\s*\d+\s*(cases|passed)|\b\d+ (cases )?passed\b", re.I
)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", [None, "hosted-stripe"])
def test_no_format_aggregates_cases(fmt: str, case: str | None) -> None:
    args = ("--format", fmt) + (("--case", case) if case else ())
    out = table(REPO, *args).stdout
    assert not AGGREGATE.search(out), AGGREGATE.search(out)


def test_json_validates_against_its_schema() -> None:
    schemas = {
        n: json.loads((REPO / "verifier" / "schemas" / n).read_text(encoding="utf-8"))
        for n in ("table.schema.json", "report.schema.json")
    }
    registry: Registry[Any] = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas.values()
    )
    validator = Draft202012Validator(schemas["table.schema.json"], registry=registry)
    for args in ((), ("--case", "hosted-webhook")):
        validator.validate(json.loads(table(REPO, "--format", "json", *args).stdout))


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend(attrs)


def test_html_is_one_self_contained_page() -> None:
    page = table(REPO, "--format", "html").stdout
    parser = _Collector()
    parser.feed(page)
    parser.close()
    assert page.startswith("<!DOCTYPE html>")
    assert {"html", "head", "body", "table", "style"} <= set(parser.tags)
    assert not {"script", "link", "img", "iframe", "object", "embed"} & set(parser.tags)
    for name, value in parser.attrs:
        assert name not in {"src", "srcset", "action"}
        if name == "href":
            assert value is not None and value.startswith("#")
    assert "url(" not in page and "@import" not in page
    assert "http:" not in page and "https:" not in page and "//" not in page
    # A strict CSP: the page's own style sheet (by its digest) and nothing else.
    style = page.split("<style>", 1)[1].split("</style>", 1)[0]
    style_sha = base64.b64encode(hashlib.sha256(style.encode("utf-8")).digest()).decode("ascii")
    csp = (
        "default-src &#x27;none&#x27;; style-src &#x27;sha256-" + style_sha + "&#x27;; "
        "base-uri &#x27;none&#x27;; form-action &#x27;none&#x27;"
    )
    assert f'<meta http-equiv="Content-Security-Policy" content="{csp}">' in page
    assert page.count("<style>") == 1 and " style=" not in page
    digest = hashlib.sha256((REPO / E2).read_bytes()).hexdigest()
    assert digest in page and E2 in page
    assert "Verification passed" in page


def test_case_detail_names_file_pointer_and_digest() -> None:
    out = table(REPO, "--format", "text", "--case", "hosted-stripe").stdout
    digest = hashlib.sha256((REPO / E2).read_bytes()).hexdigest()
    assert f"from {E2}#/acceptance/result" in out
    assert f"sha256 {digest}" in out
    assert "e3.acceptance-separation: passed" in out


def test_unknown_case_exits_2() -> None:
    proc = table(REPO, "--case", "nope")
    assert proc.returncode == 2
    assert len(proc.stderr.splitlines()) == 1


def test_tampered_count_changes_the_cell_and_fails(archive: Path) -> None:
    path = archive / E1
    data = json.loads(path.read_text(encoding="utf-8"))
    data["counters"]["toolExecutions"] = 2
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    rewrite_manifest(archive)
    proc = table(archive, "--format", "markdown")
    assert proc.returncode == 1
    first = proc.stdout.splitlines()[0]
    assert "VERIFICATION FAILED" in first
    local = next(line for line in proc.stdout.splitlines() if line.startswith("| Local"))
    assert "⚠ **unverified** tool 2" in local
    assert "e1.counters.tool-executions failed" in proc.stdout


def test_stale_manifest_marks_every_cell_of_the_file(archive: Path) -> None:
    path = archive / E2
    path.write_text(
        path.read_text(encoding="utf-8").replace('"failed"', '"passed"', 1), encoding="utf-8"
    )
    proc = table(archive, "--format", "json")
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert data["verification"]["ok"] is False
    hosted = next(c for c in data["cases"] if c["id"] == "hosted-stripe")
    assert hosted["acceptance"]["verified"] is False
    assert any("mismatch" in p for p in hosted["acceptance"]["problems"])
    assert all(not c["verified"] for c in hosted["counts"])


def test_catalogue_selector_to_nothing_is_marked_not_shown_as_fact(archive: Path) -> None:
    path = archive / "evidence/cases.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["cases"][0]["counts"][0]["select"]["pointer"] = "/counters/nothing"
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    rewrite_manifest(archive)
    proc = table(archive, "--format", "text")
    assert proc.returncode == 1
    assert "UNVERIFIED tool ?" in proc.stdout
    assert "resolves to nothing" in proc.stdout


def test_rich_view_marks_unverified_cells(archive: Path) -> None:
    from rich.console import Console

    from verifier import verify
    from verifier.table import build_table
    from verifier.views.table.rich_view import show

    path = archive / E1
    path.write_text(
        path.read_text(encoding="utf-8").replace('"SIGKILL"', '"SIGTERM"'), encoding="utf-8"
    )
    console = Console(record=True, width=200, force_terminal=True)
    show(build_table(verify(archive)), console)
    text = console.export_text()
    assert "VERIFICATION FAILED" in text.splitlines()[0]
    assert "⚠ tool 1" in text
    assert "Hosted webhook control" in text


def test_a_catalogue_named_elsewhere_is_read(archive: Path) -> None:
    """--catalogue names another file: it is kept whole like the default one, and every
    value it selects is extracted from the records it names."""
    (archive / "evidence/cases.json").rename(archive / "evidence/other-cases.json")
    rewrite_manifest(archive)
    default = table(archive, "--format", "json")
    assert default.returncode == 2  # no catalogue where the default looks
    proc = table(archive, "--format", "json", "--catalogue", "evidence/other-cases.json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["cases"]
    assert rows and all(c["verified"] for r in rows for c in r["counts"])


def add_note(archive: Path) -> None:
    """A transcript record that reuses an answered call id: one note, no error."""
    source = archive / "evidence/e1-local-crash/transcript.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    messages = data["messages"]
    messages += [json.loads(json.dumps(messages[1])), {**messages[2], "content": "ok"}]
    data["provenance"]["placeholders"] = []
    (archive / "evidence/extra").mkdir()
    (archive / "evidence/extra/transcript.json").write_text(json.dumps(data), encoding="utf-8")
    rewrite_manifest(archive)


def check_counts(archive: Path) -> str:
    """check's own count line: ``N finding(s) (2 error(s), 1 note(s)):``."""
    out = subprocess.run(
        [sys.executable, "-m", "verifier", "check", str(archive), "--format", "text"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return next(line for line in out.splitlines() if " finding(s) (" in line)


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_failed_header_counts_errors_and_names_notes_beside(archive: Path, fmt: str) -> None:
    """The header counts the errors that failed the run, as check does, and the notes
    beside them: never "3 findings" for 2 errors and a note."""
    add_note(archive)
    path = archive / E1
    path.write_text(
        path.read_text(encoding="utf-8").replace('"SIGKILL"', '"SIGTERM"'), encoding="utf-8"
    )
    rewrite_manifest(archive)
    assert check_counts(archive) == "3 finding(s) (2 error(s), 1 note(s)):"
    proc = table(archive, "--format", fmt)
    assert proc.returncode == 1
    head = "VERIFICATION FAILED (2 errors; 1 note besides); "
    assert head in proc.stdout
    assert re.search(r"besides\); [1-9][0-9]* marked cells? (are|is) unverified", proc.stdout)
    assert "3 findings" not in proc.stdout


def test_a_note_alone_passes_and_is_named_unless_fail_on_note(archive: Path) -> None:
    add_note(archive)
    assert check_counts(archive) == "1 finding(s) (1 note(s)):"
    proc = table(archive, "--format", "text")
    assert proc.returncode == 0
    assert proc.stdout.startswith("Verification passed (1 note): integrity passed")
    strict = table(archive, "--format", "json", "--fail-on", "note")
    assert strict.returncode == 1
    verification = json.loads(strict.stdout)["verification"]
    assert verification["ok"] is False  # the header and the exit code agree
    # the note is on a file no cell reads: no cell is marked, and the header says none is
    assert verification["status"].startswith("VERIFICATION FAILED (1 note): ")
    assert "marked" not in verification["status"]


def test_the_untouched_archive_header_names_no_finding() -> None:
    first = table(REPO, "--format", "text").stdout.splitlines()[0]
    assert first.startswith("Verification passed: integrity passed")


@pytest.mark.parametrize("fmt", [*FORMATS, "rich"])
def test_no_cell_marked_no_word_of_marked_cells(archive: Path, fmt: str) -> None:
    """A run that fails on a file no cell reads marks no cell: the header says it failed,
    not that "marked cells are unverified" (issue 36); every table view."""
    readme = archive / "evidence" / "README.md"
    readme.write_bytes(readme.read_bytes() + b"changed\n")  # manifest.mismatch, in no cell
    if fmt == "rich":
        from rich.console import Console

        from verifier import verify
        from verifier.pipeline import Options
        from verifier.table import DEFAULT_CATALOGUE, build_table
        from verifier.views.table.rich_view import show

        built = build_table(verify(archive, Options(documents=(DEFAULT_CATALOGUE,))))
        out = io.StringIO()
        show(built, Console(file=out, width=200, force_terminal=False))
        text = out.getvalue()
    else:
        proc = table(archive, "--format", fmt)
        assert proc.returncode == 1, proc.stderr
        text = proc.stdout
    assert "VERIFICATION FAILED (1 error)" in text
    assert "marked cell" not in text
    shown = re.sub(r"<style>.*?</style>", "", text, flags=re.DOTALL)  # HTML: its CSS classes
    assert "unverified" not in shown.lower()


@pytest.mark.parametrize(
    ("catalogue", "says"),
    [
        ("evidence/nothing.json", "evidence/nothing.json is not a file the manifest lists"),
        ("evidence/assertions.json", "evidence/assertions.json has no 'cases' array"),
        ("evidence/README.md", "evidence/README.md could not be parsed as JSON"),
        ("evidence/cases.json", "evidence/cases.json did not pass its integrity check (mismatch)"),
    ],
)
def test_a_catalogue_with_no_cases_says_why(archive: Path, catalogue: str, says: str) -> None:
    """One message per reason, not "is missing, unparsable or has no 'cases' array" for all
    (issue 36's sibling of the misleading source messages)."""
    cases = archive / "evidence" / "cases.json"
    cases.write_bytes(cases.read_bytes() + b"x")  # its digest fails, and its parse
    proc = table(archive, "--catalogue", catalogue)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr == f"verify-evidence: error: {says}\n"


def table_text(archive: Path, fmt: str, *args: str) -> tuple[int, str]:
    """The table of ``archive`` in ``fmt`` (``rich``: the terminal view), and its exit code
    (the rich view: 1 unless the table is ok)."""
    if fmt == "rich":
        from rich.console import Console

        from verifier import verify
        from verifier.pipeline import Options
        from verifier.table import DEFAULT_CATALOGUE, build_table
        from verifier.views.table.rich_view import show

        ignore = frozenset(c for a in args if not a.startswith("-") for c in a.split(","))
        built = build_table(verify(archive, Options(documents=(DEFAULT_CATALOGUE,), ignore=ignore)))
        out = io.StringIO()
        show(built, Console(file=out, width=400, force_terminal=False))
        return (0 if built.ok else 1), out.getvalue()
    proc = table(archive, "--format", fmt, *args)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, proc.stdout


def count_marks(fmt: str, text: str) -> int:
    """How many cells ``text`` (the whole table in ``fmt``) marks."""
    if fmt == "json":
        data = json.loads(text)
        return sum(
            1
            for case in data["cases"]
            for c in [*case["counts"], *case["outcomes"], case["acceptance"], *case["readbacks"]]
            if c is not None and not c["verified"]
        )
    mark = {"text": "UNVERIFIED ", "csv": "UNVERIFIED ", "markdown": "⚠ **unverified**"}
    if fmt == "html":  # the table's rows, not the per-case detail below it
        return text.split("<h2>", 1)[0].count("\u26a0 unverified:")
    if fmt == "rich":
        return text.split("\nunverified:", 1)[0].count("\u26a0 ")
    return text.count(mark[fmt])


def all_cells() -> int:
    data = json.loads(table(REPO, "--format", "json").stdout)
    return sum(
        len(case["counts"])
        + len(case["outcomes"])
        + len(case["readbacks"])
        + (case["acceptance"] is not None)
        for case in data["cases"]
    )


@pytest.mark.parametrize("fmt", [*FORMATS, "rich"])
def test_a_catalogue_that_fails_its_digest_marks_every_cell(archive: Path, fmt: str) -> None:
    """The catalogue is where every cell's selector comes from: a catalogue whose digest
    fails but still parses gives no verified cell, in any view (main marked none)."""
    cases = archive / "evidence" / "cases.json"
    cases.write_bytes(cases.read_bytes() + b" ")
    code, text = table_text(archive, fmt)
    assert code == 1
    total = all_cells()
    assert count_marks(fmt, text) == total
    assert f"{total} marked cells are unverified" in text
    if fmt == "json":
        cells = [c for case in json.loads(text)["cases"] for c in case["counts"]]
        assert all(
            "the catalogue evidence/cases.json: the file is mismatch" in c["problems"]
            for c in cells
        )


@pytest.mark.parametrize("fmt", [*FORMATS, "rich"])
def test_a_spec_that_fails_its_digest_marks_every_established_cell(archive: Path, fmt: str) -> None:
    """The assertion spec says what an establishing assertion checks: when its digest fails,
    an assertion that passed establishes nothing (main showed the cells verified)."""
    spec = archive / "evidence" / "assertions.json"
    spec.write_bytes(spec.read_bytes() + b" ")
    code, text = table_text(archive, fmt)
    assert code == 1
    rows = json.loads(table(archive, "--format", "json").stdout)["cases"]
    cells = [
        c
        for case in rows
        for c in [*case["counts"], *case["outcomes"], case["acceptance"], *case["readbacks"]]
        if c is not None
    ]
    established = [c for c in cells if c["assertions"]]
    assert established
    assert all(not c["verified"] for c in established)
    assert all(c["verified"] for c in cells if not c["assertions"])
    assert count_marks(fmt, text) == len(established)


def test_a_catalogues_own_entry_problem_marks_only_its_cell(archive: Path) -> None:
    """A selector of the catalogue naming a file the manifest does not list (or no file)
    marks its own cell, not the whole catalogue (guard)."""
    path = archive / "evidence/cases.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["cases"][0]["counts"][0]["select"] = {"file": "evidence/extra/x.json", "pointer": "/n"}
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    rewrite_manifest(archive)
    (archive / "evidence/extra").mkdir()
    (archive / "evidence/extra/x.json").write_text('{"n": 7}\n', encoding="utf-8")
    proc = table(archive, "--format", "text")
    assert proc.returncode == 1
    assert "UNVERIFIED tool 7; gateway 1" in proc.stdout
    assert "1 marked cell is unverified" in proc.stdout


@pytest.mark.parametrize("fmt", [*FORMATS, "rich"])
def test_a_cell_over_an_accepted_finding_says_accepted(archive: Path, fmt: str) -> None:
    """Findings accepted with --ignore do not fail the table, but the cells they would have
    marked are not shown as verified: each says it was accepted (main: a failed assertion
    accepted kept the table at exit 1, a schema finding accepted left its cells verified)."""
    path = archive / E1
    path.write_text(
        path.read_text(encoding="utf-8").replace('"SIGKILL"', '"SIGTERM"'), encoding="utf-8"
    )
    rewrite_manifest(archive)
    code, text = table_text(archive, fmt, "--ignore", "schema.invalid,assertion.failed")
    assert code == 0
    marked = count_marks(fmt, text)
    assert marked > 0
    assert f"Verification passed; {marked} marked cells accepted, not verified" in text
    if fmt != "json":
        assert "(accepted)" in text
    else:
        local = next(c for c in json.loads(text)["cases"] if c["id"] == "local-stripe")
        for cell in local["counts"]:
            assert cell["verified"] is False and cell["problems"] == []
            assert any("accepted (ignored)" in a for a in cell["accepted"])


def judged_elsewhere(archive: Path) -> Any:
    """The run of ``archive`` whose spec and catalogue were moved to other names and named
    so (the library's ``Options.assertions`` and ``documents``): what the run judged."""
    from verifier import verify
    from verifier.pipeline import Options

    (archive / "evidence/assertions.json").rename(archive / "evidence/spec.json")
    (archive / "evidence/cases.json").rename(archive / "evidence/table.json")
    rewrite_manifest(archive)
    return Options(assertions="evidence/spec.json", documents=("evidence/table.json",)), verify


def test_the_check_markdown_table_is_built_from_the_catalogue_the_check_judged(
    archive: Path,
) -> None:
    """check --format markdown's outcome table comes from the catalogue the run judged, not
    the default path (main: no table, the default path holding nothing)."""
    from verifier.views.check import CHECK

    options, verify = judged_elsewhere(archive)
    report = verify(archive, options)
    assert report.passed
    text = CHECK["markdown"](report)
    assert "### Per-case outcomes" in text
    assert "Hosted webhook control" in text
    assert "unverified" not in text


@pytest.mark.parametrize("tampered", ["evidence/spec.json", "evidence/table.json"])
def test_the_table_judges_the_spec_and_catalogue_the_run_judged(
    archive: Path, tampered: str
) -> None:
    """build_table(report) marks cells over the spec and the catalogue the run judged: a
    changed spec (or catalogue) under another name marks its cells, in the table and in
    check's Markdown view (main: the default paths were judged, nothing was marked)."""
    from verifier.table import build_table
    from verifier.views.check import CHECK

    options, verify = judged_elsewhere(archive)
    path = archive / tampered
    path.write_bytes(path.read_bytes() + b" ")
    report = verify(archive, options)
    built = build_table(report)
    assert built.catalogue == "evidence/table.json"
    assert built.cases and not built.ok
    what = "the assertion spec" if tampered.endswith("spec.json") else "the catalogue"
    marked = [c for row in built.cases for c in row.cells if not c.verified]
    assert marked
    assert all(f"{what} {tampered}: the file is mismatch" in c.problems for c in marked)
    assert "⚠ **unverified**" in CHECK["markdown"](report)


def test_the_in_toto_policy_is_the_spec_the_run_judged(archive: Path) -> None:
    """The in-toto statement names, as its policy, the spec the run judged and its digest
    (main: the default path's, absent here, so no policy at all)."""
    from verifier.views.check import CHECK

    options, verify = judged_elsewhere(archive)
    report = verify(archive, options)
    statement = json.loads(CHECK["in-toto"](report))
    text = json.dumps(statement)
    digest = hashlib.sha256((archive / "evidence/spec.json").read_bytes()).hexdigest()
    assert '"name": "evidence/spec.json"' in text
    assert digest in text


@pytest.mark.parametrize("fmt", [*FORMATS, "rich"])
@pytest.mark.parametrize("accepted", [False, True])
def test_a_row_from_an_unverified_catalogue_says_so(
    archive: Path, fmt: str, accepted: bool
) -> None:
    """A row's title, kind, limits and evidence are the catalogue's text: when the catalogue
    fails its digest (or that finding is accepted), every row says it comes from an
    unverified catalogue, in every view, whole table and one case (main: only the cells)."""
    cases = archive / "evidence" / "cases.json"
    cases.write_bytes(cases.read_bytes() + b" ")
    args = ("--ignore", "manifest.mismatch") if accepted else ()
    code, text = table_text(archive, fmt, *args)
    assert code == (0 if accepted else 1)
    note = "from an unverified catalogue" + (", accepted" if accepted else "")
    rows = json.loads(table(archive, "--format", "json", *args).stdout)["cases"]
    if fmt == "json":
        for row in rows:
            assert row["catalogue"]["verified"] is False
            assert row["catalogue"]["source"].startswith("evidence/cases.json#/cases/")
            said = row["catalogue"]["accepted" if accepted else "problems"]
            assert said and all(s.startswith("the catalogue evidence/cases.json: ") for s in said)
            assert row["catalogue"]["problems" if accepted else "accepted"] == []
        return
    flat = " ".join(html.unescape(text).split())  # the rich view wraps long cells
    for row in rows:
        if fmt in ("text", "markdown", "rich"):  # the lines naming each unverified piece
            assert f"{row['id']}: title, kind, limits and evidence (evidence/cases.json#" in flat
        elif fmt == "html":  # each case's own section says why
            assert f"From evidence/cases.json#/cases/{rows.index(row)}: the catalogue" in flat
    if fmt == "rich":  # its cells wrap: the lines under the table name every row
        return
    for row in rows:
        for piece in (row["title"], row["kind"], "; ".join(row["limits"]) or "none stated"):
            assert f"{piece} ({note})" in flat or f"{piece} [{row['id']}; " in flat, piece
    assert flat.count(f"({note})") >= 3 * len(rows)
    if fmt != "rich":
        one = table(archive, "--format", fmt, "--case", "hosted-stripe", *args).stdout
        if fmt != "csv":
            assert f"({note})" in one
        else:  # one row per value: each value's Problems say the catalogue's
            assert "the catalogue evidence/cases.json" in one


def test_a_row_of_no_cell_from_an_unverified_catalogue_fails_the_table(archive: Path) -> None:
    """The row's own text is a claim too: a row with no cell at all from a catalogue whose
    digest fails fails the table (main: no cell, nothing marked, exit 0)."""
    cases = archive / "evidence" / "cases.json"
    data = json.loads(cases.read_text(encoding="utf-8"))
    only = {**data["cases"][0], "id": "only", "title": "Only words", "counts": [], "outcomes": []}
    data["cases"] = [{**only, "acceptance": None, "readbacks": []}]
    cases.write_text(json.dumps(data), encoding="utf-8")
    rewrite_manifest(archive)
    assert table(archive, "--format", "text").returncode == 0  # guard: verified, it passes
    cases.write_bytes(cases.read_bytes() + b" ")
    proc = table(archive, "--format", "text")
    assert proc.returncode == 1
    assert "Only words (from an unverified catalogue)" in proc.stdout

"""Output an archive cannot forge (issue 11, items 10 and 11): one corpus of hostile strings,
carried by real archives (file names in a folder and a zip, values and labels the case table
shows, messages quoting values, transcript call ids and tool names), run through every
format of ``check``, ``table`` and ``transcript check``, the rich views included (on a
pseudo-terminal, the real CLI path).

Each format is held to what makes it inert, checked with an oracle of its own (Unicode
categories, an XML parser and the JUnit XSD, the SARIF schema, Python's HTML parser, the csv
module, the GitHub runner's command grammar), never with the code under test.
"""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import re
import select
import subprocess
import sys
import unicodedata
import xml.etree.ElementTree as ET
import zipfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, copy_bundled, require_module, rewrite_manifest
from tests.hostile.harness import Run, assert_safe, run_cli

# The corpus. Keys name the attack; every value must come out inert in every format.
HOSTILE: dict[str, str] = {
    "newline": "a\nforged.json: manifest.mismatch: forged line",
    "cr": "a\rforged.json: manifest.mismatch: overwritten",
    "ansi-csi": "\x1b[2K\x1b[1G\x1b[31mred",
    "ansi-osc": "\x1b]8;;http://x\x07link\x1b]8;;\x07 \x1b]0;title\x07",
    "c0": "\x01\x02\x07\x08\x0b\x0c\x1f",
    "c1": "\x85\x9b31m\x9d",
    "del": "a\x7fb",
    "bidi": "\u202etxt.exe\u202c \u2066\u2067\u2068\u2069",
    "zero-width": "a\u200b\u200c\u200d\u2060\ufeffb",
    "separators": "a\u2028b\u2029c",
    "surrogate": "\udcff\udc80name",
    "rich-close": "[/bold]",
    "rich-link": "[link](http://x)",
    "rich-style": "[bold red]styled[/] :smile: :cross_mark:",
    "html-comment": "<!-- hides the rest",
    "script": "<script>alert(1)</script>",
    "img": "<img src=http://x/y.png>",
    "cdata": "]]> &amp; &lt;",
    "soh": "\x01",
    "formula-eq": "=cmd|' /C calc'!A0",
    "formula-plus": "+1+cmd|' /C calc'!A0",
    "formula-minus": "-1+cmd|' /C calc'!A0",
    "formula-at": "@SUM(1+1)*cmd|' /C calc'!A0",
    "formula-tab": "\t=1+1",
    "formula-cr": "\r=1+1",
    "markdown-table": "a | b `c` ``d`` *e* _f_ ~~g~~ $h$",
    "github-command": "::error file=x,line=1::forged annotation",
    "github-escapes": "%0A::warning::forged %25 %0D",
    "long": "L" * 20000,
}

SAFE_CATEGORIES_EXCLUDED = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
PAYLOADS = ("forged line", "overwritten", "<!--", "<script", "<img")


def name_of(key: str, value: str) -> str | None:
    """A file name carrying ``value`` (None where no file system can hold it)."""
    if "/" in value or "\x00" in value:
        return None
    name = f"h-{key}-{value}"
    while len(os.fsencode(name)) > 200:
        name = name[:-100]
    return name


def build(root: Path) -> Path:
    """A copy of the bundled archive, with hostile text in the case catalogue and one record,
    the manifest regenerated, then hostile file names added (unlisted: findings name them)."""
    copy_bundled(root)
    cat_path = root / "evidence" / "cases.json"
    catalogue = json.loads(cat_path.read_text(encoding="utf-8"))
    case = catalogue["cases"][0]
    case["title"] = " ".join(HOSTILE[k] for k in ("formula-eq", "rich-close", "html-comment"))
    case["title"] += HOSTILE["newline"]
    case["kind"] = HOSTILE["formula-at"] + " " + HOSTILE["markdown-table"]
    case["limits"] = [v for k, v in HOSTILE.items() if k != "surrogate"]
    case["counts"][0]["label"] = HOSTILE["formula-eq"]
    case["outcomes"][0]["label"] = HOSTILE["rich-link"]
    cat_path.write_text(json.dumps(catalogue), encoding="utf-8")
    record_path = root / "evidence" / "e1-local-crash" / "runner-result.json"
    record = json.loads(record_path.read_text(encoding="utf-8"))
    record["recoveredToolResult"]["outcome"] = "".join(
        HOSTILE[k]
        for k in ("rich-close", "newline", "ansi-csi", "html-comment", "formula-eq", "bidi")
    )
    record_path.write_text(json.dumps(record), encoding="utf-8")
    rewrite_manifest(root)
    for key, value in HOSTILE.items():
        name = name_of(key, value)
        if name is not None:
            (root / "evidence" / name).write_text("{}\n", encoding="utf-8")
    nested = root / "evidence" / "h["  # the path evidence/h[/bold] ends in markup
    nested.mkdir()
    (nested / "bold]").write_text("{}\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("hostile") / "archive")


@pytest.fixture(scope="module")
def hostile_zip(hostile: Path) -> Path:
    dest = hostile.parent / "hostile.zip"
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in hostile.rglob("*") if p.is_file()):
            name = path.relative_to(hostile).as_posix()
            try:
                name.encode("utf-8")
            except UnicodeEncodeError:
                continue  # a zip name is UTF-8 or CP437: undecodable bytes are the folder's case
            archive.write(path, name)
    return dest


# --- oracles ---------------------------------------------------------------------------


def assert_no_unsafe_characters(text: str, where: str, allow: str = "\n") -> None:
    """Nothing a terminal, a browser or a parser would act on: no control, format, surrogate,
    private-use, unassigned or separator character (the escapes are printable text)."""
    for i, ch in enumerate(text):
        if ch in allow:
            continue
        category = unicodedata.category(ch)
        assert category not in SAFE_CATEGORIES_EXCLUDED and ch not in "\ufffe\uffff", (
            f"{where}: {ch!r} ({category}) at {i}: {text[max(0, i - 40) : i + 40]!r}"
        )


def assert_no_forged_lines(text: str, where: str) -> None:
    for line in text.splitlines():
        assert not line.startswith(("forged.json", "::warning::forged")), f"{where}: {line!r}"


def assert_no_raw_html(text: str, where: str) -> None:
    for payload in ("<!--", "<script", "<img", "</script"):
        assert payload not in text, f"{where}: {payload} survived"


def assert_markdown_inert(text: str, where: str) -> None:
    assert_no_unsafe_characters(text, where)
    assert_no_raw_html(text, where)
    assert "<" not in text, f"{where}: a raw '<' (only archive text could bring one)"
    header_cells: int | None = None
    for line in text.splitlines():
        unescaped = re.sub(r"\\.", "", line)
        # every backtick left is one of ours: a code span of a finding code or a digest
        for span in re.findall(r"`[^`]*`?", unescaped):
            assert re.fullmatch(r"`[a-z0-9.\-]+`", span), f"{where}: code span {span!r}"
        if not line.startswith("|"):
            header_cells = None
            continue
        cells = unescaped.count("|")
        if header_cells is None:  # a table's header row sets its width
            header_cells = cells
        assert cells == header_cells, f"{where}: a row of another width: {line[:160]!r}"


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.comments = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)

    def handle_comment(self, data: str) -> None:
        self.comments += 1


HTML_TAGS = {
    *("html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "table", "thead"),
    *("tbody",),
    *("tr", "th", "td", "a", "code", "br", "span", "section", "small", "details", "summary"),
    *("ul", "li"),
}


def assert_html_inert(text: str, where: str) -> None:
    assert_no_unsafe_characters(text, where)
    assert_no_raw_html(text, where)
    parser = _Tags()
    parser.feed(text)
    assert parser.tags <= HTML_TAGS, f"{where}: tags {parser.tags - HTML_TAGS}"
    assert parser.comments == 0


FORMULA = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def assert_csv_inert(text: str, where: str) -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(text, newline="")))
    for row in rows:
        for cell in row:
            if cell.startswith(FORMULA):
                assert NUMBER.fullmatch(cell), f"{where}: formula cell {cell[:80]!r}"
    return rows


# GitHub's runner: `::command key=value,key=value::data`; the properties end at the first
# `::`, so a property may hold no ':' (escaped %3A), and a line is one command.
GITHUB_LINE = re.compile(r"::(error|warning|notice)( [a-z]+=[^:,\r\n]*(,[a-z]+=[^:,\r\n]*)*)?::.*")


def assert_github_inert(text: str, where: str, findings: int) -> None:
    lines = text.splitlines()
    assert len(lines) == findings + 1, f"{where}: {len(lines)} lines for {findings} findings"
    for line in lines:
        assert GITHUB_LINE.fullmatch(line), f"{where}: {line[:160]!r}"
        data = line.split("::", 2)[2]
        assert "\r" not in data and "%0A::" not in data.replace("%250A", "")
    assert_no_unsafe_characters(text, where)


def assert_junit_inert(text: str, where: str) -> None:
    xmlschema: Any = require_module("xmlschema")  # the JUnit XSD oracle

    tree = ET.fromstring(text)  # well-formed: no XML-forbidden character survived
    xmlschema.XMLSchema(str(REPO / "tests/data/schemas/junit-10.xsd")).validate(text)
    assert tree.tag == "testsuites"
    assert_no_unsafe_characters(text, where, allow="\n")


def assert_sarif_exact(text: str, report: dict[str, Any]) -> None:
    from tests.acceptance.test_formats import sarif_validator

    log = json.loads(text)
    sarif_validator().validate(log)
    messages = [r["message"]["text"] for r in log["runs"][0]["results"]]
    assert sorted(messages) == sorted(f["message"] for s in report["stages"] for f in s["findings"])


def hostile_names(report: dict[str, Any]) -> set[str]:
    return {f["path"] for s in report["stages"] for f in s["findings"]}


# --- check: every report format in one run, folder and zip --------------------------------


CHECK_FILES = {
    "text": "r.txt",
    "markdown": "r.md",
    "junit": "r.xml",
    "sarif": "r.sarif",
    "jsonl": "r.jsonl",
    "in-toto": "r.intoto.json",
}


def assert_jsonl_exact(text: str, report: dict[str, Any]) -> None:
    """Each line is one JSON object (no raw newline splits a record); the findings are the
    JSON report's, exactly (names kept as the JSON report keeps them)."""
    lines = text.split("\n")
    assert lines[-1] == "", "jsonl ends with LF"
    records = [json.loads(line) for line in lines[:-1]]
    assert [{k: v for k, v in r.items() if k != "type"} for r in records[:-1]] == report["findings"]
    assert records[-1]["type"] == "summary"


def run_check(source: Path, out: Path, watch: Path) -> Run:
    out.mkdir()
    args = ["check", str(source), "--format", "json", "--output", f"github={out / 'r.gh'}"]
    args += [f"--output={fmt}={out / name}" for fmt, name in CHECK_FILES.items()]
    run = run_cli(args, watch=[watch])
    assert_safe(run, rc=1, codes=["manifest.unlisted"])
    return run


@pytest.mark.parametrize("kind", ["folder", "zip"])
def test_check_formats_are_inert_for_hostile_names_and_values(
    kind: str, hostile: Path, hostile_zip: Path, tmp_path: Path
) -> None:
    source = hostile if kind == "folder" else hostile_zip
    run = run_check(source, tmp_path / "out", hostile.parent)
    report = run.report()
    paths = hostile_names(report)
    # JSON keeps names exactly (lone surrogates, which UTF-8 cannot hold, as \udcXX text)
    for key, value in HOSTILE.items():
        name = name_of(key, value)
        if name is None or (kind == "zip" and key == "surrogate"):
            continue
        want = name.encode("utf-8", "backslashreplace").decode("utf-8")
        assert f"evidence/{want}" in paths, key
    assert "evidence/h[/bold]" in paths
    findings = sum(len(s["findings"]) for s in report["stages"])
    files = {
        fmt: (tmp_path / "out" / name).read_text(encoding="utf-8")
        for fmt, name in {**CHECK_FILES, "github": "r.gh"}.items()
    }

    text = files["text"]
    assert_no_unsafe_characters(text, "text")
    assert_no_forged_lines(text, "text")
    # one line per finding: the lines that name a code are exactly the findings
    codes = [f["code"] for s in report["stages"] for f in s["findings"]]
    coded = [line for line in text.splitlines() if re.search(r": [a-z]+\.[a-z-]+: ", line)]
    assert len(coded) == len(codes)
    assert "\\x1b[2K" in text and "\\u202e" in text and "a\\nforged.json" in text

    assert_markdown_inert(files["markdown"], "markdown")
    assert_junit_inert(files["junit"], "junit")
    assert_sarif_exact(files["sarif"], report)
    assert_jsonl_exact(files["jsonl"], report)
    assert_github_inert(files["github"], "github", findings)
    statement = json.loads(files["in-toto"])  # JSON, and the manifest's name made inert
    assert_no_unsafe_characters(files["in-toto"], "in-toto")
    assert statement["predicate"]["result"] == "FAILED"


# --- table: every table format ---------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "csv", "html"])
def test_table_formats_are_inert_for_hostile_values(fmt: str, hostile: Path) -> None:
    run = run_cli(["table", str(hostile), "--format", fmt], watch=[hostile.parent])
    assert_safe(run, rc=1, json_report=False)
    out = run.stdout
    if fmt == "text":
        assert_no_unsafe_characters(out, fmt)
        assert_no_forged_lines(out, fmt)
        assert "[/bold]" in out and "[link](http://x)" in out
    elif fmt == "markdown":
        assert_markdown_inert(out, fmt)
    elif fmt == "html":
        assert_html_inert(out, fmt)
    elif fmt == "csv":
        rows = assert_csv_inert(out, fmt)
        (row,) = [r for r in rows if r[0] == "local-stripe"]
        assert row[1].startswith("'=cmd|' /C calc'!A0 [/bold] <!-- hides the resta\nforged")
        assert row[2].startswith("'@SUM(1+1)")
    else:
        data = json.loads(out)
        case = data["cases"][0]
        assert case["limits"] == [v for k, v in HOSTILE.items() if k != "surrogate"]
        assert case["counts"][0]["label"] == HOSTILE["formula-eq"]


def test_table_case_views_are_inert(hostile: Path) -> None:
    for fmt in ("text", "markdown", "csv", "html"):
        run = run_cli(
            ["table", str(hostile), "--format", fmt, "--case", "local-stripe"],
            watch=[hostile.parent],
        )
        assert_safe(run, rc=1, json_report=False)
        where = f"case {fmt}"
        if fmt == "text":
            assert_no_unsafe_characters(run.stdout, where)
            assert_no_forged_lines(run.stdout, where)
        elif fmt == "markdown":
            assert_markdown_inert(run.stdout, where)
        elif fmt == "csv":
            assert_csv_inert(run.stdout, where)
        else:
            assert_html_inert(run.stdout, where)


# --- transcripts ---------------------------------------------------------------------------


def hostile_transcript(folder: Path) -> Path:
    """An OpenAI chat history whose dangling calls carry hostile ids and tool names (the
    findings quote both), under a name ending in markup."""
    calls = [
        {
            "id": f"call-{key}-{value[:200]}",
            "type": "function",
            "function": {"name": value[:200], "arguments": "{}"},
        }
        for key, value in HOSTILE.items()
        if key != "surrogate"
    ]
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "user", "content": "next"},
    ]
    nested = folder / "t["
    nested.mkdir(parents=True)
    path = nested / "bold].json"
    path.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_transcript_check_is_inert(fmt: str, tmp_path: Path) -> None:
    path = hostile_transcript(tmp_path / "in")
    run = run_cli(
        ["transcript", "check", str(path), "--shape", "openai-chat", "--format", fmt],
        watch=[tmp_path / "in"],
    )
    assert_safe(run, rc=1, json_report=False)
    if fmt == "json":
        data = json.loads(run.stdout)
        ids = {f["callId"] for f in data["files"][0]["findings"]}
        assert f"call-newline-{HOSTILE['newline']}" in ids
        return
    assert_no_unsafe_characters(run.stdout, "transcript text")
    assert_no_forged_lines(run.stdout, "transcript text")
    coded = [ln for ln in run.stdout.splitlines() if ": transcript.dangling-call: " in ln]
    assert len(coded) == len(HOSTILE) - 1


# --- rich, on a pseudo-terminal ------------------------------------------------------------

SGR = re.compile(r"\x1b\[[0-9;]*m")


def run_on_a_terminal(args: list[str], cwd: Path) -> tuple[int, str, str]:
    """Run the CLI with its standard output on a pseudo-terminal (rich's own path)."""
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(TERM="xterm-256color", COLUMNS="400", LINES="50")
    proc = subprocess.Popen(
        [sys.executable, "-m", "verifier", *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env,
    )
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            proc.kill()
            raise AssertionError("no output from the terminal run for 60 s")
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.stderr is not None
    with proc.stderr:
        stderr = proc.stderr.read().decode("utf-8", "replace")
    rc = proc.wait(timeout=60)
    return rc, b"".join(chunks).decode("utf-8", "replace"), stderr


def assert_terminal_inert(rc: int, out: str, err: str, want: tuple[str, ...]) -> None:
    assert rc == 1, (rc, err)
    assert "Traceback" not in err and "internal error" not in err, err
    assert "\x1b" in out, "the run did not take the rich path (no colour on the terminal)"
    shown = SGR.sub("", out).replace("\r\n", "\n")
    assert "\x1b" not in shown, "an escape sequence other than rich's colours reached the tty"
    assert_no_unsafe_characters(shown, "rich", allow="\n")
    for text in want:
        assert text in shown, f"{text!r} not shown as written"


def test_rich_check_shows_markup_as_written(hostile: Path) -> None:
    rc, out, err = run_on_a_terminal(["check", str(hostile)], hostile.parent)
    assert_terminal_inert(rc, out, err, ("evidence/h[/bold]", "\\x1b[2K", "\\u202e"))


def test_rich_table_shows_markup_as_written(hostile: Path) -> None:
    rc, out, err = run_on_a_terminal(["table", str(hostile)], hostile.parent)
    assert_terminal_inert(rc, out, err, ("[/bold]", "[link](http://x)", ":smile:"))


def test_rich_transcript_check_shows_markup_as_written(tmp_path: Path) -> None:
    path = hostile_transcript(tmp_path / "in")
    rc, out, err = run_on_a_terminal(
        ["transcript", "check", str(path), "--shape", "openai-chat"], tmp_path
    )
    assert_terminal_inert(rc, out, err, ("t[/bold].json", "[/bold]", "[bold red]styled[/]"))


def test_transcript_repair_summary_is_inert(tmp_path: Path) -> None:
    path = hostile_transcript(tmp_path / "in")
    out = tmp_path / "out.json"
    run = run_cli(
        ["transcript", "repair", str(path), "--shape", "openai-chat", "-o", str(out)],
        watch=[tmp_path / "in"],
    )
    assert_safe(run, rc=0, json_report=False)
    assert_no_unsafe_characters(run.stderr, "repair summary")
    assert_no_forged_lines(run.stderr, "repair summary")
    added = [ln for ln in run.stderr.splitlines() if ln.startswith("  added: result for call ")]
    assert len(added) == len(HOSTILE) - 1

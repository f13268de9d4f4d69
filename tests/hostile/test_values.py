"""Hostile values through the real CLI: numbers a double cannot hold or tell apart, integers
beyond 64 bits and nesting at the parser's limit in every JSON view, lone surrogates and
unrepresentable numbers in transcript repair, transcripts whose shape cannot be told, and
malformed numbers in options and the environment."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, write_archive
from tests.hostile.harness import Run, assert_safe, run_cli, validate_report
from verifier.json.parse import MAX_DEPTH, loads_strict

ID = "https://verifier.invalid/schemas/"
THING = ID + "thing.schema.json"
PERMISSIVE = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": THING}


def archive(root: Path, record: str, assertions: list[dict[str, Any]], cells: Any = ()) -> Path:
    """A small archive: the project's schemas, one record ``evidence/r.json`` (its text as
    given, so that its number literals are exactly as written), an assertion spec and a
    catalogue with one case whose counts are ``cells``."""
    shutil.copytree(REPO / "schemas", root / "schemas")
    files: dict[str, bytes | str] = {
        str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "schemas").iterdir())
    }
    files["schemas/thing.schema.json"] = json.dumps(PERMISSIVE)
    files["evidence/r.json"] = record
    spec = {"$schema": ID + "assertion-spec.schema.json", "assertions": assertions}
    files["evidence/assertions.json"] = json.dumps(spec)
    case = {
        "id": "c",
        "title": "numbers",
        "kind": "fixture",
        "evidence": ["E1"],
        "counts": list(cells),
        "outcomes": [],
        "acceptance": None,
        "readbacks": [],
        "limits": [],
        "assertions": ["*"],
    }
    catalogue = {"$schema": ID + "case-catalogue.schema.json", "cases": [case]}
    files["evidence/cases.json"] = json.dumps(catalogue)
    return write_archive(root, files)


def record(**members: str) -> str:
    """A record whose members are the given JSON texts, written as they are."""
    body = "".join(f', "{k}": {v}' for k, v in members.items())
    return f'{{"$schema": "{THING}"{body}}}'


def equals(aid: str, pointer: str, value: Any) -> dict[str, Any]:
    return {
        "id": aid,
        "kind": "equals",
        "description": f"{pointer} is {value!r}",
        "select": {"file": "evidence/r.json", "pointer": pointer},
        "value": value,
    }


def spec_text(root: Path, literals: dict[str, str]) -> None:
    """Put number literals into the spec as written (json.dumps would round them), then
    rewrite the manifest as a forger would."""
    path = root / "evidence" / "assertions.json"
    text = path.read_text(encoding="utf-8")
    for marker, literal in literals.items():
        text = text.replace(f'"{marker}"', literal)
    path.write_text(text, encoding="utf-8")
    from tests.conftest import rewrite_manifest

    rewrite_manifest(root)


def statuses(run: Run) -> dict[str, str]:
    return {a["id"]: a["status"] for a in run.report()["assertions"]}


# --- numbers in records: exact comparison, and a finding for what a double cannot hold ------


def test_numbers_beyond_the_double_range_are_findings_and_never_equal(tmp_path: Path) -> None:
    root = archive(
        tmp_path / "a",
        record(big="1e400", same="1e400", tiny="1e-400"),
        [
            equals("big.vs.other", "/big", "@2e999"),
            equals("big.vs.same", "/same", "@1e400"),
            equals("tiny.vs.zero", "/tiny", 0),
            {
                "id": "big.as.time",
                "kind": "order",
                "description": "not times at all",
                "selects": [
                    {"file": "evidence/r.json", "pointer": "/big"},
                    {"file": "evidence/r.json", "pointer": "/same"},
                ],
            },
        ],
    )
    spec_text(root, {"@2e999": "2e999", "@1e400": "1e400"})
    run = run_cli(["check", str(root), "--format", "json"], watch=[root])
    assert_safe(run, rc=1, codes=["record.unrepresentable-number", "assertion.failed"])
    assert run.codes() == {"record.unrepresentable-number", "assertion.failed", "assertion.error"}
    pointers = {(f["path"], f["pointer"]) for f in run.findings("record.unrepresentable-number")}
    assert pointers == {
        ("evidence/r.json", "/big"),
        ("evidence/r.json", "/same"),
        ("evidence/r.json", "/tiny"),
        ("evidence/assertions.json", "/assertions/0/value"),
        ("evidence/assertions.json", "/assertions/1/value"),
    }
    assert statuses(run) == {
        "big.vs.other": "failed",  # 1e400 and 2e999 were both infinity: this passed
        "big.vs.same": "passed",  # the same number, exactly
        "tiny.vs.zero": "failed",  # 1e-400 is not zero
        "big.as.time": "error",
    }
    messages = " ".join(a["message"] for a in run.report()["assertions"])
    assert "1e400" in messages and "2e999" in messages and "Infinity" not in messages
    assert re.search(r"\binf\b", messages) is None  # "1e400 is not an RFC 3339 date-time"


def test_literals_that_read_as_one_double_are_different_numbers(tmp_path: Path) -> None:
    root = archive(
        tmp_path / "a",
        record(tenth="0.10000000000000001", one="1.0", hundred="1E2", wide="1.00000000000000001"),
        [
            equals("tenth", "/tenth", "@0.1"),
            equals("one", "/one", 1),
            equals("hundred", "/hundred", 100),
            equals("wide", "/wide", 1),
        ],
    )
    spec_text(root, {"@0.1": "0.1"})
    run = run_cli(["check", str(root), "--format", "json"], watch=[root])
    assert_safe(run, rc=1, codes=["assertion.failed"])
    assert run.codes() == {"assertion.failed"}  # precision is not range: no number finding
    assert statuses(run) == {
        "tenth": "failed",
        "one": "passed",
        "hundred": "passed",
        "wide": "failed",
    }


def deep(levels: int) -> str:
    return "[" * levels + "1" + "]" * levels


def test_table_json_holds_big_integers_and_deep_nesting(tmp_path: Path) -> None:
    big = str(2**70)
    cells = [
        {"label": "big", "select": {"file": "evidence/r.json", "pointer": "/big"}},
        {"label": "negative", "select": {"file": "evidence/r.json", "pointer": "/negative"}},
        {"label": "deep", "select": {"file": "evidence/r.json", "pointer": "/deep"}},
        {"label": "huge", "select": {"file": "evidence/r.json", "pointer": "/huge"}},
    ]
    text = record(big=big, negative="-" + big, deep=deep(MAX_DEPTH - 1), huge="1e400")
    assert loads_strict(text.encode())[0] is not None  # at the limit, not past it
    root = archive(tmp_path / "a", text, [equals("big", "/big", "@big")], cells)
    spec_text(root, {"@big": big})
    for fmt in ("json", "text", "csv", "markdown", "html"):
        run = run_cli(["table", str(root), "--format", fmt], watch=[root])
        assert_safe(run, rc=1, json_report=False)  # 1: the unrepresentable number
        assert big in run.stdout and "-" + big in run.stdout, fmt
        assert "Infinity" not in run.stdout and re.search(r"\binf\b", run.stdout) is None, fmt
    table = json.loads(run_cli(["table", str(root), "--format", "json"]).stdout)
    cells_out = {c["label"]: c for c in table["cases"][0]["counts"]}
    assert cells_out["big"]["value"] == 2**70 and cells_out["negative"]["value"] == -(2**70)
    assert cells_out["deep"]["value"] == json.loads(deep(MAX_DEPTH - 1))
    assert not cells_out["huge"]["verified"]
    check = run_cli(["check", str(root), "--format", "json"], watch=[root])
    assert_safe(check, rc=1, codes=["record.unrepresentable-number"])
    assert check.codes() == {"record.unrepresentable-number"}


def test_the_json_view_of_normal_input_is_unchanged() -> None:
    """The golden files are orjson's bytes; the fallback writer must give the same bytes."""
    import orjson

    from verifier.json.write import _orjson_scalar, _walk

    table = json.loads((REPO / "tests/golden/table/table.json").read_text(encoding="utf-8"))
    expected = orjson.dumps(table, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
    walked = _walk(table, _orjson_scalar, lambda k: orjson.dumps(k).decode(), 2, ",", ": ", True)
    assert walked == expected


# --- transcript repair: valid JSON out, every untouched literal kept ------------------------

PI_DANGLING: list[Any] = [
    {"role": "user", "content": "pay \ud800 now"},
    {
        "role": "assistant",
        "content": [{"type": "toolCall", "id": "c1", "name": "pay", "arguments": {"n": 0}}],
    },
]


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_repair_keeps_surrogates_and_number_literals(tmp_path: Path, suffix: str) -> None:
    literals = {'"n": 0': '"n": 1e400, "m": 0.10000000000000001, "k": -0, "j": 1E2'}
    if suffix == ".json":
        text = json.dumps({"messages": PI_DANGLING}, indent=2)
        text = text.replace('"n": 0', literals['"n": 0'])
    else:
        text = "\n".join(json.dumps(m) for m in PI_DANGLING) + "\n"
        text = text.replace('"n": 0', literals['"n": 0'])
    assert "\\ud800" in text  # json.dumps escaped the lone surrogate, as a writer must
    source = tmp_path / f"t{suffix}"
    source.write_text(text, encoding="utf-8")
    out = tmp_path / f"out{suffix}"
    run = run_cli(["transcript", "repair", str(source), "-o", str(out)], watch=[source])
    assert_safe(run, rc=0, json_report=False)
    written = out.read_bytes()
    written.decode("utf-8")  # valid UTF-8: a raw surrogate cannot be encoded
    for literal in ("1e400", "0.10000000000000001", "-0", "1E2", "\\ud800"):
        assert literal.encode() in written, literal
    assert b"Infinity" not in written
    units = written.splitlines() if suffix == ".jsonl" else [written]
    for unit in units:
        assert loads_strict(unit)[0] is not None
    again = run_cli(["transcript", "check", str(out)])
    assert_safe(again, rc=0, json_report=False)
    twice = tmp_path / f"twice{suffix}"
    assert_safe(run_cli(["transcript", "repair", str(out), "-o", str(twice)]), rc=0)
    assert twice.read_bytes() == written  # idempotent


# --- a transcript whose shape cannot be told: a finding, in both places, never a guess ----

AMBIGUOUS: list[Any] = [
    {"role": "user", "content": "pay"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "a1", "type": "function", "function": {"name": "pay"}}],
    },
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "b1", "content": "x"}]},
]


def test_an_ambiguous_transcript_is_a_finding_in_check_and_in_transcript_check(
    tmp_path: Path,
) -> None:
    text = json.dumps(
        {"$schema": THING, "recordKind": "transcript", "messages": AMBIGUOUS}, ensure_ascii=False
    )
    root = archive(tmp_path / "a", text, [equals("kind", "/recordKind", "transcript")])
    run = run_cli(["check", str(root), "--format", "json"], watch=[root])
    assert_safe(run, rc=1, codes=["transcript.ambiguous-shape"])
    assert run.codes() == {"transcript.ambiguous-shape"}
    (finding,) = run.findings("transcript.ambiguous-shape")
    assert (finding["path"], finding.get("pointer")) == ("evidence/r.json", "/messages")
    alone = tmp_path / "t.json"
    alone.write_text(json.dumps(AMBIGUOUS), encoding="utf-8")
    checked = run_cli(["transcript", "check", str(alone), "--format", "json"])
    assert_safe(checked, rc=1, json_report=False)
    report = json.loads(checked.stdout)
    assert [f["code"] for f in report["files"][0]["findings"]] == ["transcript.ambiguous-shape"]
    _validate_transcript_report(report)
    repaired = run_cli(["transcript", "repair", str(alone), "-o", str(tmp_path / "o.json")])
    assert_safe(repaired, rc=2, json_report=False)  # repair cannot guess either: --shape


def _validate_transcript_report(report: dict[str, Any]) -> None:
    import jsonschema

    schema = json.loads(
        (REPO / "verifier/schemas/transcript-report.schema.json").read_text("utf-8")
    )
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(report))
    assert not errors, errors[0].message


# --- options and the environment: exit 2 with one line, never a crash or a silent value ----

BAD_OPTIONS = [
    ("--max-ratio", "nan"),
    ("--max-ratio", "inf"),
    ("--max-ratio", "-inf"),
    ("--max-ratio", "1e308"),
    ("--max-ratio", "0.5"),
    ("--max-ratio", "\u0661\u0662"),
    ("--max-ratio", "9" * 5000),
    ("--max-bytes", "9" * 5000),
    ("--max-bytes", "9" * 5000 + "G"),
    ("--max-bytes", "\u00b2M"),
    ("--max-bytes", "0"),
    ("--max-bytes", "99999999T"),
    ("--jobs", "0"),
    ("--jobs", "\u0661"),
    ("--jobs", "1" + "0" * 30),
    ("--jobs", "9" * 5000),
]


@pytest.mark.parametrize(
    ("command", "option", "value"),
    [("check", o, v) for o, v in BAD_OPTIONS]
    + [("audit", o, v) for o, v in BAD_OPTIONS if o != "--jobs"],
)
def test_a_bad_number_option_is_exit_2_with_one_line(
    tmp_path: Path, command: str, option: str, value: str
) -> None:
    shown = REPO / "evidence"
    run = run_cli([command, str(REPO), option, value], watch=[shown, tmp_path])
    assert_safe(run, rc=2, json_report=False)
    assert option in run.stderr


@pytest.mark.parametrize(
    "epoch", ["\u00b2", "\u0661\u0667\u0660\u0660", "99999999999999", "9" * 5000, "-1", "1.5"]
)
def test_a_bad_source_date_epoch_is_exit_2_with_one_line(tmp_path: Path, epoch: str) -> None:
    out = tmp_path / "audit.json"
    run = run_cli(
        ["audit", str(REPO), "-o", str(out)],
        env={"SOURCE_DATE_EPOCH": epoch},
        watch=[REPO / "evidence"],
    )
    assert_safe(run, rc=2, json_report=False)
    assert "SOURCE_DATE_EPOCH" in run.stderr and not out.exists()


def test_good_values_still_work(tmp_path: Path) -> None:
    out = tmp_path / "audit.json"
    run = run_cli(
        ["audit", str(REPO), "-o", str(out), "--max-bytes", "8G", "--max-ratio", "12.5"],
        env={"SOURCE_DATE_EPOCH": "1767225600"},
    )
    assert_safe(run, rc=0, json_report=False)
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["createdAt"] == "2026-01-01T00:00:00Z"
    assert record["limits"]["maxBytes"] == 8 << 30 and record["limits"]["maxRatio"] == 12.5
    jobs = run_cli(["check", str(REPO), "-q", "--jobs", "2"])
    assert_safe(jobs, rc=0, json_report=False)


def test_reports_from_these_runs_validate() -> None:
    """The JSON report of the bundled archive still validates (the schema gained codes)."""
    run = run_cli(["check", str(REPO), "--format", "json"])
    assert_safe(run, rc=0)
    validate_report(run.report())

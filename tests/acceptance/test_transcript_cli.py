"""``verify-evidence transcript check | repair``, run as a user or CI would run it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from tests.conftest import REPO

CASES = REPO / "tests" / "cases" / "transcripts"
CHAT_SEED = CASES / "openai-chat" / "seed-004.json"
CLEAN = CASES / "anthropic" / "clean-parallel.json"
REUSED = CASES / "openai-chat" / "reused-open-id.json"
REUSED_ANSWERED = CASES / "openai-chat" / "reused-answered-id.json"
ORPHANS = CASES / "openai-chat" / "late-duplicate-orphan.json"
MARKER = "not run: the turn was interrupted"


def cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "verifier", "transcript", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def test_check_finds_the_seed_004_dangling_calls() -> None:
    proc = cli("check", CHAT_SEED)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1].endswith("has no result before message 2.")
    assert sum(": transcript.dangling-call: message 1: call " in line for line in lines) == 3
    assert "openai-chat (detected), 8 messages, 3 calls, 0 results" in proc.stdout


def test_check_passes_a_clean_history() -> None:
    proc = cli("check", CLEAN, "--format", "text")
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.rstrip().endswith("No findings.")


def test_json_report_validates_against_its_schema_and_is_deterministic() -> None:
    first = cli("check", CLEAN, CHAT_SEED, "--format", "json")
    second = cli("check", CLEAN, CHAT_SEED, "-f", "json")
    assert first.returncode == second.returncode == 1
    assert first.stdout == second.stdout
    schema = json.loads(
        (REPO / "verifier/schemas/transcript-report.schema.json").read_text("utf-8")
    )
    Draft202012Validator.check_schema(schema)
    report = json.loads(first.stdout)
    Draft202012Validator(schema).validate(report)
    assert [f["ok"] for f in report["files"]] == [True, False]
    finding = report["files"][1]["findings"][0]
    assert (finding["index"], finding["callId"], finding["tool"]) == (1, "call_read", "read_file")
    assert first.stdout == json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_every_corpus_report_validates_against_the_schema() -> None:
    schema = json.loads(
        (REPO / "verifier/schemas/transcript-report.schema.json").read_text("utf-8")
    )
    files = sorted(p for p in CASES.glob("*/*") if ".expected." not in p.name)
    report = json.loads(cli("check", *files, "--format", "json").stdout)
    Draft202012Validator(schema).validate(report)
    assert len(report["files"]) == len(files)


def test_the_shape_can_be_given(tmp_path: Path) -> None:
    plain = tmp_path / "plain.json"
    plain.write_text('[{"role": "user", "content": "hi"}]', encoding="utf-8")
    assumed = json.loads(cli("check", plain, "-f", "json").stdout)["files"][0]
    assert (assumed["shape"], assumed["shapeSource"]) == ("openai-chat", "assumed")
    given = json.loads(cli("check", plain, "--shape", "pi", "-f", "json").stdout)["files"][0]
    assert (given["shape"], given["shapeSource"]) == ("pi", "given")
    proc = cli("check", CHAT_SEED, "--shape", "gemini")
    assert proc.returncode == 1 and "transcript.malformed" in proc.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("check", "missing.json"), "missing.json does not exist"),
        (("check", CLEAN, "--shape", "nope"), "unknown shape 'nope'"),
        (("check",), "Missing argument"),
        ((), "missing command (check, repair)"),
    ],
)
def test_cannot_run_is_exit_2_with_one_line(args: tuple[str, ...], message: str) -> None:
    proc = cli(*args)
    assert proc.returncode == 2
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert proc.stdout == ""


def test_an_undetectable_shape_and_bad_json_are_findings(tmp_path: Path) -> None:
    odd = tmp_path / "odd.json"
    odd.write_text("[1, 2]", encoding="utf-8")
    proc = cli("check", odd)
    assert proc.returncode == 1 and "transcript.malformed" in proc.stdout
    assert "--shape" in proc.stdout
    broken = tmp_path / "broken.json"
    broken.write_text('{"messages": [', encoding="utf-8")
    proc = cli("check", broken)
    assert proc.returncode == 1 and "transcript.malformed: Not JSON" in proc.stdout


def test_repair_writes_the_explicit_results_and_says_what_changed(tmp_path: Path) -> None:
    out = tmp_path / "repaired.json"
    proc = cli("repair", CHAT_SEED, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert "3 synthetic result(s) added\n" in proc.stderr
    assert "added: result for call call_read (read_file) from message 1" in proc.stderr
    messages = json.loads(out.read_text("utf-8"))["messages"]
    assert [m["role"] for m in messages[:5]] == ["user", "assistant", "tool", "tool", "tool"]
    assert {m["content"] for m in messages[2:5]} == {MARKER}
    assert cli("check", out).returncode == 0
    # idempotent: repairing the repaired file changes nothing
    again = tmp_path / "again.json"
    assert cli("repair", out, "-o", again).returncode == 0
    assert again.read_bytes() == out.read_bytes()


def test_repair_keeps_the_results_that_answer_nothing_and_lists_them(tmp_path: Path) -> None:
    out = tmp_path / "o.json"
    proc = cli("repair", ORPHANS, "--output", out)
    assert proc.returncode == 1  # errors repair does not fix remain: it only adds
    for code in ("duplicate-result", "orphan-result"):
        assert f"not repaired: transcript.{code} (error)" in proc.stderr
    before = json.loads(ORPHANS.read_text("utf-8"))
    after = json.loads(out.read_text("utf-8"))
    before, after = before.get("messages", before), after.get("messages", after)
    rest = iter(after)
    assert all(any(m == n for n in rest) for m in before)


def test_repair_to_standard_output_and_json_lines() -> None:
    path = CASES / "pi" / "seed-004.jsonl"
    proc = cli("repair", path, "-o", "-")
    assert proc.returncode == 0
    assert proc.stdout == (CASES / "pi" / "seed-004.repaired.jsonl").read_text("utf-8")


def test_repair_never_writes_over_its_input(tmp_path: Path) -> None:
    target = tmp_path / "h.json"
    target.write_bytes(CHAT_SEED.read_bytes())
    for out in (target, tmp_path / "." / "h.json"):
        proc = cli("repair", target, "-o", out)
        assert proc.returncode == 2 and "refusing to write over the input" in proc.stderr
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert cli("repair", target, "-o", link).returncode == 2
    assert target.read_bytes() == CHAT_SEED.read_bytes()


def test_repair_exits_1_when_something_is_left_it_does_not_fix(tmp_path: Path) -> None:
    out = tmp_path / "o.json"
    proc = cli("repair", REUSED, "-o", out)
    assert proc.returncode == 1
    assert "not repaired: transcript.reused-id (error)" in proc.stderr
    assert out.read_bytes() == REUSED.read_bytes()


def test_a_note_does_not_block_repair_or_check_unless_fail_on_says_so(tmp_path: Path) -> None:
    out = tmp_path / "o.json"
    proc = cli("repair", REUSED_ANSWERED, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert "not repaired: transcript.reused-answered-id (note)" in proc.stderr
    assert cli("repair", REUSED_ANSWERED, "-o", out, "--fail-on", "note").returncode == 1
    checked = cli("check", REUSED_ANSWERED, "--format", "json")
    assert checked.returncode == 0, checked.stderr
    data = json.loads(checked.stdout)
    assert data["ok"] is True
    assert [f["severity"] for f in data["files"][0]["findings"]] == ["note"]
    assert cli("check", REUSED_ANSWERED, "--fail-on", "warning").returncode == 0
    assert cli("check", REUSED_ANSWERED, "--fail-on", "note").returncode == 1
    assert cli("check", REUSED, "--format", "json").returncode == 1


def test_repair_cannot_run_on_bad_input(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    out = tmp_path / "o.json"
    for args in (("repair", broken, "-o", out), ("repair", tmp_path / "no.json", "-o", out)):
        proc = cli(*args)
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_the_help_lists_every_registered_shape() -> None:
    from verifier.commands.transcript import SHAPE_NAMES
    from verifier.transcripts import SHAPES

    assert ", ".join(SHAPES) == SHAPE_NAMES

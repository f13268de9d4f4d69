"""``transcript repair`` on an Inspect ``.eval`` zip: a repaired copy, each fault class, the
marker in Inspect's own tool-message form, the zip written deterministically and only from
members read under the zip rules (a name inside the archive is never an output path)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, require_module
from tests.unit.test_transcript_containers import _eval, _samples, _zstd_eval
from verifier.transcripts.check import CannotRun, check_bytes
from verifier.transcripts.containers.eval_zip import FIXED_TIME
from verifier.transcripts.pairing import INTERRUPTED_MARKER
from verifier.transcripts.repair import repair_bytes

CALL = {"role": "assistant", "content": "", "tool_calls": []}


def _call(*ids: str) -> dict[str, Any]:
    calls = [{"id": i, "function": "bash", "arguments": {}, "type": "function"} for i in ids]
    return {**CALL, "tool_calls": calls}


def _tool(cid: str, content: str = "ok") -> dict[str, Any]:
    return {"role": "tool", "content": content, "tool_call_id": cid, "function": "bash"}


def _members(**samples: list[Any]) -> dict[str, bytes]:
    out = {
        "_journal/start.json": json.dumps({"version": 2, "eval": {"task": "t"}}).encode(),
        "header.json": json.dumps({"version": 2, "eval": {"task": "t"}}).encode(),
        "summaries.json": b'[{"id": 1, "epoch": 1}]',
    }
    for sid, messages in samples.items():
        sample = {"id": sid, "epoch": 1, "input": "q", "target": "t", "messages": messages}
        out[f"samples/{sid}_epoch_1.json"] = json.dumps(sample).encode()
    return out


def _read(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {i.filename: z.read(i) for i in z.infolist()}


def _messages(data: bytes, member: str) -> list[Any]:
    value: list[Any] = json.loads(_read(data)[member])["messages"]
    return value


def test_a_dangling_call_gets_inspects_own_cancelled_tool_message() -> None:
    data = _eval(_samples())
    result = repair_bytes(data, "run.eval")
    assert result.changed and result.remaining == []
    assert [(a.call.id, a.where) for a in result.added] == [
        (
            "c2",
            "sample 2 epoch 1 of task ctf (samples/2_epoch_1.json): new message before message 3",
        )
    ]
    messages = _messages(result.output, "samples/2_epoch_1.json")
    assert messages[3] == {
        "role": "tool",
        "content": INTERRUPTED_MARKER,
        "tool_call_id": "c2",
        "function": "bash",
        "error": {"type": "cancelled", "message": INTERRUPTED_MARKER},
    }
    assert messages[4] == {"role": "user", "content": "hurry"}  # before what closed the window
    # the other members are the same content; the untouched sample too
    before, after = _read(data), _read(result.output)
    assert list(after) == list(before)
    for name in before:
        if name != "samples/2_epoch_1.json":
            assert after[name] == before[name], name
    assert check_bytes(result.output, "run.eval").findings == []


def test_orphans_duplicates_and_misplaced_results_are_kept_and_remain_findings() -> None:
    messages = [
        {"role": "user", "content": "go"},
        _tool("ghost"),  # orphan: before any call
        _call("c1", "c2"),
        _tool("c1"),
        _tool("c1", "again"),  # duplicate
        {"role": "user", "content": "next"},  # closes c2's window: c2 dangles
        _tool("c2", "late"),  # misplaced: after the window closed
    ]
    data = _eval(_members(**{"1": messages}))
    codes = sorted(f.code for f in check_bytes(data, "run.eval").findings)
    assert codes == [
        "transcript.dangling-call",
        "transcript.duplicate-result",
        "transcript.misplaced-result",
        "transcript.orphan-result",
    ]
    result = repair_bytes(data, "run.eval")
    assert [a.call.id for a in result.added] == ["c2"]
    # repair only adds: the late result now duplicates the synthetic one, and stays
    assert sorted(f.code for f in result.remaining) == [
        "transcript.duplicate-result",
        "transcript.duplicate-result",
        "transcript.orphan-result",
    ]
    kept = _messages(result.output, "samples/1_epoch_1.json")
    assert kept == [*messages[:5], kept[5], *messages[5:]]
    assert kept[5]["content"] == INTERRUPTED_MARKER and kept[5]["tool_call_id"] == "c2"


def test_what_repair_does_not_fix_remains() -> None:
    unmarked = [_call("c1"), _tool("c1", "Interrupted by user")]
    data = _eval(_members(**{"1": unmarked}))
    result = repair_bytes(data, "run.eval")
    assert not result.changed and result.output == data  # nothing to rewrite: the input
    assert [f.code for f in result.remaining] == ["transcript.unmarked-interruption"]


def test_repair_is_idempotent_and_deterministic() -> None:
    data = _eval(_samples())
    first = repair_bytes(data, "run.eval").output
    assert repair_bytes(data, "run.eval").output == first
    again = repair_bytes(first, "run.eval")
    assert not again.changed and again.output == first
    with zipfile.ZipFile(io.BytesIO(first)) as z:
        for info in z.infolist():
            assert info.date_time == FIXED_TIME and info.create_system == 3
            assert info.compress_type == zipfile.ZIP_DEFLATED and not info.extra
            assert info.external_attr >> 16 == 0o100644
        assert z.comment == b""


def test_the_same_bytes_under_any_hash_seed() -> None:
    code = (
        "import sys; from tests.unit.test_transcript_containers import _eval, _samples; "
        "from verifier.transcripts.repair import repair_bytes; "
        "sys.stdout.buffer.write(repair_bytes(_eval(_samples()), 'run.eval').output)"
    )
    outs = set()
    for seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run(
            [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, check=True
        )
        outs.add(run.stdout)
    assert len(outs) == 1


def test_a_zstd_eval_is_repaired_into_a_deflated_copy() -> None:
    zstandard = require_module("zstandard", "zstandard (the Inspect .eval zstd members)")
    data = _zstd_eval(_samples(), zstandard.ZstdCompressor().compress)
    result = repair_bytes(data, "run.eval")
    assert [a.call.id for a in result.added] == ["c2"] and result.remaining == []
    assert _messages(result.output, "samples/2_epoch_1.json")[3]["content"] == INTERRUPTED_MARKER
    with zipfile.ZipFile(io.BytesIO(result.output)) as z:
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_DEFLATED}


@pytest.mark.parametrize(
    "bad",
    ["samples/../evil.json", "/abs.json", "C:/drive.json", "summaries/../../x"],
)
def test_a_member_with_an_unsafe_name_refuses_the_repair(bad: str) -> None:
    members = _samples()
    members[bad] = b"{}"
    with pytest.raises(CannotRun):
        repair_bytes(_eval(members), "run.eval")


def test_an_unreadable_member_that_is_not_a_sample_refuses_too() -> None:
    # a bomb among the non-sample members: the checker never reads it, the writer must
    members = _samples()
    members["_journal/summaries/1.json"] = b"[" + b" " * (3 << 20) + b"]"
    data = _eval(members)
    assert [f.code for f in check_bytes(data, "run.eval").findings] == ["transcript.dangling-call"]
    with pytest.raises(CannotRun, match="ratio is over the limit"):
        repair_bytes(data, "run.eval")


def test_a_zip_holding_a_member_twice_refuses_the_repair() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, body in _samples().items():
            z.writestr(name, body)
        with pytest.warns(UserWarning):
            z.writestr("header.json", b"{}")
    with pytest.raises(CannotRun):
        repair_bytes(buffer.getvalue(), "run.eval")


def test_the_cli_writes_the_copy_and_never_over_its_input(tmp_path: Path) -> None:
    src = tmp_path / "run.eval"
    src.write_bytes(_eval(_samples()))
    out = tmp_path / "run.repaired.eval"
    cli = [sys.executable, "-m", "verifier", "transcript", "repair"]
    run = subprocess.run([*cli, str(src), "-o", str(out)], cwd=REPO, capture_output=True)
    assert run.returncode == 0, run.stderr
    assert _messages(out.read_bytes(), "samples/2_epoch_1.json")[3]["tool_call_id"] == "c2"
    assert src.read_bytes() == _eval(_samples())  # the input is untouched
    same = subprocess.run([*cli, str(src), "-o", str(src)], cwd=REPO, capture_output=True)
    assert same.returncode == 2 and len(same.stderr.strip().splitlines()) == 1
    assert src.read_bytes() == _eval(_samples())

"""Harness containers: the corpus under ``tests/cases/containers/<reader>/`` (each case beside
its expected transcripts, findings and repair, and the exact repaired output), trees and
``--leaf``, harness-native endings, detection that never guesses, and the Inspect ``.eval``
zip read under the zip safety rules."""

from __future__ import annotations

import io
import json
import struct
import sys
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, require_module
from verifier.transcripts.check import CannotRun, check_bytes
from verifier.transcripts.containers import CONTAINERS
from verifier.transcripts.pairing import INTERRUPTED_MARKER
from verifier.transcripts.repair import repair_bytes

CASES = REPO / "tests" / "cases" / "containers"


def corpus() -> list[Path]:
    return sorted(
        p
        for p in CASES.glob("*/*")
        if not any(tag in p.name for tag in (".expected.", ".repaired."))
    )


def expected(case: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(
        case.with_name(f"{case.stem}.expected.json").read_text("utf-8")
    )
    return value


def ids(case: Path) -> str:
    return f"{case.parent.name}/{case.name}"


def test_every_container_has_cases_with_a_fault_and_a_clean_one() -> None:
    assert {p.parent.name for p in corpus()} == set(CONTAINERS)
    for name in CONTAINERS:
        cases = [expected(p) for p in corpus() if p.parent.name == name]
        assert any(not c["findings"] for c in cases), f"{name}: no clean case"
        assert any(c["findings"] for c in cases), f"{name}: no faulty case"


@pytest.mark.parametrize("case", corpus(), ids=ids)
def test_findings(case: Path) -> None:
    want = expected(case)
    report = check_bytes(case.read_bytes(), str(case))
    assert (report.shape, report.shape_source) == (case.parent.name, "detected")
    assert report.shape == want["container"]
    assert [{"name": t["name"], "active": t["active"]} for t in report.transcripts] == want[
        "transcripts"
    ]
    got = [
        {"code": f.code, "transcript": f.transcript, **({"callId": f.call_id} if f.call_id else {})}
        for f in report.findings
    ]
    assert got == want["findings"]
    for f in report.findings:  # every finding names its transcript, in its message too
        assert f.transcript and f.message.startswith(f.transcript + ": ")
    given = check_bytes(case.read_bytes(), str(case), case.parent.name)
    assert given.findings == report.findings and given.shape_source == "given"


@pytest.mark.parametrize("case", corpus(), ids=ids)
def test_repair(case: Path) -> None:
    want = expected(case)["repair"]
    if want is None:
        with pytest.raises(CannotRun):
            repair_bytes(case.read_bytes(), str(case))
        return
    result = repair_bytes(case.read_bytes(), str(case))
    assert [a.call.id for a in result.added] == want["added"]
    assert [f.code for f in result.remaining] == want["remaining"]
    golden = case.with_name(f"{case.stem}.repaired{case.suffix}")
    if result.changed:
        assert result.output == golden.read_bytes()
        assert MARKER_IN(result.output)
        again = repair_bytes(result.output, str(golden))
        assert not again.changed and again.output == result.output  # idempotent
        assert [f.code for f in check_bytes(result.output, str(golden)).findings] == want[
            "remaining"
        ]
    else:
        assert result.output == case.read_bytes()
        assert not golden.exists()


def MARKER_IN(data: bytes) -> bool:
    return INTERRUPTED_MARKER.encode() in data


def test_abandoned_branches_are_notes_and_leaf_checks_only_the_active_path() -> None:
    case = CASES / "pi-session" / "tree-two-branches.jsonl"
    every = check_bytes(case.read_bytes(), str(case))
    assert [t["active"] for t in every.transcripts] == [False, True]
    codes = [(f.code, f.severity.value) for f in every.findings]
    assert ("transcript.dangling-call", "error") in codes
    assert codes.count(("transcript.abandoned-dangling-call", "note")) == 2
    leaf = check_bytes(case.read_bytes(), str(case), leaf=True)
    assert [t["active"] for t in leaf.transcripts] == [True]
    assert [f.code for f in leaf.findings] == ["transcript.dangling-call"]
    repaired = repair_bytes(case.read_bytes(), str(case))
    assert any("not repaired: path to leaf b2 (abandoned)" in line for line in repaired.summary())
    assert any("repaired: path to leaf c3x (active)" in line for line in repaired.summary())


def test_claude_code_forks_that_are_not_branches_are_not_reported() -> None:
    # a raw walk of each leaf would see t2 on one path and t1's result on another
    case = CASES / "claude-code" / "parallel-split-fork.jsonl"
    report = check_bytes(case.read_bytes(), str(case))
    assert report.findings == [] and len(report.transcripts) == 1
    assert report.calls == 2 and report.results == 2


def test_native_endings_count_and_repair_writes_the_canonical_marker() -> None:
    for name in ("pi-session/aborted-and-error.jsonl", "claude-code/interrupted-native.jsonl"):
        case = CASES / name
        report = check_bytes(case.read_bytes(), str(case))
        assert report.findings == [], name
        assert sum(t["ended"] for t in report.transcripts) >= 1 or report.results >= 1
    for name in ("claude-code/unknown-marker.jsonl", "inspect/cancelled.json"):
        case = CASES / name
        codes = [f.code for f in check_bytes(case.read_bytes(), str(case)).findings]
        assert codes == ["transcript.unmarked-interruption"], name


def test_detection_never_guesses() -> None:
    both = {"history": [], "trajectory": [], "schema_version": "ATIF-v1.2", "steps": []}
    report = check_bytes(json.dumps(both).encode(), "x.json")
    assert [f.code for f in report.findings] == ["transcript.ambiguous-shape"]
    assert "swe-agent and atif" in report.findings[0].message
    with pytest.raises(CannotRun):
        repair_bytes(json.dumps(both).encode(), "x.json")
    empty = {"eval": {"task": "t"}, "samples": []}
    report = check_bytes(json.dumps(empty).encode(), "log.json")
    assert [f.code for f in report.findings] == ["transcript.malformed"]  # nothing checked
    assert not report.ok


def _eval(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as z:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0))
            info.compress_type = method
            z.writestr(info, data)
    return buffer.getvalue()


def _samples() -> dict[str, bytes]:
    log = json.loads((CASES / "inspect" / "two-samples.json").read_text("utf-8"))
    out = {"header.json": json.dumps({"version": 2, "eval": log["eval"]}).encode()}
    for s in log["samples"]:
        out[f"samples/{s['id']}_epoch_{s['epoch']}.json"] = json.dumps(s).encode()
    return out


def test_an_eval_zip_is_many_transcripts_named_by_sample_and_epoch() -> None:
    data = _eval(_samples())
    report = check_bytes(data, "run.eval")
    assert report.shape == "inspect"
    names = [t["name"] for t in report.transcripts]
    assert names == [
        "sample 1 epoch 1 of task ctf (samples/1_epoch_1.json)",
        "sample 2 epoch 1 of task ctf (samples/2_epoch_1.json)",
    ]
    assert [t.get("sampleId") for t in report.transcripts] == [1, 2]
    assert [(f.code, f.call_id, f.pointer) for f in report.findings] == [
        ("transcript.dangling-call", "c2", "/messages/1/tool_calls/1")
    ]
    repaired = repair_bytes(data, "run.eval")  # tests/unit/test_transcript_eval_repair.py
    assert [a.call.id for a in repaired.added] == ["c2"] and repaired.remaining == []


def _set_method(data: bytes, name: str, method: int) -> bytes:
    out = bytearray(data)
    raw = name.encode()
    for signature, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        at = 0
        while (at := out.find(signature, at)) != -1:
            name_at = 30 if signature == b"PK\x03\x04" else 46
            if out[at + name_at : at + name_at + len(raw)] == raw:
                out[at + offset : at + offset + 2] = method.to_bytes(2, "little")
            at += 4
    return bytes(out)


def _zstd_eval(members: dict[str, bytes], compress: Any) -> bytes:
    """A zip whose members are zstd-compressed (method 93), written field by field: zipfile
    writes method 93 only from Python 3.14."""
    local, central = bytearray(), bytearray()
    for name, data in members.items():
        packed, raw = compress(data), name.encode()
        crc, offset = zlib.crc32(data), len(local)
        fields = (20, 0x800, 93, 0, 0x5A21, crc, len(packed), len(data), len(raw), 0)
        local += struct.pack("<4s5HL2L2H", b"PK\x03\x04", *fields) + raw + packed
        central += struct.pack("<4s6HL2L5H2L", b"PK\x01\x02", 20, *fields, 0, 0, 0, 0, offset) + raw
    end = struct.pack(
        "<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central), len(local), 0
    )
    return bytes(local + central + end)


def test_zstd_members_are_decoded_with_zstandard(monkeypatch: pytest.MonkeyPatch) -> None:
    zstandard = require_module("zstandard", "zstandard (the Inspect .eval zstd members)")
    data = _zstd_eval(_samples(), zstandard.ZstdCompressor().compress)
    report = check_bytes(data, "run.eval")
    assert [(f.code, f.call_id) for f in report.findings] == [("transcript.dangling-call", "c2")]
    assert len(report.transcripts) == 2
    # a damaged frame, and a member whose CRC-32 does not match, are findings
    members = _samples()
    bad = _zstd_eval(members, lambda d: zstandard.ZstdCompressor().compress(d)[:-3])
    assert {f.code for f in check_bytes(bad, "run.eval").findings} == {
        "transcript.unreadable-member"
    }
    # without zstandard: a clear finding naming the package, the other members still read
    monkeypatch.setitem(sys.modules, "zstandard", None)
    report = check_bytes(data, "run.eval")
    assert {f.code for f in report.findings} == {"transcript.unreadable-member"}
    assert "install the 'zstandard' package" in report.findings[0].message
    assert "pip install 'verify-evidence[zstd]'" in report.findings[0].message
    assert not report.ok


def test_a_stored_member_marked_zstd_is_a_finding_either_way() -> None:
    data = _set_method(_eval(_samples(), zipfile.ZIP_STORED), "samples/2_epoch_1.json", 93)
    report = check_bytes(data, "run.eval")
    got = [(f.code, f.transcript) for f in report.findings]
    assert got == [("transcript.unreadable-member", "samples/2_epoch_1.json")]
    assert not report.ok


def test_eval_members_follow_the_zip_safety_rules() -> None:
    members = _samples()
    members["samples/../evil.json"] = members.pop("samples/2_epoch_1.json")
    report = check_bytes(_eval(members), "run.eval")
    assert [f.code for f in report.findings] == ["transcript.unreadable-member"]
    assert "'..'" in report.findings[0].message
    bomb = _samples()
    bomb["samples/3_epoch_1.json"] = (
        b'{"id": 3, "epoch": 1, "messages": [], "pad": "' + (b" " * (3 << 20)) + b'"}'
    )
    report = check_bytes(_eval(bomb), "run.eval")
    assert ("transcript.unreadable-member", "samples/3_epoch_1.json") in [
        (f.code, f.transcript) for f in report.findings
    ]


def test_an_unresolved_reference_is_a_finding_and_resolved_ones_are_read() -> None:
    case = CASES / "inspect" / "attachments.json"
    report = check_bytes(case.read_bytes(), str(case))
    assert [(f.code, f.pointer) for f in report.findings] == [
        ("transcript.unresolved-reference", "/samples/0/messages/3")
    ]
    assert report.calls == 1 and report.results == 1


@pytest.mark.parametrize("reader", list(CONTAINERS))
def test_every_reader_takes_every_other_file_without_crashing(reader: str) -> None:
    """A wrong --shape is a finding (transcript.malformed), never an exception."""
    for case in [*corpus(), *sorted((REPO / "tests" / "cases" / "transcripts").glob("*/*"))]:
        report = check_bytes(case.read_bytes(), str(case), reader)
        if case.parent.name != reader:
            assert report.findings or report.transcripts, case
    for data in (b"", b"[]", b"{}", b"null", b"[1, 2]", b'{"a": 1}\n{"b": 2}\n', b"PK\x03\x04xx"):
        check_bytes(data, "x.jsonl", reader)
        check_bytes(data, "x.json", reader)


def test_a_star_shaped_tree_is_bounded_and_says_what_it_did_not_check() -> None:
    from verifier.transcripts.containers.tree import MAX_BRANCHES

    rows: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "s"}]
    rows.append({"type": "message", "id": "r", "parentId": None, "message": {"role": "user"}})
    for k in range(MAX_BRANCHES + 50):  # every branch a new prompt off the root
        msg = {"role": "user", "content": f"try {k}"}
        rows.append({"type": "message", "id": f"b{k}", "parentId": "r", "message": msg})
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    report = check_bytes(data, "star.jsonl")
    assert len(report.transcripts) == MAX_BRANCHES + 1
    assert [f.code for f in report.findings] == ["transcript.too-many-branches"]
    assert "49 more abandoned branches" in report.findings[0].message
    assert not report.ok


def test_the_guide_gives_every_container_an_example_that_exists() -> None:
    import re

    text = (REPO / "docs" / "transcripts.md").read_text("utf-8")
    start = text.index("**Harness containers.**")
    section = text[start : text.index("\n## ", start)]
    bullets = {
        m.group(1): m.group(0) for m in re.finditer(r"(?ms)^- `([a-z-]+)` .*?(?=^- |\Z)", section)
    }
    for name in CONTAINERS:
        assert name in bullets, f"docs/transcripts.md: no example for {name}"
        files = re.findall(r"`([\w.-]+\.(?:jsonl|json|traj))`", bullets[name])
        assert files, name
        for f in files:
            assert (CASES / name / f).is_file(), f"docs/transcripts.md: {name}/{f} is no case"


LINKS = ("parentUuid", "parentId")  # a tree's new line is linked in: the one member that moves


def _within(given: Any, out: Any) -> bool:
    """``given`` is in ``out`` unchanged but for additions: objects with the same members
    (each within), lists holding every given item in order (new items may come between)."""
    if isinstance(given, dict) and isinstance(out, dict):
        return given.keys() == out.keys() and all(_within(given[k], out[k]) for k in given)
    if isinstance(given, list) and isinstance(out, list):
        rest = iter(out)
        return all(any(_within(g, o) for o in rest) for g in given)
    return bool(given == out)


@pytest.mark.parametrize("case", corpus(), ids=ids)
def test_repair_only_adds_to_every_container(case: Path) -> None:
    # issue #34 class 13, every container's writer: the entries it was given come out, the
    # same, in order (a JSON Lines line as its bytes, or only relinked into the tree)
    if expected(case)["repair"] is None:
        return
    result = repair_bytes(case.read_bytes(), str(case))
    if case.suffix == ".jsonl":
        given = case.read_text("utf-8").splitlines()
        out = result.output.decode("utf-8").splitlines()
        rest = iter(out)
        for line in given:
            value = {k: v for k, v in json.loads(line).items() if k not in LINKS}
            assert any(
                o == line
                or _within(value, {k: v for k, v in json.loads(o).items() if k not in LINKS})
                for o in rest
            ), line
    else:
        assert _within(json.loads(case.read_bytes()), json.loads(result.output))

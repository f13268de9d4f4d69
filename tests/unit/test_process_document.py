"""A kept document (the assertion spec, the case catalogue) is parsed from its hashed bytes,
which are let go before it is validated; its result is the one :func:`process_record` gives,
but for the positions of its schema findings (placed once the report is judged)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from verifier.findings import Finding
from verifier.record.check import process_document, process_record
from verifier.schema.bundle import prepare_validity

ROOT = Path(__file__).resolve().parents[2]
SPEC = "evidence/assertions.json"


def _bundle() -> Any:
    contents = {
        f"schemas/{p.name}": p.read_bytes() for p in sorted((ROOT / "schemas").glob("*.json"))
    }
    return prepare_validity(contents, "schemas", True)


def _spec(last: bytes) -> bytes:
    """A spec with no assertions whose last member is ``last``."""
    return (
        b'{\n  "$schema": "https://verifier.invalid/schemas/assertion-spec.schema.json",\n'
        b'  "assertions": [],\n  ' + last + b"\n}\n"
    )


def test_the_bytes_are_let_go_before_validation_on_a_thread_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prep = _bundle()
    data = (ROOT / SPEC).read_bytes()
    pending = {SPEC: data}
    seen: list[bool] = []
    record = prep.validators.record

    def watching(path: str, value: Any) -> tuple[list[Finding], int]:
        # validated on a thread of its own, while process_document waits for it on this one
        assert threading.current_thread() is not threading.main_thread()
        frame: FrameType | None = sys._current_frames()[threading.main_thread().ident or 0]
        while frame is not None and frame.f_code is not process_document.__code__:
            frame = frame.f_back
        assert frame is not None
        held = [v for v in frame.f_locals.values() if type(v) is bytes]
        seen.append(not held and SPEC not in pending)
        found: tuple[list[Finding], int] = record(path, value)
        return found

    monkeypatch.setattr(prep.validators, "record", watching)
    del data
    result, value = process_document(prep, SPEC, pending, {})
    assert seen == [True]
    assert isinstance(value, dict) and value["assertions"]
    reference, same = process_record(_bundle(), SPEC, (ROOT / SPEC).read_bytes(), (), True, {})
    assert result == reference and same == value


def test_an_unparsable_document_is_placed_from_its_bytes() -> None:
    prep = _bundle()
    text = b'{\n  "assertions": [\n    {"id": 1,}\n  ]\n}\n'
    result, value = process_document(prep, SPEC, {SPEC: text}, {})
    assert value is None and not result.parsed
    assert [(f.code, f.line) for f in result.findings] == [("record.invalid-json", 3)]


def test_a_schema_finding_is_left_for_the_report_to_place() -> None:
    prep = _bundle()
    text = _spec(b'"extra": 1')
    result, value = process_document(prep, SPEC, {SPEC: text}, {})
    assert value is not None and result.parsed
    codes = [(f.code, f.line) for f in result.findings]
    assert codes and all(code == "schema.invalid" and line is None for code, line in codes)
    placed, _ = process_record(prep, SPEC, text, (), True, {})
    assert [f.code for f in placed.findings] == [f.code for f in result.findings]


def test_the_bytes_are_let_go_once_decoded_before_the_objects_are_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Handed to the parse (``Given``), a document's bytes are held by no frame once they
    are decoded: json.loads builds its objects from the text alone (a 33 MB spec: its bytes,
    its text and its objects were all held at once, the parse's peak)."""
    import json

    prep = _bundle()
    data = (ROOT / SPEC).read_bytes()
    size = len(data)
    pending = {SPEC: data}
    del data
    seen: list[list[str]] = []
    loads = json.loads

    def watching(text: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(text, str) and len(text) == size:  # (the spec is ASCII)
            held = []
            frame: FrameType | None = sys._getframe(1)
            while frame is not None:
                held += [
                    f"{frame.f_code.co_name}:{name}"
                    for name, v in frame.f_locals.items()
                    if isinstance(v, bytes) and len(v) == size
                ]
                frame = frame.f_back
            seen.append(held)
        return loads(text, *args, **kwargs)

    monkeypatch.setattr(json, "loads", watching)
    result, value = process_document(prep, SPEC, pending, {})
    assert seen == [[]]
    assert result.parsed and isinstance(value, dict) and value["assertions"]


def test_a_repeated_key_in_a_document_is_left_for_the_report_to_place() -> None:
    prep = _bundle()
    text = _spec(b'"assertions": []')
    result, _ = process_document(prep, SPEC, {SPEC: text}, {})
    found = [(f.code, f.pointer, f.line) for f in result.findings]
    assert ("record.duplicate-key", "", None) in found
    placed, _ = process_record(prep, SPEC, text, (), True, {})
    assert [f.code for f in placed.findings] == [f.code for f in result.findings]

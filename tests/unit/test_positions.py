"""Line and column of JSON pointers (verifier.json.positions) and of findings
(verifier.inspect.locate): the scanner against the standard library's own parse, its bounds on
hostile bytes, and findings of a broken copy of the bundled archive placed where they are."""

from __future__ import annotations

import json
import random
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import rewrite_manifest
from verifier import verify
from verifier.inspect import locate
from verifier.json.positions import MAX_DEPTH, Position, positions, split_pointer
from verifier.pipeline import Options, run_source
from verifier.report import Report
from verifier.sources import open_source

E7 = "evidence/e7-stripe-readback/payment-intents.json"
E6 = "evidence/e6-webhook-control/deliveries.json"


def test_places_keys_elements_and_the_root() -> None:
    data = b'{\n  "a": [1, {"b\\"x": 2}],\n  "c": {"d": "\xc3\xa9", "e": null}\n}'
    got = positions(data, ["", "/a", "/a/1", '/a/1/b"x', "/c/e"])
    assert got == {
        "": Position(1, 1),
        "/a": Position(2, 3),
        "/a/1": Position(2, 12),
        '/a/1/b"x': Position(2, 13),
        "/c/e": Position(3, 19),  # columns count code points: "é" is one
    }


def test_a_pointer_to_nothing_is_placed_at_its_deepest_prefix() -> None:
    data = b'{"a": {"b": [10, 20]}}'
    assert positions(data, ["/a/b/7", "/zz"]) == {
        "/a/b/7": Position(1, 8, exact=False),  # at the key "b"
        "/zz": Position(1, 1, exact=False),
    }


def test_escaped_tokens_and_not_pointers() -> None:
    assert split_pointer("/a~1b/c~0d") == ("a/b", "c~d")
    assert split_pointer("no-slash") is None
    assert positions(b'{"a/b": {"c~d": 1}}', ["/a~1b/c~0d", "bad"]) == {
        "/a~1b/c~0d": Position(1, 10)
    }


def _values(value: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    yield pointer, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _values(item, f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _values(item, f"{pointer}/{i}")


def _random_value(rng: random.Random, depth: int) -> Any:
    pick = rng.randrange(7 if depth < 4 else 4)
    if pick == 0:
        return rng.choice([None, True, False, 0, -1.5e3, 12])
    if pick in (1, 2, 3):
        return rng.choice(["", "x", 'q"uo\\te', "é\u2028", "~/", "\n"])
    if pick in (4, 5):
        return {
            rng.choice(["a", "b~", "c/d", "é", 'k"', "\\"]) + str(i): _random_value(rng, depth + 1)
            for i in range(rng.randrange(4))
        }
    return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]


@pytest.mark.parametrize("seed", range(40))
def test_every_pointer_of_random_documents_is_placed_where_its_text_is(seed: int) -> None:
    """Differential against json: the text at each placed position parses (after its key,
    for a member) to the value the pointer names."""
    rng = random.Random(seed)
    doc = _random_value(rng, 0)
    text = json.dumps(doc, indent=rng.choice([None, 1, 2]), ensure_ascii=rng.random() < 0.5)
    data = text.encode("utf-8")
    pointers = dict(_values(doc))
    got = positions(data, pointers)
    assert set(got) == set(pointers)
    lines = text.split("\n")
    decoder = json.JSONDecoder()
    for pointer, value in pointers.items():
        at = got[pointer]
        assert at.exact
        rest = "\n".join([lines[at.line - 1][at.column - 1 :], *lines[at.line :]])
        parent, _, last = pointer.rpartition("/")
        if pointer and isinstance(dict(_values(doc))[parent], dict):
            key, end = decoder.raw_decode(rest)
            assert key == last.replace("~1", "/").replace("~0", "~")
            rest = rest[end:].lstrip().removeprefix(":").lstrip()
        assert decoder.raw_decode(rest)[0] == value


@pytest.mark.parametrize(
    "data",
    [
        b"[" * (MAX_DEPTH + 5),  # deeper than the frame stack allows
        b'["' + b"\\" * 100_001 + b'"]',  # a long run of backslashes
        b'{"a": ' + b'"\\"' * 50_000,  # an unterminated string full of escaped quotes
        b'{"a" 1}',
        b"\xff\xfe{",
        b"",
    ],
)
def test_damaged_or_hostile_bytes_end_the_scan_without_a_guess(data: bytes) -> None:
    got = positions(data, ["/0/0", "/a"])
    assert all(p.line == 1 for p in got.values())  # only what was reached before the damage


def _broken(archive: Path) -> Path:
    path = archive / E7
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["response"]["data"][0]["amount"] = "100"
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    rewrite_manifest(archive)
    return archive


def _where(text: str, needle: str) -> tuple[int, int]:
    before = text[: text.index(needle)]
    return before.count("\n") + 1, len(before.rsplit("\n", 1)[-1]) + 1


def test_a_schema_finding_has_the_line_and_column_of_its_pointer(archive: Path) -> None:
    report = verify(_broken(archive))
    (finding,) = [f for f in report.findings if f.code == "schema.invalid"]
    assert finding.pointer == "/response/data/0/amount"
    text = (archive / E7).read_text(encoding="utf-8")
    assert (finding.line, finding.column) == _where(text, '"amount": "100"')
    assert finding.at is None
    as_json = finding.to_dict()
    assert (as_json["line"], as_json["column"]) == (finding.line, finding.column)


def test_a_manifest_line_finding_is_placed_in_the_manifest(archive: Path) -> None:
    data = bytearray((archive / E6).read_bytes())
    data[10] ^= 1
    (archive / E6).write_bytes(bytes(data))
    report = verify(archive)
    (finding,) = [f for f in report.findings if f.code == "manifest.mismatch"]
    manifest = (archive / "manifest.sha256").read_text(encoding="utf-8").split("\n")
    assert finding.path == E6
    assert finding.at == "manifest.sha256"
    assert finding.line is not None and manifest[finding.line - 1].endswith(E6)
    assert finding.location_path == "manifest.sha256"


def test_the_untouched_archive_reads_nothing_again(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[str] = []
    real = locate._read

    def counted(stream: Any, limit: int) -> bytes:
        reads.append("x")
        return real(stream, limit)

    monkeypatch.setattr(locate, "_read", counted)
    assert verify(archive).findings == []
    assert reads == []


def test_a_file_changed_since_it_was_judged_gets_no_position(archive: Path) -> None:
    """An assertion's finding is placed by a second read, whose digest must be the judged
    read's: other bytes give no position (the schema finding, placed from the bytes the
    first read held, keeps its own)."""
    _broken(archive)
    with open_source(archive) as source:
        real = source.read_many

        def changed(names: Any) -> Any:
            (archive / E7).write_text("\n\n\n" + (archive / E7).read_text(encoding="utf-8"))
            return real(names)

        source.read_many = changed  # type: ignore[method-assign]
        report: Report = run_source(source, str(archive), Options()).report
    (finding,) = [f for f in report.findings if f.code == "assertion.failed"]
    assert finding.path == E7 and finding.pointer is not None
    assert (finding.line, finding.column) == (None, None)
    (own,) = [f for f in report.findings if f.code == "schema.invalid"]
    assert own.line is not None


def test_a_tarball_is_read_again_for_positions(archive: Path, tmp_path: Path) -> None:
    """A tarball (read in one pass) is streamed again for an assertion's finding."""
    _broken(archive)
    tarball = tmp_path / "a.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        for path in sorted(archive.rglob("*")):
            if path.is_file():
                tar.add(path, arcname=str(path.relative_to(archive)))
    report = verify(tarball)
    text = (archive / E7).read_text(encoding="utf-8")
    for code in ("schema.invalid", "assertion.failed"):
        (finding,) = [f for f in report.findings if f.code == code]
        assert (finding.line, finding.column) == _where(text, '"amount": "100"')


def test_the_file_bound_leaves_the_rest_unplaced(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(locate, "MAX_FILES", 0)
    report = verify(_broken(archive))
    (finding,) = [f for f in report.findings if f.code == "assertion.failed"]
    assert finding.line is None

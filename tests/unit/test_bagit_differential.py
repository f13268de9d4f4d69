"""BagIt bags of every algorithm, compared with the reference tool (bagit-python).

bagit-python writes a bag with each algorithm (MD5, SHA-1, SHA-256, SHA-512, several at once),
and with a UTF-16 declaration; each bag is then broken in each way a bag breaks (missing file,
extra file, a flipped byte, a wrong Payload-Oxum, a bad tag manifest, fetch.txt variants,
blank runs in manifest lines). The verifier must reach bagit's verdict and name the same
problems. Where the verifier deliberately differs (RFC 8493 says so), a test says how.

Under CI the oracle must be there: a missing bagit fails these tests instead of skipping them.
"""

from __future__ import annotations

import codecs
import hashlib
import logging
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import require_module, write_archive
from verifier import verify
from verifier.pipeline import UsageError, run
from verifier.report import Report
from verifier.sources.bagit import parse_bag_manifest, parse_fetch, parse_info

bagit: Any = require_module("bagit", "bagit-python (the BagIt oracle) is not installed")

PAYLOAD: dict[str, bytes | str] = {
    "a.txt": b"alpha\n",
    "sub/b.json": b'{"b": 1}\n',
    "sub/deeper/c.bin": bytes(range(256)),
    "name with spaces.txt": b"spaces\n",
}
ALGORITHM_SETS: dict[str, tuple[str, ...]] = {
    "md5": ("md5",),
    "sha1": ("sha1",),
    "sha256": ("sha256",),
    "sha512": ("sha512",),
    "sha256+sha512": ("sha256", "sha512"),
    "md5+sha1+sha512": ("md5", "sha1", "sha512"),
}
# bagit's error details, and the finding codes that say the same thing
DETAIL_CODES = {
    "ChecksumMismatch": {"manifest.mismatch"},
    "FileMissing": {"manifest.missing", "bag.not-fetched"},
    "UnexpectedFile": {"manifest.unlisted"},
}
COMPARED = set().union(*DETAIL_CODES.values())


def make_bag(root: Path, checksums: tuple[str, ...]) -> Path:
    write_archive(root, PAYLOAD, manifest=False)
    bagit.make_bag(str(root), checksums=list(checksums))
    return root


def encoding_of(bag: Path) -> str:
    for line in (bag / "bagit.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("Tag-File-Character-Encoding:"):
            return line.split(":", 1)[1].strip()
    return "utf-8"


def retag(bag: Path) -> None:
    """Rewrite every tag manifest over the tag files as they are now (what a careful forger,
    or an honest editor, does after changing a tag file)."""
    encoding = encoding_of(bag)
    for manifest in sorted(bag.glob("tagmanifest-*.txt")):
        algorithm = manifest.name[len("tagmanifest-") : -len(".txt")]
        lines = []
        for tag in sorted(p for p in bag.iterdir() if p.is_file()):
            if tag.name.startswith("tagmanifest-"):
                continue
            digest = hashlib.new(algorithm, tag.read_bytes()).hexdigest()
            lines.append(f"{digest}  {tag.name}\n")
        try:
            manifest.write_bytes("".join(lines).encode(encoding))
        except LookupError:  # a bag declaring an unknown encoding: written as UTF-8
            manifest.write_bytes("".join(lines).encode("utf-8"))


def payload_manifests(bag: Path) -> list[Path]:
    return sorted(bag.glob("manifest-*.txt"))


def bagit_says(path: Path) -> tuple[bool | None, set[tuple[str, str]], bool]:
    """bagit's verdict (None: it cannot open the bag), the (detail, path) pairs of its
    completeness and checksum phases, and whether its Payload-Oxum check failed."""
    try:
        bag = bagit.Bag(str(path))
    except (bagit.BagError, UnicodeDecodeError):  # bagit fails to decode some bags
        return None, set(), False
    pairs: set[tuple[str, str]] = set()
    only_in_manifests, only_on_fs = bag.compare_manifests_with_fs()
    pairs |= {("FileMissing", p) for p in only_in_manifests}
    pairs |= {("UnexpectedFile", p) for p in only_on_fs}
    # bagit stops at its first failing phase; ask its checksum phase on its own as well
    try:
        bag._validate_entries(1)
    except bagit.BagValidationError as exc:  # an absent file is "Could not read": missing
        pairs |= {
            (type(d).__name__, d.path)
            for d in exc.details
            if not str(getattr(d, "found", "")).startswith("Could not read")
        }
    try:
        bag.validate()
    except bagit.BagValidationError as exc:
        pairs |= {(type(d).__name__, d.path) for d in exc.details}
        return False, pairs, "Payload-Oxum" in exc.message
    except bagit.BagError:
        return False, pairs, False
    return True, pairs, False


def we_say(path: Path) -> tuple[bool | None, set[tuple[str, str]], bool]:
    try:
        report = verify(path)
    except UsageError:
        return None, set(), False
    pairs = set()
    for f in report.findings:
        for detail, codes in DETAIL_CODES.items():
            if f.code in codes:
                pairs.add((detail, f.path))
    oxum = any(f.code == "bag.oxum-mismatch" for f in report.findings)
    return report.ok, pairs, oxum


def modify(name: str, data: bytes) -> Callable[[Path], None]:
    def apply(bag: Path) -> None:
        (bag / name).write_bytes(data)

    return apply


def delete(name: str) -> Callable[[Path], None]:
    return lambda bag: (bag / name).unlink()


def flip_byte(bag: Path) -> None:
    path = bag / "data/sub/deeper/c.bin"
    data = bytearray(path.read_bytes())
    data[100] ^= 0x01
    path.write_bytes(bytes(data))


def edit_first_digest(pattern: str) -> Callable[[Path], None]:
    def apply(bag: Path) -> None:
        path = sorted(bag.glob(pattern))[0]
        text = path.read_bytes().decode(encoding_of(bag))
        flipped = ("0" if text[0] != "0" else "1") + text[1:]
        path.write_bytes(flipped.encode(encoding_of(bag)))

    return apply


def drop_manifest_line(bag: Path) -> None:
    for path in payload_manifests(bag):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        path.write_text("".join(lines[1:]), encoding="utf-8")
    retag(bag)


def set_oxum(value: str) -> Callable[[Path], None]:
    def apply(bag: Path) -> None:
        info = bag / "bag-info.txt"
        lines = info.read_text(encoding="utf-8").splitlines()
        lines = [f"Payload-Oxum: {value}" if x.startswith("Payload-Oxum") else x for x in lines]
        info.write_text("\n".join(lines) + "\n", encoding="utf-8")
        retag(bag)

    return apply


def wide_blanks(blank: str) -> Callable[[Path], None]:
    """Manifest lines with another run of blanks between digest and path (RFC 8493 2.1.3:
    one or more linear whitespace)."""

    def apply(bag: Path) -> None:
        for path in payload_manifests(bag):
            lines = path.read_text(encoding="utf-8").splitlines()
            wide = [x.replace("  ", blank, 1) for x in lines]
            path.write_text("\n".join(wide) + "\n", encoding="utf-8")
        retag(bag)

    return apply


def fetch(lines: str, remove: str | None = None) -> Callable[[Path], None]:
    def apply(bag: Path) -> None:
        (bag / "fetch.txt").write_text(lines, encoding="utf-8")
        if remove is not None:
            (bag / remove).unlink()

    return apply


DAMAGE: dict[str, Callable[[Path], None]] = {
    "intact": lambda bag: None,
    "payload byte flipped": flip_byte,
    "payload changed, other size": modify("data/a.txt", b"alpha, longer\n"),
    "payload file missing": delete("data/sub/b.json"),
    "payload file extra": modify("data/extra.txt", b"extra\n"),
    "manifest digest edited": edit_first_digest("manifest-*.txt"),
    "manifest line dropped": drop_manifest_line,
    "tag manifest digest edited": edit_first_digest("tagmanifest-*.txt"),
    "tag file missing": delete("bag-info.txt"),
    "Payload-Oxum wrong": set_oxum("1.1"),
    "three spaces before the path": wide_blanks("   "),
    "a tab before the path": wide_blanks("\t"),
    "fetch.txt names a present file": fetch("https://example.org/a 6 data/a.txt\n"),
    "fetch.txt names an absent listed file": fetch(
        "https://example.org/b - data/sub/b.json\n", remove="data/sub/b.json"
    ),
    "fetch.txt escapes with ..": fetch("https://example.org/x 1 ../../README.md\n"),
    "fetch.txt absolute path": fetch("https://example.org/x 1 /tmp/x\n"),
    "fetch.txt home folder": fetch("https://example.org/x 1 ~/x\n"),
    "fetch.txt other user's home": fetch("https://example.org/x 1 ~root/x\n"),
}


@pytest.mark.parametrize("algorithms", list(ALGORITHM_SETS))
@pytest.mark.parametrize("damage", list(DAMAGE))
def test_we_agree_with_bagit(tmp_path: Path, algorithms: str, damage: str) -> None:
    bag = make_bag(tmp_path / "bag", ALGORITHM_SETS[algorithms])
    DAMAGE[damage](bag)
    theirs = bagit_says(bag)
    ours = we_say(bag)
    assert ours[0] == theirs[0], (ours, theirs)
    assert ours[1] == theirs[1], (ours, theirs)
    assert ours[2] == theirs[2] or not theirs[2], "bagit refused the Payload-Oxum; so must we"
    assert (theirs[0] is True) == (damage in PASSING), "the damage is not what it claims"


PASSING = {
    "intact",
    "three spaces before the path",
    "a tab before the path",
    "fetch.txt names a present file",
}


def test_each_algorithm_is_checked_and_named(tmp_path: Path) -> None:
    """Every manifest present is checked with its own algorithm, and the report says which."""
    bag = make_bag(tmp_path / "bag", ("md5", "sha1", "sha512"))
    result = run(bag)
    assert result.report.ok
    note = result.report.integrity.note or ""
    for name in ("manifest-md5.txt", "manifest-sha1.txt", "manifest-sha512.txt"):
        assert name in note
    assert "tagmanifest-sha512.txt (SHA-512)" in note
    assert result.source["manifests"]["manifest-md5.txt"] == "md5"
    assert result.source["uncheckedManifests"] == []
    # one byte changed: each algorithm's manifest says so in its own words
    flip_byte(bag)
    messages = [f.message for f in verify(bag).findings if f.code == "manifest.mismatch"]
    assert sorted(m.split(" ", 1)[0] for m in messages) == ["MD5", "SHA-1", "SHA-512"]


def test_each_file_is_read_once_for_every_algorithm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from verifier.sources.directory import DirectorySource

    bag = make_bag(tmp_path / "bag", ("md5", "sha256", "sha512"))
    opened: list[str] = []
    original = DirectorySource.open

    def counting(self: DirectorySource, name: str) -> Any:
        opened.append(name)
        return original(self, name)

    monkeypatch.setattr(DirectorySource, "open", counting)
    report = verify(bag)
    assert report.ok
    assert sorted(opened) == sorted(set(opened)), "a file was read twice"
    assert {f"data/{n}" for n in PAYLOAD} <= set(opened)


def test_md5_only_is_named_as_weak(tmp_path: Path) -> None:
    report = verify(make_bag(tmp_path / "bag", ("md5",)))
    assert report.ok
    assert "rests on MD5 alone" in (report.integrity.note or "")
    strong = verify(make_bag(tmp_path / "strong", ("md5", "sha512")))
    assert "rests on" not in (strong.integrity.note or "")


def test_every_payload_file_in_every_payload_manifest(tmp_path: Path) -> None:
    """RFC 8493 section 3: a file missing from one of two payload manifests makes the bag
    invalid. bagit-python checks only that each file is in some manifest (a documented
    difference)."""
    bag = make_bag(tmp_path / "bag", ("sha256", "sha512"))
    path = bag / "manifest-sha512.txt"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    dropped = lines[0].split(None, 1)[1].strip()
    path.write_text("".join(lines[1:]), encoding="utf-8")
    retag(bag)
    # bagit-python writes BagIt 0.97, when one manifest was enough
    assert "BagIt-Version: 0.97" in (bag / "bagit.txt").read_text(encoding="utf-8")
    assert verify(bag).ok
    (bag / "bagit.txt").write_text(
        "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n", encoding="utf-8"
    )
    retag(bag)
    assert bagit.Bag(str(bag)).is_valid()
    findings = [(f.code, f.path) for f in verify(bag).findings]
    assert findings == [("manifest.unlisted", dropped)]
    assert "manifest-sha512.txt" in verify(bag).findings[0].message


def to_utf16(bag: Path, encoding: str = "UTF-16") -> None:
    """Re-encode a bag's tag files in ``encoding`` and declare it."""
    (bag / "bagit.txt").write_text(
        f"BagIt-Version: 1.0\nTag-File-Character-Encoding: {encoding}\n", encoding="utf-8"
    )
    for name in ("bag-info.txt", *(p.name for p in payload_manifests(bag))):
        text = (bag / name).read_text(encoding="utf-8")
        (bag / name).write_bytes(text.encode(encoding))
    retag(bag)


@pytest.mark.parametrize("encoding", ["UTF-16", "UTF-16LE", "ISO-8859-1"])
def test_a_bag_in_another_declared_encoding(tmp_path: Path, encoding: str) -> None:
    bag = make_bag(tmp_path / "bag", ("sha256", "md5"))
    to_utf16(bag, encoding)
    assert bagit_says(bag)[0] is True
    assert we_say(bag) == bagit_says(bag)
    flip_byte(bag)
    assert we_say(bag) == bagit_says(bag)
    assert we_say(bag)[0] is False


def test_a_utf16_bag_declared_utf8_is_malformed(tmp_path: Path) -> None:
    bag = make_bag(tmp_path / "bag", ("sha256",))
    to_utf16(bag)
    (bag / "bagit.txt").write_text(
        "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n", encoding="utf-8"
    )
    codes = {f.code for f in verify(bag).findings}
    assert "manifest.malformed" in codes
    assert bagit_says(bag)[0] is not True


def test_an_unknown_encoding_is_a_finding(tmp_path: Path) -> None:
    bag = make_bag(tmp_path / "bag", ("sha256",))
    for encoding in ("no-such-codec", "rot13", "hex"):
        (bag / "bagit.txt").write_text(
            f"BagIt-Version: 1.0\nTag-File-Character-Encoding: {encoding}\n", encoding="utf-8"
        )
        retag(bag)
        findings = verify(bag).findings
        assert [(f.code, f.path) for f in findings] == [("bag.malformed", "bagit.txt")]
        assert "not a text encoding" in findings[0].message
    assert codecs.lookup("rot13")  # a codec Python knows, but not one for text


@pytest.mark.parametrize(
    "declaration",
    [
        "BagIt-Version : 1.0\nTag-File-Character-Encoding: UTF-8\n",
        "BagIt-Version:1.0\nTag-File-Character-Encoding: UTF-8\n",
        " BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n",
        "Tag-File-Character-Encoding: UTF-8\nBagIt-Version: 1.0\n",
        "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\nContact: me\n",
        "BagIt-Version: 1.0\n",
        "BagIt-Version: \u0661.\u0660\nTag-File-Character-Encoding: UTF-8\n",
        "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8",  # no final newline: fine
    ],
)
def test_the_declaration_has_one_exact_form(tmp_path: Path, declaration: str) -> None:
    """RFC 8493 2.1.1: exactly two lines, in this order, 'Label: value' with no whitespace
    before the colon. bagit-python accepts some of these (a documented difference)."""
    bag = make_bag(tmp_path / "bag", ("sha256",))
    (bag / "bagit.txt").write_text(declaration, encoding="utf-8")
    retag(bag)
    findings = [(f.code, f.path) for f in verify(bag).findings]
    if declaration.endswith("UTF-8"):
        assert findings == []
    else:
        assert ("bag.malformed", "bagit.txt") in findings


def test_bag_info_label_rules() -> None:
    tags, problems = parse_info("Source-Organization: Us\nContact-Name: A\n  continued\n")
    assert tags == {"Source-Organization": "Us", "Contact-Name": "A continued"}
    assert problems == []
    tags, problems = parse_info("Payload-Oxum : 1.1\nBag-Size:1 KB\n  folded\nx\n")
    assert tags == {"Payload-Oxum": "1.1", "Bag-Size": "1 KB folded"}
    assert [n for n, _ in problems] == [4]  # only a line with no colon, as bagit-python
    tags, problems = parse_info("External-Description:\nA: first\nA: second\n")
    assert tags == {"External-Description": "", "A": "first"} and problems == []


# Pieces of bag-info.txt lines: what bagit-python and RFC 8493 allow, and what they do not.
# Line breaks are LF, CR and CRLF only: bagit-python also splits at the other Unicode line
# breaks (U+2028, form feed, ...), the one documented difference, so they are left out.
_LABELS = st.sampled_from(
    ["Payload-Oxum", "Bag-Size", "Contact-Name", "External Identifier", "", "A", "x y"]
)
_SEPARATORS = st.sampled_from([":", ": ", ":\t", " :", " : ", "\t:\t", ":  ", "::"])
_VALUES = st.text(alphabet=st.sampled_from(list("ab1.9 \t:-\u00e9\u00a0")), min_size=0, max_size=8)
_INDENTS = st.sampled_from([" ", "\t", "  ", "\u00a0", "\u3000"])
_ENDS = st.sampled_from(["\n", "\r\n", "\r"])
_LINE = st.one_of(
    st.tuples(_LABELS, _SEPARATORS, _VALUES).map("".join),
    st.tuples(_INDENTS, _VALUES).map("".join),  # a continuation (or an orphan)
    st.sampled_from(["", "   ", "\t", "no colon", " indented no colon", "\ufeffBOM: x"]),
)


def _bagit_reads(path: Path) -> dict[str, str] | None:
    """bagit-python's reading of a tag file (None: it refuses it), first values, blanks
    folded to one space (it keeps a folded value's line break, the verifier a space)."""
    try:
        tags = bagit._load_tag_file(str(path), encoding="utf-8")
    except bagit.BagValidationError:
        return None
    first = {k: v[0] if isinstance(v, list) else v for k, v in tags.items()}
    return {k: " ".join(v.split()) for k, v in first.items()}


def _we_read(text: str) -> dict[str, str] | None:
    tags, problems = parse_info(text)
    return None if problems else {k: " ".join(v.split()) for k, v in tags.items()}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_LINE, _ENDS), max_size=8))
def test_bag_info_is_read_as_bagit_reads_it(lines: list[tuple[str, str]]) -> None:
    """Generated tag files: the verifier accepts exactly what bagit-python accepts, and reads
    the same labels and values (RFC 8493 2.2.2: the colon followed by a space, a tab or, as
    bagit-python allows, nothing; continuation lines start with whitespace)."""
    text = "".join(line + end for line, end in lines)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bag-info.txt"
        path.write_bytes(text.encode("utf-8"))
        assert _we_read(text) == _bagit_reads(path), repr(text)


_MUTATIONS: dict[str, Callable[[str], str]] = {
    "no space": lambda t: t.replace(": ", ":"),
    "tab": lambda t: t.replace(": ", ":\t"),
    "space before the colon": lambda t: t.replace(": ", " : "),
    "folded values": lambda t: t.replace(": ", ":\n  ", 2),
    "tab folded": lambda t: re.sub(r"(?m)^(Bag-Software-Agent: \S+) ", "\\1\n\t", t),
    "CRLF": lambda t: t.replace("\n", "\r\n"),
    "CR": lambda t: t.replace("\n", "\r"),
    "blank lines": lambda t: t.replace("\n", "\n\n \n"),
    "a line with no colon": lambda t: t + "not a tag\n",
    "an orphan at the top": lambda t: " Orphan: yes\n" + t,
}


@pytest.mark.parametrize("mutation", sorted(_MUTATIONS))
def test_a_mutated_bag_info_gets_bagits_verdict(tmp_path: Path, mutation: str) -> None:
    """bagit-python's own bag-info.txt, mutated: the whole bag's verdict is bagit's."""
    bag = make_bag(tmp_path / "bag", ("sha256",))
    info = bag / "bag-info.txt"
    info.write_bytes(_MUTATIONS[mutation](info.read_text(encoding="utf-8")).encode("utf-8"))
    retag(bag)
    ours = {(f.code, f.path) for f in verify(bag).findings}
    theirs, _, _ = bagit_says(bag)
    assert theirs is not None or mutation == "a line with no colon"
    assert (ours == set()) is bool(theirs), ours
    if not theirs:
        assert ours == {("bag.malformed", "bag-info.txt")}


@pytest.mark.parametrize("separator", [": ", ":\t"])
def test_the_declaration_takes_a_space_or_a_tab(tmp_path: Path, separator: str) -> None:
    """RFC 8493 2.2.2: a colon, then one space or tab; bagit-python reads both."""
    bag = make_bag(tmp_path / "bag", ("sha256",))
    declaration = f"BagIt-Version{separator}1.0\nTag-File-Character-Encoding{separator}UTF-8\n"
    (bag / "bagit.txt").write_text(declaration, encoding="utf-8")
    retag(bag)
    assert bagit_says(bag)[0] is True
    assert verify(bag).findings == []


@pytest.mark.parametrize(
    "oxum",
    ["9" * 5000 + ".1", "1." + "9" * 5000, "\u0661\u0662.\u0663", "12", "12.3.4", " .3", "-1.2"],
)
def test_a_malformed_oxum_is_a_finding(tmp_path: Path, oxum: str) -> None:
    bag = make_bag(tmp_path / "bag", ("sha256",))
    set_oxum(oxum)(bag)
    findings = [(f.code, f.path) for f in verify(bag).findings]
    assert findings == [("bag.malformed", "bag-info.txt")]


def test_manifest_lines_follow_rfc_8493() -> None:
    digest = "a" * 64
    parsed = parse_bag_manifest(
        f"{digest}  data/a\n{digest}\t\tdata/b \r\n{digest} data/c%0Ad\r"
        f"{digest}data/e\n{'a' * 63} data/f\n {digest} data/g\n{digest} ~/h\n\n# note\n",
        "sha256",
    )
    assert [(e.line, e.name) for e in parsed.entries] == [
        (1, "data/a"),
        (2, "data/b "),  # trailing blanks belong to the name
        (3, "data/c%0Ad"),  # decoded later, by the shared integrity check
    ]
    assert [m.line for m in parsed.malformed] == [4, 5, 6, 7]


def test_fetch_lines() -> None:
    entries, findings = parse_fetch(
        "https://example.org/a 12 data/a\n"
        "https://example.org/b - data/b%0Ac\n"
        "https://example.org/c x data/c\n"
        "not-a-url 1 data/d\n"
        "https://example.org/e 1 bag-info.txt\n"
        "https://example.org/f 1 data/../../f\n"
        "https://example.org/g 1\n"
        "https://example.org/h 1 C:\\h\n"
    )
    assert sorted(entries) == ["data/a", "data/b\nc"]
    assert [f.line for f in findings] == [3, 4, 5, 6, 7, 8]
    assert {f.code for f in findings} == {"bag.fetch-invalid"}


def test_not_fetched_is_neither_ok_nor_missing(tmp_path: Path) -> None:
    bag = make_bag(tmp_path / "bag", ("sha512",))
    fetch("https://example.org/b 9 data/sub/b.json\n", remove="data/sub/b.json")(bag)
    report: Report = verify(bag)
    assert not report.ok
    found = {f.code: f for f in report.findings}
    assert sorted(found) == ["bag.not-fetched", "bag.oxum-mismatch"]  # the Oxum counts it too
    assert found["bag.not-fetched"].path == "data/sub/b.json"
    assert "offline" in found["bag.not-fetched"].message
    assert "1 named in fetch.txt not fetched" in found["bag.oxum-mismatch"].message
    entry = next(f for f in report.files if f.path == "data/sub/b.json")
    assert entry.status == "not-fetched"


def test_fetch_outside_the_payload_is_invalid(tmp_path: Path) -> None:
    """A safe path outside data/ in fetch.txt: bagit-python lets it pass, RFC 8493 2.2.3 does
    not (fetch.txt lists payload files; a documented difference)."""
    bag = make_bag(tmp_path / "bag", ("sha256",))
    fetch("https://example.org/x 1 other.txt\n")(bag)
    assert bagit_says(bag)[0] is True
    assert [(f.code, f.line) for f in verify(bag).findings] == [("bag.fetch-invalid", 1)]


def test_unknown_algorithm_manifest_is_a_finding(tmp_path: Path) -> None:
    bag = make_bag(tmp_path / "bag", ("sha256",))
    (bag / "manifest-crc32.txt").write_text("00000000  data/a.txt\n", encoding="utf-8")
    result = run(bag)
    assert [(f.code, f.path) for f in result.report.findings] == [
        ("bag.malformed", "manifest-crc32.txt")
    ]
    assert result.source["uncheckedManifests"] == ["manifest-crc32.txt"]


def test_worker_processes_hash_every_algorithm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A bag in a folder is read by worker processes when it is worth it; each worker hashes
    every algorithm from its one read, and the verdict is the serial one."""
    from verifier.execute.processes import ProcessExecutor
    from verifier.execute.registry import MIN_ITEMS
    from verifier.pipeline import Options

    caplog.set_level(logging.WARNING, logger="bagit")  # not a line per file
    root = tmp_path / "bag"
    files: dict[str, bytes | str] = {f"f{i:05}.txt": f"{i}\n" for i in range(MIN_ITEMS + 10)}
    write_archive(root, files, manifest=False)
    bagit.make_bag(str(root), checksums=["md5", "sha512"])
    (root / "data" / "f00007.txt").write_bytes(b"changed\n")
    serial = verify(root, Options(workers=1))
    forked: list[int] = []
    original = ProcessExecutor.map

    def counting(self: ProcessExecutor, fn: Any, context: Any, tasks: Any, **kw: Any) -> Any:
        forked.append(len(tasks))
        return original(self, fn, context, tasks, **kw)

    monkeypatch.setattr(ProcessExecutor, "map", counting)
    parallel = verify(root, Options(workers=2))
    assert forked and forked[0] >= MIN_ITEMS, "the parallel path did not run"
    assert [f.to_dict() for f in parallel.findings] == [f.to_dict() for f in serial.findings]
    assert {(f.code, f.path) for f in serial.findings} == {
        ("manifest.mismatch", "data/f00007.txt"),
        ("bag.oxum-mismatch", "bag-info.txt"),
    }
    assert len([f for f in serial.findings if f.code == "manifest.mismatch"]) == 2


def test_a_tag_manifest_listing_a_payload_file_is_checked_too(tmp_path: Path) -> None:
    """A payload file is hashed with the payload manifests' algorithms during its one read; a
    tag manifest listing it with another algorithm still gets its digest checked."""
    bag = make_bag(tmp_path / "bag", ("sha256",))
    digest = hashlib.md5(b"alpha\n").hexdigest()
    (bag / "tagmanifest-md5.txt").write_text(f"{digest}  data/a.txt\n", encoding="utf-8")
    assert verify(bag).ok
    (bag / "tagmanifest-md5.txt").write_text(f"{'0' * 32}  data/a.txt\n", encoding="utf-8")
    findings = verify(bag).findings
    assert [(f.code, f.path) for f in findings] == [("manifest.mismatch", "data/a.txt")]
    assert findings[0].message.startswith("MD5 is " + digest)

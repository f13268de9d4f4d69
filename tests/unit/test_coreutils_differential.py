"""Differential tests against the real GNU coreutils ``sha256sum``.

Three comparisons, each skipped when ``sha256sum`` is not on PATH:

* the reader alone: random and hand-made manifests are read by ``sha256sum -c -w`` (in an empty
  folder, so every name is missing) and by :func:`parse_manifest`; the names of the valid lines
  and the numbers of the improperly formatted lines must agree;
* the writer: :func:`format_line` must write what ``sha256sum`` and ``sha256sum -b`` write;
* the whole integrity stage: a folder of files with awkward names and a manifest written in
  varied styles (two-space, one-space, tab, ``*``, upper-case hex, ``./``, CRLF, BSD tags,
  escapes, comments, malformed lines, wrong digests, absent files) is checked by
  ``sha256sum -c`` and by :func:`verify`; every line's verdict (OK / FAILED / FAILED open or
  read, i.e. ok / mismatch / missing) must agree.

``sha256sum -c`` prints a name as is unless it must escape it; coreutils 9.1 then prints a
leading backslash and escapes ``\\``, LF and CR (it does so for names holding LF; other
versions may do it for more names). A printed name is accepted in either form.

Everything is written under pytest's ``tmp_path``; hypothesis keeps no example database.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import need_oracle, require_tool
from verifier.manifest import format_line, normalize_name, parse_manifest
from verifier.pipeline import Options, verify

H = "0123456789abcdef" * 4
HB = H.encode()

OK, FAILED, UNREADABLE = "OK", "FAILED", "FAILED open or read"
VERDICT_OF_STATUS = {"ok": OK, "mismatch": FAILED, "missing": UNREADABLE}
SUFFIXES = ((b": " + UNREADABLE.encode(), UNREADABLE), (b": FAILED", FAILED), (b": OK", OK))
MALFORMED_RE = re.compile(rb": (\d+): improperly formatted SHA256 checksum line$")

_counter = itertools.count()  # a fresh folder under tmp_path for every hypothesis example

DIFF = settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
READER_FUZZ = settings(DIFF, max_examples=100)  # no files to write: cheap


@pytest.fixture(scope="module")
def sha256sum() -> str:
    exe = require_tool("sha256sum", "sha256sum (GNU coreutils) is not on PATH")
    version = subprocess.run(
        [exe, "--version"], capture_output=True, check=False, stdin=subprocess.DEVNULL
    ).stdout
    need_oracle(b"GNU coreutils" in version, "sha256sum is not the GNU coreutils one")
    return exe


# --------------------------------------------------------------------------------------------
# Running coreutils
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CoreutilsRun:
    verdicts: list[tuple[bytes, str]]  # (printed name, verdict), one per valid line, in order
    malformed: list[int]  # line numbers of improperly formatted lines
    returncode: int


def run_check(exe: str, manifest: Path, cwd: Path) -> CoreutilsRun:
    proc = subprocess.run(
        [exe, "-c", "-w", str(manifest)],
        cwd=cwd,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "LC_ALL": "C", "LANGUAGE": "C"},
        check=False,
        timeout=120,
    )
    verdicts: list[tuple[bytes, str]] = []
    out = proc.stdout.split(b"\n")
    assert out[-1] == b"", proc.stdout
    for line in out[:-1]:
        for suffix, verdict in SUFFIXES:
            if line.endswith(suffix):
                verdicts.append((line[: -len(suffix)], verdict))
                break
        else:
            raise AssertionError(f"unexpected sha256sum output line {line!r}")
    malformed = []
    for line in proc.stderr.split(b"\n"):
        m = MALFORMED_RE.search(line)
        if m:
            malformed.append(int(m.group(1)))
    return CoreutilsRun(verdicts, malformed, proc.returncode)


def printed_forms(name: str) -> set[bytes]:
    """How ``sha256sum -c`` may print a name: as is, or escaped behind a backslash."""
    raw = os.fsencode(name)
    escaped = b"\\" + raw.replace(b"\\", b"\\\\").replace(b"\n", b"\\n").replace(b"\r", b"\\r")
    forms = {escaped}
    if b"\n" not in raw:
        forms.add(raw)
    return forms


# --------------------------------------------------------------------------------------------
# 1. The reader alone
# --------------------------------------------------------------------------------------------


def assert_reader_agrees(exe: str, data: bytes, folder: Path) -> None:
    folder.mkdir()
    (folder / "empty").mkdir()
    manifest = folder / "manifest"
    manifest.write_bytes(data)
    cu = run_check(exe, manifest, folder / "empty")
    ours = parse_manifest(data)
    assert [m.line for m in ours.malformed] == cu.malformed, data
    assert len(ours.entries) == len(cu.verdicts), (data, ours.entries, cu.verdicts)
    for entry, (printed, _verdict) in zip(ours.entries, cu.verdicts, strict=True):
        assert printed in printed_forms(entry.name), (data, entry, printed)
    # No name holds a '/', so in an empty folder only '.' and '..' exist (directories, so
    # unreadable) and '-' reads an empty standard input: nothing can be OK.
    assert all(verdict != OK for _, verdict in cu.verdicts)
    assert cu.returncode == 1


TRICKY = [
    HB + b"  a\r\r\n" + HB + b"  b\r\n",
    b"SHA256 (c) = " + HB + b" \nSHA256 ()= " + HB + b"\n",
    HB + b"  a\n" + HB + b"  \n" + HB + b"   d\n",
    HB + b"  \n" + HB + b"  x\n",
    HB + b" *\n" + HB + b"  x\n",
    HB + b"\tx\n" + HB + b"  y\n" + HB + b" *z\n",
    HB + b"\t x\n" + HB + b"\ty\n",
    HB + b" a\n" + HB + b"  b\n" + HB + b"\t*c\n",
    HB + b"  a\n" + HB + b" b\n" + HB + b" *c\n",
    b"SHA256 (x) = " + HB + b"\n" + b"0" * 63 + b" y\n" + HB + b" a\n" + HB + b"  b\n",
    b"SHA256 (x) = " + HB + b"\n" + b"0" * 63 + b" y\n" + HB + b"  a\n" + HB + b" b\n",
    b"\\" + HB + b" a\\t\n" + HB + b"  b\n",
    b"\\" + HB + b"  a\\t\n" + HB + b" b\n",
    b"  \\" + HB + b"  a\\nb\n \t\\SHA256 (c\\\\d\\re) = " + HB.upper() + b"\n",
    b"\\" + HB + b"  ab\\\n\\" + HB + b"  \\\n\\SHA256 (a\\x) = " + HB + b"\n",
    HB + b"  a\\nb\n" + HB + b"  a\\b\\\nSHA256 (a\\b) = " + HB + b"\n",
    b"# c\n\n\r\n #x\n   \n\t\n" + HB + b"  #a\n#" + HB + b"  b",
    b"SHA256  (a) = " + HB + b"\nSHA256 (a = " + HB + b"\nSHA256 (\nSHA256 (a) " + HB + b"\n",
    b"SHA256 (a) = " + HB[:63] + b"\nSHA256 (a) = " + b"0" * 40 + b"\nSHA1 (a) = " + b"0" * 40,
    b"SHA256(a)= " + HB + b"\nSHA256 (a)=" + HB + b"\nSHA256 (a)\t=\t" + HB + b"\r\n",
    b"SHA256 (f(1).txt) = " + HB + b"\nSHA256 (a) = b) = " + HB + b"\n",
    HB[:63] + b"  a\n" + HB + b"0  a\n" + b"g" + HB[1:] + b"  a\n" + HB + b"\n" + HB + b" \n",
    HB + b"  a  \n" + HB + b"  \xff\xfe caf\xc3\xa9\n" + HB + b"  a \t\n" + HB + b" \tb\n",
    b"\\" + HB + b" *\\\\\\n\\r\n" + b"\\" + HB + b"  trailing\\r\n" + HB + b"   *x",
]


@pytest.mark.parametrize("data", TRICKY, ids=[f"tricky{i}" for i in range(len(TRICKY))])
def test_reader_agrees_on_tricky_manifests(sha256sum: str, data: bytes, tmp_path: Path) -> None:
    assert_reader_agrees(sha256sum, data, tmp_path / "case")


FRAGMENTS = [
    H,
    H.upper(),
    H[:63],
    H + "a",
    "0" * 40,
    " ",
    "  ",
    "\t",
    "*",
    "\\",
    "\\\\",
    "\\n",
    "\\r",
    "\\t",
    "SHA256",
    "SHA256 (",
    "SHA256(",
    "(",
    ")",
    ") = ",
    ")=",
    "=",
    "a",
    "b c",
    "#",
    "\r",
    "é",
    "\udcff",
    ".",
    "-",
    ":",
]
HEADS = [H + " ", H + "\t", H + "  ", H + " *", H + "\t*", H + "   ", "\\" + H + "  ", "SHA256 ("]
TAILS = ["", ") = " + H, ")=" + H.upper(), ") =\t" + H, ")" + H, ") = " + H + " "]


@st.composite
def fuzz_line(draw: st.DrawFn) -> str:
    pieces = st.lists(st.sampled_from(FRAGMENTS), max_size=6).map("".join)
    if draw(st.booleans()):
        return draw(pieces)
    lead = draw(st.sampled_from(["", "", " ", "\t "]))
    return lead + draw(st.sampled_from(HEADS)) + draw(pieces) + draw(st.sampled_from(TAILS))


@READER_FUZZ
@given(
    lines=st.lists(fuzz_line(), min_size=1, max_size=8),
    ending=st.sampled_from(["", "\n", "\r\n"]),
    crlf=st.booleans(),
)
def test_reader_agrees_on_random_lines(
    sha256sum: str, tmp_path: Path, lines: list[str], ending: str, crlf: bool
) -> None:
    sep = "\r\n" if crlf else "\n"
    data = (sep.join(lines) + ending).encode("utf-8", "surrogateescape")
    assert b"/" not in data and b"\x00" not in data
    folder = tmp_path / f"fuzz{next(_counter)}"
    try:
        assert_reader_agrees(sha256sum, data, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# 2. The writer
# --------------------------------------------------------------------------------------------

WRITER_NAMES = [
    "plain",
    "with space",
    " leading",
    "trailing ",
    "*star",
    "back\\slash",
    "new\nline",
    "car\riage",
    "all\\\n\r",
    "tab\there",
    "café",
    "#hash",
    "\udcff\udcfe",
]


def test_writer_matches_sha256sum(sha256sum: str, tmp_path: Path) -> None:
    for i, name in enumerate(WRITER_NAMES):
        (tmp_path / name).write_bytes(b"content %d\n" % i)
    for flag, binary in (([], False), (["-b"], True)):
        for name in WRITER_NAMES:
            proc = subprocess.run(
                [sha256sum, *flag, "--", name],
                cwd=tmp_path,
                capture_output=True,
                check=True,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "LC_ALL": "C"},
            )
            digest = hashlib.sha256((tmp_path / name).read_bytes()).hexdigest()
            assert proc.stdout == format_line(name, digest, binary), name


# --------------------------------------------------------------------------------------------
# 3. The whole integrity stage on a real folder
# --------------------------------------------------------------------------------------------

BSD_SHAPES = (("SHA256 (", ") = "), ("SHA256(", ")= "), ("SHA256 (", ")="), ("SHA256 (", ") =\t"))


@dataclass(frozen=True)
class Style:
    """How one listed file's line is written."""

    bsd: bool = False
    escape: bool = False  # escape even when not needed
    upper: bool = False
    dot: bool = False  # './' prefix
    crlf: bool = False
    binary: bool = False  # '*' marker (ignored on one-space manifests)
    tab: bool = False  # a tab as the separator
    lead: str = ""  # blanks before the line
    shape: int = 0  # which BSD spelling


@dataclass(frozen=True)
class Listing:
    path: str  # the file's path relative to the root
    fate: str  # ok | mismatch | missing
    style: Style


@dataclass(frozen=True)
class Expect:
    name: str | None  # the name as written (after unescaping); None: improperly formatted
    path: str = ""
    verdict: str = ""
    silent: bool = False  # a comment or blank line: sha256sum says nothing about it


def escape_name(raw: bytes) -> bytes:
    return raw.replace(b"\\", b"\\\\").replace(b"\n", b"\\n").replace(b"\r", b"\\r")


def render(item: Listing, digest: str, one_space: bool, ending: bytes) -> tuple[bytes, str]:
    """One manifest line (without its ending) and the name it gives."""
    s = item.style
    name = ("./" if s.dot else "") + item.path
    bsd = s.bsd or (one_space and name.startswith((" ", "*")))
    raw = os.fsencode(name)
    needs = b"\n" in raw or (not bsd and raw.endswith(b"\r") and ending != b"\r\n")
    escape = s.escape or needs
    if escape:
        raw = escape_name(raw)
    hexd = (digest.upper() if s.upper else digest).encode()
    prefix = s.lead.encode() + (b"\\" if escape else b"")
    if bsd:
        opening, closing = BSD_SHAPES[s.shape % len(BSD_SHAPES)]
        return prefix + opening.encode() + raw + closing.encode() + hexd, name
    sep = b"\t" if s.tab else b" "
    if not one_space:
        sep += b"*" if s.binary else b" "
    return prefix + hexd + sep + raw, name


MALFORMED_LINES = [
    HB[:63] + b"  zz-short",
    HB + b"0  zz-long",
    b"0" * 40 + b"  zz-sha1-with-a-name-long-enough-to-pass-the-length-check-xx",
    b"\\" + HB + b"  zz-bad\\tescape",
    b"\\" + HB + b"  zz-lone-backslash\\",
    b"\\SHA256 (zz-bad\\escape) = " + HB,
    b"SHA256 (zz-no-close = " + HB,
    b"SHA256 (zz-base64) = ASNFZ4mrze8BI0VniavN7wEjRWeJq83vASNFZ4mrze8=",
    b"SHA256 (zz-trailing) = " + HB + b" ",
    b"SHA1 (zz-sha1) = " + b"0" * 40,
    b" # an indented hash is not a comment",
    b"   ",
    b"garbage",
]
SILENT_LINES = [b"# a comment", b"#" + HB + b"  zz-commented", b"", b"\r"]


@dataclass(frozen=True)
class Scenario:
    listings: list[Listing]
    unlisted: list[str]
    one_space: bool
    final_newline: bool
    noise: list[tuple[int, bytes, bool]]  # (position, line, malformed?)
    mixing_probe: bool  # a line of the other spacing right after the first GNU line


def file_content(path: str) -> bytes:
    return b"content of " + os.fsencode(path) + b"\n"


def build(scenario: Scenario, base: Path) -> tuple[Path, Path, list[Expect]]:
    root = base / "root"
    root.mkdir(parents=True)
    for listing in scenario.listings:
        if listing.fate != "missing":
            write_file(root, listing.path)
    for path in scenario.unlisted:
        write_file(root, path)

    rows: list[tuple[bytes, Expect, bool]] = []  # (line, expectation, crlf)
    first_gnu: int | None = None
    for listing in scenario.listings:
        digest = hashlib.sha256(file_content(listing.path)).hexdigest()
        if listing.fate == "mismatch":
            digest = ("1" if digest[0] == "0" else "0") + digest[1:]
        ending = b"\r\n" if listing.style.crlf else b"\n"
        line, name = render(listing, digest, scenario.one_space, ending)
        is_bsd = line.lstrip(b" \t\\").startswith(b"SHA256")
        if first_gnu is None and not is_bsd:
            first_gnu = len(rows)
        expect = Expect(name, listing.path, VERDICT_OF_STATUS[listing.fate])
        rows.append((line, expect, listing.style.crlf))
    if scenario.mixing_probe and first_gnu is not None:
        if scenario.one_space:
            # Two blanks after one-space lines: coreutils reads a name with a leading blank.
            probe = (HB + b"  zz-probe", Expect(" zz-probe", " zz-probe", UNREADABLE), False)
        else:
            probe = (HB + b" zz-probe", Expect(None), False)
        rows.insert(first_gnu + 1, probe)
    for position, noise, bad in scenario.noise:
        line = noise
        if scenario.one_space and noise.startswith(b"\\" + HB + b"  "):
            # An escaped GNU line sets the spacing mode before its escapes are rejected: keep
            # it in the manifest's own spacing.
            line = b"\\" + HB + b" " + noise[len(HB) + 3 :]
        rows.insert(position % (len(rows) + 1), (line, Expect(None, silent=not bad), False))

    data = b""
    for i, (line, _, crlf) in enumerate(rows):
        last = i == len(rows) - 1
        if last and not scenario.final_newline and not line.endswith(b"\r"):
            data += line
        else:
            data += line + (b"\r\n" if crlf else b"\n")
    manifest = base / "manifest.sha256"
    manifest.write_bytes(data)
    # Expectations of the lines sha256sum reads (comments and blank lines say nothing).
    expects = [e for _, e, _ in rows if not e.silent]
    return root, manifest, expects


def write_file(root: Path, path: str) -> None:
    full = os.path.join(os.fsencode(root), os.fsencode(path))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "xb") as handle:
        handle.write(file_content(path))


def check_scenario(exe: str, scenario: Scenario, base: Path) -> None:
    root, manifest, expects = build(scenario, base)
    data = manifest.read_bytes()
    entries = [e for e in expects if e.name is not None]

    # What sha256sum says, line by line; first make sure the test wrote what it meant to.
    cu = run_check(exe, manifest, root)
    parsed = parse_manifest(data)
    assert len(cu.verdicts) == len(entries), (data, cu)
    for expect, (printed, verdict) in zip(entries, cu.verdicts, strict=True):
        assert printed in printed_forms(expect.name or ""), (expect, printed)
        assert verdict == expect.verdict, (expect, printed, verdict)
    assert len(cu.malformed) == len(expects) - len(entries), (data, cu)

    # Our reader gives the same names and the same malformed lines.
    assert [e.name for e in parsed.entries] == [e.name for e in entries]
    assert [m.line for m in parsed.malformed] == cu.malformed

    # Our verify gives the same verdict for every line.
    report = verify(root, Options(manifest=str(manifest)))
    status = {f.path: f.status for f in report.files if f.listed}
    ours = [VERDICT_OF_STATUS.get(status.get(e.path, "?"), "?") for e in entries]
    assert ours == [v for _, v in cu.verdicts], list(zip(entries, ours, strict=True))
    findings = [f for f in report.integrity.findings if f.code != "manifest.unlisted"]
    assert sorted(f.line or 0 for f in findings if f.code == "manifest.malformed") == cu.malformed
    assert {f.code for f in findings} <= {
        "manifest.mismatch",
        "manifest.missing",
        "manifest.malformed",
    }
    lines_of = {(f.code, f.path): f.line for f in findings}
    for entry, line in zip(entries, (e.line for e in parsed.entries), strict=True):
        if entry.verdict == FAILED:
            assert lines_of[("manifest.mismatch", entry.path)] == line
        elif entry.verdict == UNREADABLE:
            assert lines_of[("manifest.missing", entry.path)] == line
    all_ok = all(v == OK for _, v in cu.verdicts) and bool(cu.verdicts)
    assert (cu.returncode == 0) == all_ok
    failed = any(f.code in ("manifest.mismatch", "manifest.missing") for f in findings)
    assert failed != all_ok


# Fixed awkward names -------------------------------------------------------------------------

AWKWARD_NAMES = [
    "plain.txt",
    "with space",
    " leading space",
    "trailing space ",
    "  both  ",
    "*star",
    "star*",
    "back\\slash",
    "\\leading-backslash",
    "trailing-backslash\\",
    "new\nline",
    "\nleading-newline",
    "car\riage",
    "trailing-cr\r",
    "\r\n",
    "tab\there",
    "\ttab-first",
    "café",
    "日本語.txt",
    "e\u0301-nfd",
    "#hash-at-root",
    "sub/#hash",
    "sub/ # spaced",
    "sub dir/x y",
    "sub dir/*",
    "paren (1).txt",
    "a) = b",
    "SHA256 (x) = y",
    H + "  z",
    "-dash",
    "colon: OK",
    "x: FAILED",
    "=",
    ".hidden",
    "..dots",
    "...",
    "deep/er/still/file",
    "\udcff\udcfe-invalid-utf8",
    "lat\udce9n1",
]

STYLES = [
    Style(),
    Style(binary=True),
    Style(upper=True),
    Style(dot=True),
    Style(crlf=True),
    Style(bsd=True),
    Style(bsd=True, shape=1, crlf=True),
    Style(escape=True),
    Style(bsd=True, escape=True, shape=2),
    Style(tab=True),
    Style(tab=True, binary=True, upper=True),
    Style(lead=" \t", dot=True),
    Style(bsd=True, lead=" ", shape=3, upper=True),
    Style(escape=True, binary=True, crlf=True, dot=True),
]
FATES = ["ok", "ok", "mismatch", "ok", "missing"]


def awkward_scenario(one_space: bool, final_newline: bool, offset: int) -> Scenario:
    listings = [
        Listing(
            name,
            FATES[(i + offset) % len(FATES)],
            STYLES[(i * 5 + offset) % len(STYLES)],
        )
        for i, name in enumerate(AWKWARD_NAMES)
    ]
    noise = [(7 * i + offset, line, True) for i, line in enumerate(MALFORMED_LINES)]
    noise += [(11 * i + 3, line, False) for i, line in enumerate(SILENT_LINES)]
    return Scenario(
        listings=listings,
        unlisted=["sub/unlisted file", "unlisted\nat root"],
        one_space=one_space,
        final_newline=final_newline,
        noise=noise,
        mixing_probe=True,
    )


@pytest.mark.parametrize("offset", [0, 1, 2])
@pytest.mark.parametrize("final_newline", [True, False])
@pytest.mark.parametrize("one_space", [False, True])
def test_awkward_names_agree(
    sha256sum: str, tmp_path: Path, one_space: bool, final_newline: bool, offset: int
) -> None:
    need_oracle(
        os.fsencode("\udcff") == b"\xff",
        "the file system encoding is not UTF-8 with surrogateescape",
    )
    check_scenario(sha256sum, awkward_scenario(one_space, final_newline, offset), tmp_path)


def test_the_awkward_fixture_exercises_what_it_claims(tmp_path: Path) -> None:
    """The fixed scenario really holds every style, fate and kind of line it is meant to."""
    _, manifest, expects = build(awkward_scenario(False, False, 0), tmp_path)
    data = manifest.read_bytes()
    assert b"\r\n" in data and not data.endswith(b"\n")
    assert b" *" in data and b"\t" in data and b"\n\\" in data and b"\nSHA256(" in data
    assert re.search(rb"(?<![0-9a-fA-F])[0-9A-F]{64}(?![0-9a-fA-F])", data)
    assert b"./" in data and b"\n \t" in data
    verdicts = {e.verdict for e in expects if e.name is not None}
    assert verdicts == {OK, FAILED, UNREADABLE}
    assert sum(e.name is None for e in expects) == len(MALFORMED_LINES) + 1


# Generated names ----------------------------------------------------------------------------

SEGMENT_CHARS = [*" *\\\n\r\t#()=:.-", "é", "日", "\u00a0", "\x85", "SHA256", H[:8]]
text_segments = st.lists(
    st.one_of(
        st.sampled_from(SEGMENT_CHARS),
        st.characters(exclude_categories=["Cs"], exclude_characters="\x00/"),
    ),
    min_size=1,
    max_size=5,
).map("".join)
byte_segments = (
    st.binary(min_size=1, max_size=6)
    .filter(lambda b: b"/" not in b and b"\x00" not in b)
    .map(os.fsdecode)
)
segments = st.one_of(text_segments, text_segments, byte_segments).filter(
    lambda s: s not in (".", "..") and len(os.fsencode(s)) < 200
)
paths = (
    st.lists(segments, min_size=1, max_size=3)
    .map("/".join)
    .filter(lambda p: p != "-" and normalize_name(p) == p and "zz" not in p)
)
styles = st.builds(
    Style,
    bsd=st.booleans(),
    escape=st.booleans(),
    upper=st.booleans(),
    dot=st.booleans(),
    crlf=st.booleans(),
    binary=st.booleans(),
    tab=st.booleans(),
    lead=st.sampled_from(["", "", "", " ", "\t", " \t"]),
    shape=st.integers(0, len(BSD_SHAPES) - 1),
)


def conflict_free(names: list[str]) -> list[str]:
    """Drop names that would be both a file and a folder (``a`` and ``a/b``)."""
    kept: list[str] = []
    for name in names:
        if any(k.startswith(name + "/") or name.startswith(k + "/") for k in kept):
            continue
        kept.append(name)
    return kept


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    names = draw(st.lists(paths, min_size=1, max_size=10, unique_by=os.fsencode))
    names = conflict_free(names)
    fates = st.sampled_from(["ok", "ok", "mismatch", "missing"])
    listings = [Listing(n, draw(fates), draw(styles)) for n in names]
    extra = draw(st.lists(paths, max_size=2, unique_by=os.fsencode))
    unlisted = [n for n in conflict_free(names + extra) if n not in names]
    noise_line = st.one_of(
        st.sampled_from(MALFORMED_LINES).map(lambda line: (line, True)),
        st.sampled_from(SILENT_LINES).map(lambda line: (line, False)),
    )
    noise = [
        (position, line, bad)
        for position, (line, bad) in draw(
            st.lists(st.tuples(st.integers(0, 20), noise_line), max_size=4)
        )
    ]
    return Scenario(
        listings=listings,
        unlisted=unlisted,
        one_space=draw(st.booleans()),
        final_newline=draw(st.booleans()),
        noise=noise,
        mixing_probe=draw(st.booleans()),
    )


@DIFF
@given(scenario=scenarios())
def test_generated_folders_agree(sha256sum: str, tmp_path: Path, scenario: Scenario) -> None:
    need_oracle(
        os.fsencode("\udcff") == b"\xff",
        "the file system encoding is not UTF-8 with surrogateescape",
    )
    base = tmp_path / f"example{next(_counter)}"
    try:
        check_scenario(sha256sum, scenario, base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_tampering_after_writing_is_seen_by_both(sha256sum: str, tmp_path: Path) -> None:
    scenario = awkward_scenario(False, True, 0)
    wrong = replace(
        scenario,
        listings=[replace(scenario.listings[0], fate="ok")],
        noise=[],
        mixing_probe=False,
    )
    check_scenario(sha256sum, wrong, tmp_path / "good")
    root, manifest, _ = build(wrong, tmp_path / "bad")
    (root / wrong.listings[0].path).write_bytes(b"tampered")
    cu = run_check(sha256sum, manifest, root)
    assert [v for _, v in cu.verdicts] == [FAILED]
    report = verify(root, Options(manifest=str(manifest)))
    assert [f.status for f in report.files if f.listed] == ["mismatch"]

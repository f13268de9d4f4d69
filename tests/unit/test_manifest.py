"""Unit and property tests of the manifest reader and writer (``verifier.manifest``).

The expected behaviour is GNU coreutils 9.1 ``sha256sum`` (see
``/work/shared/notes/sha256sum-format.md``); every expectation below that concerns the reader was
checked against the real ``sha256sum -c -w``.
"""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.manifest import (
    Entry,
    format_line,
    format_manifest,
    normalize_name,
    parse_manifest,
    unsafe_reason,
)

H = "0123456789abcdef" * 4  # a well-formed digest
U = H.upper()
HB = H.encode()
UB = U.encode()
H2 = "f" * 64
H2B = H2.encode()

PROPERTY = settings(max_examples=300, database=None, deadline=None)


def entries(data: bytes) -> list[tuple[int, str, str, bool]]:
    """(line, name, digest, binary) of every entry, asserting there is no malformed line."""
    parsed = parse_manifest(data)
    assert parsed.malformed == (), parsed.malformed
    return [(e.line, e.name, e.digest, e.binary) for e in parsed.entries]


def names(data: bytes) -> list[str]:
    return [e.name for e in parse_manifest(data).entries]


def malformed_lines(data: bytes) -> list[int]:
    return [m.line for m in parse_manifest(data).malformed]


# --------------------------------------------------------------------------------------------
# Reader: GNU lines
# --------------------------------------------------------------------------------------------


def test_plain_two_space_line() -> None:
    assert entries(HB + b"  a.txt\n") == [(1, "a.txt", H, False)]
    assert parse_manifest(HB + b"  a.txt\n").entries == (Entry(1, "a.txt", H, False),)


def test_upper_case_hex_is_accepted_and_lowered() -> None:
    assert entries(UB + b"  a\n") == [(1, "a", H, False)]
    mixed = (H[:32] + U[32:]).encode()
    assert entries(mixed + b"  a\n") == [(1, "a", H, False)]


def test_binary_marker() -> None:
    assert entries(HB + b" *a.bin\n") == [(1, "a.bin", H, True)]
    # Only the first '*' is the marker; a second one belongs to the name.
    assert entries(HB + b" **a\n") == [(1, "*a", H, True)]


def test_tab_separator() -> None:
    assert entries(HB + b"\ta\n") == [(1, "a", H, False)]
    assert entries(HB + b"\t*a\n") == [(1, "a", H, True)]
    assert entries(HB + b"\t a\n") == [(1, "a", H, False)]
    # A tab as the mode character is not a mode character: it starts the name.
    assert entries(HB + b" \ta\n") == [(1, "\ta", H, False)]


def test_leading_blanks_before_the_digest() -> None:
    assert entries(b" \t " + HB + b"  a\n") == [(1, "a", H, False)]
    assert entries(b"  \\" + HB + b"  a\\nb\n") == [(1, "a\nb", H, False)]


def test_dot_slash_prefix_kept_by_reader_removed_by_normalize_name() -> None:
    assert names(HB + b"  ./a/b.txt\n" + H2B + b"  ./c\n") == ["./a/b.txt", "./c"]
    assert normalize_name("./a/b.txt") == "a/b.txt"
    assert normalize_name("./c") == "c"
    assert normalize_name("././c") == "c"
    assert normalize_name("a/./b") == "a/b"


def test_crlf_line_endings() -> None:
    data = HB + b"  a\r\n" + H2B + b" *b c\r\n" + b"SHA256 (d) = " + HB + b"\r\n"
    assert entries(data) == [(1, "a", H, False), (2, "b c", H2, True), (3, "d", H, False)]


def test_only_one_carriage_return_is_stripped() -> None:
    # coreutils removes one LF and then one CR; a second CR belongs to the name.
    assert names(HB + b"  a\r\r\n") == ["a\r"]
    # A CR inside a name is kept.
    assert names(HB + b"  a\rb\n") == ["a\rb"]


def test_blank_and_comment_lines_are_skipped_silently() -> None:
    data = b"# a comment\n\n\r\n" + HB + b"  a\n#" + HB + b"  b\n\n" + H2B + b"  c\n"
    assert entries(data) == [(4, "a", H, False), (7, "c", H2, False)]


def test_comment_only_in_first_column() -> None:
    # An indented '#' is no comment, and a line of blanks is not an empty line.
    assert malformed_lines(b" # not a comment\n   \n\t\n" + HB + b"  a\n") == [1, 2, 3]
    assert names(b" # not a comment\n" + HB + b"  a\n") == ["a"]


def test_name_starting_with_hash_is_not_a_comment() -> None:
    assert names(HB + b"  #a\n" + HB + b"  sub/#b\n") == ["#a", "sub/#b"]


def test_trailing_spaces_in_names_are_kept() -> None:
    assert names(HB + b"  a  \n") == ["a  "]
    assert names(HB + b"  a \t\n") == ["a \t"]
    assert names(b"SHA256 (a ) = " + HB + b"\n") == ["a "]


def test_three_spaces_give_a_leading_space() -> None:
    assert entries(HB + b"   a\n") == [(1, " a", H, False)]
    assert entries(HB + b"    a\n") == [(1, "  a", H, False)]


def test_missing_final_newline() -> None:
    assert entries(HB + b"  a\n" + H2B + b"  b") == [(1, "a", H, False), (2, "b", H2, False)]
    # A final CR without LF is still a line ending's CR.
    assert names(HB + b"  a\r") == ["a"]
    assert names(b"SHA256 (a) = " + HB) == ["a"]


def test_empty_manifest() -> None:
    assert parse_manifest(b"") == parse_manifest(b"\n# only a comment\n")
    assert parse_manifest(b"").entries == ()
    assert parse_manifest(b"").malformed == ()


def test_non_utf8_names_survive_via_surrogateescape() -> None:
    (entry,) = parse_manifest(HB + b"  \xff\xfe caf\xc3\xa9\n").entries
    assert entry.name == "\udcff\udcfe café"
    assert os.fsencode(entry.name) == b"\xff\xfe caf\xc3\xa9"


def test_literal_backslash_without_escape_prefix() -> None:
    # Escapes are decoded only on lines that start with a backslash.
    assert names(HB + b"  a\\nb\n") == ["a\\nb"]
    assert names(HB + b"  a\\b\\\n") == ["a\\b\\"]
    assert names(HB + b"  a\\tb\n") == ["a\\tb"]
    assert names(b"SHA256 (a\\b) = " + HB + b"\n") == ["a\\b"]


def test_line_holding_nul_is_malformed() -> None:
    # coreutils would silently cut the name at the NUL; we refuse the whole line instead.
    assert malformed_lines(HB + b"  a\x00b\n" + HB + b"  c\n") == [1]


# --------------------------------------------------------------------------------------------
# Reader: escapes
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("escaped", "name"),
    [
        (b"a\\\\b", "a\\b"),
        (b"a\\nb", "a\nb"),
        (b"a\\rb", "a\rb"),
        (b"\\\\\\n\\r", "\\\n\r"),
        (b"trailing\\r", "trailing\r"),
        (b"\\\\\\\\", "\\\\"),
        (b"plain name", "plain name"),
        (b"caf\xc3\xa9\\n", "café\n"),
    ],
)
def test_escaped_names(escaped: bytes, name: str) -> None:
    assert entries(b"\\" + HB + b"  " + escaped + b"\n") == [(1, name, H, False)]
    assert entries(b"\\" + HB + b" *" + escaped + b"\n") == [(1, name, H, True)]
    assert entries(b"\\SHA256 (" + escaped + b") = " + HB + b"\n") == [(1, name, H, False)]


@pytest.mark.parametrize(
    "escaped",
    [
        b"a\\tb",  # only \\, \n and \r exist
        b"a\\x41",
        b"a\\0",
        b"a\\ b",
        b"ab\\",  # a lone trailing backslash
        b"\\",
        b"a\\\\\\",  # an escaped backslash, then a lone one
    ],
)
def test_invalid_escapes_are_malformed(escaped: bytes) -> None:
    assert malformed_lines(b"\\" + HB + b"  " + escaped + b"\n") == [1]
    assert malformed_lines(b"\\SHA256 (" + escaped + b") = " + HB + b"\n") == [1]
    # The same bytes without the leading backslash are a literal, valid name.
    assert len(names(HB + b"  " + escaped + b"\n")) == 1


def test_bsd_tag_escaped_newline() -> None:
    data = b"\\SHA256 (a\\nb) = " + HB + b"\n"
    assert entries(data) == [(1, "a\nb", H, False)]


# --------------------------------------------------------------------------------------------
# Reader: BSD tag lines
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "name"),
    [
        (b"SHA256 (a b) = " + HB, "a b"),
        (b"SHA256(a)= " + HB, "a"),
        (b"SHA256 (a)=" + HB, "a"),
        (b"SHA256 (a) =\t" + HB, "a"),
        (b"SHA256 (a)\t=  " + HB, "a"),
        (b"SHA256 (a) = " + UB, "a"),
        (b"  SHA256 (a) = " + HB, "a"),
        (b"SHA256 (f(1).txt) = " + HB, "f(1).txt"),
        (b"SHA256 (a) = b) = " + HB, "a) = b"),  # the last ')' ends the name
        (b"SHA256 ( a*) = " + HB, " a*"),
        (b"SHA256 ()= " + HB, ""),  # an empty name: well-formed, refused later
    ],
)
def test_bsd_tag_lines(line: bytes, name: str) -> None:
    assert entries(line + b"\n") == [(1, name, H, False)]


@pytest.mark.parametrize(
    "line",
    [
        b"SHA256  (a) = " + HB,  # two spaces before '('
        b"SHA256 a) = " + HB,
        b"SHA256 (a = " + HB,  # no ')'
        b"SHA256 (",
        b"SHA256 (a) " + HB,  # no '='
        b"SHA256 (a) = " + HB + b" ",  # trailing blank after the digest
        b"SHA256 (a) = " + HB[:63],
        b"SHA256 (a) = " + HB + b"0",
        b"SHA256 (a) = " + b"g" * 64,
        b"SHA256 (a) = " + b"0" * 40,  # SHA-1
        b"SHA256 (a) = " + b"0" * 128,  # SHA-512
        b"SHA256 (a) = ASNFZ4mrze8BI0VniavN7wEjRWeJq83vASNFZ4mrze8=",  # base64
        b"SHA1 (a) = " + b"0" * 40,
        b"SHA512 (a) = " + b"0" * 128,
        b"sha256 (a) = " + HB,
    ],
)
def test_malformed_bsd_tag_lines(line: bytes) -> None:
    assert malformed_lines(line + b"\n" + HB + b"  ok\n") == [1]


# --------------------------------------------------------------------------------------------
# Reader: digests and line shapes
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        HB[:63] + b"  a",
        HB + b"0  a",
        b"0" * 40 + b"  a-name-long-enough-to-pass-the-length-check-xxxxxxxxxxx",  # SHA-1
        b"0" * 128 + b"  a",  # SHA-512
        b"g" + HB[1:] + b"  a",
        b"0x" + HB[2:] + b"  a",
        HB,
        HB + b" ",  # too short: no name at all
        HB + b"\t",
        b"\\" + HB + b" ",
        HB + b"a",
        b"a  " + HB,
        b"MD5 (a) = " + b"0" * 32,
    ],
)
def test_malformed_gnu_lines(line: bytes) -> None:
    assert malformed_lines(line + b"\n") == [1]


def test_malformed_lines_keep_their_numbers_and_do_not_stop_the_reader() -> None:
    data = b"# header\n" + HB[:63] + b"  a\n\n" + HB + b"  b\n" + b"junk\n" + H2B + b"  c"
    parsed = parse_manifest(data)
    assert [(e.line, e.name) for e in parsed.entries] == [(4, "b"), (6, "c")]
    assert [m.line for m in parsed.malformed] == [2, 5]
    assert all(m.reason for m in parsed.malformed)


# --------------------------------------------------------------------------------------------
# Reader: one-space lines and coreutils' rule against mixing them with two-space lines
# --------------------------------------------------------------------------------------------


def test_one_space_lines() -> None:
    assert entries(HB + b" a\n" + H2B + b" b c\n") == [(1, "a", H, False), (2, "b c", H2, False)]
    # A one-character name after a single blank is a one-space line.
    assert entries(HB + b" a\n") == [(1, "a", H, False)]
    assert entries(HB + b" *\n") == [(1, "*", H, False)]
    assert entries(HB + b"  \n") == [(1, " ", H, False)]


def test_one_space_after_two_space_is_malformed() -> None:
    data = HB + b"  a\n" + H2B + b" b\n" + HB + b" *c\n"
    parsed = parse_manifest(data)
    assert [(e.name, e.binary) for e in parsed.entries] == [("a", False), ("c", True)]
    assert [m.line for m in parsed.malformed] == [2]
    # A name of one character after two blanks is, for coreutils, a one-space line.
    assert malformed_lines(HB + b"  a\n" + HB + b"  \n") == [2]


def test_after_a_one_space_line_two_spaces_give_a_leading_space() -> None:
    data = HB + b" a\n" + HB + b"  b\n" + HB + b" *c\n" + HB + b"\td\n"
    assert entries(data) == [
        (1, "a", H, False),
        (2, " b", H, False),
        (3, "*c", H, False),  # no binary marker in this mode
        (4, "d", H, False),
    ]


def test_a_tab_separated_first_line_is_a_one_space_line() -> None:
    assert names(HB + b"\ta\n" + HB + b"  b\n") == ["a", " b"]
    assert malformed_lines(HB + b"\t a\n" + HB + b"\tb\n") == [2]


def test_the_first_gnu_line_decides_not_bsd_lines_and_not_malformed_ones() -> None:
    bsd = b"SHA256 (x) = " + HB + b"\n"
    junk = b"0" * 63 + b" y\n"
    assert names(bsd + junk + HB + b" a\n" + HB + b"  b\n") == ["x", "a", " b"]
    assert names(bsd + junk + HB + b"  a\n" + HB + b" b\n") == ["x", "a"]
    assert malformed_lines(bsd + junk + HB + b"  a\n" + HB + b" b\n") == [2, 4]


def test_an_invalid_escape_line_still_sets_the_mode() -> None:
    # coreutils sets its one-space/two-space state before it decodes the escapes.
    assert names(b"\\" + HB + b" a\\t\n" + HB + b"  b\n") == [" b"]
    assert malformed_lines(b"\\" + HB + b"  a\\t\n" + HB + b" b\n") == [1, 2]


def test_each_parse_starts_afresh() -> None:
    assert names(HB + b"  a\n") == ["a"]
    assert names(HB + b" a\n" + HB + b"  b\n") == ["a", " b"]
    assert names(HB + b"  a\n") == ["a"]


# --------------------------------------------------------------------------------------------
# normalize_name
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("a", "a"),
        ("a/b c/d ", "a/b c/d "),
        ("./a", "a"),
        ("./a/./b", "a/b"),
        (" a/ b", " a/ b"),
        ("a\\b", "a\\b"),
        ("...", "..."),
        (".a/..b", ".a/..b"),
        ("café\n", "café\n"),
    ],
)
def test_normalize_name_accepts(name: str, expected: str) -> None:
    assert normalize_name(name) == expected


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("", "empty"),
        ("/etc/passwd", "absolute"),
        ("/", "absolute"),
        ("C:\\x", "absolute"),
        ("c:/x", "absolute"),
        ("..", "'..'"),
        ("../a", "'..'"),
        ("a/../b", "'..'"),
        ("a/..", "'..'"),
        ("./../a", "'..'"),
        ("a//b", "empty segment"),
        ("a/", "empty segment"),
        (".", "empty segment"),
        ("./", "empty segment"),
        ("a\x00b", "NUL"),
    ],
)
def test_normalize_name_refuses(name: str, reason: str) -> None:
    assert normalize_name(name) is None
    assert reason in unsafe_reason(name)


# --------------------------------------------------------------------------------------------
# Writer
# --------------------------------------------------------------------------------------------


def test_format_line_plain() -> None:
    assert format_line("a b", H) == HB + b"  a b\n"
    assert format_line("a", U) == HB + b"  a\n"
    assert format_line("a", H, binary=True) == HB + b" *a\n"
    assert format_line(" *a ", H) == HB + b"   *a \n"


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("a\\b", b"\\" + HB + b"  a\\\\b\n"),
        ("a\nb", b"\\" + HB + b"  a\\nb\n"),
        ("a\rb", b"\\" + HB + b"  a\\rb\n"),
        ("\\\n\r", b"\\" + HB + b"  \\\\\\n\\r\n"),
        ("a\tb", HB + b"  a\tb\n"),  # nothing else is escaped
        ("café", HB + "  café\n".encode()),
        ("\udcff\udcfe", HB + b"  \xff\xfe\n"),
        ("#a", HB + b"  #a\n"),
    ],
)
def test_format_line_escapes(name: str, line: bytes) -> None:
    assert format_line(name, H) == line
    assert entries(line) == [(1, name, H, False)]


def test_format_manifest_sorts_by_utf8_bytes() -> None:
    items = [
        ("b", H),
        ("a\\x", H2),  # its line starts with '\', but it sorts by the name
        ("\udcff", H),  # byte 0xff: after every valid UTF-8 lead byte
        ("\U00010000", H),  # F0 90 80 80
        ("é", H),  # C3 A9
        ("\udc80", H2),  # byte 0x80: before 'é' though its code point is larger
        ("a\nb", H),
        ("a b", H),
        ("B", H),
    ]
    out = format_manifest(items)
    order = [e.name for e in parse_manifest(out).entries]
    assert order == ["B", "a\nb", "a b", "a\\x", "b", "\udc80", "é", "\U00010000", "\udcff"]
    assert order != sorted(order)  # code-point order would differ
    assert out == format_manifest(reversed(items))
    assert out.count(b"\n") == len(items)


def test_format_manifest_empty() -> None:
    assert format_manifest([]) == b""


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------

AWKWARD = [*" *\\\n\r\t#()=:./-", "é", "日", "\u00a0", "\u2028", "\x85", "\ufeff"]
text_names = st.text(
    alphabet=st.one_of(
        st.sampled_from(AWKWARD),
        st.characters(exclude_categories=["Cs"], exclude_characters="\x00"),
    ),
    min_size=1,
    max_size=24,
)
byte_names = (
    st.binary(min_size=1, max_size=24)
    .filter(lambda b: b"\x00" not in b)
    .map(lambda b: b.decode("utf-8", "surrogateescape"))
)
any_names = st.one_of(text_names, byte_names)
digests = st.text(alphabet="0123456789abcdefABCDEF", min_size=64, max_size=64)


def _key(name: str) -> bytes:
    return name.encode("utf-8", "surrogateescape")


@PROPERTY
@given(st.dictionaries(any_names, digests, max_size=12))
def test_round_trip(items: dict[str, str]) -> None:
    data = format_manifest(items.items())
    parsed = parse_manifest(data)
    assert parsed.malformed == ()
    expected = sorted(((n, d.lower()) for n, d in items.items()), key=lambda e: _key(e[0]))
    assert [(e.name, e.digest) for e in parsed.entries] == expected
    assert [e.line for e in parsed.entries] == list(range(1, len(items) + 1))
    assert not any(e.binary for e in parsed.entries)
    assert data.count(b"\n") == len(items)


@PROPERTY
@given(st.dictionaries(any_names, digests, min_size=1, max_size=12), st.randoms())
def test_format_manifest_is_deterministic_and_sorted(
    items: dict[str, str], rnd: random.Random
) -> None:
    pairs = list(items.items())
    data = format_manifest(pairs)
    shuffled = pairs[:]
    rnd.shuffle(shuffled)
    assert format_manifest(shuffled) == data
    assert format_manifest(iter(pairs)) == data
    lines = data.split(b"\n")
    assert lines[-1] == b""
    assert lines[:-1] == [
        format_line(n, d).rstrip(b"\n") for n, d in sorted(pairs, key=lambda e: _key(e[0]))
    ]
    keys = [_key(e.name) for e in parse_manifest(data).entries]
    assert keys == sorted(keys)


@PROPERTY
@given(any_names, digests, st.booleans())
def test_format_line_round_trip(name: str, digest: str, binary: bool) -> None:
    line = format_line(name, digest, binary)
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert line.startswith(b"\\") == any(c in name for c in "\\\n\r")
    assert entries(line) == [(1, name, digest.lower(), binary)]
    # Also with CRLF and without the final newline.
    assert entries(line[:-1] + b"\r\n") == [(1, name, digest.lower(), binary)]
    assert entries(line[:-1]) == [(1, name, digest.lower(), binary)]


@PROPERTY
@given(st.binary(max_size=300))
def test_parse_never_raises(data: bytes) -> None:
    parsed = parse_manifest(data)
    lines = data.split(b"\n")
    count = len(lines) - (lines[-1] == b"")
    numbers = [e.line for e in parsed.entries] + [m.line for m in parsed.malformed]
    assert len(numbers) == len(set(numbers))
    assert all(1 <= n <= count for n in numbers)
    for e in parsed.entries:
        assert len(e.digest) == 64
        assert e.digest == e.digest.lower()
        assert "\x00" not in e.name

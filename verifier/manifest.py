"""Read and write SHA-256 manifests as GNU coreutils ``sha256sum`` does.

The reader follows coreutils 9.1's ``sha256sum -c`` line by line (see
``../shared/notes/sha256sum-format.md`` and coreutils' ``split_3``): leading blanks, an
optional ``\\`` that switches on name escapes, GNU lines (``<hex> <mode><name>``, mode ``' '``
or ``'*'``) and BSD tag lines (``SHA256 (<name>) = <hex>``), upper- or lower-case hex, CRLF
line endings, blank and ``#`` lines. Names are returned as ``str`` decoded from UTF-8 with
``surrogateescape``, so every byte of a name survives a round trip.

The writer writes what ``sha256sum`` writes: sorted lines, lower-case hex, two spaces, LF, and
``\\``-escapes for names holding a backslash, LF or CR.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

DIGEST_HEX = 64
_WHITE = b" \t"
_HEX = re.compile(rb"[0-9A-Fa-f]{64}")
# The line sha256sum writes for a name without escapes: what the reader below makes of it,
# decided by one match (while one-space lines have not been seen: then the reader decides).
_PLAIN_LINE = re.compile(rb"([0-9A-Fa-f]{64}) ([ *])([^\0]+)")


class Entry(NamedTuple):
    """A well-formed checksum line."""

    line: int
    name: str
    digest: str  # lower-case hex
    binary: bool


class Malformed(NamedTuple):
    """A line ``sha256sum -c`` would call improperly formatted."""

    line: int
    reason: str


@dataclass(frozen=True, slots=True)
class ParsedManifest:
    entries: tuple[Entry, ...]
    malformed: tuple[Malformed, ...]


_UTF8, _ESC = "utf-8", "surrogateescape"  # how a name's bytes are read


def _decode(name: bytes) -> str:
    return name.decode(_UTF8, _ESC)


def _unescape(name: bytes) -> bytes | None:
    """coreutils' ``filename_unescape``: only ``\\\\``, ``\\n`` and ``\\r``; no NUL."""
    out = bytearray()
    i = 0
    while i < len(name):
        c = name[i]
        if c == 0x5C:  # backslash
            if i == len(name) - 1:
                return None
            i += 1
            nxt = name[i : i + 1]
            if nxt == b"n":
                out += b"\n"
            elif nxt == b"r":
                out += b"\r"
            elif nxt == b"\\":
                out += b"\\"
            else:
                return None
        elif c == 0:
            return None
        else:
            out.append(c)
        i += 1
    return bytes(out)


class _Reader:
    """Parses lines with coreutils' state: the first GNU line decides whether one-space
    ("BSD reversed") lines are allowed for the rest of the file."""

    def __init__(self) -> None:
        self.bsd_reversed = -1

    def split(self, s: bytes) -> tuple[bytes, bytes, bool] | str:
        i = 0
        n = len(s)
        while i < n and s[i] in _WHITE:
            i += 1
        escaped = False
        if s[i : i + 1] == b"\\":
            i += 1
            escaped = True
        if s.startswith(b"SHA256", i):
            j = i + 6
            if s[j : j + 1] == b" ":
                j += 1
            if s[j : j + 1] != b"(":
                return "a 'SHA256' tag line without '('"
            return self._bsd(s[j + 1 :], escaped)
        if n - i < DIGEST_HEX + 2 + (1 if s[i : i + 1] == b"\\" else 0):
            return "too short for a SHA-256 checksum line"
        digest = s[i : i + DIGEST_HEX]
        i += DIGEST_HEX
        if s[i] not in _WHITE:
            return "the digest is not 64 hexadecimal digits followed by a blank"
        if not _HEX.fullmatch(digest):
            return "the digest is not 64 hexadecimal digits"
        i += 1
        binary = False
        if n - i == 1 or s[i : i + 1] not in (b" ", b"*"):
            if self.bsd_reversed == 0:
                return "a one-space line after two-space lines (coreutils refuses mixing them)"
            self.bsd_reversed = 1
        elif self.bsd_reversed != 1:
            self.bsd_reversed = 0
            binary = s[i : i + 1] == b"*"
            i += 1
        name = s[i:]
        if escaped:
            un = _unescape(name)
            if un is None:
                return "an escaped name with an invalid escape (only \\\\, \\n and \\r exist)"
            name = un
        return digest, name, binary

    @staticmethod
    def _bsd(s: bytes, escaped: bool) -> tuple[bytes, bytes, bool] | str:
        if not s:
            return "a 'SHA256 (' tag line with no name"
        close = s.rfind(b")")
        if close <= 0 and not s.startswith(b")"):
            return "a 'SHA256 (' tag line without ')'"
        name = s[:close]
        if escaped:
            un = _unescape(name)
            if un is None:
                return "an escaped name with an invalid escape (only \\\\, \\n and \\r exist)"
            name = un
        rest = s[close + 1 :].lstrip(_WHITE)
        if not rest.startswith(b"="):
            return "a tag line without '= <digest>'"
        digest = rest[1:].lstrip(_WHITE)
        if not _HEX.fullmatch(digest):
            return "the digest is not 64 hexadecimal digits"
        return digest, name, False


def parse_manifest(data: bytes) -> ParsedManifest:
    """Parse the bytes of a manifest. Never raises; bad lines become :class:`Malformed`."""
    entries: list[Entry] = []
    malformed: list[Malformed] = []
    reader = _Reader()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    plain = _PLAIN_LINE.fullmatch
    if b"\r" not in data:
        # The common manifest, every line a plain GNU line (as sha256sum writes it): the loop
        # below would take each line as one entry; here in one pass of C-level calls (an
        # Entry made by tuple.__new__: the named tuple's own __new__ is a Python function).
        found = [m.groups() for m in map(plain, lines) if m is not None]
        if len(found) == len(lines):
            del lines
            # the names and digests (kept for the whole run) made first, each kind in one
            # pass, and the entries (let go once planned) after them: made together, they
            # lay in the same arenas of the allocator, which could then not give back the
            # entries' memory when they went (about 10 MB held free at 100,000 files)
            names = [name.decode(_UTF8, _ESC) for _, _, name in found]
            digests = [digest.decode().lower() for digest, _, _ in found]
            modes = [mode == b"*" for _, mode, _ in found]
            del found
            make = tuple.__new__
            numbers = range(1, len(names) + 1)
            return ParsedManifest(
                tuple(
                    make(Entry, fields)
                    for fields in zip(numbers, names, digests, modes, strict=True)
                ),
                (),
            )
    for number, raw in enumerate(lines, 1):
        line = raw[:-1] if raw.endswith(b"\r") else raw
        if reader.bsd_reversed != 1 and (m := plain(line)) is not None:
            reader.bsd_reversed = 0
            digest, mode, name = m.groups()
            entries.append(Entry(number, _decode(name), digest.decode().lower(), mode == b"*"))
            continue
        if raw.startswith(b"#"):
            continue
        if not line:
            continue
        if b"\0" in line:
            malformed.append(Malformed(number, "the line holds a NUL byte"))
            continue
        result = reader.split(line)
        if isinstance(result, str):
            malformed.append(Malformed(number, result))
            continue
        digest, name, binary = result
        entries.append(Entry(number, _decode(name), digest.decode("ascii").lower(), binary))
    return ParsedManifest(tuple(entries), tuple(malformed))


def _encode(name: str) -> bytes:
    return name.encode("utf-8", "surrogateescape")


def format_line(name: str, digest: str, binary: bool = False) -> bytes:
    """One line as ``sha256sum`` writes it, LF included."""
    raw = _encode(name)
    prefix = b""
    if any(c in raw for c in b"\\\n\r"):
        prefix = b"\\"
        raw = raw.replace(b"\\", b"\\\\").replace(b"\n", b"\\n").replace(b"\r", b"\\r")
    mode = b"*" if binary else b" "
    return prefix + digest.lower().encode("ascii") + b" " + mode + raw + b"\n"


def format_manifest(entries: Iterable[tuple[str, str]]) -> bytes:
    """A whole manifest: lines sorted by the bytes of their names."""
    ordered = sorted(entries, key=lambda e: (_encode(e[0]), e[1]))
    return b"".join(format_line(name, digest) for name, digest in ordered)


def normalize_name(name: str) -> str | None:
    """The archive-relative path a manifest name stands for, or ``None`` if it is unsafe.

    ``./`` prefixes and interior ``.`` segments are dropped (they name the same file);
    absolute names, ``..``, empty segments, NUL and backslash-separated drive paths are unsafe.
    """
    if (
        name
        and name[0] not in "./"
        and "/." not in name
        and "//" not in name
        and name[-1] != "/"
        and name[1:2] != ":"
        and "\0" not in name
    ):
        return name  # no empty, "." or ".." segment, not absolute, no drive: already normal
    if not name or "\0" in name or name.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", name):
        return None
    parts = name.split("/")
    kept: list[str] = []
    for part in parts:
        if part == ".":
            continue
        if part in ("", ".."):
            return None
        kept.append(part)
    if not kept:
        return None
    return "/".join(kept)


def unsafe_reason(name: str) -> str:
    """One sentence on why :func:`normalize_name` refused a name."""
    if not name:
        return "the name is empty"
    if "\0" in name:
        return "the name holds a NUL byte"
    if name.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", name):
        return "the name is absolute"
    if ".." in name.split("/"):
        return "the name has a '..' segment"
    return "the name has an empty segment"


def fs_name(name: str) -> bytes:
    """The bytes of a name on a POSIX file system."""
    return os.fsencode(name)

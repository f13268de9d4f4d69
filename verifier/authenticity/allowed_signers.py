"""OpenSSH ``allowed_signers`` files (``ssh-keygen(1)``, ALLOWED SIGNERS) and the pattern
lists they use, matched as OpenSSH's ``match_pattern_list`` does: comma-separated patterns,
``*`` and ``?`` wildcards, ``!`` negating (a negated match refuses, whatever else matches).

A line is ``principals [options] keytype base64-key [comment]``; the options are
``cert-authority``, ``namespaces="..."``, ``valid-after="..."`` and ``valid-before="..."``.
A line that cannot be parsed is skipped, as ``ssh-keygen`` skips it, and counted.
"""

from __future__ import annotations

import calendar
import time
from dataclasses import dataclass

from verifier.authenticity.sshblob import WireError, b64decode

MAX_LINES = 100_000


@dataclass(frozen=True, slots=True)
class AllowedSigner:
    line: int
    principals: str
    key_type: str
    blob: bytes
    cert_authority: bool = False
    namespaces: str | None = None
    valid_after: int | None = None
    valid_before: int | None = None


@dataclass(frozen=True, slots=True)
class AllowedSigners:
    signers: tuple[AllowedSigner, ...]
    skipped: tuple[int, ...]  # the lines that could not be parsed


def match_pattern(text: str, pattern: str) -> bool:
    """``*`` any run, ``?`` one character, everything else itself (case-sensitive); linear
    in memory and ``len(text) * len(pattern)`` in time at worst, never exponential."""
    t = p = 0
    star, mark = -1, 0
    while t < len(text):
        if p < len(pattern) and (pattern[p] == "?" or pattern[p] == text[t]):
            t, p = t + 1, p + 1
        elif p < len(pattern) and pattern[p] == "*":
            star, mark, p = p, t, p + 1
        elif star >= 0:
            p, mark = star + 1, mark + 1
            t = mark
        else:
            return False
    while p < len(pattern) and pattern[p] == "*":
        p += 1
    return p == len(pattern)


def match_list(text: str, patterns: str) -> int:
    """1: a pattern matches and no negated one does; -1: a negated pattern matches; 0: none
    matches (OpenSSH's ``match_pattern_list``)."""
    got = 0
    for item in patterns.split(","):
        negated = item.startswith("!")
        pattern = item[1:] if negated else item
        if match_pattern(text, pattern):
            if negated:
                return -1
            got = 1
    return got


def parse_time(text: str) -> int:
    """``YYYYMMDD[HHMM[SS]][Z]`` as seconds since the epoch (UTC with ``Z``, else local
    time, as ``ssh-keygen`` reads it)."""
    utc = text.endswith("Z") or text.endswith("z")
    digits = text[:-1] if utc else text
    if not digits.isdigit() or not digits.isascii() or len(digits) not in (8, 12, 14):
        raise ValueError(text)
    fields = [int(digits[0:4]), int(digits[4:6]), int(digits[6:8])]
    fields += [int(digits[i : i + 2]) for i in range(8, len(digits), 2)]
    fields += [0] * (6 - len(fields))
    year, month, day, hour, minute, second = fields
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 60):
        raise ValueError(text)
    parts = (year, month, day, hour, minute, second, 0, 0, -1)
    return calendar.timegm(parts) if utc else int(time.mktime(parts))


def _tokens(line: str) -> list[str]:
    """Whitespace-separated fields; double quotes keep spaces (and commas) inside one."""
    out: list[str] = []
    current: list[str] = []
    quoted = False
    for ch in line:
        if ch == '"':
            quoted = not quoted
            current.append(ch)
        elif ch in " \t" and not quoted:
            if current:
                out.append("".join(current))
                current = []
        else:
            current.append(ch)
    if quoted:
        raise ValueError("an unclosed quote")
    if current:
        out.append("".join(current))
    return out


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    if '"' in value:
        raise ValueError(value)
    return value


def _options(text: str) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    item: list[str] = []
    quoted = False
    items: list[str] = []
    for ch in text:
        if ch == '"':
            quoted = not quoted
        if ch == "," and not quoted:
            items.append("".join(item))
            item = []
        else:
            item.append(ch)
    items.append("".join(item))
    for entry in items:
        name, eq, value = entry.partition("=")
        name = name.lower()
        if name in out or name not in (
            "cert-authority",
            "namespaces",
            "valid-after",
            "valid-before",
        ):
            raise ValueError(entry)
        if (name == "cert-authority") == bool(eq):
            raise ValueError(entry)
        out[name] = _unquote(value) if eq else None
    return out


def _key_types() -> frozenset[str]:
    from verifier.authenticity.sshkeys import SIGNATURE_FORMATS

    return frozenset(SIGNATURE_FORMATS)


def _looks_like_key_type(token: str) -> bool:
    return token in _key_types() or (
        token.startswith(("sk-", "ecdsa-sha2-", "ssh-")) and "=" not in token
    )


def parse(data: bytes) -> AllowedSigners:
    """Every line that parses; the numbers of those that do not."""
    signers: list[AllowedSigner] = []
    skipped: list[int] = []
    text = data.decode("utf-8", errors="replace")
    for number, raw in enumerate(text.splitlines()[:MAX_LINES], start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            fields = _tokens(line)
            principals = _unquote(fields[0])
            rest = fields[1:]
            options: dict[str, str | None] = {}
            if rest and not _looks_like_key_type(rest[0]):
                options = _options(rest[0])
                rest = rest[1:]
            if len(rest) < 2 or not principals:
                raise ValueError("no key")
            blob = b64decode(rest[1])
            signers.append(
                AllowedSigner(
                    number,
                    principals,
                    rest[0],
                    blob,
                    cert_authority="cert-authority" in options,
                    namespaces=options.get("namespaces"),
                    valid_after=_time(options.get("valid-after")),
                    valid_before=_time(options.get("valid-before")),
                )
            )
        except (ValueError, WireError, IndexError):
            skipped.append(number)
    return AllowedSigners(tuple(signers), tuple(skipped))


def _time(value: str | None) -> int | None:
    return None if value is None else parse_time(value)


__all__ = ["AllowedSigner", "AllowedSigners", "match_list", "match_pattern", "parse", "parse_time"]

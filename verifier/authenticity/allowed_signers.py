"""OpenSSH ``allowed_signers`` files (``ssh-keygen(1)``, ALLOWED SIGNERS), read as OpenSSH
reads them (``sshsig.c``, ``parse_principals_key_and_options``; ``sshkey_read``;
``sshsigopt_parse``), bytes for bytes:

- lines end at ``\\n`` only (``getline``), and a NUL ends a line's text; leading spaces and
  tabs are skipped (a ``\\r`` is not: it ends an empty first field), and a line starting
  ``#`` is a comment;
- the principals are the first field (ended by a space, tab, ``\\r`` or ``\\n``; a double
  quote starts a part that runs to the next quote, spaces included);
- then the key, or options and then the key. A key is a type name and base64 (ended by a
  space or tab; white space inside is skipped, padding is required and the bits past the
  last byte must be zero); the type name must be the blob's own type (``ssh-rsa``,
  ``rsa-sha2-256`` or ``rsa-sha2-512`` for RSA, the exact name for any other);
- the options are ``cert-authority``, ``namespaces="..."``, ``valid-after="..."`` and
  ``valid-before="..."`` (names in any case, values quoted, ``\\"`` inside), comma-separated;
  a repeated ``namespaces``/``valid-*``, an unknown option, a bad time or a ``valid-before``
  not after ``valid-after`` spoils the line.

A line that cannot be parsed is skipped, as ``ssh-keygen`` skips it, and counted. Pattern
lists (principals, ``namespaces``) match as OpenSSH's ``match_pattern_list``: comma-separated
patterns, ``*`` and ``?`` wildcards over bytes, ``!`` negating (a negated match refuses,
whatever else matches), a pattern of 1,023 bytes or more failing the whole list.
"""

from __future__ import annotations

import calendar
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from verifier.authenticity.sshblob import WireError

#: OpenSSH's pattern buffer (``char sub[1024]``): a longer pattern fails the list
MAX_PATTERN = 1023
WHITESPACE = b" \t\r\n"  # misc.c WHITESPACE
BLANKS = b" \t"
CSPACE = b" \t\n\v\f\r"  # isspace() in the C locale, skipped inside base64
B64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
#: the blob's key type -> the other type names sshkey_read accepts for it (as given; the
#: short names such as ED25519 are refused, as ssh-keygen 9 refuses them)
LABELS: Mapping[str, tuple[bytes, ...]] = MappingProxyType(
    {"ssh-rsa": (b"rsa-sha2-256", b"rsa-sha2-512")}
)


@dataclass(frozen=True, slots=True)
class AllowedSigner:
    line: int
    principals: bytes
    key_type: str  # the blob's own type
    blob: bytes
    cert_authority: bool = False
    namespaces: bytes | None = None
    valid_after: int | None = None
    valid_before: int | None = None

    @property
    def principals_text(self) -> str:
        return self.principals.decode("utf-8", errors="replace")

    @property
    def namespaces_text(self) -> str | None:
        return None if self.namespaces is None else self.namespaces.decode("utf-8", "replace")


@dataclass(frozen=True, slots=True)
class AllowedSigners:
    signers: tuple[AllowedSigner, ...]
    skipped: tuple[int, ...]  # the lines that could not be parsed


def _bytes(value: str | bytes) -> bytes:
    return value if isinstance(value, bytes) else value.encode("utf-8", "surrogateescape")


def match_pattern(text: str | bytes, pattern: str | bytes) -> bool:
    """``*`` any run, ``?`` one byte, everything else itself (case-sensitive); linear in
    memory and ``len(text) * len(pattern)`` in time at worst, never exponential."""
    s, p_ = _bytes(text), _bytes(pattern)
    t = p = 0
    star, mark = -1, 0
    while t < len(s):
        if p < len(p_) and (p_[p] == 0x3F or p_[p] == s[t]):  # "?"
            t, p = t + 1, p + 1
        elif p < len(p_) and p_[p] == 0x2A:  # "*"
            star, mark, p = p, t, p + 1
        elif star >= 0:
            p, mark = star + 1, mark + 1
            t = mark
        else:
            return False
    while p < len(p_) and p_[p] == 0x2A:
        p += 1
    return p == len(p_)


def match_list(text: str | bytes, patterns: str | bytes) -> int:
    """1: a pattern matches and no negated one does; -1: a negated pattern matches; 0: none
    matches, or a pattern is too long (OpenSSH's ``match_pattern_list``)."""
    got = 0
    raw = _bytes(patterns)
    i = 0
    while i < len(raw):
        negated = raw[i] == 0x21  # "!"
        if negated:
            i += 1
        end = raw.find(b",", i)
        end = len(raw) if end < 0 else end
        if end - i >= MAX_PATTERN:
            return 0
        if match_pattern(text, raw[i:end]):
            if negated:
                return -1
            got = 1
        i = end + 1
    return got


def _field(text: bytes, low: int, high: int) -> int:
    """One strptime number: leading spaces skipped, then digits only, within its range."""
    digits = text.lstrip(b" ")
    if not digits or not digits.isdigit():
        raise ValueError(text)
    value = int(digits)
    if not low <= value <= high:
        raise ValueError(text)
    return value


def parse_time(text: str | bytes) -> int:
    """``YYYYMMDD[HHMM[SS]]`` then ``Z`` or ``UTC`` (any case) for UTC, else local time, as
    seconds since the epoch, as OpenSSH's ``parse_absolute_time`` reads it (``ValueError``
    for anything else, a time before 1970 included)."""
    raw = _bytes(text)
    utc = False
    if len(raw) > 1 and raw[-1:].lower() == b"z":
        utc, raw = True, raw[:-1]
    elif len(raw) > 3 and raw[-3:].lower() == b"utc":
        utc, raw = True, raw[:-3]
    if len(raw) not in (8, 12, 14):
        raise ValueError(text)
    spans: tuple[tuple[int, int, int, int], ...] = ((0, 4, 0, 9999), (4, 6, 1, 12), (6, 8, 1, 31))
    spans += ((8, 10, 0, 23), (10, 12, 0, 59), (12, 14, 0, 61))
    fields = [_field(raw[a:b], lo, hi) for a, b, lo, hi in spans if b <= len(raw)]
    fields += [0] * (6 - len(fields))
    year, month, day, hour, minute, second = fields
    parts = (year, month, day, hour, minute, second, 0, 0, -1)
    try:
        value = calendar.timegm(parts) if utc else int(time.mktime(parts))
    except (OverflowError, ValueError):
        raise ValueError(text) from None
    if value < 0:
        raise ValueError(text)
    return value


def b64_pton(src: bytes) -> bytes:
    """Base64 as OpenSSH's ``b64_pton`` decodes it: white space skipped anywhere, padding
    required, nothing but white space after it, and the bits past the last byte zero."""
    values: list[int] = []
    i = 0
    padded = False
    while i < len(src):
        ch = src[i]
        i += 1
        if ch in CSPACE:
            continue
        if ch == 0x3D:  # "="
            padded = True
            break
        at = B64.find(bytes([ch]))
        if at < 0:
            raise WireError("not base64")
        values.append(at)
    state = len(values) % 4
    if padded:
        if state in (0, 1):
            raise WireError("misplaced padding")
        rest = src[i:]
        if state == 2:
            rest = rest.lstrip(CSPACE)
            if not rest.startswith(b"="):
                raise WireError("one padding character missing")
            rest = rest[1:]
        if rest.strip(CSPACE):
            raise WireError("text after the padding")
        spill = values[-1] & (0x0F if state == 2 else 0x03)
        if spill:
            raise WireError("non-zero bits after the last byte")
    elif state:
        raise WireError("unpadded base64")
    bits = 0
    out = bytearray()
    for n, value in enumerate(values, start=1):
        bits = (bits << 6) | value
        if n % 4 == 0:
            out += bits.to_bytes(3, "big")
            bits = 0
    if state == 2:
        out += (bits >> 4).to_bytes(1, "big")
    elif state == 3:
        out += (bits >> 2).to_bytes(2, "big")
    return bytes(out)


def canonical(blob: bytes) -> tuple[str, bytes]:
    """A public key blob's type and its canonical blob (the key as OpenSSH compares it: by
    its material), or :class:`WireError`. A type this verifier cannot load keeps its blob."""
    import base64

    from verifier.authenticity.sshkeys import SIGNATURE_FORMATS, key_type, load

    kind = key_type(blob)
    if kind not in SIGNATURE_FORMATS:
        return kind, blob
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    text = load(blob).public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH)
    return kind, base64.b64decode(text.split(b" ")[1])


def _read_key(cp: bytes) -> tuple[str, bytes] | None:
    """``sshkey_read``: a type name, blanks, base64 (the rest of the line is a comment)."""
    cut = next((n for n, ch in enumerate(cp) if ch in BLANKS), -1)
    if cut < 0:
        return None
    label = cp[:cut]
    rest = cp[cut:].lstrip(BLANKS)
    if not rest:
        return None
    end = next((n for n, ch in enumerate(rest) if ch in BLANKS), len(rest))
    try:
        kind, blob = canonical(b64_pton(rest[:end]))
    except (WireError, ValueError):
        return None
    if label != kind.encode() and label not in LABELS.get(kind, ()):
        return None  # the type named is not the key's own
    return kind, blob


def _dequote(opts: bytes, at: int) -> tuple[bytes, int]:
    """``opt_dequote``: a double-quoted value (``\\"`` inside), and where it ends."""
    if at >= len(opts) or opts[at] != 0x22:
        raise ValueError("missing start quote")
    out = bytearray()
    at += 1
    while at < len(opts) and opts[at] != 0x22:
        if opts[at] == 0x5C and at + 1 < len(opts) and opts[at + 1] == 0x22:
            at += 1
        out.append(opts[at])
        at += 1
    if at >= len(opts):
        raise ValueError("missing end quote")
    return bytes(out), at + 1


def _options(opts: bytes) -> tuple[bool, bytes | None, int | None, int | None]:
    """``sshsigopt_parse``: (cert-authority, namespaces, valid-after, valid-before)."""
    ca = False
    namespaces: bytes | None = None
    after = before = 0
    at = 0
    while at < len(opts) and opts[at] not in BLANKS:
        head = opts[at:].lower()
        if head.startswith(b"cert-authority"):
            ca, at = True, at + len(b"cert-authority")
        elif head.startswith(b"namespaces="):
            if namespaces is not None:
                raise ValueError("namespaces twice")
            namespaces, at = _dequote(opts, at + len(b"namespaces="))
        elif head.startswith((b"valid-after=", b"valid-before=")):
            name = b"valid-after=" if head.startswith(b"valid-after=") else b"valid-before="
            if (after if name == b"valid-after=" else before) != 0:
                raise ValueError("a time twice")
            value, at = _dequote(opts, at + len(name))
            when = parse_time(value)
            if when == 0:
                raise ValueError("a zero time")
            if name == b"valid-after=":
                after = when
            else:
                before = when
        else:
            raise ValueError("an unsupported option")
        if at >= len(opts) or opts[at] in BLANKS:
            break
        if opts[at] != 0x2C:  # ","
            raise ValueError("an unknown option")
        at += 1
        if at >= len(opts):
            raise ValueError("an unexpected end of options")
    if after and before and before <= after:
        raise ValueError("valid-before is not after valid-after")
    return ca, namespaces, after or None, before or None


def _principals(cp: bytes) -> tuple[bytes, bytes] | None:
    """``strdelimw``: the first field and the rest after its delimiter and white space."""
    at = next((n for n, ch in enumerate(cp) if ch in WHITESPACE or ch == 0x22), -1)
    if at < 0:
        return None
    if cp[at] == 0x22:
        cp = cp[:at] + cp[at + 1 :]
        close = cp.find(b'"', at)
        if close < 0:
            return None
        return cp[:close], cp[close + 1 :].lstrip(WHITESPACE)
    return cp[:at], cp[at + 1 :].lstrip(WHITESPACE)


def parse_line(number: int, raw: bytes) -> AllowedSigner | None:
    """One line's signer (``ValueError`` if it cannot be parsed; ``None``: blank, comment)."""
    cp = raw.split(b"\0", 1)[0].lstrip(BLANKS)
    if not cp.rstrip(b"\r") or cp.startswith(b"#"):
        return None
    split = _principals(cp)
    if split is None:
        raise ValueError("an invalid line")
    principals, rest = split
    key = _read_key(rest)
    opts = b""
    if key is None:  # options first: up to a blank outside quotes, then the key
        quoted = False
        at = 0
        while at < len(rest) and (quoted or rest[at] not in BLANKS):
            if rest[at] == 0x5C and rest[at + 1 : at + 2] == b'"':
                at += 1
            elif rest[at] == 0x22:
                quoted = not quoted
            at += 1
        if at >= len(rest):
            raise ValueError("a missing key or an unterminated quote")
        opts = rest[:at]
        key = _read_key(rest[at + 1 :].lstrip(BLANKS))
        if key is None:
            raise ValueError("an invalid key")
    ca, namespaces, after, before = _options(opts)
    kind, blob = key
    return AllowedSigner(number, principals, kind, blob, ca, namespaces, after, before)


def parse(data: bytes) -> AllowedSigners:
    """Every line that parses; the numbers of those that do not."""
    signers: list[AllowedSigner] = []
    skipped: list[int] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):  # (the file is bounded)
        try:
            signer = parse_line(number, raw)
        except ValueError:
            skipped.append(number)
            continue
        if signer is not None:
            signers.append(signer)
    return AllowedSigners(tuple(signers), tuple(skipped))


__all__ = [
    "AllowedSigner",
    "AllowedSigners",
    "b64_pton",
    "canonical",
    "match_list",
    "match_pattern",
    "parse",
    "parse_time",
]

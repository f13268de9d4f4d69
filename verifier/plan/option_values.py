"""Strict parsing of numbers given on the command line or in the environment.

Each value is ASCII digits only (``str.isdigit`` and ``int`` accept ``²`` or ``١٢``; these do
not), finite, and inside a stated range; anything else raises
:class:`~verifier.errors.UsageError`, which the CLI reports as one line and exit 2. No value
is ever converted before its length is bounded, so thousands of digits cost nothing.
"""

from __future__ import annotations

import re

from verifier.errors import UsageError

MAX_BYTES = (1 << 63) - 1  # what a signed 64-bit count holds (the audit record's maxBytes)
MAX_RATIO = 1_000_000.0
MAX_JOBS = 1024
MAX_EPOCH = 253_402_300_799  # 9999-12-31T23:59:59Z, the last second RFC 3339 can write

_SIZE = re.compile(r"\s*([0-9]+)\s*([KMGT]?)(?:i?B)?\s*", re.ASCII | re.IGNORECASE)
_DECIMAL = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*", re.ASCII)
_COUNT = re.compile(r"\s*([0-9]+)\s*", re.ASCII)
_LONGEST = 24  # digits: longer than any value in range, so never converted


def _show(text: str) -> str:
    shown = text if len(text) <= 40 else text[:37] + "..."
    return ascii(shown)[1:-1] if not shown.isprintable() or not shown.isascii() else shown


def parse_size(text: str, name: str = "--max-bytes") -> int:
    """A byte count: digits and an optional K, M, G or T (powers of 1024), e.g. ``500M``."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise UsageError(f"{name} {_show(text)}: not a size (use e.g. 500M or 8G)")
    digits = match.group(1).lstrip("0") or "0"
    power = " KMGT".index(match.group(2).upper() or " ")
    value = int(digits) << (10 * power) if len(digits) <= _LONGEST else MAX_BYTES + 1
    if not 1 <= value <= MAX_BYTES:
        raise UsageError(f"{name} {_show(text)}: must be between 1 byte and {MAX_BYTES} bytes")
    return value


def parse_ratio(text: str, name: str = "--max-ratio") -> float:
    """A compression ratio: a decimal number (digits, optionally a fraction) from 1 to
    :data:`MAX_RATIO`; never NaN or an infinity."""
    match = _DECIMAL.fullmatch(text)
    if match is None:
        raise UsageError(f"{name} {_show(text)}: not a number (use e.g. 100 or 12.5)")
    number = match.group(1).lstrip("0") or "0"
    if number.startswith("."):
        number = "0" + number
    # finite: digits only, converted only when short (no value in range needs more digits)
    value = float(number) if len(number) <= 2 * _LONGEST else MAX_RATIO + 1
    if not 1 <= value <= MAX_RATIO:
        raise UsageError(f"{name} {_show(text)}: must be between 1 and {MAX_RATIO:.0f}")
    return value


def parse_percent(text: str, name: str = "--fail-under") -> float:
    """A percentage from 0 to 100: digits, optionally a fraction (``90``, ``97.5``); no sign,
    no exponent, never NaN or an infinity."""
    match = _DECIMAL.fullmatch(text)
    if match is None:
        raise UsageError(f"{name} {_show(text)}: not a number (use e.g. 90 or 97.5)")
    number = match.group(1).lstrip("0") or "0"
    if number.startswith("."):
        number = "0" + number
    value = float(number) if len(number) <= 2 * _LONGEST else 101.0
    if not 0 <= value <= 100:
        raise UsageError(f"{name} {_show(text)}: must be between 0 and 100")
    return value


def parse_count(text: str, name: str, low: int, high: int) -> int:
    """A whole number from ``low`` to ``high``, ASCII digits only."""
    match = _COUNT.fullmatch(text)
    if match is None:
        raise UsageError(f"{name} {_show(text)}: not a whole number of ASCII digits")
    digits = match.group(1).lstrip("0") or "0"
    value = int(digits) if len(digits) <= _LONGEST else high + 1
    if not low <= value <= high:
        raise UsageError(f"{name} {_show(text)}: must be between {low} and {high}")
    return value


def parse_seconds(text: str, name: str, high: float) -> float:
    """A duration in seconds: digits, optionally a fraction (``30``, ``0.5``), over 0 and at
    most ``high``; no sign, no exponent, never NaN or an infinity."""
    match = _DECIMAL.fullmatch(text)
    if match is None:
        raise UsageError(f"{name} {_show(text)}: not a number of seconds (use e.g. 60 or 0.5)")
    number = match.group(1).lstrip("0") or "0"
    if number.startswith("."):
        number = "0" + number
    value = float(number) if len(number) <= 2 * _LONGEST else high + 1
    if not 0 < value <= high:
        raise UsageError(f"{name} {_show(text)}: must be over 0 and at most {high:g} seconds")
    return value


def source_date_epoch(text: str) -> int | None:
    """``SOURCE_DATE_EPOCH`` as the reproducible-builds specification writes it (ASCII
    digits, seconds since 1970), up to the end of year 9999; ``None`` when unset or empty."""
    if not text.strip():
        return None
    return parse_count(text, "SOURCE_DATE_EPOCH", 0, MAX_EPOCH)


__all__ = [
    "MAX_BYTES",
    "MAX_EPOCH",
    "MAX_JOBS",
    "MAX_RATIO",
    "parse_count",
    "parse_percent",
    "parse_ratio",
    "parse_seconds",
    "parse_size",
    "source_date_epoch",
]

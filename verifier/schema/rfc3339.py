"""RFC 3339 (section 5.6) ``date-time``, ``full-date`` and ``full-time``, without optional
dependencies, and a sort key that orders date-times by the instant they name.

Digits are ASCII only (``[0-9]``, never ``\\d``, which matches any Unicode digit such as
U+0661, ARABIC-INDIC DIGIT ONE). The calendar is the proleptic Gregorian one, years 0000 to
9999. A leap second (second ``60``) is accepted only where one can occur: at 23:59:60 UTC,
the time of day taken after its offset is applied (RFC 3339 section 5.7:
``1990-12-31T15:59:60-08:00`` is the same leap second as ``1990-12-31T23:59:60Z``). Which
days carried a leap second is not checked (that table changes; RFC 3339 appendix D).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import NamedTuple

_TIME = r"([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([Zz]|([+-])([0-9]{2}):([0-9]{2}))"
_DATE = r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
_DATE_TIME_RE = re.compile(_DATE + "[Tt]" + _TIME + r"\Z", re.ASCII)
_DATE_RE = re.compile(_DATE + r"\Z", re.ASCII)
_TIME_RE = re.compile(_TIME + r"\Z", re.ASCII)

_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)

#: a date-time whose every field is in range in any month and year, read by the pattern alone
#: (day 01 to 28, hour 00 to 23, minute and second 00 to 59, the offset's hour 00 to 23 and
#: minute 00 to 59): what most records hold, accepted without taking the fields apart; any
#: other text (day 29 to 31, second 60, anything out of range) is decided field by field
_PLAINLY_VALID_RE = re.compile(
    r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])[Tt](?:[01][0-9]|2[0-3]):[0-5][0-9]:"
    r"[0-5][0-9](?:\.[0-9]+)?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])\Z",
    re.ASCII,
)


class Instant(NamedTuple):
    """A sort key for a date-time: whole seconds since 0000-03-01T00:00:00Z (a leap second
    counts as its minute's 59th), then 1 for a leap second, then the fraction of a second.
    Two date-times name the same instant exactly when their keys are equal."""

    seconds: int
    leap: int
    fraction: Decimal


def _leap_year(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _valid_date(year: str, month: str, day: str) -> bool:
    y, m, d = int(year), int(month), int(day)
    if not 1 <= m <= 12 or d < 1:
        return False
    return d <= (29 if m == 2 and _leap_year(y) else _DAYS[m - 1])


def _day_number(y: int, m: int, d: int) -> int:
    """Days since 0000-03-01 (proleptic Gregorian; H. Hinnant's days_from_civil)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy


def _time_parts(
    groups: tuple[str | None, ...],
) -> tuple[int, int, int, int] | None:
    """(hour, minute, second, offset in minutes east of UTC) if the time fields are in range
    and a leap second falls at 23:59 UTC; ``None`` otherwise."""
    hour, minute, second, _, _, sign, off_hour, off_minute = groups
    assert hour is not None and minute is not None and second is not None
    h, mi, s = int(hour), int(minute), int(second)
    if h > 23 or mi > 59 or s > 60:
        return None
    offset = 0
    if sign is not None and off_hour is not None and off_minute is not None:
        if int(off_hour) > 23 or int(off_minute) > 59:
            return None
        offset = (int(off_hour) * 60 + int(off_minute)) * (1 if sign == "+" else -1)
    if s == 60 and (h * 60 + mi - offset) % 1440 != 23 * 60 + 59:
        return None
    return h, mi, s, offset


def is_rfc3339(value: object) -> bool:
    """RFC 3339 ``date-time``; a non-string is not this format's business (True)."""
    if not isinstance(value, str):
        return True
    return _PLAINLY_VALID_RE.match(value) is not None or _fieldwise(value)


def _fieldwise(value: str) -> bool:
    """:func:`is_rfc3339` field by field: what instant() checks, without computing the
    instant."""
    m = _DATE_TIME_RE.match(value)
    return (
        m is not None and _valid_date(*m.group(1, 2, 3)) and _time_parts(m.groups()[3:]) is not None
    )


def is_full_date(value: object) -> bool:
    """RFC 3339 ``full-date`` (the JSON Schema ``date`` format)."""
    if not isinstance(value, str):
        return True
    m = _DATE_RE.match(value)
    return m is not None and _valid_date(*m.groups())


def is_full_time(value: object) -> bool:
    """RFC 3339 ``full-time`` (the JSON Schema ``time`` format): the offset is required."""
    if not isinstance(value, str):
        return True
    m = _TIME_RE.match(value)
    return m is not None and _time_parts(m.groups()) is not None


def instant(value: str) -> Instant | None:
    """The instant an RFC 3339 ``date-time`` names, or ``None`` if it is not one."""
    m = _DATE_TIME_RE.match(value)
    if m is None:
        return None
    year, month, day = m.group(1, 2, 3)
    if not _valid_date(year, month, day):
        return None
    parts = _time_parts(m.groups()[3:])
    if parts is None:
        return None
    h, mi, s, offset = parts
    days = _day_number(int(year), int(month), int(day))
    seconds = days * 86400 + h * 3600 + mi * 60 + min(s, 59) - offset * 60
    fraction = Decimal("0" + m.group(7)) if m.group(7) else Decimal(0)
    return Instant(seconds, int(s == 60), fraction)

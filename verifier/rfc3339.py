"""RFC 3339 ``date-time`` (section 5.6), without optional dependencies."""

from __future__ import annotations

import re
from datetime import datetime

_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))\Z"
)


def is_rfc3339(value: object) -> bool:
    """RFC 3339 ``date-time`` (section 5.6), checked without any optional dependency."""
    if not isinstance(value, str):
        return True
    m = _RFC3339.match(value)
    if m is None:
        return False
    year, month, day, hour, minute, second, _, _, off_hour, off_minute = m.groups()
    # Two-digit fields compare as strings; the regular expression made them digits.
    if hour > "23" or minute > "59" or second > "60":
        return False
    if off_hour is not None and (off_hour > "23" or off_minute > "59"):
        return False
    if year != "0000" and "01" <= month <= "12" and "01" <= day <= "28":
        return True  # a day every month of every year has
    try:
        datetime(int(year), int(month), int(day))
    except ValueError:
        return False
    return True

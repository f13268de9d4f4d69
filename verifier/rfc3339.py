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
    if not m:
        return False
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    if second > 60 or hour > 23 or minute > 59:
        return False
    if m.group(9) is not None and (int(m.group(9)) > 23 or int(m.group(10)) > 59):
        return False
    try:
        datetime(year, month, day)
    except ValueError:
        return False
    return True

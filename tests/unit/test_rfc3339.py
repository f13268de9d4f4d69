from __future__ import annotations

import pytest

from verifier.schema.rfc3339 import is_rfc3339


@pytest.mark.parametrize(
    "value",
    [
        "2026-10-22T19:27:27Z",
        "2026-10-22t19:27:27.123z",
        "2026-10-22T19:27:27+01:00",
        "2024-02-29T00:00:00Z",
        "2026-12-31T23:59:60Z",
    ],
)
def test_valid(value: str) -> None:
    assert is_rfc3339(value)


@pytest.mark.parametrize(
    "value",
    [
        "2026-10-22 19:27:27Z",
        "2026-10-22T19:27:27",
        "2026-13-01T00:00:00Z",
        "2025-02-29T00:00:00Z",
        "2026-10-22T24:00:00Z",
        "2026-10-22T19:61:00Z",
        "2026-10-22T19:27:27Z\n",
        "22 October 2026",
        "2026-10-22T19:27:27+25:00",
    ],
)
def test_invalid(value: str) -> None:
    assert not is_rfc3339(value)


def test_non_strings_are_left_to_the_type_keyword() -> None:
    assert is_rfc3339(42)


def test_the_check_agrees_with_the_instant_it_would_name() -> None:
    """``is_rfc3339`` checks without computing the instant: it must accept exactly what
    ``instant`` gives an instant for, leap seconds and offsets included."""
    import itertools

    from verifier.schema.rfc3339 import instant

    dates = ["1990-12-31", "2016-02-29", "2015-02-29", "2000-02-29", "1900-02-29", "2024-13-01"]
    times = ["23:59:60Z", "15:59:60-08:00", "15:59:60+08:00", "23:59:59.5z", "24:00:00Z"]
    times += ["12:00:00+23:59", "12:00:00+24:00", "12:00:00-00:60", "23:60:00Z"]
    for date, sep, time in itertools.product(dates, "Tt ", times):
        value = date + sep + time
        assert is_rfc3339(value) is (instant(value) is not None), value


def test_the_plain_shortcut_accepts_only_what_the_fields_accept() -> None:
    """The pattern that accepts a plainly in-range date-time without taking its fields apart
    never accepts what the field-by-field check refuses, and takes the common shapes; every
    boundary of every field is tried, in both cases of T and Z and with Unicode digits."""
    import itertools

    from verifier.schema.rfc3339 import _PLAINLY_VALID_RE, _fieldwise

    years, months = ["0000", "1999", "2024", "9999"], ["00", "01", "02", "09", "10", "12", "13"]
    days = ["00", "01", "09", "10", "19", "20", "28", "29", "30", "31", "32"]
    hours, minutes = ["00", "09", "19", "20", "23", "24"], ["00", "59", "60"]
    seconds = ["00", "59", "60", "61", "5\u0661"]
    tails = ["Z", "z", "+00:00", "-23:59", "+24:00", "+05:60", ".5Z", ".Z", "", "+0530"]
    taken = 0
    for y, mo, d, h, mi, sec, tail, t in itertools.product(
        years, months, days, hours, minutes, seconds, tails, "Tt "
    ):
        value = f"{y}-{mo}-{d}{t}{h}:{mi}:{sec}{tail}"
        if _PLAINLY_VALID_RE.match(value) is not None:
            taken += 1
            assert _fieldwise(value), value
            assert is_rfc3339(value)
    assert taken > 1000  # the shortcut is taken at all
    assert _PLAINLY_VALID_RE.match("2026-12-03T07:00:00.123456Z")

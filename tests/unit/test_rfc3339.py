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

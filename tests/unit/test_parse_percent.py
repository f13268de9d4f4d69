"""``--fail-under``'s value: a percentage from 0 to 100, ASCII digits with an optional
fraction; anything else is a :class:`UsageError` (one line, exit 2 at the CLI)."""

from __future__ import annotations

import pytest

from verifier.errors import UsageError
from verifier.plan.option_values import parse_percent


@pytest.mark.parametrize(
    ("text", "value"),
    [("0", 0.0), ("100", 100.0), ("97.5", 97.5), (" 90 ", 90.0), ("007", 7.0), ("100.0", 100.0)],
)
def test_accepted(text: str, value: float) -> None:
    assert parse_percent(text) == value


@pytest.mark.parametrize(
    "text",
    ["", "-1", "+5", "100.01", "101", "1e2", "nan", "inf", "9" * 5000, "٩٠", "²", "5%", ".5"],
)
def test_refused_in_one_line(text: str) -> None:
    with pytest.raises(UsageError) as raised:
        parse_percent(text)
    message = str(raised.value)
    assert message.startswith("--fail-under ") and "\n" not in message and len(message) < 200

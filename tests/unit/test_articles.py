"""Messages that name a word they do not choose (a shape, a container's title, a finding code,
a key type, an entry's kind) take its article: ``Not an anthropic transcript``, never
``Not a anthropic`` (issue #34, review)."""

from __future__ import annotations

import json

import pytest

from verifier.findings import a_or_an
from verifier.sources.interface import Kind
from verifier.transcripts.check import check_bytes

BAD_ANTHROPIC = json.dumps([{"role": "assistant", "content": [{"type": "tool_use"}]}]).encode()


@pytest.mark.parametrize(
    ("noun", "said"),
    [
        ("anthropic", "an anthropic"),
        ("openai-chat", "an openai-chat"),
        ("ATIF trajectory", "an ATIF trajectory"),
        ("Inspect AI log", "an Inspect AI log"),
        ("OpenHands events", "an OpenHands events"),
        ("gemini", "a gemini"),
        ("pi", "a pi"),
        ("tau-bench results", "a tau-bench results"),
        ("RSA", "an RSA"),
        ("ecdsa-sha2-nistp256", "an ecdsa-sha2-nistp256"),
        ("assertion.failed", "an assertion.failed"),
        ("manifest.unlisted", "a manifest.unlisted"),
    ],
)
def test_a_or_an(noun: str, said: str) -> None:
    assert a_or_an(noun) == said


@pytest.mark.parametrize(
    ("shape", "start"),
    [
        ("anthropic", "Not an anthropic transcript"),
        ("atif", "Not an ATIF trajectory file"),
        ("inspect", "Not an Inspect AI log file"),
        ("openai-chat", "Not an openai-chat transcript"),
        ("openhands", "Not an openhands transcript"),
    ],
)
def test_transcript_messages_take_their_article(shape: str, start: str) -> None:
    report = check_bytes(BAD_ANTHROPIC, "t.json", shape)
    assert [f.message[: len(start)] for f in report.findings] == [start]


def test_no_kind_of_entry_is_called_a_other() -> None:
    assert [k.noun for k in Kind] == [
        "a file",
        "a missing entry",
        "a directory",
        "a link",
        "a special file",
        "a refused entry",
        "an unreadable entry",
    ]

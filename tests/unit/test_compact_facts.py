"""What the main process keeps of each file stays small: an object extracted from many records
holds its keys once (shared, not a copy per record), and the value is the same JSON value."""

from __future__ import annotations

import json
import pickle
from typing import Any

from verifier.inspect.values import extract


def _parsed(text: str) -> Any:
    return json.loads(text)  # a fresh parse: fresh key strings, as in each record's own parse


def test_an_extracted_object_shares_its_keys_between_records() -> None:
    text = '{"counters": {"toolExecutions": 1, "gatewayRequests": 2}, "id": "x"}'
    wants = (("/counters", False), ("/id", False))
    first, second = (extract(_parsed(text), wants) for _ in range(2))
    assert first == second == {"/counters": {"toolExecutions": 1, "gatewayRequests": 2}, "/id": "x"}
    assert list(first["/counters"]) == ["toolExecutions", "gatewayRequests"]  # order kept
    for a, b in zip(first["/counters"], second["/counters"], strict=True):
        assert a is b
    # and so a batch of them crosses from a worker with one copy of each key
    back = pickle.loads(pickle.dumps([first, second], protocol=pickle.HIGHEST_PROTOCOL))
    for a, b in zip(back[0]["/counters"], back[1]["/counters"], strict=True):
        assert a is b


def test_what_is_not_an_object_is_extracted_as_it_is() -> None:
    value = _parsed('{"a": [1, {"k": 2}], "b": {}, "c": "s"}')
    got = extract(value, (("/a", False), ("/b", False), ("/c", False), ("/a", True)))
    assert got == {"/a": [1, {"k": 2}], "/b": {}, "/c": "s", "#/a": 2}
    assert got["/a"] is value["a"]

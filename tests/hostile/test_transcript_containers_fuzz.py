"""Hostile container files: mutated copies of the corpus (members deleted, values of the
wrong type, references to nothing) never crash check or repair; each is a report, or for
repair one ``CannotRun`` line (exit 2), never a traceback."""

from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path
from typing import Any

from tests.conftest import REPO
from verifier.transcripts.check import CannotRun, check_bytes
from verifier.transcripts.repair import repair_bytes

CASES = REPO / "tests" / "cases" / "containers"
JUNK: tuple[Any, ...] = (None, 1, "x", [], {}, True, [1], {"a": 1}, "attachment://zz")


def mutate(rng: random.Random, value: Any) -> Any:
    if isinstance(value, dict) and value:
        out = dict(value)
        key = rng.choice(sorted(out))
        r = rng.random()
        if r < 0.3:
            del out[key]
        elif r < 0.6:
            out[key] = rng.choice(JUNK)
        else:
            out[key] = mutate(rng, out[key])
        return out
    if isinstance(value, list) and value:
        items = list(value)
        i = rng.randrange(len(items))
        r = rng.random()
        if r < 0.3:
            del items[i]
        elif r < 0.5:
            items[i] = rng.choice(JUNK)
        else:
            items[i] = mutate(rng, items[i])
        return items
    return rng.choice(JUNK)


def cases() -> list[Path]:
    return sorted(
        p for p in CASES.glob("*/*") if ".expected." not in p.name and ".repaired." not in p.name
    )


def test_mutated_containers_never_crash() -> None:
    rng = random.Random(17)
    for _ in range(600):
        case = rng.choice(cases())
        text = case.read_text("utf-8")
        if case.suffix == ".jsonl":
            value: Any = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            value = json.loads(text)
        for _ in range(rng.randint(1, 3)):
            value = mutate(rng, value)
        if case.suffix == ".jsonl" and isinstance(value, list):
            data = "".join(json.dumps(v) + "\n" for v in value).encode()
        else:
            data = json.dumps(value).encode()
        for shape in (None, case.parent.name):
            report = check_bytes(data, case.name, shape)
            assert report.findings or report.transcripts or report.messages == 0
            with contextlib.suppress(CannotRun):
                repair_bytes(data, case.name, shape)


def test_a_responses_item_whose_type_is_not_a_string_is_read() -> None:
    data = json.dumps([{"type": {}, "role": "user"}, {"type": ["x"]}]).encode()
    report = check_bytes(data, "items.json")  # once a crash: an unhashable type in detection
    assert report.findings

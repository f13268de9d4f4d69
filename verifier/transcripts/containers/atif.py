"""ATIF, the agent trajectory interchange format (Harbor / Terminal-Bench): one JSON object
with ``schema_version``, ``agent`` and ``steps[]``.

* An agent step's ``tool_calls[]`` (``tool_call_id``, ``function_name``, ``arguments``) are
  its calls; each step starts a new turn.
* ``observation.results[]`` answer calls by ``source_call_id``, in the same step, after its
  calls. A result whose ``source_call_id`` is null or omitted comes from an action that is
  not a tool call (the RFC, ``ObservationResultSchema``): it is not a tool result.

* ``step_id`` numbers the steps (unique, from 1): two steps with one id are
  ``transcript.duplicate-id``; both are read, in file order.

Repair appends ``{"source_call_id": id, "content": MARKER}`` to the call's step
``observation.results`` (creating them if absent); every result already there is kept (a
result that answers nothing stays a finding).
"""

from __future__ import annotations

from typing import Any

from verifier.json.write import dumps
from verifier.transcripts.containers.interface import (
    ContainerError,
    Parsed,
    Reader,
    Transcript,
    one_history,
)
from verifier.transcripts.interface import (
    Shape,
    ShapeError,
    duplicate_ids,
    message_at,
    string_at,
    text_of,
)
from verifier.transcripts.pairing import (
    INTERRUPTED_MARKER,
    Boundary,
    Call,
    Entry,
    Pairing,
    Part,
    Problem,
    Result,
    marker_like,
)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else text_of(value)


class AtifSteps(Shape):
    name = "atif-steps"
    title = "ATIF steps"

    def entries(self, messages: list[Any]) -> list[Entry]:
        out: list[Entry] = []
        for i in range(len(messages)):
            step = message_at(messages, i)
            calls: list[Part] = [Boundary(i, 0)]
            raw = step.get("tool_calls")
            for k, tc in enumerate(raw if isinstance(raw, list) else []):
                pointer = f"/tool_calls/{k}"
                if not isinstance(tc, dict):
                    raise ShapeError(f"step {i}: a tool call is not an object", i, pointer)
                cid = string_at(tc, "tool_call_id", i, "a tool call", pointer)
                name = tc.get("function_name")
                calls.append(
                    Call(i, k, cid, name if isinstance(name, str) else "?", pointer=pointer)
                )
            out.append(Entry(i, str(step.get("source")), tuple(calls)))
            obs = step.get("observation")
            results = obs.get("results") if isinstance(obs, dict) else None
            got: list[Part] = []
            for k, r in enumerate(results if isinstance(results, list) else []):
                if not isinstance(r, dict) or r.get("source_call_id") is None:
                    continue
                pointer = f"/observation/results/{k}"
                cid = string_at(r, "source_call_id", i, "an observation result", pointer)
                text = _text(r.get("content"))
                got.append(
                    Result(i, 100000 + k, cid, None, text, False, marker_like(text), pointer)
                )
            if got:
                out.append(Entry(i, "observation", tuple(got)))
        return out

    def id_problems(self, messages: list[Any]) -> list[Problem]:
        uses = []
        for i, step in enumerate(messages):
            key = step.get("step_id") if isinstance(step, dict) else None
            if isinstance(key, (int, str)) and not isinstance(key, bool):
                uses.append((str(key), i, "/step_id"))
        return duplicate_ids(
            uses,
            "step_id",
            "a step id names one step, so a reader keyed by it sees another history",
        )

    def synthetic(self, call: Call, messages: list[Any]) -> Any:
        return {"source_call_id": call.id, "content": INTERRUPTED_MARKER}


STEPS = AtifSteps()


class Atif(Reader):
    name = "atif"
    title = "ATIF trajectory"

    def claims(self, parsed: Parsed) -> bool:
        v = parsed.value
        return (
            isinstance(v, dict)
            and isinstance(v.get("schema_version"), str)
            and isinstance(v.get("steps"), list)
        )

    def read(self, parsed: Parsed, leaf_only: bool = False) -> list[Transcript]:
        steps = parsed.value.get("steps") if isinstance(parsed.value, dict) else None
        if not isinstance(steps, list):
            raise ContainerError("no 'steps' array", pointer="/steps")
        session = parsed.value.get("session_id")
        meta = {"taskId": session} if isinstance(session, str) else {}
        return [one_history("steps", STEPS, steps, "/steps", meta)]

    def write(self, parsed: Parsed, plan: list[tuple[Transcript, Pairing]]) -> bytes:
        value = parsed.value
        steps = list(value["steps"])
        for t, pairing in plan:
            add: dict[int, list[Any]] = {}
            for call, _ in pairing.dangling:
                add.setdefault(call.index, []).append(STEPS.synthetic(call, t.messages))
            for i in sorted(add):
                step = steps[i]
                obs = step.get("observation")
                obs = obs if isinstance(obs, dict) else {}
                results = obs.get("results")
                kept = results if isinstance(results, list) else []
                steps[i] = {**step, "observation": {**obs, "results": [*kept, *add[i]]}}
        return (dumps({**value, "steps": steps}, indent=2) + "\n").encode("utf-8")


#: the registry member (verifier.transcripts.containers.CONTAINERS)
READER = Atif()

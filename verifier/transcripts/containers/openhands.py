"""OpenHands event streams: a JSON array of events, each with an ``id``, a ``source``
(``user``, ``agent``, ``environment``) and either an ``action`` or an ``observation``.

* A call is an action the environment answers: one with ``tool_call_metadata`` (function
  calling), or an action that runs something (``run``, ``run_ipython``, ``read``, ``write``,
  ``edit``, ``browse``, ``browse_interactive``, ``call_tool_mcp``). Its id is the event id.
* An observation answers the action its ``cause`` names. An observation whose cause is an
  event that is not a call (a ``recall`` for a user message) is not a tool result; one whose
  cause is no event at all is an orphan.
* In confirmation mode the controller writes an action first with ``confirmation_state``
  ``awaiting_confirmation``, then, once the user answers, the same action again as a new event
  (``confirmed`` or ``rejected``), which the runtime answers (``agent_controller.py``,
  ``set_agent_state_to``). An awaiting action sent again later is not a call of its own; one
  never sent again (the user never answered) stays a call.
* A ``message`` action (from the user or the agent) starts a new turn; so does a call that
  comes from a new model response (``tool_call_metadata.model_response.id``).
* Event ids are unique (the stream numbers every event it adds): two events with one id are
  ``transcript.duplicate-id`` (an observation's ``cause`` could mean either); both are read.
  The ``null`` observation an older output pairs with an action that had none is a
  placeholder, not an event of the stream, and its id is not counted.
* The harness's own endings: a ``finish`` action ends the run and waits for no observation;
  an ``agent_state_changed`` observation to ``stopped``, ``error``, ``paused`` or
  ``rejected`` ends every call still open; the ``error`` observation the controller writes
  for a pending call when the agent is stopped (``_reset``: "The action has not been
  executed.", later "Stop button pressed. The action has not been executed.") is its
  interruption marker.

Repair inserts an ``error`` observation (``cause``: the call's id, ``content`` the marker,
the call's ``tool_call_metadata`` copied, a new id after the largest) before the event that
closed the window.
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
from verifier.transcripts.interface import Shape, ShapeError, duplicate_ids, message_at
from verifier.transcripts.pairing import (
    INTERRUPTED_MARKER,
    Boundary,
    Call,
    Ending,
    Entry,
    Pairing,
    Part,
    Problem,
    Result,
    marker_like,
)
from verifier.transcripts.rewrite import repaired_messages

RUNS = frozenset(
    {"run", "run_ipython", "read", "write", "edit", "browse", "browse_interactive", "call_tool_mcp"}
)
STOPS = frozenset({"stopped", "error", "paused", "rejected"})
NOT_EXECUTED = "The action has not been executed"  # the controller's own marker (_reset)
AWAITING = "awaiting_confirmation"


def _key(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    return str(value)


def _is_call(event: dict[str, Any]) -> bool:
    action = event.get("action")
    return isinstance(action, str) and (
        isinstance(event.get("tool_call_metadata"), dict) or action in RUNS or action == "finish"
    )


def _resent_key(event: dict[str, Any]) -> str:
    """What identifies an action sent again after confirmation: the action and its arguments
    without their confirmation state, and its tool call id (the controller sends the same
    action object again, so all of these match; another action reusing the tool call id is
    not the one sent again, and stays a call of its own)."""
    meta = event.get("tool_call_metadata")
    cid = meta.get("tool_call_id") if isinstance(meta, dict) else None
    args = event.get("args")
    args = (
        {k: v for k, v in args.items() if k != "confirmation_state"}
        if isinstance(args, dict)
        else args
    )
    return dumps([cid, event.get("action"), args], separators=(",", ":"))


def _awaiting_resent(events: list[Any]) -> set[int]:
    """Positions of actions awaiting confirmation that a later action sends again."""
    out: set[int] = set()
    later: set[str] = set()
    for i in range(len(events) - 1, -1, -1):
        ev = events[i]
        if not isinstance(ev, dict) or not isinstance(ev.get("action"), str):
            continue
        key = _resent_key(ev)
        args = ev.get("args")
        state = args.get("confirmation_state") if isinstance(args, dict) else None
        if state == AWAITING and key in later:
            out.add(i)
        later.add(key)
    return out


def _response_id(event: dict[str, Any]) -> Any:
    meta = event.get("tool_call_metadata")
    response = meta.get("model_response") if isinstance(meta, dict) else None
    return response.get("id") if isinstance(response, dict) else None


class OpenHandsEvents(Shape):
    name = "openhands-events"
    title = "OpenHands events"

    def entries(self, messages: list[Any]) -> list[Entry]:
        resent = _awaiting_resent(messages)
        calls = {
            k
            for j, m in enumerate(messages)
            if isinstance(m, dict)
            and j not in resent
            and _is_call(m)
            and (k := _key(m.get("id"))) is not None
        }
        known = {_key(m.get("id")) for m in messages if isinstance(m, dict)}
        out: list[Entry] = []
        last_response: Any = None
        for i in range(len(messages)):
            ev = message_at(messages, i)
            parts: list[Part] = []
            action, observation = ev.get("action"), ev.get("observation")
            if isinstance(action, str):
                if action == "message":
                    parts.append(Boundary(i, 0))
                    last_response = None
                elif i in resent:
                    pass  # sent again once confirmed or rejected: that event is the call
                elif _is_call(ev):
                    key = _key(ev.get("id"))
                    if key is None:
                        raise ShapeError(f"event {i}: an action has no 'id'", i)
                    response = _response_id(ev)
                    if response is None or response != last_response:
                        parts.append(Boundary(i, 0))
                    last_response = response
                    meta = ev.get("tool_call_metadata")
                    name = meta.get("function_name") if isinstance(meta, dict) else None
                    ended = "a finish action waits for no observation" if action == "finish" else ""
                    parts.append(
                        Call(i, 0, key, name if isinstance(name, str) else action, ended=ended)
                    )
            elif isinstance(observation, str):
                cause = _key(ev.get("cause"))
                extras = ev.get("extras")
                state = extras.get("agent_state") if isinstance(extras, dict) else None
                if (
                    observation == "agent_state_changed"
                    and isinstance(state, str)
                    and state in STOPS
                ):
                    parts.append(Ending(i, 0, f"agent state {state}"))
                elif cause is not None and (cause in calls or cause not in known):
                    text = ev.get("content")
                    text = text if isinstance(text, str) else ""
                    native = observation == "error" and NOT_EXECUTED in text[:200]
                    parts.append(
                        Result(
                            i,
                            0,
                            cause,
                            None,
                            text,
                            observation == "error",
                            native or marker_like(text),
                            pointer="/cause",
                            native=native,
                        )
                    )
            out.append(Entry(i, str(ev.get("source")), tuple(parts)))
        return out

    def id_problems(self, messages: list[Any]) -> list[Problem]:
        uses = [
            (key, i, "/id")
            for i, m in enumerate(messages)
            if isinstance(m, dict)
            and m.get("observation") != "null"  # a placeholder pair, not an event of the stream
            and (key := _key(m.get("id"))) is not None
        ]
        return duplicate_ids(
            uses, "event id", "an observation's cause names one event, which is now unknown"
        )

    def synthetic(self, call: Call, messages: list[Any]) -> Any:
        made = messages[call.index]
        out: dict[str, Any] = {
            "id": None,  # numbered by the writer, after the largest id
            "source": "environment",
            "observation": "error",
            "content": INTERRUPTED_MARKER,
            "message": INTERRUPTED_MARKER,
            "cause": made.get("id"),
            "extras": {},
        }
        if "tool_call_metadata" in made:
            out["tool_call_metadata"] = made["tool_call_metadata"]
        return out


EVENTS = OpenHandsEvents()


class OpenHands(Reader):
    name = "openhands"
    title = "OpenHands event list"

    def claims(self, parsed: Parsed) -> bool:
        v = parsed.value
        return (
            isinstance(v, list)
            and bool(v)
            and all(
                isinstance(e, dict) and "id" in e and ("action" in e or "observation" in e)
                for e in v
            )
        )

    def read(self, parsed: Parsed, leaf_only: bool = False) -> list[Transcript]:
        events = parsed.value
        if not isinstance(events, list):
            raise ContainerError("not a JSON array of events")
        return [one_history("events", EVENTS, events, "")]

    def write(self, parsed: Parsed, plan: list[tuple[Transcript, Pairing]]) -> bytes:
        events = parsed.value
        for t, pairing in plan:
            events, _ = repaired_messages(t.shape, t.messages, pairing)
        ids = [v for m in parsed.value if isinstance(m, dict) and isinstance(v := m.get("id"), int)]
        top = max(ids) if ids else 0
        fresh = {id(m) for m in parsed.value}
        out = []
        for m in events:
            if id(m) not in fresh:
                top += 1
                m = {**m, "id": top}
            out.append(m)
        return (dumps(out, indent=2) + "\n").encode("utf-8")


#: the registry member (verifier.transcripts.containers.CONTAINERS)
READER = OpenHands()

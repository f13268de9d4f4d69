"""SWE-agent trajectories (``.traj``): one JSON object with ``trajectory`` (thought, action,
observation per step), ``history`` (the chat messages the model saw) and ``info``
(``exit_status``: ``submitted``, ``exit_cost``, ``exit_context``, ...). The ``history`` is
checked.

* Function-calling runs: an assistant message's ``tool_calls[].id`` is answered by a ``tool``
  message whose ``tool_call_ids`` lists it (one message may answer several).
* Older runs have no ids: an assistant message with ``message_type: "action"`` makes one call
  (named by position, its tool the action's first word), answered by the message right after
  it if that one has ``message_type: "observation"``, by position. Any other observation
  without ids (the task itself, a timeout notice) is a user turn. A 0.x ``.traj`` has no
  ``message_type`` at all: there an assistant message with an ``action`` is the call and the
  ``user`` message right after it the observation; its history ends at the last action (the
  run stopped there), whose observation is the last ``trajectory`` step's, so a last call
  whose action is that step's is answered there.
* Every other message starts a new turn. A call still open at the end of the history when
  ``info.exit_status`` is an ``exit_*`` status (the harness stopped the run: cost, context,
  format, timeout), or ``submitted (exit_*)`` (stopped, then the patch was autosubmitted:
  ``attempt_autosubmission_after_error`` in ``sweagent/agent/agents.py``), is ended by the
  harness, not dangling.

Repair inserts ``{"role": "tool", "content": MARKER, "tool_call_ids": [id], "message_type":
"observation"}`` (id-less: ``role: user``) into ``history``; the rest of the file is kept.
"""

from __future__ import annotations

import re
from typing import Any

from verifier.json.write import dumps
from verifier.transcripts.containers.interface import (
    ContainerError,
    Parsed,
    Reader,
    Transcript,
    chat_calls,
    obj,
    one_history,
)
from verifier.transcripts.interface import Shape, ShapeError, message_at, string_at, text_of
from verifier.transcripts.pairing import (
    INTERRUPTED_MARKER,
    Boundary,
    Call,
    Ending,
    Entry,
    Pairing,
    Part,
    Result,
)
from verifier.transcripts.rewrite import repaired_messages

#: the statuses of a run the harness stopped: exit_cost, ..., and the autosubmitted
#: "submitted (exit_cost)"
STOPPED = re.compile(r"(submitted \()?exit_")


def _tool(action: Any) -> str:
    if isinstance(action, str) and action.split():
        return action.split()[0]
    return "action"


class SweHistory(Shape):
    name = "swe-agent-history"
    title = "SWE-agent history messages"

    def entries(self, messages: list[Any]) -> list[Entry]:
        out: list[Entry] = []
        for i in range(len(messages)):
            msg = message_at(messages, i)
            role = string_at(msg, "role", i, "the message")
            kind = msg.get("message_type")
            parts: list[Part] = []
            ids = msg.get("tool_call_ids")
            after_action = i > 0 and self._positional_action(messages[i - 1])
            old_observation = role == "user" and kind is None and after_action
            if role == "tool" or (kind == "observation" and role != "assistant") or old_observation:
                if isinstance(ids, list) and ids:
                    for k, cid in enumerate(ids):
                        if not isinstance(cid, str) or not cid:
                            raise ShapeError(
                                f"message {i}: a tool_call_ids entry is not a string", i
                            )
                        parts.append(
                            Result(
                                i,
                                k,
                                cid,
                                None,
                                text_of(msg.get("content")),
                                pointer=f"/tool_call_ids/{k}",
                            )
                        )
                elif isinstance(msg.get("tool_call_id"), str):
                    parts.append(
                        Result(i, 0, msg["tool_call_id"], None, text_of(msg.get("content")))
                    )
                elif role == "tool":
                    raise ShapeError(f"message {i}: a tool message has no 'tool_call_ids'", i)
                elif after_action:
                    parts.append(Result(i, 0, None, None, text_of(msg.get("content"))))
                else:
                    parts.append(Boundary(i, 0))  # the task, a timeout notice: a user turn
            else:
                parts.append(Boundary(i, 0))
                calls = msg.get("tool_calls")
                if role == "assistant" and isinstance(calls, list) and calls:
                    parts.extend(chat_calls(calls, i))
                elif self._positional_action(msg):
                    parts.append(Call(i, 0, f"#{i}.0", _tool(msg.get("action")), has_id=False))
            out.append(Entry(i, role, tuple(parts)))
        return out

    @staticmethod
    def _positional_action(msg: Any) -> bool:
        """An id-less action: ``message_type: "action"`` (1.x, thought-action parsers), or in
        a 0.x ``.traj`` (no ``message_type`` at all) an assistant message with an ``action``."""
        if not isinstance(msg, dict) or msg.get("role") != "assistant" or msg.get("tool_calls"):
            return False
        kind, action = msg.get("message_type"), msg.get("action")
        return kind == "action" or (
            kind is None and isinstance(action, str) and bool(action.strip())
        )

    def synthetic(self, call: Call, messages: list[Any]) -> Any:
        made = messages[call.index]
        agent = made.get("agent") if isinstance(made, dict) else None
        out: dict[str, Any] = (
            {"role": "tool", "content": INTERRUPTED_MARKER, "tool_call_ids": [call.id]}
            if call.has_id
            else {"role": "user", "content": INTERRUPTED_MARKER}
        )
        if agent is not None:
            out["agent"] = agent
        out["message_type"] = "observation"
        return out


HISTORY = SweHistory()


class SweAgent(Reader):
    name = "swe-agent"
    title = "SWE-agent trajectory (.traj)"

    def claims(self, parsed: Parsed) -> bool:
        """A run's ``.traj`` has ``history`` beside ``trajectory``; a demonstration (the
        ``trajectories/demonstrations/*.traj`` files SWE-agent loads, only their ``history``
        read) has ``history`` alone, every item a message with SWE-agent's ``message_type``."""
        v = parsed.value
        if not isinstance(v, dict) or not isinstance(v.get("history"), list):
            return False
        history = v["history"]
        return isinstance(v.get("trajectory"), list) or (
            bool(history)
            and all(isinstance(m, dict) and "role" in m and "message_type" in m for m in history)
        )

    def read(self, parsed: Parsed, leaf_only: bool = False) -> list[Transcript]:
        v = obj(parsed.value, "the trajectory")
        history = v.get("history")
        if not isinstance(history, list):
            raise ContainerError("no 'history' array", pointer="/history")
        info = v.get("info")
        status = info.get("exit_status") if isinstance(info, dict) else None
        ended: tuple[Entry, ...] = ()
        if isinstance(status, str) and STOPPED.match(status):
            ended = (
                Entry(len(history), "info", (Ending(len(history), 0, f"exit_status {status}"),)),
            )
        steps = v.get("trajectory")
        last = steps[-1] if isinstance(steps, list) and steps else None
        if (
            not ended
            and history
            and HISTORY._positional_action(history[-1])
            and isinstance(last, dict)
            and isinstance(last.get("observation"), str)
            and last.get("action") == history[-1].get("action")
        ):
            # 0.x: the history ends at the last action; its observation is the last step's
            why = "its observation is the trajectory's last step (/trajectory/-1)"
            ended = (Entry(len(history), "trajectory", (Ending(len(history), 0, why),)),)
        meta = {"taskId": v["instance_id"]} if isinstance(v.get("instance_id"), str) else {}
        name = f"history (exit_status {status})" if isinstance(status, str) else "history"
        return [one_history(name, HISTORY, history, "/history", meta, ended, "/info/exit_status")]

    def write(self, parsed: Parsed, plan: list[tuple[Transcript, Pairing]]) -> bytes:
        value = parsed.value
        for t, pairing in plan:
            value = {**value, "history": repaired_messages(t.shape, t.messages, pairing)[0]}
        return (dumps(value, indent=2) + "\n").encode("utf-8")


#: the registry member (verifier.transcripts.containers.CONTAINERS)
READER = SweAgent()

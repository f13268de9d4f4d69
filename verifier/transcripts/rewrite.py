"""The repair plan as a rewrite of a message list: where each synthetic result goes (shared by
``transcript repair`` and the container writers). Repair only adds: every message it was
given comes out as the very same object, in order.

See :mod:`verifier.transcripts.repair` for the rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from verifier.transcripts.interface import Shape
from verifier.transcripts.pairing import Call, Pairing

END = -1  # a slot after every part of the message


@dataclass(frozen=True, slots=True)
class Added:
    call: Call
    where: str  # in the input's terms, e.g. "new message before message 4"


@dataclass(slots=True)
class _Plan:
    before: dict[int, list[Any]] = field(default_factory=dict)  # new messages before index
    into: dict[int, dict[int, list[Any]]] = field(default_factory=dict)  # parts before slot
    added: list[Added] = field(default_factory=list)


def _plan(shape: Shape, messages: list[Any], pairing: Pairing) -> _Plan:
    plan = _Plan()
    n = len(messages)
    new_parts: dict[int, list[Any]] = {}  # part shapes: parts of a new message before index
    for call, at in sorted(pairing.dangling, key=lambda d: (d[0].index, d[0].slot)):
        made = shape.synthetic(call, messages)
        if made is None:
            continue  # the shape has no result of its own for this call (an MCP call)
        e, s = at.index, at.slot  # the end of the history is at n (pair counts messages)
        where_end = "at the end of the history" if e >= n else f"before message {e}"
        if not shape.part_layout:
            plan.before.setdefault(e, []).append(made)
            plan.added.append(Added(call, f"new message {where_end}"))
        elif e < n and s > 0:
            plan.into.setdefault(e, {}).setdefault(s, []).append(made)
            plan.added.append(Added(call, f"into message {e}, before its part {s}"))
        elif e - 1 > call.index and shape.is_result_message(messages[e - 1]):
            plan.into.setdefault(e - 1, {}).setdefault(END, []).append(made)
            plan.added.append(Added(call, f"into message {e - 1}, after its results"))
        elif e < n and shape.is_result_message(messages[e]):
            plan.into.setdefault(e, {}).setdefault(0, []).append(made)
            plan.added.append(Added(call, f"into message {e}, before its first part"))
        else:
            if e not in new_parts:
                new_parts[e] = []
                plan.before.setdefault(e, []).append(shape.result_message(new_parts[e]))
            new_parts[e].append(made)
            plan.added.append(Added(call, f"new message {where_end}"))
    return plan


def repaired_messages(
    shape: Shape, messages: list[Any], pairing: Pairing
) -> tuple[list[Any], list[Added]]:
    """The repaired message list (unchanged messages are the very same objects) and the
    synthetic results added, each with where it went."""
    plan = _plan(shape, messages, pairing)
    out: list[Any] = []
    for i, msg in enumerate(messages):
        out.extend(plan.before.get(i, []))
        if i not in plan.into:
            out.append(msg)
        else:  # part shapes: new parts among the message's own, each of those kept as it is
            inserts = plan.into[i]
            parts: list[Any] = []
            for k, part in enumerate(msg[shape.parts_key]):
                parts.extend(inserts.get(k, []))
                parts.append(part)
            parts.extend(inserts.get(END, []))
            out.append({**msg, shape.parts_key: parts})
    out.extend(plan.before.get(len(messages), []))
    return out, plan.added


__all__ = ["END", "Added", "repaired_messages"]

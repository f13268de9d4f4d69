"""``transcript repair`` as a library: close every dangling call with an explicit result.

The plan comes from one walk (:func:`verifier.transcripts.pairing.pair`), the same the checker
makes:

* every dangling call gets one synthetic result, ``not run: the turn was interrupted``, at
  the end of its answer window: after the window's real results and before whatever closed
  the window (new user text, the next assistant turn), or at the end of the history. It
  claims nothing about the outside world: only that no result was recorded;
* results that answer no open call (orphans, duplicates, misplaced results) are left out and
  listed, since a provider rejects them and they cannot be moved without guessing;
* nothing else changes: no call is deleted, no other message or part is changed or moved,
  unknown members are kept, and a message loses only parts that were left out (and is left
  out only when nothing else was in it);
* it is deterministic (no clock, no random ids) and idempotent: the output of a repair has
  nothing left to repair, and repairing it again returns its bytes unchanged.

Reused ids, results naming another tool than their call, and interruption records without
the marker are not repaired (that would mean changing entries); they remain findings of the
output.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from verifier.findings import Finding, Severity
from verifier.transcripts.check import CannotRun, Malformed, load
from verifier.transcripts.interface import Shape
from verifier.transcripts.pairing import Call, Pairing, Result

END = -1  # a slot after every part of the message


@dataclass(frozen=True, slots=True)
class Added:
    call: Call
    where: str  # in the input's terms, e.g. "new message before message 4"


@dataclass(frozen=True, slots=True)
class Dropped:
    result: Result
    code: str  # why: transcript.orphan-result | duplicate-result | misplaced-result


@dataclass(slots=True)
class RepairResult:
    path: str
    shape: str
    shape_source: str
    output: bytes
    added: list[Added] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.added or self.dropped)

    def summary(self) -> list[str]:
        """What the repair changed, one line each (the CLI prints these on stderr)."""
        lines = [
            f"{self.path} ({self.shape}): {len(self.added)} synthetic result(s) added, "
            f"{len(self.dropped)} orphaned result(s) left out"
        ]
        for a in self.added:
            lines.append(
                f"  added: result for call {a.call.id} ({a.call.name}) from message "
                f"{a.call.index}, {a.where}"
            )
        for d in self.dropped:
            r = d.result
            label = r.call_id if r.call_id is not None else f"{r.name or '?'} (no call id)"
            lines.append(f"  left out: result in message {r.index} for {label} ({d.code})")
        for f in self.remaining:
            lines.append(f"  not repaired: {f.code} ({f.severity.value}): {f.message}")
        return lines

    def fails(self, threshold: Severity = Severity.ERROR) -> bool:
        """Whether a finding left in the output reaches ``threshold`` (the exit code)."""
        return any(f.severity.reaches(threshold) for f in self.remaining)


@dataclass(slots=True)
class _Plan:
    before: dict[int, list[Any]] = field(default_factory=dict)  # new messages before index
    into: dict[int, dict[int, list[Any]]] = field(default_factory=dict)  # parts before slot
    drop: set[tuple[int, int]] = field(default_factory=set)
    added: list[Added] = field(default_factory=list)


def _plan(shape: Shape, messages: list[Any], pairing: Pairing) -> _Plan:
    plan = _Plan()
    plan.drop = {(r.index, r.slot) for r, _ in pairing.unmatched}
    n = len(messages)
    new_parts: dict[int, list[Any]] = {}  # part shapes: parts of a new message before index
    for call, at in sorted(pairing.dangling, key=lambda d: (d[0].index, d[0].slot)):
        made = shape.synthetic(call, messages)
        e, s = at.index, at.slot
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
                plan.before.setdefault(e, []).append(
                    shape.result_message(new_parts[e], messages[call.index])
                )
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
        touched = i in plan.into or any(d[0] == i for d in plan.drop)
        if not touched:
            out.append(msg)
        elif not shape.part_layout:
            continue  # a result message that answers nothing
        else:
            inserts = plan.into.get(i, {})
            parts: list[Any] = []
            for k, part in enumerate(msg[shape.parts_key]):
                parts.extend(inserts.get(k, []))
                if (i, k) not in plan.drop:
                    parts.append(part)
            parts.extend(inserts.get(END, []))
            if parts:
                out.append({**msg, shape.parts_key: parts})
    out.extend(plan.before.get(len(messages), []))
    return out, plan.added


def repair_bytes(data: bytes, path: str, shape: str | None = None) -> RepairResult:
    """Repair one transcript. Raises :class:`CannotRun` if it cannot be read as one."""
    try:
        loaded = load(data, path, shape)
    except Malformed as exc:
        raise CannotRun(f"{path}: {exc}") from None
    pairing = loaded.pairing
    dropped = [Dropped(r, code) for r, code in pairing.unmatched]
    added: list[Added] = []
    output = data
    if pairing.dangling or dropped:
        messages, added = repaired_messages(loaded.shape, loaded.document.messages, pairing)
        output = loaded.document.dump(messages)
    again = load(output, path, loaded.shape.name)
    return RepairResult(
        path,
        loaded.shape.name,
        loaded.shape_source,
        output,
        added,
        dropped,
        again.findings(),
    )


__all__ = ["Added", "CannotRun", "Dropped", "RepairResult", "repair_bytes", "repaired_messages"]

"""Pi coding agent sessions (JSON Lines): a ``{"type": "session", "version": N}`` header, then
entries. Version 2 and later entries carry ``id``/``parentId`` and form a tree (a branch is
an earlier point the user went back to); version 1 files are linear.

* ``message`` entries hold a Pi AI message (``toolCall`` blocks, ``toolResult`` messages:
  the ``pi`` shape). An assistant message whose ``stopReason`` is ``aborted`` or ``error``
  ends its calls: the harness never runs them and drops that message when it sends the
  history again, so they need no result (the harness's own explicit ending).
* ``compaction``, ``branch_summary`` and ``custom_message`` entries reach the model as text:
  each starts a new turn. Other entries (``model_change``, ``thinking_level_change``,
  ``label``, ``session_info``, ``custom``) are not messages.

Repair works on the active path (the one holding the entry written last): a synthetic
``toolResult`` becomes a new ``message`` entry (id derived from the call id, timestamp copied
from the call's entry) linked into the path: the entry it precedes takes it as its
``parentId`` (the one member repair changes); every other entry is kept as written.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

from verifier.json.write import dumps
from verifier.transcripts.containers.interface import (
    ContainerError,
    Parsed,
    Reader,
    Transcript,
    obj,
)
from verifier.transcripts.containers.tree import (
    Node,
    duplicate_problems,
    paths,
    skipped_problem,
)
from verifier.transcripts.pairing import Call, Entry, Pairing
from verifier.transcripts.pi import SHAPE as PI
from verifier.transcripts.rewrite import repaired_messages

_TURN = frozenset({"compaction", "branch_summary", "custom_message"})
_ENDS = frozenset({"aborted", "error"})


def _ended(entries: list[Entry], messages: list[Any]) -> list[Entry]:
    out = []
    for entry in entries:
        msg = messages[entry.index]
        stop = msg.get("stopReason") if isinstance(msg, dict) else None
        if entry.calls and isinstance(stop, str) and stop in _ENDS:
            parts = tuple(
                replace(p, ended=f"stopReason {stop}") if isinstance(p, Call) else p
                for p in entry.parts
            )
            entry = Entry(entry.index, entry.role, parts)
        out.append(entry)
    return out


class PiSession(Reader):
    name = "pi-session"
    title = "Pi coding agent session (JSON Lines tree)"
    lines = True

    def claims(self, parsed: Parsed) -> bool:
        v = parsed.value
        return (
            parsed.is_lines
            and bool(v)
            and isinstance(v[0], dict)
            and v[0].get("type") == "session"
            and any(isinstance(e, dict) and e.get("type") == "message" for e in v[1:])
        )

    def _entries(self, parsed: Parsed) -> tuple[list[int], bool]:
        """Positions (in ``parsed.value``) of the entries after the header; whether a tree."""
        values = parsed.value
        if not values or not isinstance(values[0], dict) or values[0].get("type") != "session":
            raise ContainerError("the first line is not a Pi session header", line=1)
        version = values[0].get("version", 1)
        tree = not (isinstance(version, int) and version < 2)
        rows = []
        for k in range(1, len(values)):
            e = obj(values[k], f"line {parsed.lines[k]}", parsed.lines[k])
            if not isinstance(e.get("type"), str):
                raise ContainerError(
                    f"line {parsed.lines[k]}: the entry has no 'type'", line=parsed.lines[k]
                )
            if tree and not isinstance(e.get("id"), str):
                raise ContainerError(
                    f"line {parsed.lines[k]}: a version {version} entry has no 'id'",
                    line=parsed.lines[k],
                )
            rows.append(k)
        return rows, tree

    def read(self, parsed: Parsed, leaf_only: bool = False) -> list[Transcript]:
        rows, tree = self._entries(parsed)
        values = parsed.value
        if tree:
            nodes = [
                Node(
                    values[k]["id"],
                    values[k]["parentId"] if isinstance(values[k].get("parentId"), str) else None,
                    k,
                )
                for k in rows
            ]
            chosen = paths(nodes, leaf_only=leaf_only)
            twice = duplicate_problems(nodes, lambda k: parsed.lines[k], "entry id")
        else:
            chosen, twice = [], []
        out: list[Transcript] = []
        if not tree:
            out.append(self._transcript(parsed, rows, "the session", True, {}))
        for p in chosen:
            state = "active" if p.active else "abandoned"
            leaf = values[p.members[-1]]["id"]
            label = f"path to leaf {leaf} ({state})"
            out.append(
                self._transcript(
                    parsed,
                    list(p.members),
                    label,
                    p.active,
                    {"leaf": leaf, "path": [values[k]["id"] for k in p.members]},
                )
            )
            out[-1].problems.extend(skipped_problem(p))
            if p.active:
                out[-1].problems.extend(twice)
        return out

    def _transcript(
        self, parsed: Parsed, rows: list[int], label: str, active: bool, meta: dict[str, Any]
    ) -> Transcript:
        values = parsed.value
        messages: list[Any] = []
        where: list[int] = []
        for k in rows:
            e = values[k]
            kind = e.get("type")
            if kind == "message":
                messages.append(obj(e.get("message"), f"line {parsed.lines[k]}: 'message'"))
                where.append(k)
            elif kind in _TURN:
                messages.append({"role": kind})
                where.append(k)
        try:
            entries = _ended(PI.entries(messages), messages)
        except Exception as exc:  # ShapeError: name the line
            index = getattr(exc, "index", None)
            line = parsed.lines[where[index]] if isinstance(index, int) else None
            raise ContainerError(f"{label}: {exc}", line=line) from None

        def locate(index: int, pointer: str) -> tuple[int | None, str | None]:
            if index >= len(where):
                return None, None
            k = where[index]
            inner = "/message" + pointer if values[k].get("type") == "message" else pointer
            return parsed.lines[k], inner or None

        return Transcript(label, PI, messages, entries, locate, active, meta, repair=where)

    def write(self, parsed: Parsed, plan: list[tuple[Transcript, Pairing]]) -> bytes:
        plan_messages = [(t, repaired_messages(t.shape, t.messages, p)[0]) for t, p in plan]
        values = parsed.value
        rows, tree = self._entries(parsed)
        texts = list(parsed.texts)
        before: dict[int, list[dict[str, Any]]] = {}  # new entries before row k (or at end)
        relink: dict[int, str | None] = {}
        used = {v.get("id") for v in values if isinstance(v, dict)}
        for transcript, messages in plan_messages:
            where: list[int] = transcript.repair
            index = {id(m): where[i] for i, m in enumerate(transcript.messages)}
            stamps = self._stamps(values, where, transcript)
            pending: list[Any] = []
            for m in [*messages, None]:
                if m is not None and id(m) not in index:
                    pending.append(m)
                    continue
                if pending:
                    at = index[id(m)] if m is not None else len(values)
                    before.setdefault(at, []).extend(self._entry(x, used, stamps) for x in pending)
                    pending = []
        if not tree:
            for at in before:
                for e in before[at]:
                    e.pop("id", None)
                    e.pop("parentId", None)
        else:
            # chain the new entries into the path
            for at, new in sorted(before.items()):
                prev = values[at].get("parentId") if at < len(values) else self._last(values, rows)
                for e in new:
                    e["parentId"] = prev
                    prev = e["id"]
                if at < len(values):
                    relink[at] = prev
        out: list[str] = [texts[0]]
        for k in rows:
            out.extend(dumps(e, separators=(",", ":")) for e in before.get(k, []))
            if k in relink:
                out.append(dumps({**values[k], "parentId": relink[k]}, separators=(",", ":")))
            else:
                out.append(texts[k])
        out.extend(dumps(e, separators=(",", ":")) for e in before.get(len(values), []))
        return ("\n".join(out) + "\n").encode("utf-8")

    @staticmethod
    def _last(values: list[Any], rows: list[int]) -> Any:
        return values[rows[-1]].get("id") if rows else None

    @staticmethod
    def _stamps(values: list[Any], where: list[int], t: Transcript) -> dict[str, Any]:
        """Each call id's timestamp: that of the entry of its first call (one pass over the
        path, so a repair adding many results stays linear)."""
        out: dict[str, Any] = {}
        for i, m in enumerate(t.messages):
            content = m.get("content") if isinstance(m, dict) else None
            for b in content if isinstance(content, list) else ():
                call_id = b.get("id") if isinstance(b, dict) else None
                if isinstance(call_id, str) and call_id not in out:
                    out[call_id] = values[where[i]].get("timestamp")
        return out

    @staticmethod
    def _entry(message: Any, used: set[Any], stamps: dict[str, Any]) -> dict[str, Any]:
        call_id = message.get("toolCallId", "") if isinstance(message, dict) else ""
        seed = hashlib.sha256(f"not-run:{call_id}".encode()).hexdigest()
        n, new_id = 8, seed[:8]
        while new_id in used:  # ends: a file holds finitely many ids, each number is new
            n += 1
            new_id = seed[:n] if n <= len(seed) else f"{seed[:8]}-{n}"
        used.add(new_id)
        entry: dict[str, Any] = {"type": "message", "id": new_id, "parentId": None}
        stamp = stamps.get(call_id) if isinstance(call_id, str) else None
        if stamp is not None:  # the timestamp of the call's entry, never the clock
            entry["timestamp"] = stamp
        entry["message"] = message
        return entry


#: the registry member (verifier.transcripts.containers.CONTAINERS)
READER = PiSession()

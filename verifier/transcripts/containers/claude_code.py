"""Claude Code sessions (JSON Lines): one line per event, ``uuid``/``parentUuid`` links,
``isSidechain`` for sub-agents, and one API message split over several lines that share
``message.id`` (one content block each).

The message sequence is rebuilt before pairing: the lines of a path in file order, assistant
lines sharing ``message.id`` merged into one message (Anthropic Messages form:
``tool_use``/``tool_result`` blocks). Claude Code writes a parallel call's result line before
the next call line, and progress lines hang off the chain too, so the raw links fork where the
conversation never branched: a side subtree of only such lines (tool results, further parts
of a message already on the path, lines that are not messages) is absorbed into the path. A
fork is a branch only where a side subtree holds a new user prompt or a new assistant message
(the user rewound or edited). A compaction's ``logicalParentUuid`` links across it. Each
separate tree (a sidechain, a conversation after ``/clear``) is a transcript of its own.

Claude Code's own endings (its ``src/utils/messages.ts`` constants ``INTERRUPT_MESSAGE``,
``INTERRUPT_MESSAGE_FOR_TOOL_USE`` and ``SYNTHETIC_TOOL_RESULT_PLACEHOLDER``, as published
copies of that file pin them): a ``tool_result`` whose line has
``toolUseResult.interrupted: true``, or whose text is ``[Request interrupted by user for tool
use]`` or the placeholder it writes for a result that went missing, ``[Tool result missing due
to internal error]``, is an explicit ending; so is a bracketed interruption text in a user
message, for every call still open there. Its rejection and cancel texts ("The user doesn't
want to proceed with this tool use. ...") are real results (the tool did not run, and the
result says so). Another interruption-like result text stays a finding.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from verifier.json.write import dumps
from verifier.transcripts.anthropic import SHAPE as ANTHROPIC
from verifier.transcripts.containers.interface import ContainerError, Parsed, Reader, Transcript
from verifier.transcripts.containers.tree import (
    Node,
    duplicate_problems,
    paths,
    roots,
    skipped_problem,
)
from verifier.transcripts.interface import ShapeError, text_of
from verifier.transcripts.pairing import (
    MALFORMED,
    Boundary,
    Ending,
    Entry,
    Pairing,
    Part,
    Problem,
    Result,
    marker_like,
)

FIXED: Any = ("after the path's last line",)  # a placeholder parent, replaced when written
MARKERS = ("[Request interrupted by user for tool use]", "[Request interrupted by user]")
_TOOL_MARKER = MARKERS[0]
PLACEHOLDER = "[Tool result missing due to internal error]"  # SYNTHETIC_TOOL_RESULT_PLACEHOLDER


def _message(line: Any) -> dict[str, Any] | None:
    if isinstance(line, dict) and line.get("type") in ("user", "assistant"):
        msg = line.get("message")
        if isinstance(msg, dict):
            return msg
    return None


def _results_only(msg: dict[str, Any]) -> bool:
    content = msg.get("content")
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    )


class ClaudeCode(Reader):
    name = "claude-code"
    title = "Claude Code session (JSON Lines)"
    lines = True

    def claims(self, parsed: Parsed) -> bool:
        return parsed.is_lines and any(
            isinstance(v, dict) and "uuid" in v and "parentUuid" in v and _message(v) is not None
            for v in parsed.value
        )

    def read(self, parsed: Parsed, leaf_only: bool = False) -> list[Transcript]:
        values = parsed.value
        nodes: list[Node] = []
        loose: list[Problem] = []  # message lines no path can hold: told, never dropped
        for k, v in enumerate(values):
            if not isinstance(v, dict):
                raise ContainerError(
                    f"line {parsed.lines[k]} is not a JSON object", line=parsed.lines[k]
                )
            key = v.get("uuid")
            if not isinstance(key, str):
                if _message(v) is not None:
                    loose.append(
                        Problem(
                            MALFORMED,
                            0,
                            0,
                            "",
                            "",
                            f"line {parsed.lines[k]}: a message line ({v['type']}) has no "
                            "'uuid' string, so it is on no path and its calls and results "
                            "were not checked",
                            line=parsed.lines[k],
                        )
                    )
                continue  # summaries, file-history snapshots: not part of the tree
            parent = v.get("parentUuid")
            if not isinstance(parent, str):
                parent = v.get("logicalParentUuid")
            nodes.append(Node(key, parent if isinstance(parent, str) else None, k))
        ids: dict[str, int] = {}
        for v in values:
            msg = _message(v)
            if msg is not None and v.get("type") == "assistant" and isinstance(msg.get("id"), str):
                ids[msg["id"]] = ids.get(msg["id"], 0) + 1
        # the path walked last (held, so it is compared by identity), how many of its nodes
        # were counted, and the message ids of its assistant lines: the chain only grows
        # while one path is walked, so each of its lines is counted once
        on_path: list[Any] = [None, 0, set()]

        def absorbable(node: Node, chain: Sequence[Node]) -> bool:
            v = values[node.order]
            msg = _message(v)
            if msg is None:
                return True  # progress, system and other lines are not messages
            if v.get("type") == "user":
                return _results_only(msg)
            mid = msg.get("id")
            if not isinstance(mid, str) or ids.get(mid, 0) < 2:
                return False
            if on_path[0] is not chain:
                on_path[:] = [chain, 0, set()]
            found: set[str] = on_path[2]
            for n in chain[on_path[1] :]:
                line = values[n.order]
                m = _message(line)
                if (
                    m is not None
                    and line.get("type") == "assistant"
                    and isinstance(m.get("id"), str)
                ):
                    found.add(m["id"])
            on_path[1] = len(chain)
            return mid in found

        root_of = roots(nodes)
        groups: dict[int, list[Node]] = {}
        for n, r in zip(nodes, root_of, strict=True):
            groups.setdefault(r, []).append(n)
        out: list[Transcript] = []
        for r, group in sorted(groups.items(), key=lambda g: g[1][0].order):
            root = nodes[r].key
            side = values[group[0].order].get("isSidechain") is True
            kind = "sidechain" if side else "conversation"
            found = paths(group, absorbable, leaf_only)
            if not any(_message(values[k]) is not None for p in found for k in p.members):
                continue
            for p in found:
                leaf = values[p.members[-1]]["uuid"] if p.members else root
                state = "active" if p.active else "abandoned"
                label = f"{kind} from {root[:12]}, path to leaf {str(leaf)[:12]} ({state})"
                meta = {"leaf": leaf, "sidechain": side}
                out.append(self._transcript(parsed, list(p.members), label, p.active, meta))
                out[-1].problems.extend(skipped_problem(p))
        twice = [*duplicate_problems(nodes, lambda k: parsed.lines[k], "uuid"), *loose]
        if twice and out:  # the file's, told once: on the first active path
            next(t for t in out if t.active).problems.extend(twice)
        elif loose:
            raise ContainerError(loose[0].message, line=loose[0].line)
        return out

    def _transcript(
        self, parsed: Parsed, rows: list[int], label: str, active: bool, meta: dict[str, Any]
    ) -> Transcript:
        values = parsed.value
        messages: list[dict[str, Any]] = []
        origin: list[list[tuple[int, str]]] = []  # per message, per block: (row, pointer)
        native: set[tuple[int, int]] = set()
        last_assistant: dict[str, int] = {}
        for k in rows:
            msg = _message(values[k])
            if msg is None:
                continue
            role = values[k]["type"]
            content = msg.get("content")
            blocks = content if isinstance(content, list) else None
            mid = msg.get("id")
            if (
                role == "assistant"
                and isinstance(mid, str)
                and mid in last_assistant
                and blocks is not None
                and isinstance(messages[last_assistant[mid]]["content"], list)
            ):
                i = last_assistant[mid]
                messages[i]["content"].extend(blocks)
                origin[i].extend((k, f"/message/content/{j}") for j in range(len(blocks)))
                continue
            if blocks is None:
                messages.append({"role": role, "content": content})
                origin.append([(k, "/message/content")])
            else:
                messages.append({"role": role, "content": list(blocks)})
                origin.append([(k, f"/message/content/{j}") for j in range(len(blocks))])
            i = len(messages) - 1
            if role == "assistant" and isinstance(mid, str):
                last_assistant = {mid: i}
            elif role == "user" and not (blocks is not None and _results_only(msg)):
                last_assistant = {}
            flag = values[k].get("toolUseResult")
            if role == "user" and isinstance(flag, dict) and flag.get("interrupted") is True:
                native.update((i, j) for j in range(len(blocks or [])))
        try:
            entries = ANTHROPIC.entries(messages)
        except ShapeError as exc:
            row = origin[exc.index][0][0] if exc.index is not None else None
            line = parsed.lines[row] if row is not None else None
            raise ContainerError(f"{label}: {exc}", line=line) from None
        entries = [self._endings(e, messages, native) for e in entries]

        def locate(index: int, pointer: str) -> tuple[int | None, str | None]:
            if index >= len(origin) or not origin[index]:
                return None, None
            slot = int(pointer.rsplit("/", 1)[1]) if pointer.startswith("/content/") else 0
            row, inner = origin[index][min(slot, len(origin[index]) - 1)]
            return parsed.lines[row], inner if pointer else inner.rsplit("/content", 1)[0] or None

        problems = ANTHROPIC.id_problems(messages)
        return Transcript(
            label, ANTHROPIC, messages, entries, locate, active, meta, problems, origin
        )

    def write(self, parsed: Parsed, plan: list[tuple[Transcript, Pairing]]) -> bytes:
        """Only adds: each synthetic result is a new line; the line it precedes is linked to
        it (its ``parentUuid``, the one member repair changes), every other line as written."""
        values = parsed.value
        before: dict[int, list[dict[str, Any]]] = {}  # new lines before row k (len: the end)
        used = {v.get("uuid") for v in values if isinstance(v, dict)}
        for t, pairing in plan:
            origin: list[list[tuple[int, str]]] = t.repair
            after = max((r for rows in origin for r, _ in rows), default=-1) + 1
            for call, at in pairing.dangling:
                row = origin[call.index][call.slot][0]
                line = self._line(values[row], call, used)
                closing = origin[at.index] if at.index < len(origin) else []
                if closing:
                    k = closing[min(at.slot, len(closing) - 1)][0]
                else:  # the end of the path: after its last line, whatever follows in the file
                    k = after
                    line["parentUuid"] = FIXED
                before.setdefault(k, []).append(line)
        # link each new line in front of the line it precedes (or after the path's last line,
        # FIXED)
        texts: list[str] = []
        previous: Any = None  # the uuid of the last line written
        for k in range(len(values) + 1):
            pending = before.get(k, [])
            parent = values[k].get("parentUuid") if k < len(values) else None
            if pending:
                fixed = k == len(values) or pending[0]["parentUuid"] is FIXED
                chain = previous if fixed else parent
                for new in pending:
                    new["parentUuid"] = chain
                    chain = new["uuid"]
                    texts.append(dumps(new, separators=(",", ":")))
                if not fixed:
                    parent = chain
            if k == len(values):
                break
            if parent == values[k].get("parentUuid"):
                texts.append(parsed.texts[k])
            else:
                texts.append(dumps({**values[k], "parentUuid": parent}, separators=(",", ":")))
            previous = values[k].get("uuid")
        return ("\n".join(texts) + "\n").encode("utf-8")

    @staticmethod
    def _line(made: dict[str, Any], call: Any, used: set[Any]) -> dict[str, Any]:
        digest = hashlib.sha256(f"not-run:{call.id}".encode()).hexdigest()
        n = 0
        while True:
            h = hashlib.sha256(f"{digest}:{n}".encode()).hexdigest() if n else digest
            uid = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"
            if uid not in used:
                break
            n += 1
        used.add(uid)
        line: dict[str, Any] = {"parentUuid": None, "isSidechain": made.get("isSidechain") is True}
        for key in ("userType", "cwd", "sessionId", "version"):
            if key in made:
                line[key] = made[key]
        line["type"] = "user"
        line["message"] = {"role": "user", "content": [ANTHROPIC.synthetic(call, [])]}
        line["uuid"] = uid
        if "timestamp" in made:
            line["timestamp"] = made["timestamp"]  # the call's, never the clock
        return line

    @staticmethod
    def _endings(entry: Entry, messages: list[Any], native: set[tuple[int, int]]) -> Entry:
        content = messages[entry.index].get("content")
        parts: list[Part] = []
        for p in entry.parts:
            if isinstance(p, Result):
                text = p.content.strip()
                if (p.index, p.slot) in native or _TOOL_MARKER in text or text == PLACEHOLDER:
                    p = replace(p, interrupted=True, native=True)
                elif marker_like(text):
                    p = replace(p, interrupted=True)
            elif isinstance(p, Boundary) and entry.role == "user":
                block = content[p.slot] if isinstance(content, list) else content
                text = text_of([block]) if isinstance(block, dict) else text_of(block)
                if text.strip() in MARKERS:
                    parts.append(Ending(p.index, p.slot, text.strip()))
                    continue
            parts.append(p)
        return Entry(entry.index, entry.role, tuple(parts))


#: the registry member (verifier.transcripts.containers.CONTAINERS)
READER = ClaudeCode()

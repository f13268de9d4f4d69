"""The common transcript model and the pairing rules, walked in order over the whole history.

Every tool call gets exactly one result inside its answer window: from the entry that made
the call to the next entry that is not a tool result. A call interrupted before its result
must be closed by an explicit result (``not run: the turn was interrupted``), anywhere in
the history, not only at its end.
"""

from __future__ import annotations

from dataclasses import dataclass, field

INTERRUPTED_MARKER = "not run: the turn was interrupted"


@dataclass(frozen=True, slots=True)
class Call:
    index: int
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class Result:
    index: int
    call_id: str
    content: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class Entry:
    """One message. ``is_result`` entries hold results only; any other entry closes windows."""

    index: int
    role: str
    is_result: bool
    calls: tuple[Call, ...] = ()
    results: tuple[Result, ...] = ()


@dataclass(frozen=True, slots=True)
class Problem:
    # transcript.dangling-call | orphan-result | duplicate-result | misplaced-result | reused-id
    code: str
    index: int
    call_id: str
    tool: str
    message: str


@dataclass(slots=True)
class Pairing:
    calls: dict[str, Call] = field(default_factory=dict)
    results: dict[str, list[Result]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def pair(entries: list[Entry]) -> Pairing:
    """Walk the history in order; a result answers only a call still open at that point."""
    out = Pairing()
    open_calls: dict[str, Call] = {}
    unanswered_closed: dict[str, Call] = {}

    def close_window(at: int) -> None:
        for call in open_calls.values():
            out.problems.append(
                Problem(
                    "transcript.dangling-call",
                    call.index,
                    call.id,
                    call.name,
                    f"call {call.id} ({call.name}) has no result before entry {at}",
                )
            )
            unanswered_closed[call.id] = call
        open_calls.clear()

    for entry in entries:
        if not entry.is_result:
            close_window(entry.index)
            for call in entry.calls:
                if call.id in out.calls:
                    out.problems.append(
                        Problem(
                            "transcript.reused-id",
                            call.index,
                            call.id,
                            call.name,
                            f"call id {call.id} was already used at entry "
                            f"{out.calls[call.id].index}",
                        )
                    )
                    continue
                out.calls[call.id] = call
                open_calls[call.id] = call
            continue
        for result in entry.results:
            known = out.calls.get(result.call_id)
            name = known.name if known else "?"
            if result.call_id in open_calls:
                del open_calls[result.call_id]
                out.results.setdefault(result.call_id, []).append(result)
            elif result.call_id in out.results:
                out.problems.append(
                    Problem(
                        "transcript.duplicate-result",
                        result.index,
                        result.call_id,
                        name,
                        f"call {result.call_id} already has a result",
                    )
                )
            elif result.call_id in unanswered_closed:
                out.problems.append(
                    Problem(
                        "transcript.misplaced-result",
                        result.index,
                        result.call_id,
                        name,
                        f"result for {result.call_id} comes after its answer window closed",
                    )
                )
            else:
                out.problems.append(
                    Problem(
                        "transcript.orphan-result",
                        result.index,
                        result.call_id,
                        name,
                        f"result for {result.call_id} answers no open call",
                    )
                )
    close_window(len(entries))
    return out

"""The common transcript model and the pairing rules, walked once, in order, over the whole
history.

Every shape adapter turns a message list into :class:`Entry` values, each an ordered tuple of
parts: a :class:`Call`, a :class:`Result`, or a :class:`Boundary` (anything that starts a new
turn: user text, a system prompt, the start of an assistant message). The rules live here:

* a call is answered only by a result that comes after the message that made it and before
  the next boundary (its *answer window*); a call still open at a boundary, or at the end of
  the history, is **dangling**;
* a result answers the first call that is still open at that point with its id; a result
  without an id (legacy OpenAI functions, Gemini) answers the first open call without an id
  that has its tool name (Gemini: the first open call with its tool name);
* a result that answers nothing is an **orphan** (no such call before it), a **duplicate** (the
  call already has its result) or **misplaced** (the call's window had already closed);
* a call id used a second time is **reused** (the second call still gets paired): an error
  while an earlier call with that id has no result (a later result with that id could be
  meant for either), a note when every earlier call with it was answered (the walk pairs by
  position, so nothing is ambiguous; real histories do this);
* a result the shape marks as an interruption record must say :data:`INTERRUPTED_MARKER`;
* a result that answers a call by its id and also names a tool must name the call's tool
  (it still answers the call: the id decides).

Because the walk is in order, a late result, a duplicate, a reused id or a result placed
before its call can never hide a dangling call (the failure mode of comparing id sets), and a
dangling call followed by new user text is found wherever it sits (seed 004).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

INTERRUPTED_MARKER = "not run: the turn was interrupted"

DANGLING = "transcript.dangling-call"
ORPHAN = "transcript.orphan-result"
DUPLICATE = "transcript.duplicate-result"
MISPLACED = "transcript.misplaced-result"
REUSED = "transcript.reused-id"
REUSED_ANSWERED = "transcript.reused-answered-id"
UNMARKED = "transcript.unmarked-interruption"
NAME_MISMATCH = "transcript.name-mismatch"
MALFORMED = "transcript.malformed"
#: a transcript from which no message was read: nothing was checked, never a pass
EMPTY = "transcript.empty"
#: what an :data:`EMPTY` finding says after naming what was read (one sentence, no stop)
EMPTY_MESSAGE = (
    "nothing was checked: no message was read from it; give the file (or run) that holds "
    "the run's messages, or find why the run recorded none"
)
ABANDONED = "transcript.abandoned-dangling-call"
UNRESOLVED = "transcript.unresolved-reference"

# Text a result may say when a harness marks an interruption its own way; a reader that sees it
# in a result it does not know as its harness's marker marks the result as an interruption
# record, so it must say the one marker (an unknown marker-like result stays a finding).
_MARKER_LIKE = re.compile(
    r"^\W*(request |tool (call |use )?|turn )?(was )?(interrupted|cancell?ed|aborted|not run)\b"
    r"|interrupted by (the )?user",
    re.IGNORECASE,
)


def marker_like(text: str) -> bool:
    """Whether ``text`` reads like an interruption marker (of any harness, or ours)."""
    return bool(_MARKER_LIKE.search(text[:200]))


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call: message ``index``, the part's position ``slot`` in that message."""

    index: int
    slot: int
    id: str  # the call id; for shapes without ids, a positional name "#<index>.<n>"
    name: str
    has_id: bool = True
    pointer: str = ""  # the part, relative to the message
    ended: str = ""  # the harness ended it itself (Pi stopReason aborted): it needs no result
    #: the call's arguments as the history holds them (an object, or the JSON text some
    #: shapes write), ``None`` where the shape or the history does not hold them
    arguments: Any = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Result:
    """A tool result. ``call_id`` is ``None`` where the shape pairs by position and name."""

    index: int
    slot: int
    call_id: str | None
    name: str | None
    content: str
    is_error: bool = False
    interrupted: bool = False  # the shape marks it as an interruption record
    pointer: str = ""
    loose: bool = False  # without an id, it may also answer a call that has one (Gemini)
    native: bool = False  # the harness's own interruption marker: an explicit ending


@dataclass(frozen=True, slots=True)
class Ending:
    """A harness's own explicit ending (Claude Code's ``[Request interrupted by user for tool
    use]``, an OpenHands agent stopped, a SWE-agent ``exit_*`` status): every call still open
    here is ended, not dangling; then the turn is over, as at a boundary."""

    index: int
    slot: int
    why: str


@dataclass(frozen=True, slots=True)
class Boundary:
    """Something that starts a new turn: every open answer window closes here."""

    index: int
    slot: int


Part = Call | Result | Boundary | Ending


@dataclass(frozen=True, slots=True)
class Entry:
    """One message (or item) of the history, as an ordered tuple of parts."""

    index: int
    role: str
    parts: tuple[Part, ...] = ()

    @property
    def calls(self) -> tuple[Call, ...]:
        return tuple(p for p in self.parts if isinstance(p, Call))

    @property
    def results(self) -> tuple[Result, ...]:
        return tuple(p for p in self.parts if isinstance(p, Result))


@dataclass(frozen=True, slots=True)
class Position:
    """Where an answer window closed: before part ``slot`` of message ``index``; an ``index``
    equal to the number of messages means the end of the history."""

    index: int
    slot: int


@dataclass(frozen=True, slots=True)
class Problem:
    code: str
    index: int
    slot: int
    call_id: str
    tool: str
    message: str
    pointer: str = ""
    #: a problem of a container's line rather than of a message (a tree's duplicate id): the
    #: line it is on, and ``index`` is not a message's
    line: int | None = None

    def sort_key(self) -> tuple[int, int, str, str]:
        return (self.index, self.slot, self.code, self.call_id)


@dataclass(slots=True)
class Pairing:
    """What the walk found. ``calls`` holds the first call per id; ``results`` the results that
    answered a call, by call id; ``answers`` the same per call."""

    calls: dict[str, Call] = field(default_factory=dict)
    results: dict[str, list[Result]] = field(default_factory=dict)
    answers: dict[Call, Result] = field(default_factory=dict)
    dangling: list[tuple[Call, Position]] = field(default_factory=list)
    unmatched: list[tuple[Result, str]] = field(default_factory=list)  # result, code
    ended: list[tuple[Call, str]] = field(default_factory=list)  # calls the harness ended
    problems: list[Problem] = field(default_factory=list)
    messages: int = 0  # the end of the history: one past its last message


def _where(index: int, messages: int) -> str:
    return "the end of the history" if index >= messages else f"message {index}"


class _Open:
    """The calls still open, in the order they were made, indexed so that every look-up and
    removal a result needs is constant time (a message of thousands of parallel calls answered
    in any order is paired in linear time)."""

    def __init__(self) -> None:
        self.all: dict[Call, None] = {}  # insertion-ordered: a set that keeps order
        self.by_id: dict[str, dict[Call, None]] = {}
        self.by_name: dict[str, dict[Call, None]] = {}
        self.idless: dict[Call, None] = {}
        self.idless_by_name: dict[str, dict[Call, None]] = {}

    def _groups(self, call: Call) -> list[dict[Call, None]]:
        out = [self.all, self.by_name.setdefault(call.name, {})]
        if call.has_id:
            out.append(self.by_id.setdefault(call.id, {}))
        else:
            out.extend((self.idless, self.idless_by_name.setdefault(call.name, {})))
        return out

    def add(self, call: Call) -> None:
        for group in self._groups(call):
            group[call] = None

    def remove(self, call: Call) -> None:
        for group in self._groups(call):
            del group[call]

    def first(self, group: dict[Call, None] | None) -> Call | None:
        return next(iter(group), None) if group else None

    def clear(self) -> list[Call]:
        out = list(self.all)
        for index in (self.all, self.by_id, self.by_name, self.idless, self.idless_by_name):
            index.clear()
        return out


class _Walk:
    def __init__(self, messages: int) -> None:
        self.out = Pairing(messages=messages)
        self.open = _Open()
        self.by_id: dict[str, list[Call]] = {}
        self.by_name: dict[str, list[Call]] = {}
        self.idless_by_name: dict[str, list[Call]] = {}
        self.unanswered: dict[str, dict[Call, None]] = {}  # per id, calls without a result
        self.closed_at: dict[Call, Position] = {}

    def problem(self, code: str, part: Call | Result, call_id: str, tool: str, text: str) -> None:
        self.out.problems.append(
            Problem(code, part.index, part.slot, call_id, tool, text, part.pointer)
        )

    def close(self, at: Position) -> None:
        where = _where(at.index, self.out.messages)
        for call in self.open.clear():
            self.closed_at[call] = at
            self.out.dangling.append((call, at))
            self.problem(
                DANGLING,
                call,
                call.id,
                call.name,
                f"message {call.index}: call {call.id} ({call.name}) has no result before {where}",
            )

    def end(self, at: Position, why: str) -> None:
        for call in self.open.clear():
            self.closed_at[call] = at
            self.out.ended.append((call, why))

    def register(self, calls: list[Call]) -> None:
        for call in calls:
            if call.has_id and call.id in self.by_id:
                earlier = self.by_id[call.id]
                unanswered = self.open.first(self.unanswered.get(call.id))
                if unanswered is not None:
                    self.problem(
                        REUSED,
                        call,
                        call.id,
                        call.name,
                        f"message {call.index}: call id {call.id} ({call.name}) was already "
                        f"used in message {unanswered.index} by a call that has no result, "
                        f"so a later result with that id could belong to either",
                    )
                else:
                    self.problem(
                        REUSED_ANSWERED,
                        call,
                        call.id,
                        call.name,
                        f"message {call.index}: call id {call.id} ({call.name}) was already "
                        f"used in message {earlier[-1].index}, by a call answered before this "
                        f"one was made",
                    )
            if call.has_id:
                self.by_id.setdefault(call.id, []).append(call)
                self.unanswered.setdefault(call.id, {})[call] = None
                self.out.calls.setdefault(call.id, call)
            else:
                self.idless_by_name.setdefault(call.name, []).append(call)
            self.by_name.setdefault(call.name, []).append(call)
            if call.ended:
                self.closed_at[call] = Position(call.index + 1, 0)
                self.out.ended.append((call, call.ended))
            else:
                self.open.add(call)

    def match(self, result: Result) -> None:
        # the first open call the result can answer: by its id; without an id, the first
        # open call without one (any call, for a loose result) that has its tool name
        o = self.open
        earlier: list[Call]
        if result.call_id is not None:
            target = o.first(o.by_id.get(result.call_id))
            earlier = self.by_id.get(result.call_id, [])
        elif result.loose:
            target = o.first(o.all if result.name is None else o.by_name.get(result.name))
            earlier = self.by_name.get(result.name or "", [])
        else:
            named = o.idless if result.name is None else o.idless_by_name.get(result.name)
            target = o.first(named)
            earlier = self.idless_by_name.get(result.name or "", [])
        if target is not None:
            self.open.remove(target)
            if target.has_id:
                del self.unanswered[target.id][target]
            self.out.answers[target] = result
            self.out.results.setdefault(target.id, []).append(result)
            if result.call_id is not None and result.name not in (None, target.name):
                self.problem(
                    NAME_MISMATCH,
                    result,
                    target.id,
                    target.name,
                    f"message {result.index}: the result for {target.id} names the tool "
                    f"{result.name!r}, but the call in message {target.index} was to "
                    f"{target.name!r}",
                )
            if (
                result.interrupted
                and not result.native
                and result.content.strip() != INTERRUPTED_MARKER
            ):
                self.problem(
                    UNMARKED,
                    result,
                    target.id,
                    target.name,
                    f"message {result.index}: the result for {target.id} ({target.name}) is "
                    f"marked as an interruption record but does not say "
                    f"{INTERRUPTED_MARKER!r}",
                )
            return
        prior = earlier[-1] if earlier else None
        tool = prior.name if prior is not None else (result.name or "?")
        if prior is None:
            code = ORPHAN
            what = f"{result.call_id} ({tool})" if result.call_id is not None else tool
            text = f"the result for {what} answers no call made before it"
        elif prior in self.out.answers:
            code = DUPLICATE
            text = (
                f"call {prior.id} ({tool}) already has its result in message "
                f"{self.out.answers[prior].index}"
            )
        else:
            code = MISPLACED
            closed = self.closed_at[prior]
            text = (
                f"the result for {prior.id} ({tool}) comes after its call's answer window "
                f"closed at {_where(closed.index, self.out.messages)}"
            )
        call_id = prior.id if prior is not None else (result.call_id or "")
        self.out.unmatched.append((result, code))
        self.problem(code, result, call_id, tool, f"message {result.index}: {text}")


def pair(entries: list[Entry], messages: int | None = None) -> Pairing:
    """Walk the history in order; a result answers only a call still open at that point.

    ``messages``: how many messages the history holds (default: one past the last entry's
    message). The end of the history is that position, in messages: a shape may read one
    message as several entries (an ``mcp_call`` with its own result, an ATIF step and its
    observation), so the number of entries is not where the history ends.
    """
    end = messages if messages is not None else max((e.index for e in entries), default=-1) + 1
    walk = _Walk(end)
    for entry in entries:
        made: list[Call] = []
        for part in entry.parts:
            if isinstance(part, Boundary):
                walk.close(Position(part.index, part.slot))
            elif isinstance(part, Ending):
                walk.end(Position(part.index, part.slot), part.why)
            elif isinstance(part, Call):
                made.append(part)
            else:
                walk.match(part)
        # A message's calls open after the whole message: a result in the same message as its
        # call is not in the call's window.
        walk.register(made)
    walk.close(Position(end, 0))
    walk.out.problems.sort(key=Problem.sort_key)
    return walk.out

"""Benchmark result files that hold many runs, one history each: every run is a transcript of
its own, named by its place in the file and its task (``output.jsonl#3
(django__django-11099)``), so one file is checked, and repaired, without splitting it.

* ``openhands-output``: the ``output.jsonl`` an OpenHands evaluation writes (its
  ``EvalOutput``, one JSON object per line, per instance): ``instance_id``, ``instruction``,
  ``test_result``, ``metadata``, ``metrics``, ``error`` and ``history``, the run's events as
  the ``openhands`` container reads them (``action``/``observation``, ``cause``). Older
  outputs store ``history`` as ``[action, observation]`` pairs; those are read in order too
  (repair does not write them).
* ``tau-bench``: the JSON list a tau-bench run writes (its ``EnvRunResult``): ``task_id``,
  ``reward``, ``info``, ``trial`` and ``traj``, the run's OpenAI chat messages.

A run that is not the form its format defines is a ``transcript.malformed`` finding of that
run; the others are still checked. Repair rewrites only the runs it repairs: in JSON Lines
every other line is kept byte for byte.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from verifier.json.write import dumps
from verifier.transcripts.containers.interface import (
    ContainerError,
    Parsed,
    Reader,
    Transcript,
    one_history,
)
from verifier.transcripts.containers.openhands import EVENTS
from verifier.transcripts.interface import Shape
from verifier.transcripts.pairing import MALFORMED, Pairing, Problem
from verifier.transcripts.rewrite import repaired_messages

DUPLICATE = "transcript.duplicate-id"
#: the index of a run's own problem (not a message's): its locate gives the run's id member
RUN = -1


def _file(parsed: Parsed) -> str:
    """How a run's name starts: the file's name (``stdin`` for standard input)."""
    return "stdin" if parsed.name == "-" else os.path.basename(parsed.name) or parsed.name


def _label(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    return str(value)


def _broken(name: str, shape: Shape, why: str, where: tuple[int | None, str | None]) -> Transcript:
    """A run that cannot be read: a transcript with no messages and one malformed finding."""
    problem = Problem(MALFORMED, 0, 0, "", "", f"not read: {why}")
    return Transcript(name, shape, [], [], lambda _i, _p: where, problems=[problem])


def _run(
    name: str,
    shape: Shape,
    messages: Any,
    base: str,
    meta: dict[str, Any],
    line: int | None,
) -> Transcript:
    """One run's transcript, its findings located at ``base`` (on ``line`` in JSON Lines)."""
    if not isinstance(messages, list):
        return _broken(name, shape, f"no {base.rsplit('/', 1)[1]!r} array", (line, base))
    try:
        t = one_history(name, shape, messages, base, meta)
    except ContainerError as exc:
        return _broken(name, shape, str(exc), (line, exc.pointer or base))
    if line is not None:
        inner: Callable[[int, str], tuple[int | None, str | None]] = t.locate
        t.locate = lambda index, pointer: (line, inner(index, pointer)[1])
    return t


def _claimed(
    t: Transcript, key: tuple[str, ...], what: str, pointer: str, seen: dict[tuple[str, ...], str]
) -> None:
    """Mark ``t`` when an earlier run of the file claimed the same ``key`` (``what``: an
    instance, a task and trial): ``transcript.duplicate-id`` at the run's ``pointer``, both
    runs still checked."""
    first = seen.setdefault(key, t.name)
    if first == t.name:
        return
    inner = t.locate

    def locate(index: int, p: str) -> tuple[int | None, str | None]:
        return (inner(0, "")[0], pointer) if index == RUN else inner(index, p)

    t.locate = locate
    message = (
        f"the same {what} as {first}: both runs were checked, but which is the {what}'s "
        f"run is unknown; keep one run per {what}"
    )
    t.problems.insert(0, Problem(DUPLICATE, RUN, 0, "", "", message))


class OpenHandsOutput(Reader):
    name = "openhands-output"
    title = "OpenHands evaluation output (output.jsonl)"
    lines = True

    def claims(self, parsed: Parsed) -> bool:
        return parsed.is_lines and _holds_runs(parsed.value, "instance_id", "history")

    def read(self, parsed: Parsed, leaf_only: bool = False) -> list[Transcript]:
        out = []
        base = _file(parsed)
        seen: dict[tuple[str, ...], str] = {}
        for k, entry in enumerate(parsed.value):
            line = parsed.lines[k]
            if not isinstance(entry, dict):
                out.append(_broken(f"{base}#{k}", EVENTS, "not a JSON object", (line, None)))
                continue
            instance = _label(entry.get("instance_id"))
            name = f"{base}#{k}" + (f" ({instance})" if instance is not None else "")
            meta = {"taskId": instance} if instance is not None else {}
            history = entry.get("history")
            if isinstance(history, list) and history and all(_pair(p) for p in history):
                events = [e for p in history for e in p]  # older outputs: (action, observation)
                t = _run(name, EVENTS, events, "/history", meta, line)
                t.locate = _in_pairs(t.locate, len(events))
                t.repair = None
            else:
                t = _run(name, EVENTS, history, "/history", meta, line)
            if instance is not None:
                _claimed(t, (instance,), "instance", "/instance_id", seen)
            out.append(t)
        return out

    def write(self, parsed: Parsed, plan: list[tuple[Transcript, Pairing]]) -> bytes:
        texts = list(parsed.texts)
        runs = _runs(parsed.value, "history")
        for t, pairing in plan:
            if t.repair is None:
                raise ContainerError(f"{t.name}: repair does not write [action, observation] pairs")
            k = runs[id(t.messages)]
            events, _ = repaired_messages(t.shape, t.messages, pairing)
            ids = [
                v for m in t.messages if isinstance(m, dict) and isinstance(v := m.get("id"), int)
            ]
            top = max(ids) if ids else 0
            fresh = {id(m) for m in t.messages}
            numbered = []
            for m in events:
                if id(m) not in fresh:
                    top += 1
                    m = {**m, "id": top}
                numbered.append(m)
            texts[k] = dumps({**parsed.value[k], "history": numbered}, separators=(",", ":"))
        return ("\n".join(texts) + "\n").encode("utf-8")


def _runs(values: list[Any], key: str) -> dict[int, int]:
    """Each run's place in the file, by the identity of its message list (one pass, so
    repairing many runs stays linear)."""
    return {id(e[key]): k for k, e in enumerate(values) if isinstance(e, dict) and key in e}


Locate = Callable[[int, str], tuple[int | None, str | None]]


def _in_pairs(flat: Locate, count: int) -> Locate:
    """Where event ``i`` of the flattened pairs sits: ``/history/{i // 2}/{i % 2}``."""

    def locate(index: int, pointer: str) -> tuple[int | None, str | None]:
        where = f"/history/{index // 2}/{index % 2}{pointer}" if index < count else None
        return flat(index, pointer)[0], where

    return locate


def _holds_runs(value: Any, key: str, messages: str) -> bool:
    """Whether ``value`` is a non-empty list of runs, each naming ``key`` beside its list of
    ``messages``."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(
            isinstance(e, dict) and key in e and isinstance(e.get(messages), list) for e in value
        )
    )


def _pair(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(isinstance(x, dict) for x in value)


class TauBench(Reader):
    name = "tau-bench"
    title = "tau-bench results"

    def claims(self, parsed: Parsed) -> bool:
        return not parsed.is_lines and _holds_runs(parsed.value, "task_id", "traj")

    def read(self, parsed: Parsed, leaf_only: bool = False) -> list[Transcript]:
        from verifier.transcripts import SHAPES

        chat = SHAPES["openai-chat"]
        if not isinstance(parsed.value, list):
            raise ContainerError("not a JSON array of runs")
        out = []
        base = _file(parsed)
        seen: dict[tuple[str, ...], str] = {}
        for k, entry in enumerate(parsed.value):
            if not isinstance(entry, dict):
                out.append(_broken(f"{base}#{k}", chat, "not a JSON object", (None, f"/{k}")))
                continue
            task, trial = _label(entry.get("task_id")), _label(entry.get("trial"))
            what = ", ".join(x for x in (task and f"task {task}", trial and f"trial {trial}") if x)
            name = f"{base}#{k}" + (f" ({what})" if what else "")
            meta = {"taskId": task} if task is not None else {}
            t = _run(name, chat, entry.get("traj"), f"/{k}/traj", meta, None)
            if task is not None:
                key = (task, trial or "")
                _claimed(t, key, "task and trial", f"/{k}/task_id", seen)
            out.append(t)
        return out

    def write(self, parsed: Parsed, plan: list[tuple[Transcript, Pairing]]) -> bytes:
        runs = list(parsed.value)
        where = _runs(runs, "traj")
        for t, pairing in plan:
            k = where[id(t.messages)]
            messages, _ = repaired_messages(t.shape, t.messages, pairing)
            runs[k] = {**runs[k], "traj": messages}
        return (dumps(runs, indent=2) + "\n").encode("utf-8")


#: the registry members (verifier.transcripts.containers.CONTAINERS)
OPENHANDS_OUTPUT = OpenHandsOutput()
TAU_BENCH = TauBench()

"""Inspect AI logs: an ``.eval`` zip (``header.json``, ``samples/<id>_epoch_<n>.json``, ...)
or the older single ``.json`` (``eval``, ``samples[]``). Each sample is a transcript, named by
its sample id and epoch (and the task).

* Messages are Inspect ``ChatMessage`` values: an assistant's ``tool_calls[]`` (``id``,
  ``function`` the tool's name) are answered by ``{"role": "tool", "tool_call_id"}``, in the
  OpenAI Chat window (before the next user or assistant message).
* A user message with a ``tool_call_id`` list carries the content of those tool results (an
  image a tool message cannot hold, ``ChatMessageUser`` in ``model/_chat_message.py``): it
  does not start a turn. A tool message without ``tool_call_id`` (optional in the model)
  answers no call it names: an orphan.
* A tool message whose ``error.type`` is ``cancelled`` is Inspect's own interruption
  marker: an explicit ending. Other error types (``timeout``, ``approval``, ...) are results.
* References are resolved before pairing, as Inspect's ``resolve_sample_attachments``
  (``log/_condense.py``) does: a string ``attachment://<id>`` (or the older ``tc://<id>``)
  anywhere inside a message is the sample's ``attachments[id]``. A reference to nothing is
  ``transcript.unresolved-reference`` (Inspect leaves such a string as it is). The sample's
  ``message_pool`` / ``events_data`` hold the inputs of its model *events* (``input_refs``
  ranges), never its ``messages``, so they are not read: every ``messages`` entry must be a
  message object.
* A message's ``id`` is unique in the sample (Inspect's message pool and its condensing key
  messages by it): two messages with one id are ``transcript.duplicate-id``; both are read.
* The task is named by ``header.json`` (a finished log) or ``_journal/start.json`` (a log
  still being written, or one whose run died), ``eval.task``.
* The zip is read under the project's zip rules (:mod:`verifier.sources.zip`): a member
  whose name is unsafe or read differently by tools, over the size or ratio limit, damaged or
  encrypted is ``transcript.unreadable-member``; so is a zstd member (method 93) when the
  ``zstandard`` package is not importable.

Repair rewrites each repaired sample's ``messages``: an older ``.json`` log is written back
whole, an ``.eval`` zip as a new zip with those sample members replaced (written
deterministically, every member read under the zip rules first: :mod:`.eval_zip`). The
synthetic result is Inspect's own tool message, ``{"role": "tool", "tool_call_id",
"function", "content": MARKER, "error": {"type": "cancelled", "message": MARKER}}``.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

from verifier.json.write import dumps
from verifier.transcripts.containers.eval_zip import (
    LIMITS,
    TOTAL_LIMIT,
    member_data,
    open_eval,
    rewrite_eval,
)
from verifier.transcripts.containers.interface import (
    ContainerError,
    Parsed,
    Reader,
    Transcript,
    chat_calls,
)
from verifier.transcripts.document import DocumentError, strict_value
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
    UNRESOLVED,
    Boundary,
    Call,
    Entry,
    Pairing,
    Part,
    Problem,
    Result,
    marker_like,
)
from verifier.transcripts.rewrite import repaired_messages

REF = "attachment://"
OLD_REF = "tc://"  # the earlier content protocol Inspect still reads
HEADS = ("header.json", "_journal/start.json")  # a finished log, a log still written


class InspectMessages(Shape):
    name = "inspect-messages"
    title = "Inspect AI chat messages"

    def entries(self, messages: list[Any]) -> list[Entry]:
        out: list[Entry] = []
        for i in range(len(messages)):
            msg = message_at(messages, i)
            role = string_at(msg, "role", i, "the message")
            parts: list[Part] = []
            if role == "tool":
                # ChatMessageTool.tool_call_id is optional: a tool message without one answers
                # no call it can name (Inspect's calls always have ids), so it is an orphan
                cid = msg.get("tool_call_id")
                if cid is not None:
                    cid = string_at(msg, "tool_call_id", i, "a tool message")
                fn = msg.get("function")
                error = msg.get("error")
                kind = error.get("type") if isinstance(error, dict) else None
                text = text_of(msg.get("content"))
                cancelled = kind == "cancelled"
                parts.append(
                    Result(
                        i,
                        0,
                        cid,
                        fn if isinstance(fn, str) else None,
                        text,
                        error is not None,
                        cancelled or marker_like(text),
                        native=cancelled,
                    )
                )
            elif role == "user" and isinstance(msg.get("tool_call_id"), list):
                pass  # ChatMessageUser.tool_call_id: the content payload of tool results
            else:
                parts.append(Boundary(i, 0))
                calls = msg.get("tool_calls")
                if role == "assistant" and isinstance(calls, list):
                    parts.extend(chat_calls(calls, i))
            out.append(Entry(i, role, tuple(parts)))
        return out

    def id_problems(self, messages: list[Any]) -> list[Problem]:
        uses = [
            (m["id"], i, "/id")
            for i, m in enumerate(messages)
            if isinstance(m, dict) and isinstance(m.get("id"), str)
        ]
        return duplicate_ids(uses, "message id", "Inspect keys messages by their id")

    def synthetic(self, call: Call, messages: list[Any]) -> Any:
        return {
            "role": "tool",
            "content": INTERRUPTED_MARKER,
            "tool_call_id": call.id,
            "function": call.name,
            "error": {"type": "cancelled", "message": INTERRUPTED_MARKER},
        }


MESSAGES = InspectMessages()


def _resolve(sample: dict[str, Any], base: str) -> tuple[list[Any], list[Problem], list[Any]]:
    """The sample's messages with references resolved, the unresolved ones as problems, and
    the original ``messages`` entries (to write back)."""
    raw = sample.get("messages")
    if not isinstance(raw, list):
        raise ContainerError(f"{base}: the sample has no 'messages' array")
    attachments = sample.get("attachments")
    attachments = attachments if isinstance(attachments, dict) else {}
    problems: list[Problem] = []
    out = [_deep(m, attachments, i, problems) for i, m in enumerate(raw)]
    return out, problems, raw


def _deep(value: Any, attachments: dict[str, Any], i: int, problems: list[Problem]) -> Any:
    """``value`` with every ``attachment://`` string replaced (iterative, bounded by size)."""
    if isinstance(value, str):
        prefix = REF if value.startswith(REF) else OLD_REF if value.startswith(OLD_REF) else ""
        if prefix:
            got = attachments.get(value[len(prefix) :])
            if isinstance(got, str):
                return got
            problems.append(
                Problem(
                    UNRESOLVED,
                    i,
                    0,
                    "",
                    "",
                    f"message {i}: the reference {value} resolves to nothing",
                )
            )
        return value
    if isinstance(value, dict):
        changed = {k: _deep(v, attachments, i, problems) for k, v in value.items()}
        return value if all(changed[k] is value[k] for k in value) else changed
    if isinstance(value, list):
        items = [_deep(v, attachments, i, problems) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


class InspectLog(Reader):
    name = "inspect"
    title = "Inspect AI log"

    def claims(self, parsed: Parsed) -> bool:
        v = parsed.value
        if v is None:
            return parsed.error == "a zip file" and self._zip_names(parsed.data) is not None
        return (
            isinstance(v, dict)
            and isinstance(v.get("eval"), dict)
            and isinstance(v.get("samples"), list)
        )

    @staticmethod
    def _zip_names(data: bytes) -> list[str] | None:
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                names = [i.orig_filename for i in z.infolist()[: LIMITS.max_entries]]
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError):
            return None
        if not any(n.startswith("samples/") or n in HEADS for n in names):
            return None
        return names

    def read(self, parsed: Parsed, leaf_only: bool = False) -> list[Transcript]:
        if parsed.value is None:
            return self._read_zip(parsed)
        log = parsed.value
        if not isinstance(log, dict) or not isinstance(log.get("samples"), list):
            raise ContainerError("not an Inspect log: no 'samples' array")
        task = self._task(log.get("eval"))
        out = []
        for s, sample in enumerate(log["samples"]):
            out.append(self._sample(sample, f"/samples/{s}", task, None))
        return out

    @staticmethod
    def _task(ev: Any) -> str | None:
        if isinstance(ev, dict):
            for key in ("task", "task_id"):
                if isinstance(ev.get(key), str):
                    return str(ev[key])
        return None

    def _read_zip(self, parsed: Parsed) -> list[Transcript]:
        archive, handle, infos = open_eval(parsed.data)
        budget = [TOTAL_LIMIT]
        task: str | None = None
        out: list[Transcript] = []
        names = {i.orig_filename: i for i in infos}
        for head in HEADS:
            if head in names:
                try:
                    value = strict_value(member_data(archive, names[head], handle, budget))
                except (ContainerError, DocumentError):
                    continue
                task = self._task(value.get("eval") if isinstance(value, dict) else None)
                break
        for info in sorted(infos, key=lambda i: i.orig_filename):
            if not info.orig_filename.startswith("samples/") or not info.orig_filename.endswith(
                ".json"
            ):
                continue
            member = info.orig_filename
            try:
                data = member_data(archive, info, handle, budget)
                sample = strict_value(data)
            except ContainerError as exc:
                out.append(self._broken(member, exc.code, str(exc)))
                continue
            except DocumentError as exc:
                out.append(
                    self._broken(member, "transcript.malformed", f"{member}: not JSON: {exc}")
                )
                continue
            out.append(self._sample(sample, "", task, member))
        return out

    @staticmethod
    def _broken(member: str, code: str, text: str) -> Transcript:
        def locate(index: int, pointer: str) -> tuple[int | None, str | None]:
            return None, None

        problem = Problem(code, 0, 0, "", "", text)
        return Transcript(member, MESSAGES, [], [], locate, True, {"member": member}, [problem])

    def _sample(self, sample: Any, base: str, task: str | None, member: str | None) -> Transcript:
        if not isinstance(sample, dict):
            raise ContainerError(f"{base or member}: a sample is not an object")
        sid, epoch = sample.get("id"), sample.get("epoch")
        name = f"sample {sid} epoch {epoch}"
        if task:
            name += f" of task {task}"
        if member:
            name += f" ({member})"
        messages, problems, raw = _resolve(sample, base or str(member))
        try:
            entries = MESSAGES.entries(messages)
        except ShapeError as exc:
            raise ContainerError(
                f"{name}: {exc}", pointer=f"{base}/messages/{exc.index}{exc.pointer}"
            ) from None

        def locate(index: int, pointer: str) -> tuple[int | None, str | None]:
            return (
                (None, f"{base}/messages/{index}{pointer}")
                if index < len(messages)
                else (None, None)
            )

        meta: dict[str, Any] = {"sampleId": sid, "epoch": epoch}
        if task:
            meta["taskId"] = task
        if member:
            meta["member"] = member
        problems.extend(MESSAGES.id_problems(messages))
        return Transcript(
            name, MESSAGES, messages, entries, locate, True, meta, problems, (base, raw, sample)
        )

    def write(self, parsed: Parsed, plan: list[tuple[Transcript, Pairing]]) -> bytes:
        """A ``.json`` log written back whole; an ``.eval`` zip rewritten with each repaired
        sample's member replaced (:func:`~verifier.transcripts.containers.eval_zip.rewrite_eval`).
        Only a sample's ``messages`` change: its ``events`` (the model calls as made) stay."""
        repaired: list[tuple[str, dict[str, Any]]] = []
        for t, pairing in plan:
            base, raw, sample = t.repair
            messages, _ = repaired_messages(t.shape, t.messages, pairing)
            back = {id(m): r for m, r in zip(t.messages, raw, strict=True)}
            out = [back.get(id(m), m) for m in messages]  # unchanged: as written, refs kept
            repaired.append((base or str(t.meta["member"]), {**sample, "messages": out}))
        if parsed.value is None:
            members = {m: (dumps(v, indent=2) + "\n").encode("utf-8") for m, v in repaired}
            return rewrite_eval(parsed.data, members)
        log = parsed.value
        samples = list(log["samples"])
        for base, value in repaired:
            samples[int(base.rsplit("/", 1)[1])] = value
        return (dumps({**log, "samples": samples}, indent=2) + "\n").encode("utf-8")


#: the registry member (verifier.transcripts.containers.CONTAINERS)
READER = InspectLog()

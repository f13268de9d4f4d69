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
* The task is named by ``header.json`` (a finished log) or ``_journal/start.json`` (a log
  still being written, or one whose run died), ``eval.task``.
* The zip is read under the project's zip rules (:mod:`verifier.sources.zip`): a member
  whose name is unsafe or read differently by tools, over the size or ratio limit, damaged or
  encrypted is ``transcript.unreadable-member``; so is a zstd member (method 93) when the
  ``zstandard`` package is not importable.

Repair rewrites an older ``.json`` log (each sample's ``messages``); it does not rewrite an
``.eval`` zip.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from typing import Any

from verifier.json.write import dumps
from verifier.sources.safety import MIB, EntryType, Limits, member_name
from verifier.sources.zip import entry_type, name_problem, open_member
from verifier.transcripts.containers.interface import ContainerError, Parsed, Reader, Transcript
from verifier.transcripts.document import DocumentError, strict_value
from verifier.transcripts.interface import Shape, ShapeError, message_at, string_at, text_of
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
ZSTD = 93
UNREADABLE = "transcript.unreadable-member"
MEMBER_LIMIT = 256 * MIB  # one sample decompressed
TOTAL_LIMIT = 1024 * MIB  # every sample read from one log
LIMITS = Limits()
HEADS = ("header.json", "_journal/start.json")  # a finished log, a log still written


class InspectMessages(Shape):
    name = "inspect-messages"
    title = "Inspect AI chat messages"

    def features(self, messages: list[Any]) -> bool:
        return False

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
                    for k, tc in enumerate(calls):
                        pointer = f"/tool_calls/{k}"
                        if not isinstance(tc, dict):
                            raise ShapeError(
                                f"message {i}: a tool call is not an object", i, pointer
                            )
                        cid = string_at(tc, "id", i, "a tool call", pointer)
                        fn = tc.get("function")
                        if isinstance(fn, dict):
                            fn = fn.get("name")
                        parts.append(
                            Call(i, k, cid, fn if isinstance(fn, str) else "?", pointer=pointer)
                        )
            out.append(Entry(i, role, tuple(parts)))
        return out

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


def _member_data(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, handle: Any, budget: list[int]
) -> bytes:
    name, problem = member_name(info.orig_filename)
    problem = problem or name_problem(info, handle)
    if name is None or problem:
        raise ContainerError(f"{info.orig_filename!r}: {problem}", UNREADABLE)
    if entry_type(info) is not EntryType.FILE:
        raise ContainerError(f"{name}: not a regular file", UNREADABLE)
    size = info.file_size
    if size > MEMBER_LIMIT or size > budget[0]:
        raise ContainerError(f"{name}: {size} bytes is over the limit", UNREADABLE)
    if size > LIMITS.ratio_floor and size > LIMITS.max_ratio * max(info.compress_size, 1):
        raise ContainerError(
            f"{name}: the compression ratio is over the limit (a bomb)", UNREADABLE
        )
    budget[0] -= size
    if info.compress_type == ZSTD:
        try:
            import zstandard  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            raise ContainerError(
                f"{name} is compressed with zstd (zip method 93), which this Python cannot "
                "decode; install the 'zstandard' package (pip install 'verifier[zstd]')",
                UNREADABLE,
            ) from None
        handle.seek(info.header_offset + 26)
        n, m = int.from_bytes(handle.read(2), "little"), int.from_bytes(handle.read(2), "little")
        handle.seek(info.header_offset + 30 + n + m)
        raw = handle.read(info.compress_size)
        try:
            out: bytes = zstandard.ZstdDecompressor().decompress(raw, max_output_size=size)
        except zstandard.ZstdError as exc:
            raise ContainerError(f"{name}: damaged zstd member ({exc})", UNREADABLE) from None
        if len(out) != size or zlib.crc32(out) != info.CRC:
            raise ContainerError(
                f"{name}: the zstd member is not the size or CRC-32 it declares", UNREADABLE
            )
        return out
    try:
        with open_member(archive, info) as stream:
            return stream.read(size + 1)
    except OSError as exc:
        raise ContainerError(f"{name}: {exc}", UNREADABLE) from None


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
        handle = io.BytesIO(parsed.data)
        try:
            archive = zipfile.ZipFile(handle)
            infos = archive.infolist()
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
            raise ContainerError(f"the zip cannot be read ({exc})", UNREADABLE) from None
        if len(infos) > LIMITS.max_entries:
            raise ContainerError("the zip has too many members", UNREADABLE)
        budget = [TOTAL_LIMIT]
        task: str | None = None
        out: list[Transcript] = []
        names = {i.orig_filename: i for i in infos}
        for head in HEADS:
            if head in names:
                try:
                    value = strict_value(_member_data(archive, names[head], handle, budget))
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
                data = _member_data(archive, info, handle, budget)
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
        return Transcript(
            name, MESSAGES, messages, entries, locate, True, meta, problems, (base, raw)
        )

    def write(self, parsed: Parsed, plan: list[tuple[Transcript, Pairing]]) -> bytes:
        if parsed.value is None:
            raise ContainerError("repair does not rewrite an Inspect .eval zip (only a .json log)")
        log = parsed.value
        samples = list(log["samples"])
        for t, pairing in plan:
            base, raw = t.repair
            messages, _ = repaired_messages(t.shape, t.messages, pairing)
            back = {id(m): r for m, r in zip(t.messages, raw, strict=True)}
            s = int(base.rsplit("/", 1)[1])
            samples[s] = {**samples[s], "messages": [back.get(id(m), m) for m in messages]}
        return (dumps({**log, "samples": samples}, indent=2) + "\n").encode("utf-8")


#: the registry member (verifier.transcripts.containers.CONTAINERS)
READER = InspectLog()

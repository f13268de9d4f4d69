"""An AI Agent Action v0.1 log read from its bytes: one record per line, each with its chain
hash and its link to the record before it.

A line is a gateway's audit record as it wrote it (``{"id": ..., "previousHash": ...,
"attestation": ...}``; a tool call has no ``type``, a checkpoint and a chain break say so). Its
chain hash is the SHA-256 of the line's bytes without the line ending, as written: never of a
re-serialization. Blank lines are skipped (as the reference reader skips them).

Refused records, each a finding on its line: a line that is not one JSON object (strictly
parsed: duplicate keys, invalid UTF-8 and nesting past 256 are refused there), a ``type`` the
predicate does not define, ``extensions`` nested deeper than 128 levels (outermost bracket
1), an integer field at or past 2^53, a required field missing or of the wrong type. A
refused record still holds its place in the chain (so one bad line is one finding, not one
per record after it), but nothing it says is taken as witnessed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from verifier.findings import Finding
from verifier.json.parse import loads_strict
from verifier.witness.signing import SAFE
from verifier.witness.statements import NotAStatement, is_wrapped, record_of, unwrap

TOOL_CALL, CHECKPOINT, CHAIN_BREAK = "tool_call", "checkpoint", "chain_break"
KINDS = (TOOL_CALL, CHECKPOINT, CHAIN_BREAK)
GENESIS = "genesis"
MAX_EXTENSION_DEPTH = 128
MAX_SHOWN = 200  # characters of a value quoted in a message

#: the fields each record type must hold, and the type each must be
_REQUIRED: Mapping[str, tuple[tuple[str, type], ...]] = MappingProxyType(
    {
        TOOL_CALL: (
            ("id", str),
            ("timestamp", str),
            ("method", str),
            ("durationMs", int),
            ("success", bool),
            ("previousHash", str),
        ),
        CHECKPOINT: (
            ("id", str),
            ("timestamp", str),
            ("sequence", int),
            ("recordCount", int),
            ("previousHash", str),
        ),
        CHAIN_BREAK: (("id", str), ("timestamp", str), ("reason", str)),
    }
)
#: the same for a Statement's predicate (it has no record id; a tool call's chain is optional
#: there, and a tool call without one is not part of any chain)
_REQUIRED_IN_STATEMENT: Mapping[str, tuple[tuple[str, type], ...]] = MappingProxyType(
    {
        TOOL_CALL: (
            ("timestamp", str),
            ("method", str),
            ("toolName", str),
            ("durationMs", int),
            ("success", bool),
        ),
        CHECKPOINT: (
            ("timestamp", str),
            ("sequence", int),
            ("recordCount", int),
            ("previousHash", str),
        ),
        CHAIN_BREAK: (("timestamp", str), ("reason", str)),
    }
)
#: fields that are integers (or null) when present
_INTEGERS = (
    "durationMs",
    "errorCode",
    "sequence",
    "recordCount",
    "priorSequence",
    "priorRecordCount",
)
_TYPE_NAMES: Mapping[Any, str] = MappingProxyType(
    {str: "a string", int: "an integer", bool: "a boolean"}
)
_OPTIONAL_STRINGS = ("toolName", "namespace", "upstream", "principal", "priorHead")


@dataclass(slots=True)
class Entry:
    """One record of the log."""

    line: int  # 1-based, of the file
    digest: str  # its chain hash
    kind: str  # one of KINDS, or the unknown type as written ("" if not a string)
    record: dict[str, Any]
    refused: bool = False  # a finding refused it: nothing in it counts as witnessed
    #: ``line`` (the gateway's record), ``statement`` (an in-toto Statement: its chain hash
    #: claimed by its subject), ``dsse`` (a Statement in an envelope)
    form: str = "line"
    #: an envelope's pre-authentication encoding and its signatures
    envelope: tuple[bytes, list[bytes]] | None = field(default=None, repr=False)
    #: the chain hash it continues from: ``previousHash`` (a tool call, a checkpoint), or
    #: ``None`` (a chain break, which points back with ``priorHead`` instead)
    link: str | None = None

    @property
    def prior_head(self) -> str | None:
        head = self.record.get("priorHead")
        return head if isinstance(head, str) else None


def shown(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return repr(text[:MAX_SHOWN] + ("..." if len(text) > MAX_SHOWN else ""))


def _depth_of(value: Any) -> int:
    """Nesting depth of a parsed value (outermost container 1), iteratively."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, depth)
            items = node.values() if isinstance(node, dict) else node
            stack.extend((item, depth + 1) for item in items)
    return deepest


def _problems(record: dict[str, Any], kind: str, form: str) -> list[tuple[str, str, str]]:
    """``(code, pointer, message)`` for what refuses a record of a known ``kind``."""
    out: list[tuple[str, str, str]] = []
    required = _REQUIRED if form == "line" else _REQUIRED_IN_STATEMENT
    for name, wanted in required[kind]:
        value = record.get(name)
        good = type(value) is bool if wanted is bool else isinstance(value, wanted)
        if wanted is int and type(value) is bool:
            good = False
        if not good:
            what = "missing" if name not in record else f"not {_TYPE_NAMES[wanted]}"
            out.append(
                (
                    "chain.malformed",
                    f"/{name}",
                    f"The {kind} record's {name} is {what}; a gateway writes it on every "
                    f"{kind}, so this record cannot be taken as written by one.",
                )
            )
    for name in _INTEGERS:
        value = record.get(name)
        if value is None or any(p[1] == f"/{name}" for p in out):
            continue
        if type(value) is not int:
            out.append(
                (
                    "chain.malformed",
                    f"/{name}",
                    f"The record's {name} is {shown(value)}, not an integer or null.",
                )
            )
        elif abs(value) >= SAFE:
            out.append(
                (
                    "chain.unsafe-integer",
                    f"/{name}",
                    f"The record's {name} is {value}, at or past 2^53: readers of the log "
                    "disagree on its value, so the record is refused.",
                )
            )
    for name in _OPTIONAL_STRINGS:
        value = record.get(name)
        if value is not None and not isinstance(value, str):
            out.append(
                ("chain.malformed", f"/{name}", f"The record's {name} is not a string or null.")
            )
    if "extensions" in record and _depth_of(record["extensions"]) > MAX_EXTENSION_DEPTH:
        out.append(
            (
                "chain.too-deep",
                "/extensions",
                f"The record's extensions nest deeper than {MAX_EXTENSION_DEPTH} levels, "
                "which the predicate refuses.",
            )
        )
    return out


def read_log(path: str, data: bytes) -> tuple[list[Entry], list[Finding]]:
    """The records of the log ``data`` (at ``path``), in file order, and what refused some."""
    entries: list[Entry] = []
    findings: list[Finding] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        line = raw[:-1] if raw.endswith(b"\r") else raw
        if not line.strip():
            continue
        digest = hashlib.sha256(line).hexdigest()
        value, problems = loads_strict(line)  # (nesting past 256 refused unparsed)
        if problems or not isinstance(value, dict):
            reason = problems[0].message if problems else "it is not a JSON object"
            findings.append(
                Finding(
                    "chain.malformed",
                    path,
                    f"Line {number} is not one record of the log ({reason}); the records "
                    "after it that continue from it cannot be checked against it.",
                    line=number,
                )
            )
            entries.append(Entry(number, digest, "", {}, refused=True))
            continue
        form, envelope = "line", None
        if is_wrapped(value):
            try:
                statement, envelope = unwrap(value)
                claimed, _, value = record_of(statement)
            except NotAStatement as exc:
                findings.append(
                    Finding(
                        "chain.malformed",
                        path,
                        f"Line {number} is not a record of an AI Agent Action log ({exc}).",
                        line=number,
                    )
                )
                entries.append(Entry(number, digest, "", {}, refused=True))
                continue
            form, digest = ("dsse" if envelope is not None else "statement"), claimed
        kind_value = value.get("type", TOOL_CALL)
        kind = kind_value if isinstance(kind_value, str) else ""
        entry = Entry(number, digest, kind, value, form=form, envelope=envelope)
        link = value.get("previousHash")
        entry.link = link if isinstance(link, str) and kind != CHAIN_BREAK else None
        if kind not in KINDS:
            entry.refused = True
            findings.append(
                Finding(
                    "chain.unknown-type",
                    path,
                    f"The record's type {shown(kind_value)} is none of tool_call (no type), "
                    "checkpoint and chain_break, so the record is refused (the predicate "
                    "requires it).",
                    pointer="/type",
                    line=number,
                )
            )
        else:
            for code, pointer, message in _problems(value, kind, form):
                entry.refused = True
                findings.append(Finding(code, path, message, pointer=pointer, line=number))
        entries.append(entry)
    return entries, findings


__all__ = ["CHAIN_BREAK", "CHECKPOINT", "GENESIS", "KINDS", "TOOL_CALL", "Entry", "read_log"]

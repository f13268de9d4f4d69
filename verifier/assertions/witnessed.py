"""``witnessed-calls``: the agent's own transcript against an independent witness's log of the
same session (a witness log the spec names in ``witnesses``, read as
:func:`verifier.witness.read_chain` gives it).

Every tool call of the transcript, in order, must have the witnessed call at the same place in
the chain with the same tool (the gateway's ``toolName``, or ``namespace/name``), whose request
digest (where the witness holds one) is the RFC 8785 digest of the call's arguments (as the
bare arguments, as MCP's ``params`` ``{"name", "arguments"}``, or wrapped as in the
predicate's worked example ``{"method": "tools/call", "params": ...}``), and whose success
agrees with the transcript's result (an error result with a failure, any other result with a
success); and every witnessed call must be in the transcript.

A call whose result is the interruption marker says the tool was not run. A witnessed record
of it says the tool did run: the disagreement the seeds are about. It fails this assertion,
unless the spec states it (``ranDespiteMarker``: the call ids the archive knows ran although
their result is the marker); then the witness must show each of them ran, and the detail says
how it ended. A log whose chain has an error (see its validity findings) cannot be taken in
order: the assertion is not evaluated on it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

import rfc8785

from verifier.assertions.interface import (
    AssertionKind,
    Context,
    Cover,
    EvalError,
    Need,
    Outcome,
    SpecError,
    param,
    plain,
    quote,
)
from verifier.assertions.interrupted import transcript_entries
from verifier.json.parse import loads_strict
from verifier.transcripts.archive import call_views
from verifier.transcripts.pairing import INTERRUPTED_MARKER
from verifier.values.witness import TranscriptFacts, WitnessedFacts

MAX_SHOWN = 5  # problems named in the outcome; the rest counted


def _digests(arguments: Any, names: Iterable[str]) -> set[str] | str:
    """The RFC 8785 SHA-256 digests a call's ``arguments`` may have been witnessed under, or
    why there are none."""
    if arguments is None:
        return "the transcript does not hold its arguments"
    if isinstance(arguments, str):  # (OpenAI writes them as JSON text)
        parsed, problems = loads_strict(arguments.encode("utf-8", "surrogatepass"))
        if problems:
            return "its arguments are JSON text that does not parse"
        arguments = parsed
    forms: list[Any] = [arguments]
    for name in dict.fromkeys(names):
        params = {"name": name, "arguments": arguments}
        forms += [params, {"method": "tools/call", "params": params}]
    try:
        return {hashlib.sha256(rfc8785.dumps(form)).hexdigest() for form in forms}
    except (rfc8785.CanonicalizationError, UnicodeError, ValueError, TypeError):
        return "its arguments have no RFC 8785 form (a number beyond 2^53, a lone surrogate)"


def _same_tool(call: dict[str, Any], seen: dict[str, Any]) -> bool:
    tool, namespace, name = seen.get("toolName"), seen.get("namespace"), call["name"]
    return tool == name or (isinstance(namespace, str) and tool == f"{namespace}/{name}")


def _transcript_calls(ctx: Context, path: str) -> list[dict[str, Any]]:
    """The calls of the transcript at ``path``, in order (:func:`call_views`): a transcript
    record, or a file the spec's ``transcripts`` declare holding one active history."""
    document = ctx.document(path)
    if not isinstance(document, TranscriptFacts):
        return call_views(transcript_entries(ctx, path))
    active = [t for t in document["transcripts"] if t["active"]]
    if len(active) != 1:
        names = ", ".join(quote(str(t["name"])) for t in active[:MAX_SHOWN])
        raise EvalError(
            f"{plain(path)} holds {len(active)} active transcripts{f' ({names})' if names else ''}"
            ": witnessed-calls pairs one history with the witness's log"
        )
    calls: list[dict[str, Any]] = active[0]["calls"]
    return calls


class WitnessedCalls(AssertionKind):
    name = "witnessed-calls"

    def needs(self, spec: dict[str, Any]) -> Iterable[Need]:
        for key in ("transcript", "witness"):
            if isinstance(spec.get(key), str):
                yield Need(spec[key], "")  # read whole: paired here
        yield from super().needs(spec)

    def covers(self, spec: dict[str, Any]) -> Iterable[Cover]:
        # (the witnessed calls' tool, success and request digest are compared with the
        # transcript's; the transcript is paired, not compared leaf by leaf)
        witness = spec.get("witness")
        if isinstance(witness, str):
            yield Cover(witness, "/calls")

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        path, log = param(spec, "transcript"), param(spec, "witness")
        marker = spec.get("marker", INTERRUPTED_MARKER)
        ran = spec.get("ranDespiteMarker", [])
        if not isinstance(marker, str) or not marker:
            raise SpecError("'marker' must be a non-empty string", "/marker")
        if not isinstance(ran, list) or not all(isinstance(r, str) for r in ran):
            raise SpecError("'ranDespiteMarker' must be a list of call ids", "/ranDespiteMarker")
        witnessed = ctx.document(log)
        # (only the chain's reader makes these facts: a JSON record shaped like them is no
        # witness, whatever it says it checked)
        if not isinstance(witnessed, WitnessedFacts):
            raise EvalError(f"{plain(log)} is not a witness log the spec's 'witnesses' name")
        if witnessed.get("intact") is not True:
            raise EvalError(
                f"the chain of {plain(log)} has errors (see its validity findings), so its "
                "calls cannot be taken as the witness's, in order"
            )
        calls = _transcript_calls(ctx, path)
        seen: list[dict[str, Any]] = [c for c in witnessed["calls"] if isinstance(c, dict)]
        unknown = sorted(set(ran) - {c["id"] for c in calls})
        if unknown:
            raise SpecError(
                f"'ranDespiteMarker' names {', '.join(map(quote, unknown))}, not a call of "
                f"{plain(path)}",
                "/ranDespiteMarker",
            )
        problems: list[str] = []
        notes: list[str] = []
        compared = 0
        for call, record in zip(calls, seen, strict=False):
            cid, name = call["id"], call["name"]
            where = f"call {quote(cid)} ({name}) and the witness's line {record.get('line')}"
            if not _same_tool(call, record):
                problems.append(
                    f"{where} name different tools ({quote(str(record.get('toolName')))})"
                )
                continue
            result = call["result"]
            interrupted = call["ended"] or (
                result is not None and (result["interrupted"] or result["content"] == marker)
            )
            success = record.get("success") is True
            how = "succeeded" if success else "failed"
            if interrupted:
                if cid in ran:
                    notes.append(
                        f"call {quote(cid)} ended in the marker, and the witness saw the "
                        f"tool run and {how}"
                    )
                else:
                    problems.append(
                        f"{where}: the transcript's result is the interruption marker, but the "
                        f"witness saw the tool run and {how}: the tool did run (say so in "
                        "ranDespiteMarker if the archive knows it)"
                    )
                    continue
            elif cid in ran:
                problems.append(
                    f"call {quote(cid)} is in ranDespiteMarker, but its result is not the marker"
                )
                continue
            elif result is None:
                problems.append(
                    f"{where}: the transcript holds no result, the witness saw it {how}"
                )
                continue
            elif result["isError"] == success:
                said = "an error" if result["isError"] else "a success"
                problems.append(
                    f"{where}: the transcript's result is {said}, the witness saw it {how}"
                )
                continue
            digest = record.get("request")
            if isinstance(digest, str):
                names = [name, str(record.get("toolName"))]
                given = _digests(call["arguments"], names)
                if isinstance(given, str):
                    problems.append(f"{where}: the witness holds a request digest, but {given}")
                elif digest not in given:
                    problems.append(
                        f"{where}: the witness's request digest is not that of the call's arguments"
                    )
                else:
                    compared += 1
        for call in calls[len(seen) :]:
            problems.append(f"call {quote(call['id'])} ({call['name']}) has no witnessed record")
        for record in seen[len(calls) :]:
            problems.append(
                f"the witness saw a call of {quote(str(record.get('toolName')))} (line "
                f"{record.get('line')}) that the transcript does not hold"
            )
        for call_id in ran:
            if call_id in {c["id"] for c in calls[len(seen) :]}:
                problems.append(
                    f"call {quote(call_id)} is in ranDespiteMarker, but the witness has no "
                    "record of it"
                )
        if problems:
            shown = problems[:MAX_SHOWN]
            more = len(problems) - len(shown)
            return Outcome.failed("; ".join(shown) + (f"; and {more} more" if more else ""))
        if not calls:
            return Outcome.vacuous(
                f"{plain(path)} holds no tool call and the witness saw none: nothing was compared"
            )
        signed = "checked" if witnessed.get("signed") else "not checked (no --witness-key)"
        agreeing = len(calls) - len(notes)
        details = [
            f"{len(calls)} call(s) witnessed in order with the same tool, {agreeing} of them "
            f"with the same outcome and {len(notes)} stated as run despite the marker",
            f"{compared} request digest(s) equal",
            f"the witness's signatures {signed}",
            *notes,
        ]
        return Outcome.passed("; ".join(details))


#: the registry member (verifier.assertions.KINDS)
WITNESSED_CALLS = WitnessedCalls()

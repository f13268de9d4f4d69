"""An AI Agent Action v0.1 log checked as the predicate asks: the chain walked forward from its
start following the unique successor, its checkpoints and chain breaks against the records
before them, an externally kept checkpoint looked for, the records' signatures checked where
a key is given, and the fields no party attests named.

The walk. A record continues from the one whose chain hash its ``previousHash`` holds; the
chain starts at the record whose ``previousHash`` is ``"genesis"``, and a chain break starts
a segment of its own (it carries no ``previousHash``; its ``priorHead`` points back at the
head it broke from, and the record after it continues from the break's own hash). From each
start the walk takes the one record that continues from the current one; two such records are
a fork (two histories after one record: which is the gateway's the log cannot say). Set
membership is never enough: a record that no walk reaches (its predecessor is not in the log)
is reported, once for the run of records hanging from it.

What a finding proves, and what it cannot: a broken link or a gap proves records were dropped
or changed, never who did it or why (a crash and an adversary look the same); a chain that
walks clean proves only that the records agree with each other. Without the gateway's key
anyone can write such a chain, and without a checkpoint kept outside the archive, records cut
from its end leave no trace: both are said in notes on the log.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from verifier.findings import Finding, Severity
from verifier.values.witness import WitnessedFacts, WitnessSettings
from verifier.witness.log import (
    CHAIN_BREAK,
    CHECKPOINT,
    GENESIS,
    TOOL_CALL,
    Entry,
    read_log,
    shown,
)
from verifier.witness.signing import Unsignable, signing_form, verifies

MAX_LINES_SHOWN = 5
NO_SETTINGS = WitnessSettings()  # no key, no external checkpoint


def _lines(entries: Iterable[Entry]) -> str:
    numbers = [str(e.line) for e in entries]
    more = len(numbers) - MAX_LINES_SHOWN
    return ", ".join(numbers[:MAX_LINES_SHOWN]) + (f" and {more} more" if more > 0 else "")


@dataclass(slots=True)
class _Segment:
    """One walk: from a start (the genesis record, a chain break) to the last record."""

    path: list[Entry]
    sequence: int = 0  # the last checkpoint's sequence along it
    tools: int = 0  # tool calls along it


class _Walk:
    def __init__(self, path: str, entries: list[Entry]) -> None:
        self.path = path
        self.entries = entries
        self.findings: list[Finding] = []
        self.by_hash: dict[str, Entry] = {}
        self.children: dict[str, list[Entry]] = {}
        for entry in entries:
            self.by_hash.setdefault(entry.digest, entry)
            if entry.link is not None and entry.link != GENESIS:
                self.children.setdefault(entry.link, []).append(entry)
        self.reached: set[int] = set()  # lines a walk took (the chain) or a fork holds
        self.segments: list[_Segment] = []
        #: where each record of a segment stands: (segment, index in its path, checkpoint
        #: sequence and tool calls up to and with it)
        self.at: dict[int, tuple[_Segment, int, int, int]] = {}

    def find(
        self, code: str, entry: Entry | None, message: str, pointer: str | None = None
    ) -> None:
        line = entry.line if entry is not None else None
        self.findings.append(Finding(code, self.path, message, pointer=pointer, line=line))

    def run(self) -> None:
        starts = [e for e in self.entries if e.link == GENESIS or e.kind == CHAIN_BREAK]
        geneses = [e for e in starts if e.link == GENESIS]
        for extra in geneses[1:]:
            self.find(
                "chain.second-genesis",
                extra,
                f"A second record continues from 'genesis' (the first is on line "
                f"{geneses[0].line}): the chain was replaced from here, which the predicate "
                "calls evidence of tampering; find out which history is the gateway's.",
                "/previousHash",
            )
        if not starts and self.entries:
            self.find(
                "chain.no-genesis",
                self.entries[0],
                "No record continues from 'genesis' and none is a chain break, so the chain "
                "has no start to walk from: its first records are missing (or this is a "
                "later part of a rotated log; give the whole log).",
            )
        for start in starts:
            self.segments.append(self._walk(start))
        self._unreached()
        for segment in self.segments:
            self._counts(segment)
        for segment in self.segments:
            if segment.path[0].kind == CHAIN_BREAK:
                self._break(segment.path[0])

    def _walk(self, start: Entry) -> _Segment:
        segment = _Segment([start])
        self.reached.add(start.line)
        current = start
        while True:
            nexts = [e for e in self.children.get(current.digest, ()) if e.line not in self.reached]
            if not nexts:
                return segment
            if len(nexts) > 1:
                self.find(
                    "chain.fork",
                    current,
                    f"Lines {_lines(nexts)} all continue from this record: the log holds "
                    "more than one history after it, and which one the gateway wrote it "
                    f"cannot say; the chain is followed along line {nexts[0].line}.",
                )
                for other in nexts[1:]:
                    self._hold(other)
            current = nexts[0]
            if current.line < segment.path[-1].line:
                self.find(
                    "chain.out-of-order",
                    current,
                    f"This record continues from line {segment.path[-1].line}, which comes "
                    "after it in the file: the log's lines are not in the order the gateway "
                    "wrote them.",
                )
            self.reached.add(current.line)
            segment.path.append(current)

    def _hold(self, entry: Entry) -> None:
        """A fork's other branch: reported with the fork, never walked as the chain."""
        stack = [entry]
        while stack:
            node = stack.pop()
            if node.line in self.reached:
                continue
            self.reached.add(node.line)
            stack.extend(self.children.get(node.digest, ()))

    def _unreached(self) -> None:
        """Each run of records no walk reached, once, at its first record."""
        rest = [e for e in self.entries if e.line not in self.reached]
        tops = [e for e in rest if e.link is None or e.link not in self.by_hash]
        tops += [e for e in rest if e not in tops]  # (records in a loop of links: any)
        for top in tops:
            if top.line in self.reached:
                continue
            before = len(self.reached)
            self._hold(top)
            hanging = len(self.reached) - before - 1
            below = f" ({hanging} more records continue from it)" if hanging else ""
            if top.link is not None and top.link not in self.by_hash:
                why = (
                    f"its previousHash {shown(top.link)} is the chain hash of no record of the "
                    "log: the records between were dropped, or one was changed"
                )
            elif top.link is None:
                why = "it names no record it continues from (no previousHash)"
            else:
                why = "no walk from the chain's start reaches it"
            self.find(
                "chain.unlinked",
                top,
                f"This record is not part of the chain{below}: {why}. The log cannot say who "
                "dropped or changed them.",
                "/previousHash" if top.link is not None else None,
            )

    def _counts(self, segment: _Segment) -> None:
        sequence = tools = 0
        for index, entry in enumerate(segment.path):
            record = entry.record
            if entry.kind == TOOL_CALL:
                tools += 1
            elif entry.kind == CHECKPOINT and not entry.refused:
                seq, count = record["sequence"], record["recordCount"]
                if seq <= sequence:
                    self.find(
                        "chain.checkpoint-sequence",
                        entry,
                        f"The checkpoint's sequence {seq} does not follow the checkpoint "
                        f"before it in the chain ({sequence}): checkpoints were dropped, "
                        "replayed or rewritten.",
                        "/sequence",
                    )
                if count != tools:
                    self.find(
                        "chain.checkpoint-count",
                        entry,
                        f"The checkpoint counts {count} tool-call records since the chain's "
                        f"start, but the chain holds {tools} before it: records were dropped "
                        "or added between checkpoints.",
                        "/recordCount",
                    )
                sequence = seq if type(seq) is int else sequence
            self.at[entry.line] = (segment, index, sequence, tools)
        segment.sequence, segment.tools = sequence, tools

    def _break(self, entry: Entry) -> None:
        record = entry.record
        head = entry.prior_head
        if entry.refused:
            return
        if head is None:
            if entry is not self.entries[0]:
                self.find(
                    "chain.break-unbound",
                    entry,
                    "The chain break names no prior head, so nothing binds it to the records "
                    "before it: a break planted after dropping records looks the same. Check "
                    "the gateway's own state or an external checkpoint.",
                    "/priorHead",
                )
            return
        prior = self.by_hash.get(head)
        place = self.at.get(prior.line) if prior is not None else None
        if prior is None or place is None:
            where = (
                "no record of the log: the records before the break are missing from it"
                if prior is None
                else f"line {prior.line}, which is not part of the chain (see its finding)"
            )
            self.find(
                "chain.break-prior",
                entry,
                f"The chain break's priorHead {shown(head)} is the chain hash of {where}.",
                "/priorHead",
            )
            return
        segment, index, sequence, tools = place
        if index != len(segment.path) - 1:
            after = segment.path[index + 1]
            self.find(
                "chain.break-prior",
                entry,
                f"The chain break says the chain ended at line {prior.line}, but line "
                f"{after.line} continues from it: the gateway broke the chain while records "
                "after its head existed.",
                "/priorHead",
            )
        for name, want in (("priorSequence", sequence), ("priorRecordCount", tools)):
            given = record.get(name)
            if (given or 0) != want:
                self.find(
                    "chain.break-prior",
                    entry,
                    f"The chain break's {name} is {given}, but the chain up to its prior head "
                    f"has {want}.",
                    f"/{name}",
                )


def _signatures(path: str, entries: list[Entry], settings: WitnessSettings) -> list[Finding]:
    if not entries:
        return []
    if not settings.keys:
        return [
            Finding(
                "chain.signatures-unchecked",
                path,
                "No witness key was given (--witness-key), so the records' attestations were "
                "not checked: the chain shows its records agree with each other, not that the "
                "gateway wrote them (anyone can write a chain that walks).",
            )
        ]
    out: list[Finding] = []
    for entry in entries:
        if entry.kind not in (TOOL_CALL, CHECKPOINT, CHAIN_BREAK) or not entry.record:
            continue
        if entry.form != "line":
            out.extend(_envelope(path, entry, settings))
            continue
        attestation = entry.record.get("attestation")
        if not isinstance(attestation, str) or not attestation:
            out.append(
                Finding(
                    "chain.unsigned",
                    path,
                    "The record has no attestation, so nothing says the gateway wrote it.",
                    pointer="/attestation",
                    line=entry.line,
                )
            )
            continue
        try:
            message = signing_form(entry.kind, entry.record)
        except Unsignable as exc:
            out.append(
                Finding(
                    "chain.bad-signature",
                    path,
                    f"The record has no signing form ({exc}), so its attestation cannot be "
                    "checked: readers of the log would disagree on what was signed.",
                    pointer="/attestation",
                    line=entry.line,
                )
            )
            continue
        if not any(verifies(key, message, attestation.lower()) for key in settings.keys):
            names = ", ".join(sorted({f"{k.algorithm} ({k.source})" for k in settings.keys}))
            out.append(
                Finding(
                    "chain.bad-signature",
                    path,
                    f"The record's attestation is not a signature by the witness key ({names}) "
                    "over its signing form: the record was changed after it was signed, or "
                    "another key signed it.",
                    pointer="/attestation",
                    line=entry.line,
                )
            )
    return out


def _envelope(path: str, entry: Entry, settings: WitnessSettings) -> list[Finding]:
    """A Statement's signature: its envelope's, by an Ed25519 witness key over DSSE's
    pre-authentication encoding (a bare Statement has none)."""
    if entry.envelope is None:
        return [
            Finding(
                "chain.unsigned",
                path,
                "The record is a bare in-toto Statement: nothing signs it, so nothing says "
                "the gateway wrote it (a DSSE envelope would).",
                line=entry.line,
            )
        ]
    message, signatures = entry.envelope
    keys = [k for k in settings.keys if k.algorithm == "ed25519"]
    if any(verifies(k, message, s.hex()) for k in keys for s in signatures):
        return []
    return [
        Finding(
            "chain.bad-signature",
            path,
            "No signature of the record's DSSE envelope is an Ed25519 witness key's "
            f"({len(signatures)} signature(s), {len(keys)} Ed25519 key(s) given): the "
            "Statement was changed after it was signed, or another key signed it.",
            line=entry.line,
        )
    ]


def _claimed(path: str, entries: list[Entry]) -> list[Finding]:
    wrapped = [e for e in entries if e.form != "line"]
    if not wrapped:
        return []
    return [
        Finding(
            "chain.hashes-claimed",
            path,
            f"{len(wrapped)} record(s) (lines {_lines(wrapped)}) are in-toto Statements: each "
            "one's chain hash is its subject digest as stated, not computed from the gateway's "
            "line, so the links between them are checked and the hashes themselves are not.",
            line=wrapped[0].line,
        )
    ]


def _external(path: str, walk: _Walk, settings: WitnessSettings) -> list[Finding]:
    given = [c for c in settings.checkpoints if c.applies_to(path)]
    if not walk.entries:
        return []
    if not given:
        return [
            Finding(
                "chain.tail-unanchored",
                path,
                "No checkpoint kept outside the archive was given for this log (--checkpoint), "
                "so records cut from its end would leave no trace.",
            )
        ]
    chained = [e for s in walk.segments for e in s.path if e.kind == CHECKPOINT and not e.refused]
    out = []
    for kept in given:
        if not any(
            e.record["previousHash"] == kept.previous_hash
            and e.record["sequence"] == kept.sequence
            and e.record["recordCount"] == kept.record_count
            for e in chained
        ):
            out.append(
                Finding(
                    "chain.head-missing",
                    path,
                    f"The checkpoint kept outside the archive ({kept.source}: sequence "
                    f"{kept.sequence}, {kept.record_count} records, head "
                    f"{kept.previous_hash[:16]}...) is not in the chain: records up to it were "
                    "cut from the log, or the chain was replaced; the log cannot say who did it.",
                )
            )
    return out


def _unattested(path: str, entries: list[Entry]) -> list[Finding]:
    """Fields no party's scope names, once per record type and set of fields."""
    seen: dict[tuple[str, tuple[str, ...]], list[Entry]] = {}
    for entry in entries:
        parties = entry.record.get("parties")
        if entry.refused or not isinstance(parties, list):
            continue  # (no parties: every field is the gateway's, the legacy reading)
        scoped = {"parties", "attestation"}  # (the attribution and the signature itself)
        for party in parties:
            scope = party.get("scope") if isinstance(party, dict) else None
            if isinstance(scope, list):
                scoped.update(s for s in scope if isinstance(s, str))
        loose = tuple(sorted(k for k in entry.record if k not in scoped))
        if loose:
            seen.setdefault((entry.kind, loose), []).append(entry)
    out = []
    for (kind, loose), where in seen.items():
        out.append(
            Finding(
                "chain.unattested-field",
                path,
                f"{len(where)} {kind} record(s) (lines {_lines(where)}) hold fields no party "
                f"attests: {', '.join(loose)}; their provenance is unknown, so take them as "
                "nobody's word.",
                line=where[0].line,
            )
        )
    return out


def _digest(record: dict[str, Any], side: str) -> str | None:
    """A tool call's content digest of its request or response, as a gateway record
    (``contentDigestRequest``) or a Statement (``contentDigest.request.sha256``) holds it."""
    flat = record.get("contentDigest" + side.capitalize())
    if isinstance(flat, str):
        return flat
    nested = record.get("contentDigest")
    part = nested.get(side) if isinstance(nested, dict) else None
    value = part.get("sha256") if isinstance(part, dict) else None
    return value if isinstance(value, str) else None


def _witnessed(walk: _Walk, findings: list[Finding]) -> dict[str, Any]:
    """What the log witnessed, for assertions (``witnessed-calls``): its tool calls along the
    chain, in order (a fork's other branch and refused records left out), and whether the
    chain is intact (no error found in it)."""
    calls = []
    witnesses: set[str] = set()
    for segment in walk.segments:
        for entry in segment.path:
            if entry.kind != TOOL_CALL or entry.refused:
                continue
            record = entry.record
            claims = record.get("aiInvocation")
            session = claims.get("sessionId") if isinstance(claims, dict) else None
            parties = record.get("parties")
            for party in parties if isinstance(parties, list) else ():
                if isinstance(party, dict) and party.get("role") == "witness":
                    name = party.get("party")
                    witnesses.add(name if isinstance(name, str) else "?")
            calls.append(
                {
                    "line": entry.line,
                    "toolName": record.get("toolName"),
                    "namespace": record.get("namespace"),
                    "success": record.get("success"),
                    "outcome": "succeeded" if record.get("success") is True else "failed",
                    "request": _digest(record, "request"),
                    "response": _digest(record, "response"),
                    "sessionId": session if isinstance(session, str) else None,
                }
            )
    intact = not any(f.severity is Severity.ERROR for f in findings)
    signed = intact and not any(f.code == "chain.signatures-unchecked" for f in findings)
    names = ", ".join(sorted(witnesses)) or "an unnamed gateway (no parties)"
    checked = "signatures checked" if signed else "signatures not checked"
    return WitnessedFacts(
        calls=calls,
        intact=intact,
        signed=signed,
        records=len(walk.entries),
        witnessedBy=f"{names} ({checked})",
    )


def read_chain(
    path: str, data: bytes, settings: WitnessSettings = NO_SETTINGS
) -> tuple[list[Finding], dict[str, Any]]:
    """Every finding about the AI Agent Action log ``data`` at ``path``, and what it
    witnessed (:func:`_witnessed`: the log as a record the assertions can read)."""
    entries, findings = read_log(path, data)
    if not entries:
        empty = Finding(
            "chain.empty",
            path,
            "The log holds no record, so no action was witnessed; a witness log that checked "
            "nothing is never a pass.",
        )
        nothing = WitnessedFacts(calls=[], intact=False, signed=False, records=0, witnessedBy="")
        return [empty], nothing
    walk = _Walk(path, entries)
    walk.run()
    findings += walk.findings
    findings += _signatures(path, entries, settings)
    findings += _external(path, walk, settings)
    findings += _unattested(path, entries)
    findings += _claimed(path, entries)
    findings.sort(key=lambda f: (f.line or 0, f.code, f.pointer or "", f.message))
    return findings, _witnessed(walk, findings)


def check_log(path: str, data: bytes, settings: WitnessSettings = NO_SETTINGS) -> list[Finding]:
    """Every finding about the AI Agent Action log ``data`` at ``path``."""
    return read_chain(path, data, settings)[0]


__all__ = ["check_log", "read_chain"]

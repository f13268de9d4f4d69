"""An independent reader of AI Agent Action v0.1 logs, written from the predicate's text alone
(in-toto/attestation spec/predicates/ai-agent-action.md, v0.1.0), for differential tests of
``verifier.witness``. It shares no code with the verifier and says only which kinds of
problem a log has:

- ``fork``: "Exactly one record MAY carry any given previousHash value in a chain."
- ``second-genesis``: "genesis appears as previousHash exactly once in a chain's lifetime".
- ``gap``: records the strict walk forward from the start does not reach ("Verifiers MUST
  reconstruct the chain as a strict walk forward from the genesis record, following the
  unique successor at each step").
- ``no-start``: no genesis record and no chain break to start from.
- ``count``, ``sequence``: a checkpoint's recordCount ("records emitted since chain genesis or
  last chain_break": the tool-call records, which is how the spec's worked example and the
  reference gateway count) or sequence ("monotonically increasing") disagrees with the walk.
- ``break``: a chain break's priorHead is not the last record before it in the chain, or its
  priorSequence / priorRecordCount are not that chain's.
- ``bad-signature``: an HMAC-SHA256 attestation that is not the key's over the signing form.
- ``head-missing``: the externally kept checkpoint is not in the chain.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any


def _form(r: dict[str, Any]) -> bytes:
    """The signing tuple-array, as the spec's "Signing canonical form" describes it."""

    def tag(v: Any) -> Any:
        if isinstance(v, dict):
            return ["M", [[k, tag(v[k])] for k in sorted(v, key=lambda k: k.encode("utf-16-be"))]]
        if isinstance(v, list):
            return ["L", [tag(x) for x in v]]
        return v

    t = r.get("type")
    if t == "checkpoint":
        out = [["id", r.get("id")], ["type", t]] + [
            [k, r.get(k)] for k in ("timestamp", "sequence", "recordCount", "previousHash")
        ]
        if r.get("parties") is not None:
            out.append(["parties", r["parties"]])
    elif t == "chain_break":
        out = [["id", r.get("id")], ["type", t]] + [
            [k, r.get(k)]
            for k in ("timestamp", "reason", "priorHead", "priorSequence", "priorRecordCount")
        ]
    else:
        names = "id timestamp method toolName namespace upstream principal durationMs success"
        out = [[k, r.get(k)] for k in (*names.split(), "errorCode")]
        if r.get("decisionContextDigest") is not None:
            out.append(["decisionContextDigest", r["decisionContextDigest"]])
        out.append(["previousHash", r.get("previousHash")])
        for k in ("extensionsDigest", "aiInvocation", "parties"):
            if r.get(k) is not None:
                out.append([k, tag(r[k]) if k == "aiInvocation" else r[k]])
    return json.dumps(out, separators=(",", ":"), ensure_ascii=False).encode()


def problems(log: bytes, key: bytes | None = None, kept: dict[str, Any] | None = None) -> set[str]:
    recs = []
    for raw in log.split(b"\n"):
        if raw.strip():
            recs.append((hashlib.sha256(raw).hexdigest(), json.loads(raw)))
    found: set[str] = set()
    if key is not None:
        for _, r in recs:
            want = hmac.new(key, _form(r), hashlib.sha256).hexdigest()
            if r.get("attestation") != want:
                found.add("bad-signature")
    carried: dict[str, list[int]] = {}
    for i, (_, r) in enumerate(recs):
        if r.get("type") != "chain_break":
            carried.setdefault(r.get("previousHash"), []).append(i)
    if len(carried.get("genesis", [])) > 1:
        found.add("second-genesis")
    if any(len(v) > 1 for k, v in carried.items() if k != "genesis"):
        found.add("fork")
    starts = [i for i, (_, r) in enumerate(recs) if r.get("type") == "chain_break"]
    starts += carried.get("genesis", [])
    if not starts:
        found.add("no-start")
    seen: set[int] = set()
    chain: set[int] = set()  # the walks' own records (not a fork's other branches)
    where: dict[str, tuple[int, int, int, bool]] = {}  # hash -> (seq, count, walk id, last?)
    for walk, start in enumerate(sorted(starts)):
        seq = count = 0
        at: int | None = start
        while at is not None and at not in seen:
            seen.add(at)
            chain.add(at)
            h, r = recs[at]
            if r.get("type") == "checkpoint":
                if r["sequence"] <= seq:
                    found.add("sequence")
                if r["recordCount"] != count:
                    found.add("count")
                seq = r["sequence"]
            elif r.get("type") != "chain_break":
                count += 1
            nxt = [j for j in carried.get(h, []) if j not in seen]
            where[h] = (seq, count, walk, not nxt)
            at = nxt[0] if nxt else None
            for other in nxt[1:]:
                seen.add(other)  # (a fork's other branch: reported as the fork)
                stack = [other]
                while stack:
                    k = stack.pop()
                    seen.add(k)
                    stack += [j for j in carried.get(recs[k][0], []) if j not in seen]
    if len(seen) < len(recs):
        found.add("gap")
    for i in starts:
        r = recs[i][1]
        if r.get("type") != "chain_break" or r.get("priorHead") is None:
            continue
        prior = where.get(r["priorHead"])
        if (
            prior is None
            or not prior[3]
            or (r.get("priorSequence") or 0, r.get("priorRecordCount") or 0) != prior[:2]
        ):
            found.add("break")
    if kept is not None and not any(
        r.get("type") == "checkpoint"
        and i in chain
        and all(r.get(k) == kept[k] for k in ("previousHash", "sequence", "recordCount"))
        for i, (_, r) in enumerate(recs)
    ):
        found.add("head-missing")
    return found

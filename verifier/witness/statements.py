"""A witness log written as in-toto Statements (one per line), or as DSSE envelopes around
them, read into the records the walk takes.

A Statement is not the gateway's line: its subject digest *claims* the chain hash of the
record it stands for, and its predicate holds that record's fields in another shape
(``predicate.action``, ``predicate.chain.previousHash``, ``predicate.checkpoint``,
``predicate.chainBreak``). So the chain is walked over the claimed hashes: the links are
checked, the hashes cannot be (a note says so), and only an envelope's signature binds a
Statement to its signer. A Statement of another predicate type, one with no subject digest,
or an envelope whose payload is not one, is refused.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from verifier.authenticity.dsse import PAYLOAD_TYPE, pae
from verifier.json.parse import loads_strict

STATEMENT_TYPES = ("https://in-toto.io/Statement/v1", "https://in-toto.io/Statement/v0.1")
PREDICATE_TYPE = "https://in-toto.io/attestation/ai-agent-action/v0.1"

#: a tool call's predicate members, by the gateway record's field they stand for (the names
#: a party's scope uses)
_ACTION = ("method", "toolName", "namespace", "timestamp", "durationMs", "success", "errorCode")
_AGENT_CLAIMS = ("model", "sessionId", "turnId", "invocationReason")


class NotAStatement(ValueError):
    """The line is an envelope or Statement this predicate's logs cannot hold."""


def is_wrapped(value: dict[str, Any]) -> bool:
    """Whether a parsed line is a Statement or an envelope, not a gateway record."""
    return "_type" in value or "payloadType" in value


def _b64(text: Any, what: str) -> bytes:
    if not isinstance(text, str):
        raise NotAStatement(f"the envelope's {what} is not a string")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise NotAStatement(f"the envelope's {what} is not base64") from None


def unwrap(value: dict[str, Any]) -> tuple[dict[str, Any], tuple[bytes, list[bytes]] | None]:
    """The Statement of a line, and for an envelope the bytes its signatures sign and the
    signatures; raises :class:`NotAStatement`."""
    signed = None
    if "payloadType" in value:
        if value.get("payloadType") != PAYLOAD_TYPE:
            raise NotAStatement(f"the envelope's payloadType is not {PAYLOAD_TYPE}")
        body = _b64(value.get("payload"), "payload")
        sigs = value.get("signatures")
        if not isinstance(sigs, list):
            raise NotAStatement("the envelope has no signatures list")
        signatures = [
            _b64(s.get("sig"), "signature") for s in sigs if isinstance(s, dict) and "sig" in s
        ]
        signed = (pae(PAYLOAD_TYPE, body), signatures)
        parsed, problems = loads_strict(body)
        if problems or not isinstance(parsed, dict):
            raise NotAStatement("the envelope's payload is not one JSON object")
        value = parsed
    if value.get("_type") not in STATEMENT_TYPES:
        raise NotAStatement("its _type is not an in-toto Statement")
    if value.get("predicateType") != PREDICATE_TYPE:
        raise NotAStatement(f"its predicateType is not {PREDICATE_TYPE}")
    return value, signed


def _member(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def record_of(statement: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """The claimed chain hash, the record type, and the gateway record's fields as the
    Statement gives them (the names a party's scope uses); raises :class:`NotAStatement`."""
    subjects = statement.get("subject")
    first = subjects[0] if isinstance(subjects, list) and subjects else None
    digest = _member(_member(first, "digest"), "sha256")
    if not isinstance(digest, str):
        raise NotAStatement("its subject has no sha256 digest (the record's chain hash)")
    predicate = statement.get("predicate")
    if not isinstance(predicate, dict):
        raise NotAStatement("it has no predicate object")
    action = predicate.get("action")
    kind = _member(action, "type")
    if not isinstance(kind, str):
        kind = ""
    out: dict[str, Any] = {}
    if kind == "checkpoint":
        checkpoint = predicate.get("checkpoint")
        out.update(checkpoint if isinstance(checkpoint, dict) else {})
    elif kind == "chain_break":
        brk = predicate.get("chainBreak")
        out.update(brk if isinstance(brk, dict) else {})
    else:
        for key in _ACTION:
            if isinstance(action, dict) and key in action:
                out[key] = action[key]
        agent = predicate.get("agent")
        if isinstance(agent, dict):
            if "principal" in agent:
                out["principal"] = agent["principal"]
            claims = {k: agent[k] for k in _AGENT_CLAIMS if agent.get(k) is not None}
            if claims:
                out["aiInvocation"] = claims
        upstream = _member(predicate.get("upstream"), "name")
        if upstream is not None:
            out["upstream"] = upstream
        link = _member(predicate.get("chain"), "previousHash")
        if link is not None:
            out["previousHash"] = link
        if "contentDigest" in predicate:
            out["contentDigest"] = predicate["contentDigest"]
    if isinstance(action, dict) and "timestamp" in action:
        out["timestamp"] = action["timestamp"]
    out["type"] = kind if kind else _member(action, "type")
    for key in ("parties", "extensions"):
        if key in predicate:
            out[key] = predicate[key]
    return digest, kind, out


__all__ = ["PREDICATE_TYPE", "NotAStatement", "is_wrapped", "record_of", "unwrap"]

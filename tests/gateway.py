"""A witness gateway for tests: writes AI Agent Action v0.1 logs by the predicate's rules
(in-toto/attestation spec/predicates/ai-agent-action.md, v0.1.0), as its reference gateway
writes them: one compact JSON line per record, the chain hash the SHA-256 of the line as
written, a checkpoint carrying the head it follows and the next record continuing from the
checkpoint's own hash, a chain break with no previousHash (``priorHead`` back, the next record
continuing from the break's hash), and the ``attestation`` an HMAC-SHA256 or Ed25519 signature
over the signing tuple-array.

The signing form is written out here again from the spec's text (not imported from the
verifier), so a test signing with it checks the verifier's form against an independent one."""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


def _js(value: Any) -> str:
    """``JSON.stringify`` of a value of strings, safe integers, booleans, nulls, lists, dicts."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _tag(value: Any) -> Any:
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: k.encode("utf-16-be"))
        return ["M", [[k, _tag(value[k])] for k in keys]]
    if isinstance(value, list):
        return ["L", [_tag(v) for v in value]]
    return value


def tuple_form(record: dict[str, Any]) -> bytes:
    """The signing canonical form, from the spec's field orders."""
    kind = record.get("type")
    if kind == "checkpoint":
        pairs = [["id", record["id"]], ["type", "checkpoint"]]
        pairs += [[k, record[k]] for k in ("timestamp", "sequence", "recordCount", "previousHash")]
        if record.get("parties") is not None:
            pairs.append(["parties", record["parties"]])
    elif kind == "chain_break":
        pairs = [["id", record["id"]], ["type", "chain_break"]]
        pairs += [["timestamp", record["timestamp"]], ["reason", record["reason"]]]
        pairs += [[k, record.get(k)] for k in ("priorHead", "priorSequence", "priorRecordCount")]
    else:
        base = ("id", "timestamp", "method", "toolName", "namespace", "upstream", "principal")
        pairs = [[k, record.get(k)] for k in (*base, "durationMs", "success", "errorCode")]
        if record.get("decisionContextDigest") is not None:
            pairs.append(["decisionContextDigest", record["decisionContextDigest"]])
        pairs.append(["previousHash", record.get("previousHash")])
        if record.get("extensionsDigest") is not None:
            pairs.append(["extensionsDigest", record["extensionsDigest"]])
        if record.get("aiInvocation") is not None:
            pairs.append(["aiInvocation", _tag(record["aiInvocation"])])
        if record.get("parties") is not None:
            pairs.append(["parties", record["parties"]])
    return _js(pairs).encode("utf-8")


WITNESS_SCOPE = [
    "id",
    "timestamp",
    "method",
    "toolName",
    "namespace",
    "upstream",
    "principal",
    "durationMs",
    "success",
    "errorCode",
    "previousHash",
]


@dataclass
class Gateway:
    """Writes one log. ``hmac_key`` (bytes) or ``ed25519`` (a private key) signs; neither:
    records without an attestation."""

    hmac_key: bytes | None = None
    ed25519: Ed25519PrivateKey | None = None
    lines: list[bytes] = field(default_factory=list)
    head: str = "genesis"
    sequence: int = 0
    count: int = 0
    _n: int = 0

    def _sign(self, record: dict[str, Any]) -> None:
        message = tuple_form(record)
        if self.hmac_key is not None:
            record["attestation"] = hmac.new(self.hmac_key, message, hashlib.sha256).hexdigest()
        elif self.ed25519 is not None:
            record["attestation"] = self.ed25519.sign(message).hex()

    def _write(self, record: dict[str, Any]) -> bytes:
        self._sign(record)
        line = _js(record).encode("utf-8")
        self.lines.append(line)
        self.head = hashlib.sha256(line).hexdigest()
        return line

    def _stamp(self) -> str:
        self._n += 1
        return f"2026-08-18T14:{self._n // 60:02d}:{self._n % 60:02d}.000Z"

    def call(self, tool: str, success: bool = True, **more: Any) -> bytes:
        record: dict[str, Any] = {
            "id": f"call-{self._n + 1}",
            "timestamp": self._stamp(),
            "method": "tools/call",
            "toolName": tool,
            "namespace": tool.split("/")[0],
            "upstream": "server",
            "principal": "user:alice@example.com",
            "durationMs": 10,
            "success": success,
        }
        if not success:
            record["errorCode"] = -32000
        record.update(more)
        witnessed = [*WITNESS_SCOPE, *(k for k in more if k.startswith("contentDigest"))]
        record["parties"] = [{"party": "gateway", "role": "witness", "scope": witnessed}]
        if "aiInvocation" in more:  # (the client's own claims: asserted, not witnessed)
            record["parties"].append(
                {"party": "client", "role": "asserter", "scope": ["aiInvocation"]}
            )
        record["previousHash"] = self.head
        self.count += 1
        return self._write(record)

    def checkpoint(self) -> bytes:
        self.sequence += 1
        record = {
            "id": f"ckpt_{self.sequence}",
            "type": "checkpoint",
            "timestamp": self._stamp(),
            "sequence": self.sequence,
            "recordCount": self.count,
            "previousHash": self.head,
            "parties": [
                {
                    "party": "gateway",
                    "role": "witness",
                    "scope": ["id", "type", "timestamp", "sequence", "recordCount", "previousHash"],
                }
            ],
        }
        return self._write(record)

    def chain_break(self, reason: str = "crash_recovery", bound: bool = True) -> bytes:
        record: dict[str, Any] = {
            "id": f"brk_{self._n + 1}",
            "type": "chain_break",
            "timestamp": self._stamp(),
            "reason": reason,
        }
        if bound and self.head != "genesis":
            record["priorHead"] = self.head
            if self.sequence:
                record["priorSequence"] = self.sequence
            if self.count:
                record["priorRecordCount"] = self.count
        self.sequence = self.count = 0
        return self._write(record)

    def external(self) -> dict[str, Any]:
        """The last checkpoint, as a consumer keeps it outside the archive."""
        last = json.loads(next(line for line in reversed(self.lines) if b'"checkpoint"' in line))
        return {k: last[k] for k in ("previousHash", "sequence", "recordCount")}

    def log(self) -> bytes:
        return b"".join(line + b"\n" for line in self.lines)

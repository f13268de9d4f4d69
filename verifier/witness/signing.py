"""The signing canonical form of AI Agent Action v0.1 records, and their ``attestation``
checked against it.

The form is a tuple-array, ``[[field, value], ...]`` in a fixed order per record type,
serialized as ``JSON.stringify`` serializes it (no whitespace; non-ASCII written as itself).
A tool call's form is ``id, timestamp, method, toolName, namespace, upstream, principal,
durationMs, success, errorCode`` (absent: ``null``), then ``decisionContextDigest`` when set,
``previousHash``, then ``extensionsDigest``, ``aiInvocation`` (M/L-tagged: an object is
``["M", [[key, value], ...]]`` with its keys in UTF-16 order, an array ``["L", [...]]``) and
``parties`` (as written), each when set; a checkpoint's ``id, type, timestamp, sequence,
recordCount, previousHash`` and ``parties`` when set; a chain break's ``id, type, timestamp,
reason, priorHead, priorSequence, priorRecordCount``. Fields outside the form (``attestation``
itself, any other) are not signed; the chain hash covers them.

Numbers must be safe integers and strings free of lone surrogates (the spec's rules): a
record that breaks them has no signing form (:class:`Unsignable`), as its serialization by
the gateway's ``JSON.stringify`` and by Python's would differ.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable
from typing import Any

from verifier.values.witness import WitnessKey

SAFE = 2**53  # integers of this magnitude or more are not safe (RFC 7493 section 2.2)

_TOOL_BASE = (
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
)


class Unsignable(ValueError):
    """The record has no signing form: a number that is not a safe integer, a lone surrogate."""


def _scalar(value: Any, where: str) -> Any:
    if value is None or type(value) is bool:
        return value
    if type(value) is int:
        if abs(value) >= SAFE:
            raise Unsignable(f"{where} holds {value}, not a safe integer")
        return value
    if isinstance(value, str):
        if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
            raise Unsignable(f"{where} holds a lone surrogate")
        return value
    if isinstance(value, int | float):
        raise Unsignable(f"{where} holds {value!r}, not an integer")
    return value


def _plain(value: Any, where: str) -> Any:
    """A value as written (``parties``): its scalars held to the same rules."""
    if isinstance(value, dict):
        return {_scalar(k, where): _plain(v, where) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, where) for v in value]
    return _scalar(value, where)


def _tagged(value: Any, where: str) -> Any:
    """``canonicalizeValue``: objects ``["M", [[key, value], ...]]`` with keys in UTF-16
    code-unit order, arrays ``["L", [...]]``, scalars as they are (a parsed record is at
    most 256 deep: the recursion is bounded)."""
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: k.encode("utf-16-be", "surrogatepass"))
        return ["M", [[_scalar(k, where), _tagged(value[k], where)] for k in keys]]
    if isinstance(value, list):
        return ["L", [_tagged(item, where) for item in value]]
    return _scalar(value, where)


def _set(record: dict[str, Any], key: str) -> bool:
    return record.get(key) is not None


def _pairs(kind: str, record: dict[str, Any]) -> Iterable[list[Any]]:
    get = record.get
    if kind == "checkpoint":
        yield ["id", get("id")]
        yield ["type", "checkpoint"]
        for key in ("timestamp", "sequence", "recordCount", "previousHash"):
            yield [key, get(key)]
        if _set(record, "parties"):
            yield ["parties", _plain(record["parties"], "parties")]
        return
    if kind == "chain_break":
        yield ["id", get("id")]
        yield ["type", "chain_break"]
        for key in ("timestamp", "reason", "priorHead", "priorSequence", "priorRecordCount"):
            yield [key, get(key)]
        return
    for key in _TOOL_BASE:
        yield [key, get(key)]
    if _set(record, "decisionContextDigest"):
        yield ["decisionContextDigest", get("decisionContextDigest")]
    yield ["previousHash", get("previousHash")]
    if _set(record, "extensionsDigest"):
        yield ["extensionsDigest", get("extensionsDigest")]
    if _set(record, "aiInvocation"):
        yield ["aiInvocation", _tagged(record["aiInvocation"], "aiInvocation")]
    if _set(record, "parties"):
        yield ["parties", _plain(record["parties"], "parties")]


def signing_form(kind: str, record: dict[str, Any]) -> bytes:
    """The bytes a gateway signs for ``record`` of type ``kind`` (``tool_call``,
    ``checkpoint``, ``chain_break``); raises :class:`Unsignable`."""
    pairs = [[key, _plain(value, key)] for key, value in _pairs(kind, record)]
    text = json.dumps(pairs, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def _hex(text: str, size: int) -> bytes | None:
    if len(text) != 2 * size:
        return None
    try:
        return bytes.fromhex(text)
    except ValueError:
        return None


def verifies(key: WitnessKey, message: bytes, attestation: str) -> bool:
    """Whether ``attestation`` (hex, as the record holds it) is ``key``'s over ``message``."""
    if key.algorithm == "hmac-sha256":
        given = _hex(attestation, 32)
        want = hmac.new(key.key, message, hashlib.sha256).digest()
        return given is not None and hmac.compare_digest(given, want)
    signature = _hex(attestation, 64)
    if signature is None:
        return False
    # (imported here: most runs check no witness key, and the library costs every process
    # about 8 MB and 8 ms)
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(key.key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


__all__ = ["SAFE", "Unsignable", "signing_form", "verifies"]

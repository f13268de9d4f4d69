"""DSSE envelopes (``https://github.com/secure-systems-lab/dsse``) around the in-toto
statement, signed with an OpenSSH Ed25519 key and verified against an ``allowed_signers``
file.

What is signed is the pre-authentication encoding ``DSSEv1 SP LEN(type) SP type SP
LEN(body) SP body``; the signature is the raw Ed25519 signature over it, and its ``keyid``
the key's OpenSSH fingerprint (``SHA256:...``). The allowed_signers line is judged as for an
SSH signature (principals against ``--identity``, ``valid-after``/``valid-before``), with
``in-toto`` as the namespace its ``namespaces=`` option must admit.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from verifier.authenticity.allowed_signers import parse
from verifier.authenticity.interface import SignatureFile, Signer, Trust, Verdict
from verifier.authenticity.sshblob import WireError, b64decode, fingerprint, string
from verifier.errors import UsageError
from verifier.findings import Finding

PAYLOAD_TYPE = "application/vnd.in-toto+json"
NAMESPACE = "in-toto"
MAX_ENVELOPE_BYTES = 16 << 20


def pae(payload_type: str, body: bytes) -> bytes:
    """DSSE's pre-authentication encoding."""
    kind = payload_type.encode()
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(body), body)


def wrap(payload: bytes, key: Path) -> bytes:
    """The envelope of ``payload`` signed by the unencrypted OpenSSH Ed25519 key ``key``."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        PublicFormat,
        load_ssh_private_key,
    )

    try:
        private = load_ssh_private_key(key.read_bytes()[: 1 << 20], password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise UsageError(f"--attest-key {key}: not an unencrypted OpenSSH key ({exc})") from None
    if not isinstance(private, Ed25519PrivateKey):
        raise UsageError(f"--attest-key {key}: only Ed25519 keys sign attestations")
    raw = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    keyid = fingerprint(string(b"ssh-ed25519") + string(raw))
    sig = private.sign(pae(PAYLOAD_TYPE, payload))
    envelope = {
        "payloadType": PAYLOAD_TYPE,
        "payload": base64.b64encode(payload).decode(),
        "signatures": [{"keyid": keyid, "sig": base64.b64encode(sig).decode()}],
    }
    return json.dumps(envelope, indent=2, sort_keys=True).encode() + b"\n"


def verify(envelope: SignatureFile, trust: Trust) -> tuple[Verdict, bytes | None]:
    """The verdict on an envelope and, when it verified, its payload."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from verifier.authenticity.sshsig import trusted_line

    verdict = Verdict("dsse", f"DSSE (Ed25519) against {trust.allowed_signers_label}")

    def fail(code: str, text: str) -> tuple[Verdict, None]:
        verdict.findings.append(Finding(code, envelope.name, text))
        return verdict, None

    from verifier.json.parse import loads_strict

    # strict and bounded: nesting past the parser's limit, a duplicate key or a lone
    # surrogate is refused, never a RecursionError (exit 3)
    data, problems = loads_strict(envelope.data[:MAX_ENVELOPE_BYTES])
    if problems:
        return fail("signature.unparsable", f"Not a DSSE envelope ({problems[0].message}).")
    try:
        payload_type = data["payloadType"]
        payload = b64decode(data["payload"])
        signatures = [(s["keyid"], b64decode(s["sig"])) for s in data["signatures"]]
        if not isinstance(payload_type, str) or not signatures:
            raise ValueError("no signature")
    except (ValueError, KeyError, TypeError, WireError, UnicodeDecodeError) as exc:
        return fail("signature.unparsable", f"Not a DSSE envelope ({exc}).")
    if payload_type != PAYLOAD_TYPE:
        return fail("signature.unsupported", f"Payload type {payload_type!r}, not {PAYLOAD_TYPE}.")
    keys = {
        fingerprint(s.blob): s.blob
        for s in parse(trust.allowed_signers or b"").signers
        if s.key_type == "ssh-ed25519" and not s.cert_authority
    }
    message = pae(payload_type, payload)
    for keyid, sig in signatures:
        blob = keys.get(keyid) if isinstance(keyid, str) else None
        if blob is None:
            continue
        raw = blob[-32:]
        try:
            Ed25519PublicKey.from_public_bytes(raw).verify(sig, message)
        except (InvalidSignature, ValueError):
            return fail("signature.bad", f"The signature by key {keyid} does not verify.")
        found = trusted_line(blob, "ssh-ed25519", keyid, trust, NAMESPACE)
        line, signer = found
        if not isinstance(signer, Signer):
            return fail(str(line), signer)
        verdict.signer = signer
        verdict.method += f" line {line}"
        return verdict, payload
    names = ", ".join(str(k) for k, _ in signatures)
    return fail(
        "signature.untrusted-key",
        f"Signed by {names}; none is an Ed25519 key of {trust.allowed_signers_label}.",
    )


__all__ = ["NAMESPACE", "PAYLOAD_TYPE", "pae", "verify", "wrap"]

"""OpenSSH signatures (``PROTOCOL.sshsig``; ``ssh-keygen -Y sign``), verified natively.

The armoured blob is ``SSHSIG``, version 1, then the public key, the namespace, a reserved
string, the hash algorithm (``sha256``/``sha512``) and the signature, as SSH strings; what
is signed is ``SSHSIG`` || namespace || reserved || hash algorithm || H(message). The order
of the checks, each its own finding: the shape (``signature.unparsable``), the version and
algorithms (``signature.unsupported``), the namespace asked for (``--namespace``, default
``file``), the signature itself (``signature.bad``), then the ``allowed_signers`` file as
``ssh-keygen -Y verify`` reads it: the key, the principals against ``--identity``, the
line's ``namespaces=`` and its ``valid-after``/``valid-before`` window (at ``--verify-time``,
else now). A ``cert-authority`` line is never a match: certificates are not supported.
"""

from __future__ import annotations

import contextlib
import hashlib
import time

from verifier.authenticity.allowed_signers import AllowedSigner, canonical, match_list, parse
from verifier.authenticity.interface import SignatureFile, Signer, Trust, Verdict
from verifier.authenticity.sshblob import Reader, WireError, b64decode, fingerprint, string
from verifier.authenticity.sshkeys import SIGNATURE_FORMATS, check, key_type
from verifier.findings import Finding, a_or_an

BEGIN = b"-----BEGIN SSH SIGNATURE-----"
END = b"-----END SSH SIGNATURE-----"
MAGIC = b"SSHSIG"
HASHES = ("sha256", "sha512")


class SSHSig:
    NAME = "sshsig"
    LABEL = "SSH signature"
    TRUST = "--allowed-signers"

    def detect(self, data: bytes) -> bool:
        return data.lstrip().startswith(BEGIN)

    def has_trust(self, trust: Trust) -> bool:
        return trust.allowed_signers is not None

    def verify(self, message: bytes, signature: SignatureFile, trust: Trust) -> Verdict:
        return verify(message, signature, trust)


FORMAT = SSHSig()


def unarmour(data: bytes) -> bytes:
    """The blob inside the armour (:class:`WireError` if it is not exactly one)."""
    text = data.strip()
    if not text.startswith(BEGIN) or not text.endswith(END):
        raise WireError("not one armoured SSH signature")
    body = text[len(BEGIN) : -len(END)]
    return b64decode(b"".join(body.split()))


class Parsed:
    __slots__ = ("blob", "hash_alg", "namespace", "reserved", "sig_blob", "sig_format", "version")

    def __init__(self, blob: bytes) -> None:
        reader = Reader(blob)
        if reader.take(6) != MAGIC:
            raise WireError("no SSHSIG magic")
        self.version = reader.uint32()
        self.blob = reader.string()
        self.namespace = reader.string()
        self.reserved = reader.string()
        self.hash_alg = reader.text()
        inner = Reader(reader.string())
        if not reader.done():
            raise WireError("trailing bytes")
        self.sig_format = inner.text()
        self.sig_blob = inner.string()
        if not inner.done():
            raise WireError("trailing bytes in the signature")


def signed_data(namespace: bytes, reserved: bytes, hash_alg: str, message: bytes) -> bytes:
    digest = hashlib.new(hash_alg, message).digest()
    return MAGIC + string(namespace) + string(reserved) + string(hash_alg.encode()) + string(digest)


def verify(message: bytes, signature: SignatureFile, trust: Trust) -> Verdict:
    name = signature.name
    verdict = Verdict("sshsig", f"SSHSIG, namespace {trust.namespace!r}")

    def fail(code: str, text: str) -> Verdict:
        verdict.findings.append(Finding(code, name, text))
        return verdict

    try:
        parsed = Parsed(unarmour(signature.data))
    except WireError as exc:
        return fail("signature.unparsable", f"Not a well-formed SSH signature ({exc}).")
    if parsed.version != 1:
        return fail("signature.unsupported", f"SSHSIG version {parsed.version} (only 1 is known).")
    if parsed.hash_alg not in HASHES:
        return fail(
            "signature.unsupported",
            f"Hash algorithm {parsed.hash_alg!r} (accepted: sha256, sha512).",
        )
    try:
        kind = key_type(parsed.blob)
    except WireError:
        return fail("signature.unparsable", "The signature's public key cannot be read.")
    if kind.endswith("-cert-v01@openssh.com"):
        return fail(
            "signature.cert-authority",
            f"Signed with an SSH certificate ({kind}); certificates and cert-authority lines "
            "are not supported. Sign with a plain key listed in allowed_signers.",
        )
    if kind not in SIGNATURE_FORMATS:
        return fail("signature.unsupported", f"Key type {kind!r} is not supported.")
    if parsed.sig_format not in SIGNATURE_FORMATS[kind]:
        return fail(
            "signature.unsupported",
            f"A {parsed.sig_format!r} signature from {a_or_an(kind)} key (RSA must use "
            "rsa-sha2-256 or rsa-sha2-512, never SHA-1).",
        )
    fp = fingerprint(parsed.blob)
    verdict.method = f"SSHSIG ({parsed.sig_format}, {parsed.hash_alg}, namespace "
    verdict.method += f"{trust.namespace!r}) against {trust.allowed_signers_label}"
    if parsed.namespace != trust.namespace.encode():
        shown = parsed.namespace.decode("utf-8", errors="replace")
        return fail(
            "signature.namespace-mismatch",
            f"Signed for namespace {shown!r}, not {trust.namespace!r} (--namespace).",
        )
    data = signed_data(parsed.namespace, parsed.reserved, parsed.hash_alg, message)
    try:
        good = check(parsed.blob, parsed.sig_format, parsed.sig_blob, data)
    except WireError as exc:
        return fail("signature.unparsable", f"The signature cannot be checked ({exc}).")
    if not good:
        return fail(
            "signature.bad",
            f"The signature by {kind} key {fp} does not verify over the manifest's bytes: the "
            "manifest or the signature was changed after signing.",
        )
    found = trusted_line(parsed.blob, kind, fp, trust, trust.namespace)
    line, signer = found
    if not isinstance(signer, Signer):
        return fail(str(line), signer)
    verdict.signer = signer
    verdict.method += f" line {line}"
    return verdict


def trusted_line(
    blob: bytes, kind: str, fp: str, trust: Trust, namespace: str
) -> tuple[int, Signer] | tuple[str, str]:
    """The allowed signer's line and the signer, or the finding's code and message
    (``namespace``: what the line's ``namespaces=`` must admit)."""
    signers = parse(trust.allowed_signers or b"")
    label = trust.allowed_signers_label
    skipped = (
        f" ({len(signers.skipped)} line(s) could not be parsed and were skipped)"
        if signers.skipped
        else ""
    )
    now = trust.verify_time if trust.verify_time is not None else int(time.time())
    identity = trust.identity
    with contextlib.suppress(WireError, ValueError):  # keys compared by their material
        blob = canonical(blob)[1]
    keyed = [s for s in signers.signers if s.blob == blob]
    plain = [s for s in keyed if not s.cert_authority]
    if not plain:
        authorities = [
            s
            for s in signers.signers
            if s.cert_authority and (identity is None or match_list(identity, s.principals) == 1)
        ]
        if authorities:
            return (
                "signature.cert-authority",
                f"Key {fp} is not listed in {label}; the line(s) "
                f"{', '.join(str(s.line) for s in authorities)} that could vouch for it are "
                "cert-authority lines, and SSH certificates are not supported.",
            )
        return (
            "signature.untrusted-key",
            f"Signed by {kind} key {fp}, which {label} does not list{skipped}.",
        )
    named = (
        plain if identity is None else [s for s in plain if match_list(identity, s.principals) == 1]
    )
    if not named:
        return (
            "signature.identity-mismatch",
            f"Key {fp} is listed in {label} (line {plain[0].line}), but not for identity "
            f"{identity!r} (--identity).",
        )
    spaced = [s for s in named if s.namespaces is None or match_list(namespace, s.namespaces) == 1]
    if not spaced:
        return (
            "signature.namespace-mismatch",
            f"Key {fp} is listed in {label} (line {named[0].line}) for namespaces "
            f"{named[0].namespaces_text!r}, which exclude {namespace!r}.",
        )
    timely = [s for s in spaced if _in_window(s, now)]
    if not timely:
        return (
            "signature.key-expired",
            f"Key {fp} is listed in {label} (line {spaced[0].line}) but not valid at "
            f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(now))}"
            f"{'' if trust.verify_time is None else ' (--verify-time)'}: "
            f"{_window(spaced[0])}.",
        )
    line = timely[0]
    return line.line, Signer(kind, fp, principal=line.principals_text, identity=identity)


def _in_window(signer: AllowedSigner, now: int) -> bool:
    if signer.valid_after is not None and now < signer.valid_after:
        return False
    return not (signer.valid_before is not None and now > signer.valid_before)


def _window(signer: AllowedSigner) -> str:
    def at(t: int | None) -> str:
        return "-" if t is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))

    return f"valid after {at(signer.valid_after)}, before {at(signer.valid_before)}"


__all__ = ["FORMAT", "signed_data", "unarmour", "verify"]

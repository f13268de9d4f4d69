"""Stage 0, authenticity: who published the manifest?

Each signature read beside the manifest (or named by ``--signature``) is recognised by its
bytes, never by its name, and handed to its format (:mod:`verifier.authenticity.registry`)
with the manifest's bytes and the trust the user gave. The stage never passes on nothing:
with no signature it fails (``signature.absent``) when one was required or a trust anchor
(``--allowed-signers``, ``--minisign-key``, ``--keyring``) given, and is otherwise
*nothing-to-check* with a note saying so; so it is
when signatures were found but no authenticity option was given at all (each a
``signature.not-checked`` note). A signature whose trust was not given, when some trust or
``--require-signature`` was, is an error unless another signature verified.
"""

from __future__ import annotations

from verifier.authenticity.interface import SignatureFile, Trust, Verdict
from verifier.authenticity.registry import FORMATS, detect
from verifier.findings import Finding, Stage
from verifier.report import NOT_CHECKED, SignatureCheck, StageResult


def judge_authenticity(
    signatures: list[SignatureFile],
    refused: list[Finding],
    message: bytes,
    trust: Trust,
    manifest: str,
) -> tuple[StageResult, list[SignatureCheck]]:
    """The stage and one check per signature. ``message``: the manifest's bytes (those
    integrity hashes); ``manifest``: its label, for a finding that no signature was found."""
    stage = StageResult(Stage.AUTHENTICITY)
    stage.findings.extend(refused)
    if not signatures:
        anchors = trust.anchors
        expected = trust.require or (anchors and not refused)
        if expected and not trust.expected_elsewhere:
            # a trust anchor given means a signature is expected (as ssh-keygen -Y verify
            # and cosign verify fail without one): its absence fails, never "nothing to check"
            why = "--require-signature" if trust.require else ", ".join(anchors) + " given"
            stage.findings.append(
                Finding(
                    "signature.absent",
                    manifest,
                    f"A signature is expected ({why}), but none sits beside the manifest "
                    "(.sig, .minisig, .asc, .gpg, .sign) and none was given (--signature): "
                    "sign the manifest, or drop the trust option.",
                )
            )
        elif not refused:
            stage.note = NOT_CHECKED
        stage.counts = {"signatures": 0, "verified": 0}
        return stage, []
    checks: list[SignatureCheck] = []
    pending: list[int] = []
    for signature in signatures:
        name = detect(signature.data)
        if name is None:
            verdict = Verdict(
                "unknown",
                "not recognised",
                [
                    Finding(
                        "signature.unparsable",
                        signature.name,
                        "Not an SSH signature (SSHSIG), a minisign signature or an OpenPGP "
                        "signature; nothing was verified.",
                    )
                ],
            )
        else:
            fmt = FORMATS[name]
            if fmt.has_trust(trust):
                verdict = fmt.verify(message, signature, trust)
            else:
                pending.append(len(checks))
                verdict = Verdict(name, f"not checked: no {fmt.TRUST} given")
        checks.append(SignatureCheck(signature.name, verdict))
    verified = sum(1 for c in checks if c.verdict.verified)
    for index in pending:
        check = checks[index]
        fmt = FORMATS[check.verdict.format]
        if verified:
            code, text = "signature.not-checked", "Not checked: another signature verified, and"
        elif not trust.given:  # no authenticity option at all: said, not failed, not passed
            code, text = "signature.not-checked", "Not checked (no authenticity option given):"
        else:
            code, text = "signature.no-trust", "Not verified:"
        check.verdict.findings.append(
            Finding(
                code,
                check.name,
                f"{text} no {fmt.TRUST} was given to check this {fmt.LABEL} against.",
            )
        )
    for check in checks:
        stage.findings.extend(check.verdict.findings)
    stage.counts = {"signatures": len(checks), "verified": verified}
    if not verified:
        stage.checked = False
        if not stage.errors:
            stage.note = (
                "Not checked: a signature sits beside the manifest, but no trust to check it "
                "was given; who published the manifest is not verified."
            )
    return stage, checks


__all__ = ["judge_authenticity"]

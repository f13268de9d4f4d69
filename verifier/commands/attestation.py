"""``verify-evidence attestation verify``: check a DSSE envelope around an in-toto statement
(``check --format in-toto --attest-key``) against an allowed_signers file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from verifier.commands import EXIT_FINDINGS, EXIT_OK
from verifier.commands.signopts import AllowedSignersOpt, IdentityOpt, VerifyTimeOpt

app = typer.Typer(
    name="attestation",
    help="Check a signed verification statement (a DSSE envelope around an in-toto statement).",
    no_args_is_help=True,
)


@app.command("verify")
def verify(
    envelope: Annotated[Path, typer.Argument(metavar="FILE", help="The DSSE envelope (JSON).")],
    allowed_signers: AllowedSignersOpt = None,
    identity: IdentityOpt = None,
    verify_time: VerifyTimeOpt = None,
) -> int:
    """Verify FILE's signature against --allowed-signers and print who signed and what the
    statement says (subject, result). Exit 0 when verified, 1 otherwise."""
    from verifier.authenticity.dsse import MAX_ENVELOPE_BYTES
    from verifier.authenticity.dsse import verify as verify_envelope
    from verifier.authenticity.interface import SignatureFile
    from verifier.commands.signopts import read_trust_file, trust_options
    from verifier.errors import UsageError
    from verifier.views.inert import visible

    if allowed_signers is None:
        raise UsageError("attestation verify needs --allowed-signers")
    trust = trust_options(
        None, False, allowed_signers, identity, "file", verify_time, None, False, None
    )
    data = read_trust_file(envelope, "FILE")[:MAX_ENVELOPE_BYTES]
    verdict, payload = verify_envelope(SignatureFile(str(envelope), data), trust)
    if payload is None or verdict.signer is None:
        for f in verdict.findings:
            print(visible(f"{f.path}: {f.code}: {f.message}"))
        return EXIT_FINDINGS
    print(visible(f"verified: signed by {verdict.signer.line()} ({verdict.method})"))
    try:
        statement = json.loads(payload)
        subjects = ", ".join(
            f"{s['name']} sha256:{s['digest']['sha256']}" for s in statement["subject"]
        )
        print(visible(f"statement: {statement['predicateType']}; subject {subjects}"))
        print(visible(f"result: {statement['predicate']['result']}"))
    except (ValueError, KeyError, TypeError):
        print("the payload is not an in-toto statement of verify-evidence")
        return EXIT_FINDINGS
    return EXIT_OK


def register(parent: typer.Typer) -> None:
    parent.add_typer(app, name="attestation")

"""``verify-evidence attestation verify``: check a DSSE envelope around an in-toto statement
(``check --format in-toto --attest-key``) against an allowed_signers file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from verifier.commands import EXIT_FINDINGS, EXIT_OK
from verifier.commands.options import AllowedSignersOpt, IdentityOpt, Request, VerifyTimeOpt
from verifier.sources.registry import looks

PREDICATE = "https://in-toto.io/attestation/test-result/v0.1"

app = typer.Typer(
    name="attestation",
    help="Check a signed verification statement (a DSSE envelope around an in-toto statement).",
    no_args_is_help=True,
)


SourceOpt = Annotated[
    Path | None,
    typer.Option(
        "--source",
        help=f"The archive the statement is about ({looks()}): it is checked, and the "
        "statement's subjects must be its own: the manifest by its name and digest, the "
        "zip, tarball or commit by its digest, and its files those its manifest lists "
        "(exit 1 if not).",
    ),
]


@app.command("verify")
def verify(
    envelope: Annotated[Path, typer.Argument(metavar="FILE", help="The DSSE envelope (JSON).")],
    allowed_signers: AllowedSignersOpt = None,
    identity: IdentityOpt = None,
    verify_time: VerifyTimeOpt = None,
    source: SourceOpt = None,
) -> int:
    """Verify FILE's signature against --allowed-signers and print who signed and what the
    statement says (subject, result). Exit 0 when verified and its result is not FAILED
    (and, with --source, its subjects are that archive's and its files pass integrity),
    1 otherwise."""
    from verifier.authenticity.dsse import MAX_ENVELOPE_BYTES
    from verifier.authenticity.dsse import verify as verify_envelope
    from verifier.authenticity.interface import SignatureFile
    from verifier.commands.options import read_trust_file, trust_options
    from verifier.errors import UsageError
    from verifier.views.inert import visible

    if allowed_signers is None:
        raise UsageError("attestation verify needs --allowed-signers")
    trust = trust_options(
        Request(allowed_signers=allowed_signers, identity=identity, verify_time=verify_time)
    )
    data = read_trust_file(envelope, "FILE")[:MAX_ENVELOPE_BYTES]
    verdict, payload = verify_envelope(SignatureFile(str(envelope), data), trust)
    if payload is None or verdict.signer is None:
        for f in verdict.findings:
            print(visible(f"{f.path}: {f.code}: {f.message}"))
        return EXIT_FINDINGS
    print(visible(f"verified: signed by {verdict.signer.line()} ({verdict.method})"))
    read = read_statement(payload)
    if read is None:
        print("the payload is not an in-toto statement of verify-evidence")
        return EXIT_FINDINGS
    subjects, result = read
    listed = ", ".join(f"{name} {kind}:{value}" for name, kind, value in subjects)
    print(visible(f"statement: {PREDICATE}; subject {listed}"))
    print(visible(f"result: {result}"))
    failed = result == "FAILED"
    if source is not None:
        for line in subject_mismatches(str(envelope), subjects, source):
            print(visible(line))
            failed = True
    return EXIT_FINDINGS if failed else EXIT_OK


Subject = tuple[str, str, str]  # (name, digest kind, hex digest)


def read_statement(payload: bytes) -> tuple[list[Subject], str] | None:
    """The subjects and result of a verify-evidence statement, read strictly (bounded
    nesting, no duplicate key, no lone surrogate); ``None`` for anything else."""
    from verifier.json.parse import loads_strict

    value, problems = loads_strict(payload)
    if problems or not isinstance(value, dict) or value.get("predicateType") != PREDICATE:
        return None
    predicate, listed = value.get("predicate"), value.get("subject")
    if not isinstance(predicate, dict) or not isinstance(listed, list) or not listed:
        return None
    result = predicate.get("result")
    if result not in ("PASSED", "WARNED", "FAILED"):
        return None
    subjects: list[Subject] = []
    for item in listed:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            return None
        digest = item.get("digest")
        if not isinstance(digest, dict) or len(digest) != 1:
            return None
        ((kind, hexdigest),) = digest.items()
        if kind not in ("sha256", "gitCommit") or not isinstance(hexdigest, str):
            return None
        subjects.append((item["name"], kind, hexdigest))
    return subjects, str(result)


def subject_mismatches(name: str, subjects: list[Subject], source: Path) -> list[str]:
    """A finding line for each of the statement's subjects that is not one of ``source``'s
    (in-toto Statement v1: a subject is a name and a digest, whose meaning the producer sets).
    verify-evidence names the manifest by its path in the archive, so a manifest subject
    must match both its name and its SHA-256: a statement naming another file with the
    manifest's digest is about something else. The zip's, tarball's or commit's subject is
    named by where it was read from (as given on the command line), which is not part of
    what it is: it is matched by its digest alone. The manifest is the subject for the files
    it lists: each integrity error of the archive (a file changed, missing or added since) is
    a line too, so matching subjects over other files never verify."""
    from verifier import verify as check_source
    from verifier.findings import Finding
    from verifier.views.check.subject import subjects as own_subjects

    report = check_source(source)
    lines: list[str] = [
        f"{f.path}: {f.code}: {f.message} (the archive's files are not those its manifest, "
        "the statement's subject, lists)"
        for f in sorted(report.integrity.errors, key=Finding.sort_key)
    ]
    own = own_subjects(report)
    # the source's subject (a zip, tarball or commit) comes first, when there is one
    by_source = own[:-1]
    manifest = own[-1]
    listed = ", ".join(f"{s['name']} {k}:{v}" for s in own for k, v in sorted(s["digest"].items()))
    code = "signature.subject-mismatch"
    for subject, kind, value in subjects:
        if any(s["digest"].get(kind) == value for s in by_source):
            continue
        if manifest["digest"].get(kind) == value and subject == manifest["name"]:
            continue
        if manifest["digest"].get(kind) == value:
            why = f"has the digest of {manifest['name']} under another name"
        else:
            why = f"is not a digest of {source}"
        lines.append(
            f"{name}: {code}: the subject {subject} {kind}:{value} {why} (its subjects: "
            f"{listed}); the statement is about other bytes or another file: check the "
            "archive itself"
        )
    return lines


def register(parent: typer.Typer) -> None:
    parent.add_typer(app, name="attestation")

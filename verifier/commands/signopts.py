"""The authenticity options of ``check``: where the signature is and what to trust. The trust
files are the caller's own: read here (bounded), before the archive is opened; one that cannot
be read, or a bad value, is a usage error (exit 2)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from verifier.authenticity.registry import help_text as signature_help

if TYPE_CHECKING:
    from verifier.authenticity.interface import Trust

MAX_TRUST_BYTES = 4 << 20

SignatureOpt = Annotated[
    Path | None,
    typer.Option(
        "--signature",
        help=signature_help(),
    ),
]
RequireSignatureOpt = Annotated[
    bool,
    typer.Option(
        "--require-signature",
        help="Fail (signature.absent) when no signature is found or given.",
    ),
]
AllowedSignersOpt = Annotated[
    Path | None,
    typer.Option(
        "--allowed-signers",
        help="An OpenSSH allowed_signers file: the keys trusted for SSH signatures.",
    ),
]
IdentityOpt = Annotated[
    str | None,
    typer.Option(
        "--identity",
        help="The identity the SSH signer must hold (matched against allowed_signers "
        "principals as ssh-keygen -Y verify -I does). Default: any listed principal.",
    ),
]
NamespaceOpt = Annotated[
    str,
    typer.Option("--namespace", help="The SSH signature namespace expected (ssh-keygen -n)."),
]
VerifyTimeOpt = Annotated[
    str | None,
    typer.Option(
        "--verify-time",
        metavar="YYYYMMDD[HHMM[SS]][Z]",
        help="Evaluate allowed_signers validity windows at this time instead of now.",
    ),
]
MinisignKeyOpt = Annotated[
    str | None,
    typer.Option(
        "--minisign-key",
        metavar="KEY",
        help="The minisign public key trusted: its base64 line, or a .pub file.",
    ),
]
AllowLegacyOpt = Annotated[
    bool,
    typer.Option(
        "--allow-legacy-minisign",
        help="Accept legacy (Ed, not prehashed) minisign signatures.",
    ),
]
KeyringOpt = Annotated[
    Path | None,
    typer.Option(
        "--keyring",
        help="An OpenPGP keyring (binary or armoured export) for gpgv: the keys trusted for "
        "OpenPGP signatures.",
    ),
]


def read_trust_file(path: Path, option: str) -> bytes:
    """A trust file's bytes, or a :class:`~verifier.errors.UsageError`."""
    from verifier.errors import UsageError
    from verifier.sources.directory import NotRegularError, read_regular

    try:
        return read_regular(str(path), MAX_TRUST_BYTES, follow=True)
    except FileNotFoundError:
        raise UsageError(f"{option} {path}: no such file") from None
    except (NotRegularError, OSError) as exc:
        why = exc.strerror if exc.strerror else str(exc)
        raise UsageError(f"{option} {path}: cannot be read ({why})") from None


def trust_options(
    signature: Path | None,
    require: bool,
    allowed_signers: Path | None,
    identity: str | None,
    namespace: str,
    verify_time: str | None,
    minisign_key: str | None,
    allow_legacy: bool,
    keyring: Path | None,
) -> Trust:
    """The :class:`~verifier.authenticity.interface.Trust` the options give."""
    from verifier.authenticity.allowed_signers import parse_time
    from verifier.authenticity.interface import Trust
    from verifier.errors import UsageError

    if not namespace or not namespace.isprintable():
        raise UsageError("--namespace must be a non-empty printable name, such as file")
    if identity is not None and (not identity or not identity.isprintable()):
        raise UsageError("--identity must be a non-empty printable name")
    if identity is not None and allowed_signers is None:
        raise UsageError("--identity needs --allowed-signers (the file that names identities)")
    when = None
    if verify_time is not None:
        try:
            when = parse_time(verify_time)
        except ValueError:
            raise UsageError(
                f"--verify-time must read YYYYMMDD[HHMM[SS]][Z], not {verify_time!r}"
            ) from None
    signers = (
        None if allowed_signers is None else read_trust_file(allowed_signers, "--allowed-signers")
    )
    key = None
    key_label = "minisign key"
    if minisign_key is not None:
        from verifier.authenticity.minisign import key_bytes

        key, key_label = key_bytes(minisign_key, read_trust_file)
    keys = None if keyring is None else read_trust_file(keyring, "--keyring")
    return Trust(
        signature=None if signature is None else str(signature),
        require=require,
        allowed_signers=signers,
        allowed_signers_label=str(allowed_signers) if allowed_signers else "allowed_signers",
        identity=identity,
        namespace=namespace,
        verify_time=when,
        minisign_key=key,
        minisign_key_label=key_label,
        allow_legacy_minisign=allow_legacy,
        keyring=keys,
        keyring_label=str(keyring) if keyring else "the keyring",
    )

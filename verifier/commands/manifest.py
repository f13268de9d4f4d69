"""``verify-evidence manifest``: compute, and with ``--write`` write, a manifest."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from verifier.commands import EXIT_OK
from verifier.commands.options import ManifestOpt, ScopeOpt

RootArg = Annotated[Path, typer.Argument(help="The archive's root folder.")]


def manifest(
    root: RootArg = Path("."),
    write: Annotated[
        bool,
        typer.Option(
            "--write", help="Write ROOT/manifest.sha256 (or --manifest) instead of printing it."
        ),
    ] = False,
    manifest: ManifestOpt = None,
    scope: ScopeOpt = None,
    sign_ssh: Annotated[
        Path | None,
        typer.Option(
            "--sign-ssh",
            metavar="KEYFILE",
            help="With --write: sign the manifest with this OpenSSH private key (namespace "
            "file), writing MANIFEST.sig beside it; through ssh-keygen -Y sign when installed, "
            "else natively for an unencrypted Ed25519 key.",
        ),
    ] = None,
    sign_minisign: Annotated[
        Path | None,
        typer.Option(
            "--sign-minisign",
            metavar="KEYFILE",
            help="With --write: sign the manifest with this minisign secret key, writing "
            "MANIFEST.minisig beside it. An encrypted key's password comes from "
            "VERIFY_EVIDENCE_MINISIGN_PASSWORD, else from a prompt on the terminal.",
        ),
    ] = None,
) -> int:
    """Compute a manifest (sorted, LF, names escaped as sha256sum writes them).

    Covers every regular file in the scope: the --scope folders, else the folders the existing
    manifest covers, else evidence/ and schemas/. Never lists itself or anything under .git/.

    Example: verify-evidence manifest . --write
    """
    from verifier.atomicwrite import write_atomic
    from verifier.authoring.manifest_file import write_manifest
    from verifier.errors import UsageError

    if (sign_ssh or sign_minisign) and not write:
        raise UsageError("--sign-ssh and --sign-minisign sign the manifest written: add --write")
    where, scopes = manifest or None, tuple(scope) if scope else None
    text, signatures = signed(root, where, scopes, sign_ssh, sign_minisign)
    target, written = write_manifest(root, where, scopes, write)
    if signatures and written != text:
        raise UsageError("the folder changed while the manifest was signed; run it again")
    if not write:
        sys.stdout.buffer.write(written)
        return EXIT_OK
    print(f"wrote {target}", file=sys.stderr)
    for path, data in signatures:
        write_atomic(path, data)
        print(f"wrote {path}", file=sys.stderr)
    return EXIT_OK


def signed(
    root: Path,
    where: str | None,
    scopes: tuple[str, ...] | None,
    sign_ssh: Path | None,
    sign_minisign: Path | None,
) -> tuple[bytes, list[tuple[str, bytes]]]:
    """The manifest about to be written and its signatures (none without a key), made
    before anything is written: a signing failure leaves the old manifest (and its old
    signatures) as they were. The minisign key is read (its password asked) first."""
    from verifier.authoring.manifest_file import write_manifest

    secret = None
    if sign_minisign is not None:
        from verifier.authoring.sign_minisign import ask_password, read_secret_key
        from verifier.commands.options import read_trust_file

        secret = read_secret_key(read_trust_file(sign_minisign, "--sign-minisign"), ask_password)
    if sign_ssh is None and secret is None:
        return b"", []
    target, text = write_manifest(root, where, scopes, False)
    signatures: list[tuple[str, bytes]] = []
    if sign_ssh is not None:
        from verifier.authoring.sign_ssh import sign_ssh as ssh_signature

        signatures.append((target + ".sig", ssh_signature(sign_ssh, text)))
    if secret is not None:
        from verifier.authoring.sign_minisign import minisign_signature

        name = Path(target).name
        signatures.append((target + ".minisig", minisign_signature(secret, text, name)))
    return text, signatures


def register(app: typer.Typer) -> None:
    app.command("manifest")(manifest)

"""``verify-evidence audit``: verify a published snapshot and write an audit record."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from verifier.commands import (
    EXIT_OK,
    FailOn,
    FailOnOpt,
    ManifestOpt,
    ScopeOpt,
    exit_code,
    optional_path,
    optional_tuple,
    threshold,
)
from verifier.commands.configopts import ConfigOpt, NoConfigOpt, ShowConfigOpt
from verifier.commands.signopts import (
    AllowedSignersOpt,
    AllowLegacyOpt,
    IdentityOpt,
    KeyringOpt,
    MinisignKeyOpt,
    NamespaceOpt,
    RequireSignatureOpt,
    SignatureOpt,
    VerifyTimeOpt,
    trust_options,
)
from verifier.commands.sourceopts import (
    BaseOpt,
    GitOpt,
    MaxBytesOpt,
    MaxRatioOpt,
    RevOpt,
    SourceArg,
    source_options,
)


def _within(path: str, root: str) -> bool:
    return path == root or os.path.commonpath([path, root]) == root


def output_refusal(output: str, location: str) -> str | None:
    """Why the audit record must not be written to ``output``, if it must not.

    Paths are compared resolved (every symbolic link followed), on both sides: the output's
    folder as the write will reach it (the record is written beside it and renamed into
    place), and the output itself if it exists as a link. Into the audited folder: refused;
    over the audited archive file: refused."""
    root = os.path.realpath(location)
    # not abspath: it would drop "link/.." lexically, where the system goes up from the
    # link's target
    target = os.path.join(os.getcwd(), output)
    written = [
        os.path.join(os.path.realpath(os.path.dirname(target)), os.path.basename(target)),
        os.path.realpath(target),
    ]
    if os.path.isdir(root):
        if any(_within(path, root) for path in written):
            return "refusing to write the audit record inside the folder it audits"
    elif any(path == root for path in written):
        return "refusing to write the audit record over the archive it audits"
    return None


#: the configuration keys audit takes from a file: where and how to read the source, and
#: --fail-on (acceptance, --ignore/--select/--baseline, is left out: an audit record lists
#: every finding of what it audits, none set aside)
AUDIT_KEYS = frozenset({"manifest", "scope", "base", "max-bytes", "max-ratio", "fail-on"})


def audit(
    ctx: typer.Context,
    source: SourceArg = Path("."),
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Write the audit record (JSON, verifier/schemas/audit.schema.json) here; the text "
            "report then goes to standard output. Default: the record to standard output.",
        ),
    ] = None,
    manifest: ManifestOpt = None,
    scope: ScopeOpt = None,
    git: GitOpt = None,
    rev: RevOpt = None,
    base: BaseOpt = None,
    max_bytes: MaxBytesOpt = None,
    max_ratio: MaxRatioOpt = None,
    fail_on: FailOnOpt = FailOn.ERROR,
    signature: SignatureOpt = None,
    require_signature: RequireSignatureOpt = False,
    allowed_signers: AllowedSignersOpt = None,
    identity: IdentityOpt = None,
    namespace: NamespaceOpt = "file",
    verify_time: VerifyTimeOpt = None,
    minisign_key: MinisignKeyOpt = None,
    allow_legacy_minisign: AllowLegacyOpt = False,
    keyring: KeyringOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
    show_config: ShowConfigOpt = False,
) -> int:
    """Verify SOURCE and write an audit record: the source's identity (the SHA-256 of a zip
    or tarball, or the commit id), the verifier's version, who signed the manifest (with
    check's trust options), counts per stage, every finding and every file's digest.
    Deterministic apart from createdAt (SOURCE_DATE_EPOCH fixes it).

    Example: verify-evidence audit release-1.0.zip -o audit.json
    """
    from verifier.audit import audit_record, render, timestamp
    from verifier.commands.configopts import configure, converters, show_config_text
    from verifier.commands.output import write
    from verifier.pipeline import Options, UsageError, run
    from verifier.views.check import CHECK
    from verifier.views.interface import RenderSettings

    configured = configure(
        ctx,
        "audit",
        os.fspath(source),
        git,
        config,
        no_config,
        converters(FailOn, FailOn),  # (audit has no --format to take)
        AUDIT_KEYS,
        rev=rev,
    )
    if show_config:
        write(None, show_config_text(configured, ctx, "audit"))
        return EXIT_OK
    settings = configured.applied
    manifest = settings.get("manifest", manifest)
    scope = settings.get("scope", scope)
    base = settings.get("base", base)
    max_bytes = settings.get("max-bytes", max_bytes)
    max_ratio = settings.get("max-ratio", max_ratio)
    fail_on = settings.get("fail-on", fail_on)
    location, more = source_options(source, git, rev, base, max_bytes, max_ratio)
    created_at = timestamp()  # a malformed SOURCE_DATE_EPOCH stops before any work
    from verifier.commands.output import is_stdout

    to_stdout = is_stdout(output)
    if not to_stdout and more["rev"] is None:
        refusal = output_refusal(os.fspath(output or ""), location)
        if refusal:
            raise UsageError(refusal)
    trust = trust_options(  # the trust files are read (and refused) before the source
        signature,
        require_signature,
        allowed_signers,
        identity,
        namespace,
        verify_time,
        minisign_key,
        allow_legacy_minisign,
        keyring,
    )
    from verifier.commands.progress import progress_bar

    with progress_bar() as progress:  # on a terminal's stderr only: stdout may be the record
        options = Options(
            manifest=optional_path(manifest),
            scope=optional_tuple(scope),
            trust=trust,
            progress=progress,
            **more,
        )
        result = run(location, options)
    rendering = RenderSettings(threshold(fail_on))  # the text says the exit code's verdict
    record = render(audit_record(result, location, options.limits, created_at))
    if to_stdout:
        sys.stdout.write(record)
    else:
        write(output, record)
        sys.stdout.write(CHECK["text"](result.report, rendering))
    return exit_code(result.report, rendering.fail_on)


def register(app: typer.Typer) -> None:
    app.command()(audit)

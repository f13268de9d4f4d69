"""``verify-evidence check``: all four stages (authenticity, integrity, validity,
consistency), a summary per stage."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from verifier.commands import (
    EXIT_OK,
    Color,
    ColorOpt,
    FailOn,
    FailOnOpt,
    ManifestOpt,
    NoColorOpt,
    QuietOpt,
    ScopeOpt,
    VerboseOpt,
    exit_code,
    optional_path,
    optional_tuple,
    rich_console,
    threshold,
    use_rich,
)
from verifier.commands.acceptopts import (
    BaselineOpt,
    IgnoreOpt,
    SelectOpt,
    WriteBaselineOpt,
    acceptance_options,
    rewrite_baseline,
)
from verifier.commands.configopts import (
    ConfigOpt,
    NoConfigOpt,
    ShowConfigOpt,
    configure,
    converters,
    verbose_text,
)
from verifier.commands.configopts import show_config as show_config_text
from verifier.commands.output import (
    ORDER_KEY,
    OrderedOptionsCommand,
    format_choices,
    format_help,
)
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
    ExecutorOpt,
    GitOpt,
    MaxBytesOpt,
    MaxRatioOpt,
    RevOpt,
    SchedulerOpt,
    SourceArg,
    executor_options,
    source_options,
)
from verifier.views.check import BLOCKED_SHOWN, CHECK

if TYPE_CHECKING:

    class Format(StrEnum):  # what mypy sees; at run time, every name in the registry
        AUTO = "auto"

else:
    Format = format_choices("Format", CHECK)  # the choices of --format: auto, then CHECK's


def check(
    ctx: typer.Context,
    root: SourceArg = Path("."),
    fmt: Annotated[
        list[Format] | None,
        typer.Option(
            "--format",
            "-f",
            help=format_help(
                CHECK,
                " Repeatable; each goes to the --output given right after it, or to standard "
                "output (one format at most).",
            ),
            case_sensitive=False,
        ),
    ] = None,
    output: Annotated[
        list[str] | None,
        typer.Option(
            "--output",
            "-o",
            help="FORMAT=PATH, or PATH for the --format given just before it: write that "
            "format to PATH instead of standard output. Repeatable.",
        ),
    ] = None,
    manifest: ManifestOpt = None,
    scope: ScopeOpt = None,
    no_color: NoColorOpt = False,
    quiet: QuietOpt = False,
    fail_on: FailOnOpt = FailOn.ERROR,
    git: GitOpt = None,
    rev: RevOpt = None,
    base: BaseOpt = None,
    max_bytes: MaxBytesOpt = None,
    max_ratio: MaxRatioOpt = None,
    stages: Annotated[
        str,
        typer.Option(
            "--stages",
            help="Comma-separated stages to run: integrity (always: it is the one read of "
            "every file), validity, consistency. Authenticity (the manifest's signature) "
            "always runs. Skipped stages are reported as skipped.",
        ),
    ] = "integrity,validity,consistency",
    jobs: Annotated[
        str | None,
        typer.Option(
            "--jobs",
            "-j",
            metavar="N",
            help="Workers (processes or threads, see --executor) that read, hash and parse "
            "the files, 1 to 1024 (default: one per available core).",
        ),
    ] = None,
    executor: ExecutorOpt = None,
    scheduler: SchedulerOpt = None,
    ignore: IgnoreOpt = None,
    select: SelectOpt = None,
    baseline: BaselineOpt = None,
    write_baseline: WriteBaselineOpt = None,
    color: ColorOpt = Color.AUTO,
    verbose: VerboseOpt = False,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
    show_config: ShowConfigOpt = False,
    path_prefix: Annotated[
        str | None,
        typer.Option(
            "--path-prefix",
            metavar="PREFIX",
            help="Put PREFIX before every path in SARIF and GitHub annotations (default: the "
            "archive folder relative to the working directory, e.g. my-archive/; '' for none).",
        ),
    ] = None,
    all_blocked: Annotated[
        bool,
        typer.Option(
            "--all-blocked",
            help="In the text and rich views, list every finding an earlier one blocks under "
            f"it (by default the first {BLOCKED_SHOWN} under each cause, then how many more).",
        ),
    ] = False,
    signature: SignatureOpt = None,
    require_signature: RequireSignatureOpt = False,
    allowed_signers: AllowedSignersOpt = None,
    identity: IdentityOpt = None,
    namespace: NamespaceOpt = "file",
    verify_time: VerifyTimeOpt = None,
    minisign_key: MinisignKeyOpt = None,
    allow_legacy_minisign: AllowLegacyOpt = False,
    keyring: KeyringOpt = None,
    attest_key: Annotated[
        Path | None,
        typer.Option(
            "--attest-key",
            metavar="KEYFILE",
            help="With --format in-toto: wrap the statement in a DSSE envelope signed with this "
            "unencrypted OpenSSH Ed25519 key (check it with verify-evidence attestation "
            "verify).",
        ),
    ] = None,
) -> int:
    """Run all four stages (authenticity, integrity, validity, consistency) and print a
    summary per stage.

    SOURCE is a folder, a zip, a tarball, REPO@REV or a BagIt bag; nothing is extracted.

    Example: verify-evidence check . --format github --output sarif=report.sarif
    --format junit -o junit.xml
    """
    from verifier.commands.output import plan, tokens, write
    from verifier.pipeline import Options, verify

    configured = configure(
        ctx,
        "check",
        os.fspath(root),
        git,
        config,
        no_config,
        converters(Format, FailOn, Color),
        rev=rev,
    )
    if show_config:
        write(None, show_config_text(configured, ctx, "check"))
        return EXIT_OK
    settings = configured.applied
    if verbose:
        print(verbose_text(configured), end="", file=sys.stderr)
    order = ctx.meta.get(ORDER_KEY)
    if "format" in settings:  # the file's format goes to standard output
        fmt, order = [settings["format"]], None if order is None else ["fmt", *order]
    manifest = settings.get("manifest", manifest)
    scope = settings.get("scope", scope)
    no_color = settings.get("no-color", no_color)
    color = settings.get("color", color)
    quiet = settings.get("quiet", quiet)
    fail_on = settings.get("fail-on", fail_on)
    base = settings.get("base", base)
    max_bytes = settings.get("max-bytes", max_bytes)
    max_ratio = settings.get("max-ratio", max_ratio)
    stages = settings.get("stages", stages)
    jobs = settings.get("jobs", jobs)
    executor = settings.get("executor", executor)
    ignore = settings.get("ignore", ignore)
    select = settings.get("select", select)
    baseline = settings.get("baseline", baseline)

    given = tokens(order, [f.value for f in fmt or []], list(output or []))
    pairs = plan(given, (f.value for f in Format), default=Format.AUTO.value)
    location, more = source_options(root, git, rev, base, max_bytes, max_ratio)
    from verifier.plan.option_values import MAX_JOBS, parse_count

    workers = None if jobs is None else parse_count(jobs, "--jobs", 1, MAX_JOBS)
    where = executor_options(executor, scheduler)
    accepting = acceptance_options(ignore, select, baseline, write_baseline, pairs)
    if attest_key is not None:
        from verifier.errors import UsageError

        if "in-toto" not in [name for name, _ in pairs]:
            raise UsageError("--attest-key signs the in-toto statement: add --format in-toto")
        if not attest_key.is_file():
            raise UsageError(f"--attest-key {attest_key}: no such file")
    trust = trust_options(
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
    from dataclasses import replace

    from verifier.commands.progress import announce_report, progress_bar
    from verifier.views.interface import RenderSettings

    with progress_bar(enabled=not quiet) as progress:
        report = verify(
            location,
            Options(
                manifest=optional_path(manifest),
                scope=optional_tuple(scope),
                stages=frozenset(s.strip() for s in stages.split(",") if s.strip()),
                workers=workers,
                progress=progress,
                trust=trust,
                **more,
                **where,
                **accepting,
            ),
        )
        if write_baseline is not None:
            report = rewrite_baseline(report, write_baseline)
        report = replace(report, configuration=configured.to_dict())
        rendering = RenderSettings(
            threshold(fail_on),
            default_prefix(root) if path_prefix is None else path_prefix,
            all_blocked,
        )
        announce_report(progress)
        rendered: list[tuple[str, Path | None, str | Iterator[str] | None]] = []
        for name, path in pairs:
            if quiet and path is None:
                continue
            if name == Format.AUTO and path is None and use_rich(True, no_color, color):
                rendered.append((name, path, None))  # drawn once the progress is gone
                continue
            if name == "in-toto" and attest_key is not None:
                from verifier.authenticity.dsse import wrap

                text = wrap(CHECK["in-toto"](report, rendering).encode(), attest_key).decode()
                rendered.append((name, path, text))
                continue
            # made a part at a time as it is written, below: a large report's JSON is
            # never held whole
            parts = CHECK.parts("text" if name == Format.AUTO else name)
            rendered.append((name, path, parts(report, rendering)))
    for _, destination, body in rendered:
        if body is None:
            from verifier.views.check.rich_view import show

            show(report, rich_console(color), rendering)
            continue
        write(destination, body)
    return exit_code(report, rendering.fail_on)


def default_prefix(root: Path) -> str:
    """A folder archive's path relative to the working directory: ``my-archive`` for
    ``check my-archive``. ``""`` (paths relative to the archive root, as the report names
    them) for ``.``, for a folder outside the working directory, and for a zip, tarball or
    git source, whose members are not files of the working directory."""
    import os

    if not root.is_dir():
        return ""
    try:
        rel = os.path.relpath(root)
    except ValueError:  # another drive (Windows)
        return ""
    if rel == "." or rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return ""
    return rel.replace(os.sep, "/")


def register(app: typer.Typer) -> None:
    app.command(cls=OrderedOptionsCommand)(check)

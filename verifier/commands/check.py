"""``verify-evidence check``: all four stages (authenticity, integrity, validity,
consistency), a summary per stage."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from verifier.commands import exit_code, rich_console, threshold, use_rich
from verifier.commands.options import Request, command, format_option
from verifier.commands.output import format_choices
from verifier.views.check import CHECK

if TYPE_CHECKING:

    class Format(StrEnum):  # what mypy sees; at run time, every name in the registry
        AUTO = "auto"

else:
    Format = format_choices("Format", CHECK)  # the choices of --format: auto, then CHECK's


def check(request: Request) -> int:
    """Run all four stages (authenticity, integrity, validity, consistency) and print a
    summary per stage.

    SOURCE is a folder, a zip, a tarball, REPO@REV or a BagIt bag; nothing is extracted.

    Example: verify-evidence check . --format github --output sarif=report.sarif
    --format junit -o junit.xml
    """
    from verifier.audit import timestamp
    from verifier.commands.acceptopts import rewrite_baseline
    from verifier.commands.output import plan, tokens, write
    from verifier.commands.progress import announce_report, progress_bar
    from verifier.errors import UsageError
    from verifier.pipeline import verify
    from verifier.views.interface import RenderSettings

    quiet, color, attest_key = request.quiet, request.color, request.attest_key
    root, path_prefix, fail_on = request.source, request.path_prefix, request.fail_on
    all_blocked = request.all_blocked
    given = tokens(request.order, request.fmt, request.output)
    pairs = plan(given, (f.value for f in Format), default=Format.AUTO.value)
    location, options = request.location, request.options(pairs)
    if attest_key is not None and "in-toto" not in [name for name, _ in pairs]:
        raise UsageError("--attest-key signs the in-toto statement: add --format in-toto")
    predicate = request.in_toto_predicate.value
    if predicate != "test-result" and "in-toto" not in [name for name, _ in pairs]:
        raise UsageError("--in-toto-predicate chooses the in-toto statement: add --format in-toto")
    if attest_key is not None and not attest_key.is_file():
        raise UsageError(f"--attest-key {attest_key}: no such file")
    verified_at = timestamp()  # SOURCE_DATE_EPOCH fixes it; malformed: exit 2 before reading
    with progress_bar(enabled=not quiet) as progress:
        report = verify(location, replace(options, progress=progress))
        if request.write_baseline is not None:
            report = rewrite_baseline(report, request.write_baseline)
        report = replace(report, configuration=request.configuration)
        rendering = RenderSettings(
            threshold(fail_on),
            default_prefix(root) if path_prefix is None else path_prefix,
            all_blocked,
            predicate,
            verified_at,
        )
        announce_report(progress)
        rendered: list[tuple[str, Path | None, str | Iterator[str] | None]] = []
        for name, path in pairs:
            if quiet and path is None:
                continue
            if name == Format.AUTO and path is None and use_rich(True, request.no_color, color):
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


FORMAT_MORE = (
    " Repeatable; each goes to the --output given right after it, or to standard output (one "
    "format at most)."
)


def register(app: typer.Typer) -> None:
    command(
        app,
        check,
        "source fmt output manifest scope no_color quiet fail_on git rev base max_bytes "
        "max_ratio stages jobs executor scheduler ignore select baseline write_baseline color "
        "verbose config no_config show_config path_prefix all_blocked signature "
        "require_signature allowed_signers identity namespace verify_time minisign_key "
        "allow_legacy_minisign keyring witness_key checkpoint withheld_dir attest_key "
        "in_toto_predicate",
        fmt=format_option(Format, CHECK, FORMAT_MORE),
    )

"""``verify-evidence audit``: verify a published snapshot and write an audit record."""

from __future__ import annotations

import os
import sys
from dataclasses import replace

import typer

from verifier.commands import exit_code, threshold
from verifier.commands.options import Request, command


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


def audit(request: Request) -> int:
    """Verify SOURCE and write an audit record: the source's identity (the SHA-256 of a zip
    or tarball, or the commit id), the verifier's version, who signed the manifest (with
    check's trust options), counts per stage, every finding and every file's digest.
    Deterministic apart from createdAt (SOURCE_DATE_EPOCH fixes it).

    Example: verify-evidence audit release-1.0.zip -o audit.json
    """
    from verifier.audit import audit_record, render, timestamp
    from verifier.commands.output import is_stdout, write
    from verifier.commands.progress import progress_bar
    from verifier.pipeline import UsageError, run
    from verifier.views.check import CHECK
    from verifier.views.interface import RenderSettings

    location, output = request.location, request.record
    created_at = timestamp()  # a malformed SOURCE_DATE_EPOCH stops before any work
    options = request.options()  # the trust files are read (and refused) before the source
    if not is_stdout(output) and options.rev is None:
        refusal = output_refusal(os.fspath(output or ""), location)
        if refusal:
            raise UsageError(refusal)
    with progress_bar() as progress:  # on a terminal's stderr only: stdout may be the record
        result = run(location, replace(options, progress=progress))
    rendering = RenderSettings(threshold(request.fail_on))  # the text says the exit code's verdict
    record = render(audit_record(result, location, options.limits, created_at))
    if is_stdout(output):
        sys.stdout.write(record)
    else:
        write(output, record)
        sys.stdout.write(CHECK["text"](result.report, rendering))
    return exit_code(result.report, rendering.fail_on)


def register(app: typer.Typer) -> None:
    # the configuration keys audit takes: where and how to read the source, and --fail-on
    # (not acceptance: an audit record lists every finding of what it audits)
    command(
        app,
        audit,
        "source record manifest scope git rev base max_bytes max_ratio fail_on signature "
        "require_signature allowed_signers identity namespace verify_time minisign_key "
        "allow_legacy_minisign keyring witness_key checkpoint withheld_dir config no_config "
        "show_config",
    )

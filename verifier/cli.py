"""The ``verify-evidence`` command: a thin layer that parses options, calls the core, renders,
and maps the result to an exit code. Each subcommand lives in ``verifier.commands``.

Exit codes: 0 no error; 1 at least one finding of severity error (or of the severity --fail-on
names, or higher); 2 the command could not run (bad arguments, ROOT missing, no manifest); 3 an
unexpected internal error (one line, no traceback).
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from typing import Annotated, NoReturn

import typer

from verifier.commands import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from verifier.version import __version__

# The subcommand modules, in the order --help lists them (each has register(app)).
COMMANDS = ("check", "coverage", "table", "manifest", "init", "transcript", "audit", "attestation")

app = typer.Typer(
    name="verify-evidence",
    help="Verify an evidence archive offline: integrity (SHA-256 manifest), validity (JSON "
    "Schema) and consistency (cross-file assertions).",
    add_completion=True,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        print(f"verify-evidence {__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", "-V", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Verify an evidence archive offline."""


for _name in COMMANDS:
    importlib.import_module(f"verifier.commands.{_name}").register(app)


def _fail(message: str) -> NoReturn:
    # one line, whatever the message quotes (a case id, a file name): escapes, never controls
    from verifier.views.inert import visible

    print(f"verify-evidence: error: {visible(message)}", file=sys.stderr)
    sys.exit(EXIT_USAGE)


def worker_failure(exc: BaseException) -> str:
    """One line for a run the executor could not finish: the failure's first line and, when
    it carries a worker's traceback, that traceback's last line (the exception raised)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    if not lines:
        return "the run could not go on: an executor failed"
    said = lines[0] if len(lines) == 1 else f"{lines[0].rstrip(':')}: {lines[-1]}"
    return f"the run could not go on, no verdict was reached: {said[:500]}"


def main(argv: list[str] | None = None) -> None:
    """Entry point: one line and exit 2 for bad usage; never a traceback."""
    from verifier.errors import UsageError
    from verifier.execute.interface import ExecutorError
    from verifier.interrupt import Terminated, raise_pending, signals_raise

    try:
        with signals_raise():  # a SIGTERM unwinds: scratch copies and temporary files go
            code = app(args=argv, prog_name="verify-evidence", standalone_mode=False)
            raise_pending()  # one that a caller swallowed still stops the command
    except Terminated as exc:
        print(f"verify-evidence: stopped by signal {exc.signum}", file=sys.stderr)
        sys.exit(128 + exc.signum)
    except UsageError as exc:
        _fail(str(exc))
    except ExecutorError as exc:  # a worker failed, died or could not be reached: no verdict
        _fail(worker_failure(exc))
    except typer.Abort:
        print("verify-evidence: interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(EXIT_FINDINGS)
    except Exception as exc:
        # click's UsageError family (typer may vendor click, so match by shape, not by class)
        if getattr(exc, "exit_code", None) == EXIT_USAGE and hasattr(exc, "format_message"):
            if type(exc).__name__ == "NoArgsIsHelpError":
                _fail(f"missing command ({', '.join(COMMANDS)}); see 'verify-evidence --help'")
            _fail(exc.format_message())
        # a bug of the verifier's own: the command could not run, one line and exit 2 (no
        # input should cause it: the hostile tests fail on the words "internal error")
        _fail(f"internal error: {type(exc).__name__}: {str(exc)[:500]}")
    sys.exit(code if isinstance(code, int) else EXIT_OK)


def run() -> NoReturn:
    """The console script: :func:`main`, then an exit that skips tearing down the objects a
    large run built (freeing them one by one took over a second at 100,000 records). Output
    is flushed first; files the commands write are closed by them before they return.

    The cyclic garbage collector is off for the command's life (reference counting still
    frees everything that is not in a cycle): its first pass after a large run walked every
    object the run had built, and nothing is torn down at the end anyway.

    Large blocks of memory are handed back when freed (glibc: a fixed mmap threshold,
    :func:`verifier.record.apart.fixed_mmap_threshold`)."""
    from verifier.record.apart import fixed_mmap_threshold

    gc.disable()
    fixed_mmap_threshold()
    try:
        main()
        code = EXIT_OK
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (EXIT_OK if exc.code is None else 1)
        if not isinstance(exc.code, int | None):
            print(exc.code, file=sys.stderr)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        code = code or EXIT_FINDINGS
    os._exit(code)

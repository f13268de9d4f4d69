"""``verify-evidence transcript check | repair``: tool-call histories, offline.

``check FILE...`` pairs every tool call with its result, in order, over each whole history
(exit 0 clean, 1 findings, 2 cannot run). ``repair FILE -o OUT`` closes every dangling call
with an explicit ``not run: the turn was interrupted`` result and writes the result to OUT,
never over FILE; a summary of what changed goes to standard error.
"""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from verifier.commands import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    Color,
    FailOn,
    rich_console,
    threshold,
    use_rich,
)
from verifier.commands.options import ColorOpt, FailOnOpt, NoColorOpt
from verifier.commands.output import format_choices, format_help
from verifier.transcripts import SHAPES
from verifier.transcripts.containers import CONTAINERS
from verifier.views.transcript import TRANSCRIPT

if TYPE_CHECKING:

    class Format(StrEnum):  # what mypy sees; at run time, every name in the registry
        AUTO = "auto"

else:
    Format = format_choices("Format", TRANSCRIPT)  # auto, then TRANSCRIPT's names

# The registry's names (read without importing one adapter)
SHAPE_NAMES = ", ".join(SHAPES)
CONTAINER_NAMES = ", ".join(CONTAINERS)

ShapeOpt = Annotated[
    str | None,
    typer.Option(
        "--shape",
        "-s",
        help=f"The message shape ({SHAPE_NAMES}) or harness container ({CONTAINER_NAMES}); "
        "detected when not given.",
    ),
]

LeafOpt = Annotated[
    bool,
    typer.Option(
        "--leaf",
        help="In a tree history (Pi, Claude Code), check only the path to the active leaf (the "
        "entry written last); without it every root-to-leaf path is checked.",
    ),
]


app = typer.Typer(
    name="transcript",
    help=f"Check or repair tool-call histories (message shapes: {SHAPE_NAMES}; harness "
    f"containers: {CONTAINER_NAMES}): every call gets exactly one result inside its answer "
    "window.",
    invoke_without_command=True,
    rich_markup_mode=None,
)


@app.callback()
def _group(ctx: typer.Context) -> None:
    """Check or repair tool-call histories."""
    if ctx.invoked_subcommand is None:
        print(
            "verify-evidence: error: missing command (check, repair); "
            "see 'verify-evidence transcript --help'",
            file=sys.stderr,
        )
        raise typer.Exit(EXIT_USAGE)


def _cannot(message: str) -> int:
    from verifier.views.inert import visible

    print(f"verify-evidence: error: {visible(message)}", file=sys.stderr)
    return EXIT_USAGE


@app.command("check")
def check(
    files: Annotated[
        list[Path],
        typer.Argument(help="Transcript files (JSON or JSON Lines); '-' reads standard input."),
    ],
    shape: ShapeOpt = None,
    fmt: Annotated[
        Format,
        typer.Option(
            "--format",
            "-f",
            help=format_help(TRANSCRIPT),
            case_sensitive=False,
        ),
    ] = Format.AUTO,
    no_color: NoColorOpt = False,
    fail_on: FailOnOpt = FailOn.ERROR,
    leaf: LeafOpt = False,
    color: ColorOpt = Color.AUTO,
) -> int:
    """Check that every tool call has exactly one result inside its answer window.

    Example: verify-evidence transcript check session.jsonl --shape pydantic-ai
    """
    from verifier.transcripts.check import CannotRun, check_files

    try:
        report = check_files([os.fspath(f) for f in files], shape, leaf)
    except CannotRun as exc:
        return _cannot(str(exc))
    report.fail_on = threshold(fail_on)  # the verdict's rule, for the views and the exit code
    if fmt is Format.AUTO and use_rich(True, no_color, color):
        from verifier.views.transcript.rich_view import show

        show(report, rich_console(color))
    else:
        sys.stdout.write(TRANSCRIPT["text" if fmt is Format.AUTO else fmt.value](report))
    return EXIT_OK if report.passed else EXIT_FINDINGS


@app.command("repair")
def repair(
    file: Annotated[
        Path,
        typer.Argument(help="The transcript to repair (JSON or JSON Lines); '-': standard input."),
    ],
    output: Annotated[
        Path,
        typer.Option(
            "--output", "-o", help="Where to write the repaired transcript ('-': stdout)."
        ),
    ],
    shape: ShapeOpt = None,
    fail_on: FailOnOpt = FailOn.ERROR,
    leaf: LeafOpt = False,
) -> int:
    """Close every dangling tool call with an explicit 'not run: the turn was interrupted'.

    Repair only adds: every entry given comes out unchanged, results that answer no call
    included. Exit 0 when the output has no error left, 1 when errors repair does not fix
    remain (a result that answers no call, an id reused while its call was open), 2 when it
    cannot run. Notes (an id reused after its call was answered) do not block it.

    Example: verify-evidence transcript repair chat.json -o chat.repaired.json
    """
    from verifier.commands.output import is_stdout
    from verifier.transcripts.check import CannotRun, read_bytes
    from verifier.transcripts.repair import repair_bytes

    source, target = os.fspath(file), os.fspath(output)
    if not is_stdout(target) and source != "-" and _same_file(source, target):
        return _cannot(f"refusing to write over the input {source}; give another --output")
    try:
        result = repair_bytes(read_bytes(source), source, shape, leaf)
    except CannotRun as exc:
        return _cannot(str(exc))
    if is_stdout(target):
        sys.stdout.buffer.write(result.output)
        sys.stdout.flush()
    else:
        try:
            _write(target, result.output)
        except OSError as exc:
            return _cannot(f"cannot write {target}: {exc.strerror or exc}")
    from verifier.views.inert import visible

    for line in result.summary():  # call ids and tool names come from the transcript
        print(visible(line), file=sys.stderr)
    if not is_stdout(target):
        print(f"wrote {visible(target)}", file=sys.stderr)
    return EXIT_FINDINGS if result.fails(threshold(fail_on)) else EXIT_OK


def _same_file(a: str, b: str) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _write(target: str, data: bytes) -> None:
    from verifier.atomicwrite import write_atomic

    write_atomic(target, data)


def register(parent: typer.Typer) -> None:
    parent.add_typer(app, name="transcript")

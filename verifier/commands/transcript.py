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

from verifier.commands import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, NoColorOpt, use_rich

if TYPE_CHECKING:
    from rich.console import Console

    from verifier.transcripts.check import TranscriptReport

# The registry's names, spelled out so that start-up does not import the adapters; a test
# checks they agree with verifier.transcripts.SHAPES.
SHAPE_NAMES = ", ".join(
    ("openai-chat", "openai-responses", "anthropic", "gemini", "pydantic-ai", "pi")
)

ShapeOpt = Annotated[
    str | None,
    typer.Option(
        "--shape",
        "-s",
        help=f"The message shape ({SHAPE_NAMES}); detected when not given.",
    ),
]


class Format(StrEnum):
    AUTO = "auto"
    TEXT = "text"
    JSON = "json"


app = typer.Typer(
    name="transcript",
    help="Check or repair tool-call histories (OpenAI Chat and Responses, Anthropic, Gemini, "
    "pydantic-ai, Pi): every call gets exactly one result inside its answer window.",
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
    print(f"verify-evidence: error: {message}", file=sys.stderr)
    return EXIT_USAGE


@app.command("check")
def check(
    files: Annotated[list[Path], typer.Argument(help="Transcript files (JSON or JSON Lines).")],
    shape: ShapeOpt = None,
    fmt: Annotated[
        Format,
        typer.Option(
            "--format",
            "-f",
            help="auto (rich on a terminal, text otherwise), text or json.",
            case_sensitive=False,
        ),
    ] = Format.AUTO,
    no_color: NoColorOpt = False,
) -> int:
    """Check that every tool call has exactly one result inside its answer window.

    Example: verify-evidence transcript check session.jsonl --shape pydantic-ai
    """
    from verifier.transcripts.check import CannotRun, check_files

    try:
        report = check_files([os.fspath(f) for f in files], shape)
    except CannotRun as exc:
        return _cannot(str(exc))
    if fmt is Format.AUTO and use_rich(True, no_color):
        from rich.console import Console

        _show(report, Console())
    else:
        from verifier.transcripts.report import FORMATS

        sys.stdout.write(FORMATS["text" if fmt is Format.AUTO else fmt.value](report))
    return EXIT_OK if report.ok else EXIT_FINDINGS


@app.command("repair")
def repair(
    file: Annotated[Path, typer.Argument(help="The transcript to repair (JSON or JSON Lines).")],
    output: Annotated[
        Path,
        typer.Option(
            "--output", "-o", help="Where to write the repaired transcript ('-': stdout)."
        ),
    ],
    shape: ShapeOpt = None,
) -> int:
    """Close every dangling tool call with an explicit 'not run: the turn was interrupted'.

    Orphaned results are left out; nothing else changes. Exit 0 when the output is clean, 1
    when findings repair does not fix remain (reused ids), 2 when it cannot run.

    Example: verify-evidence transcript repair chat.json -o chat.repaired.json
    """
    from verifier.transcripts.check import CannotRun, read_bytes
    from verifier.transcripts.repair import repair_bytes

    source, target = os.fspath(file), os.fspath(output)
    if target != "-" and _same_file(source, target):
        return _cannot(f"refusing to write over the input {source}; give another --output")
    try:
        result = repair_bytes(read_bytes(source), source, shape)
    except CannotRun as exc:
        return _cannot(str(exc))
    if target == "-":
        sys.stdout.buffer.write(result.output)
        sys.stdout.flush()
    else:
        try:
            _write(target, result.output)
        except OSError as exc:
            return _cannot(f"cannot write {target}: {exc.strerror or exc}")
    for line in result.summary():
        print(line, file=sys.stderr)
    if target != "-":
        print(f"wrote {target}", file=sys.stderr)
    return EXIT_FINDINGS if result.remaining else EXIT_OK


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


def _show(report: TranscriptReport, console: Console) -> None:
    from rich.table import Table
    from rich.text import Text

    from verifier.formats.clean import clean_str
    from verifier.transcripts.report import file_detail, location

    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("transcript", overflow="fold")
    table.add_column("status")
    table.add_column("read as")
    for f in report.files:
        status = Text("passed", "bold green") if f.ok else Text("failed", "bold red")
        table.add_row(clean_str(f.path), status, file_detail(f))
    console.print(table)
    console.print(report.summary_line, style="bold")
    items = [(f.path, x) for f in report.files for x in f.findings]
    if not items:
        console.print("No findings.", style="green")
        return
    findings = Table(title=f"{len(items)} finding(s)", show_header=True, header_style="bold")
    findings.add_column("where", overflow="fold")
    findings.add_column("code", style="red", no_wrap=True)
    findings.add_column("message", overflow="fold")
    for path, x in items:
        findings.add_row(location(path, x), x.code, clean_str(x.message))
    console.print(findings)


def register(parent: typer.Typer) -> None:
    parent.add_typer(app, name="transcript")

"""Options every command that reads a source takes: the source itself, ``--git``/``--rev``,
``--base`` and the safety limits. Shared by ``check`` and ``audit``."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from verifier.execute.registry import CHOICES
from verifier.sources.registry import looks

if TYPE_CHECKING:
    from verifier.sources.safety import Limits

SourceArg = Annotated[
    Path,
    typer.Argument(
        metavar="SOURCE",
        help=f"What to verify: {looks()}. Default: '.'.",
    ),
]
GitOpt = Annotated[
    Path | None,
    typer.Option(
        "--git", help="A git repository: verify the commit --rev (default HEAD) without checkout."
    ),
]
RevOpt = Annotated[
    str | None,
    typer.Option("--rev", help="The git revision to read (with --git, or of SOURCE)."),
]
BaseOpt = Annotated[
    str | None,
    typer.Option(
        "--base",
        help="The folder (inside SOURCE) the manifest's names are relative to. Default: SOURCE's "
        "root; when that fails, the report says which base would have matched.",
    ),
]
MaxBytesOpt = Annotated[
    str | None,
    typer.Option(
        "--max-bytes",
        help="Refuse archive entries past this total uncompressed size (e.g. 500M, 8G). "
        "Default 4G.",
    ),
]
MaxRatioOpt = Annotated[
    str | None,
    typer.Option(
        "--max-ratio",
        help="Refuse zip members and compressed tarballs that expand more than this many times "
        "(checked above 1 MiB). Default 100.",
    ),
]


ExecutorOpt = Annotated[
    str | None,
    typer.Option(
        "--executor",
        metavar="NAME",
        help=f"Where each file is inspected: {', '.join(CHOICES)}. auto (the default): local "
        "processes when the archive is large enough (threads for a few large files to hash), "
        "else this process; dask needs 'pip install \"verify-evidence[dask]\"' and runs on a "
        "local cluster of --jobs workers, or on the cluster at --scheduler. The report is the "
        "same whichever runs.",
    ),
]
SchedulerOpt = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        metavar="ADDRESS",
        help="With --executor dask: the scheduler of an existing Dask cluster, e.g. "
        "tcp://host:8786. Each file's bytes are read here and sent to the workers with "
        "its task: the cluster must be one you trust.",
    ),
]
_ADDRESS = re.compile(  # scheme://host[:port][/path] or host:port, printable ASCII only
    r"[A-Za-z][A-Za-z0-9+.-]*://[A-Za-z0-9._~%:\[\]-]+(?:/[A-Za-z0-9._~%/-]*)?"
    r"|[A-Za-z0-9._-]+:[0-9]{1,5}"
)


def executor_options(executor: str | None, scheduler: str | None) -> dict[str, Any]:
    """The :class:`~verifier.pipeline.Options` fields ``--executor`` and ``--scheduler`` set,
    checked before anything is read (a bad value is a UsageError: exit 2)."""
    from verifier.errors import UsageError

    name = "auto" if executor is None else executor.strip().lower()
    if name not in CHOICES:
        raise UsageError(f"--executor must be one of {', '.join(CHOICES)}, not {executor!r}")
    if scheduler is not None:
        if name != "dask":
            raise UsageError("--scheduler is an option of --executor dask; add --executor dask")
        if not _ADDRESS.fullmatch(scheduler):
            raise UsageError(
                f"--scheduler must be a Dask scheduler address such as tcp://host:8786, "
                f"not {scheduler!r}"
            )
    if name == "dask" and importlib.util.find_spec("distributed") is None:
        raise UsageError('--executor dask needs Dask: pip install "verify-evidence[dask]"')
    return {"executor": name, "scheduler": scheduler}


def limits_of(max_bytes: str | None, max_ratio: str | None) -> Limits:
    """The limits the options set (strictly parsed: :mod:`verifier.plan.option_values`)."""
    from verifier.plan.option_values import parse_ratio, parse_size
    from verifier.sources.safety import Limits

    limits = Limits()
    if max_bytes is not None:
        limits = Limits(parse_size(max_bytes), limits.max_ratio)
    if max_ratio is not None:
        limits = Limits(limits.max_bytes, parse_ratio(max_ratio))
    return limits


def source_options(
    source: Path,
    git: Path | None,
    rev: str | None,
    base: str | None,
    max_bytes: str | None,
    max_ratio: str | None,
) -> tuple[str, dict[str, Any]]:
    """The location to open and the :class:`~verifier.pipeline.Options` fields for it."""
    from verifier.errors import UsageError

    location = os.fspath(source)
    if git is not None:
        if location != ".":
            raise UsageError("give either SOURCE or --git REPO, not both")
        location = os.fspath(git)
        rev = rev or "HEAD"
    return location, {"rev": rev, "base": base, "limits": limits_of(max_bytes, max_ratio)}

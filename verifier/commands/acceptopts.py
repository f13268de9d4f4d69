"""The options that say which findings count: ``--ignore``, ``--select``, ``--baseline`` and
``--write-baseline`` (:mod:`verifier.accept`). Codes and the baseline file are checked before
anything of the archive is read."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from verifier.report import Report


def acceptance_options(
    ignore: Sequence[str],
    select: Sequence[str] | None,
    baseline: Path | None,
    write_baseline: Path | None,
    outputs: Sequence[tuple[str, Path | None]] = (),
) -> dict[str, Any]:
    """The :class:`~verifier.plan.options.Options` fields these options set; raises
    :class:`~verifier.errors.UsageError` (exit 2) for an unknown code, an unreadable or
    invalid baseline, or a --write-baseline path that an --output also names."""
    from verifier.accept.baseline import read_baseline
    from verifier.errors import UsageError
    from verifier.values.selection import parse_codes

    ignored = parse_codes(ignore, "--ignore")
    selected = None if select is None else parse_codes(select, "--select")
    from verifier.commands.output import is_stdout

    if write_baseline is not None and is_stdout(write_baseline):
        taken = [name for name, path in outputs if path is None]
        if taken:
            raise UsageError(
                f"--write-baseline - and --format {taken[0]} would both go to standard "
                f"output; give --format {taken[0]} an --output"
            )
    elif write_baseline is not None:
        target = os.path.normpath(os.fspath(write_baseline))
        for name, path in outputs:
            if path is not None and os.path.normpath(os.fspath(path)) == target:
                raise UsageError(
                    f"--write-baseline {write_baseline} is also the --output of {name}"
                )
    return {
        "ignore": ignored,
        "select": selected,
        "baseline": None if baseline is None else read_baseline(baseline),
    }


def rewrite_baseline(report: Report, path: Path) -> Report:
    """Write the baseline accepting every finding ``report`` counts or a baseline accepted
    (never one about the baseline itself), each entry with the digest of the bytes it is
    about, then return the report with it applied."""
    from verifier.accept.apply import ABOUT_BASELINE, accept
    from verifier.accept.baseline import Baseline, Subjects, render_baseline
    from verifier.commands.output import write
    from verifier.values.selection import Selection

    accepted = report.acceptance
    findings = [f for f in report.findings if f.code not in ABOUT_BASELINE]
    findings += [a.finding for s in report.stages for a in s.accepted if a.by == "baseline"]
    subjects = Subjects(report)
    entries = tuple(subjects.entry(f) for f in findings)
    write(path, render_baseline(entries))
    selection = Selection(
        frozenset(accepted.ignore) if accepted else frozenset(),
        None if accepted is None or accepted.select is None else frozenset(accepted.select),
    )
    stripped = _without_baseline(report)
    return accept(stripped, selection, Baseline(os.fspath(path), entries))


def _without_baseline(report: Report) -> Report:
    """``report`` as if no baseline had been given (its baseline-accepted findings counted
    again, the findings about its entries gone); ignored and not-selected findings stay
    accepted."""
    from dataclasses import replace

    from verifier.accept.apply import ABOUT_BASELINE

    stages = [
        replace(
            s,
            findings=[f for f in s.findings if f.code not in ABOUT_BASELINE]
            + [a.finding for a in s.accepted if a.by == "baseline"],
            accepted=[
                a for a in s.accepted if a.by != "baseline" and a.finding.code not in ABOUT_BASELINE
            ],
        )
        for s in report.stages
    ]
    return replace(report, integrity=stages[0], validity=stages[1], consistency=stages[2])

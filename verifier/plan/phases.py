"""The phases of a run, in order, as progress reports name them: the core announces each as
it starts (:func:`announce`); the CLI's progress display (verifier.commands.progress) shows
the current one, with a spinner that keeps moving between counts. The counts themselves
still come as ``progress(stage, done, total)`` calls (the files inspected)."""

from __future__ import annotations

from typing import Any

PHASES = ("manifest", "walk", "schemas", "records", "assertions", "report")


def announce(progress: Any, name: str) -> None:
    """Tell ``progress`` (the options' callable) that phase ``name`` starts, when it takes
    phases (has a ``phase`` method); a plain callable gets only the counts, as before."""
    phase = getattr(progress, "phase", None)
    if callable(phase):
        phase(name)

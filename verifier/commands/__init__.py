"""The CLI's subcommands, one module each, each with ``register(app)``.

Shared here: exit codes, the choices of --color and --fail-on, and when to draw the rich view
(the options themselves are declared once, in :mod:`verifier.commands.options`). Modules
import the core lazily inside their command functions, so ``verify-evidence --version``
stays fast.
"""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from verifier.findings import Severity
    from verifier.report import Report

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class Color(StrEnum):
    """The choices of --color."""

    AUTO = "auto"
    ALWAYS = "always"
    NEVER = "never"


class FailOn(StrEnum):
    """The choices of --fail-on: the lowest severity that makes the exit code 1."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


class InTotoPredicate(StrEnum):
    """The choices of --in-toto-predicate: what --format in-toto states."""

    TEST_RESULT = "test-result"
    VSA = "vsa"


def threshold(fail_on: FailOn) -> Severity:
    from verifier.findings import Severity

    return Severity(fail_on.value)


def exit_code(report: Report, fail_on: Severity) -> int:
    """A check report's exit code: its verdict at ``fail_on`` (``--fail-on``;
    :meth:`Report.verdict`, the one rule every view's verdict follows too)."""
    return EXIT_FINDINGS if report.fails(fail_on) else EXIT_OK


def forced_color() -> bool:
    """``FORCE_COLOR`` set to anything but empty, ``0`` or ``false`` (force-color.org)."""
    return os.environ.get("FORCE_COLOR", "").strip().lower() not in ("", "0", "false", "no")


def use_rich(auto: bool, no_color: bool, color: Color = Color.AUTO) -> bool:
    """A rich view where the format is auto: with --color always; never with --color never,
    --no-color or NO_COLOR (which wins over FORCE_COLOR); with FORCE_COLOR; else on a
    terminal only."""
    if not auto or no_color or color is Color.NEVER:
        return False
    if color is Color.ALWAYS:
        return True
    if "NO_COLOR" in os.environ:
        return False
    return forced_color() or sys.stdout.isatty()


def rich_console(color: Color = Color.AUTO) -> Console:
    """The terminal console, forced to colour when --color always or FORCE_COLOR asked."""
    from verifier.views.terminal import console

    force = color is Color.ALWAYS or (color is Color.AUTO and forced_color())
    return console(force_terminal=True) if force else console()

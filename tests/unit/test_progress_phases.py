"""Progress for every phase on a terminal (issue 16): manifest, walk, schemas, records,
assertions, report, each drawn as it starts on standard error; nothing on a stream that is
not a terminal, and never on standard output. Checked on a fake terminal."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from verifier import verify
from verifier.commands.progress import DELAY, announce_report, progress_bar
from verifier.pipeline import Options
from verifier.plan.phases import PHASES


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_every_phase_is_announced_in_order_and_drawn() -> None:
    screen = FakeTerminal()
    with progress_bar(stream=screen, delay=0) as progress:
        assert progress is not None
        verify(REPO, Options(progress=progress, workers=1))
        announce_report(progress)
    assert progress.seen == list(PHASES)
    drawn = screen.getvalue()
    for phase in PHASES:
        assert phase in drawn, phase
    assert "\x1b[" in drawn  # drawn as a terminal is drawn (and cleared: transient)


def test_nothing_waits_a_second_before_it_is_drawn() -> None:
    assert 0 < DELAY < 1


def test_nothing_is_drawn_on_a_stream_that_is_not_a_terminal() -> None:
    plain = io.StringIO()
    with progress_bar(stream=plain, delay=0) as progress:
        assert progress is None
    assert plain.getvalue() == ""
    with progress_bar(enabled=False, stream=FakeTerminal(), delay=0) as progress:
        assert progress is None  # --quiet


def test_a_run_shorter_than_the_delay_draws_nothing() -> None:
    screen = FakeTerminal()
    with progress_bar(stream=screen, delay=60) as progress:
        assert progress is not None
        progress.phase("manifest")
        progress("integrity", 1, 2)
    assert screen.getvalue() == ""


def test_counts_go_to_the_current_phase() -> None:
    screen = FakeTerminal()
    with progress_bar(stream=screen, delay=0) as progress:
        assert progress is not None
        progress.phase("records")
        progress("integrity", 3, 7)
    assert progress.seen == ["records"]
    assert "records" in screen.getvalue() and "3/3" in screen.getvalue()  # done when it stopped


def test_a_plain_callable_still_gets_only_the_counts(tmp_path: Path) -> None:
    calls: list[tuple[str, int, int]] = []
    verify(REPO, Options(workers=1, progress=lambda *a: calls.append(a)))
    assert calls and {c[0] for c in calls} == {"integrity"}


@pytest.mark.parametrize(
    "args",
    [("check", ".", "--format", "json"), ("table", ".", "--format", "json"), ("audit", ".")],
    ids=["check", "table", "audit"],
)
def test_a_terminal_on_stderr_leaves_a_machine_format_on_stdout_unchanged(
    args: tuple[str, ...],
) -> None:
    """The real CLI with standard error on a pseudo-terminal: standard output (JSON, to a
    pipe) is byte for byte what it is without a terminal, for every command that draws
    progress while it reads an archive."""
    command = [sys.executable, "-m", "verifier", *args]
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}  # the audit record's time
    plain = subprocess.run(command, cwd=REPO, capture_output=True, check=False, env=env)
    leader, follower = pty.openpty()
    try:
        with_tty = subprocess.run(
            command, cwd=REPO, stdout=subprocess.PIPE, stderr=follower, check=False, env=env
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert with_tty.returncode == plain.returncode == 0
    assert with_tty.stdout == plain.stdout
    assert b"\x1b" not in with_tty.stdout

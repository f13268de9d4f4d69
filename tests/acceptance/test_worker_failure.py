"""A run the executor cannot finish (a worker raised, died, or the scheduler is unreachable)
has no verdict: one line naming the failure and exit 2, never a traceback and never exit 3."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import copy_bundled
from verifier import cli
from verifier.execute.interface import ExecutorError


def test_a_worker_traceback_becomes_one_line() -> None:
    exc = ExecutorError(
        "a worker process (pid 7) failed:\nTraceback (most recent call last):\n"
        '  File "x.py", line 1, in f\nMemoryError: out of memory\n'
    )
    said = cli.worker_failure(exc)
    assert "\n" not in said
    assert said.endswith("a worker process (pid 7) failed: MemoryError: out of memory")
    assert cli.worker_failure(ExecutorError("")).startswith("the run could not go on")


def test_a_failing_executor_exits_2_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = copy_bundled(tmp_path / "archive")

    def fail(*args: object, **kwargs: object) -> None:
        raise ExecutorError("a worker process (pid 9) failed:\nTraceback ...\nKilled: signal 9")

    monkeypatch.setattr("verifier.pipeline.inspect_all", fail)
    with pytest.raises(SystemExit) as ended:
        cli.main(["check", str(archive)])
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "pid 9) failed: Killed: signal 9" in err


@pytest.mark.slow  # Dask gives up on the address after its connect timeout (about 30 s)
def test_an_unreachable_scheduler_exits_2(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    archive = copy_bundled(tmp_path / "archive")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "verifier",
            "check",
            str(archive),
            "--executor",
            "dask",
            "--scheduler",
            f"tcp://127.0.0.1:{port}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr

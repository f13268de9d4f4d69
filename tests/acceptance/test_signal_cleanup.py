"""A run stopped by SIGTERM (or SIGINT, or SIGHUP) cleans up after itself (issue 34, class 9):
``coverage --mutate --full`` leaves no scratch copy in the temporary folder. The mechanism is
process-wide (``verifier.interrupt``: the signal raises, every ``finally`` runs), so the test
sends the signal to a real ``verify-evidence`` process while its scratch copy exists."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import copy_bundled


@pytest.mark.parametrize(
    ("signum", "code"),
    [
        (signal.SIGTERM, 128 + signal.SIGTERM),
        (signal.SIGHUP, 128 + signal.SIGHUP),
        (signal.SIGINT, 130),
    ],
)
def test_a_stopped_full_mutation_leaves_no_scratch_copy(
    signum: int, code: int, tmp_path: Path
) -> None:
    root = copy_bundled(tmp_path / "a")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("VERIFIER_")}
    env["TMPDIR"] = str(tmp)
    args = ["coverage", str(root), "--mutate", "--full", "--max-mutants", "100000", "-j", "1"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "verifier", *args, "-q"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        # no deadline (a loaded machine is slow, not wrong): the run is bounded by its
        # mutants, so the wait ends, at the latest when the run does (and that fails)
        while not any(p.name.startswith("verifier-mutate-") for p in tmp.iterdir()):
            assert proc.poll() is None, "the run ended before its scratch copy was made"
            time.sleep(0.02)
        time.sleep(0.3)  # into the mutants
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code, err
    assert b"Traceback" not in err and err.count(b"\n") == 1, err
    assert sorted(p.name for p in tmp.iterdir()) == []

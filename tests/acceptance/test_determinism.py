"""The report does not depend on the process that wrote it: two child processes with other
hash seeds and other worker counts write byte-identical output, in every check format, for a
tampered archive. The two-worker child is made to really read in two processes
(tests/spread.py), and says it did."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.tampered import tamper
from verifier.views.check import CHECK as FORMATS

RUNS = (("0", "1"), ("4242", "2"))  # (PYTHONHASHSEED, --jobs)


def check(root: Path, fmt: str, seed: str, jobs: str, counts: Path) -> bytes:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VERIFIER_")}
    env.update(PYTHONHASHSEED=seed, PYTHONPATH=str(REPO))
    command = ["check", ".", "--format", fmt, "--jobs", jobs]
    proc = subprocess.run(
        [sys.executable, "-m", "tests.spread", str(counts), *command],
        cwd=root,
        env=env,
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr.decode(errors="replace")
    assert proc.stderr == b""
    return proc.stdout


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_two_processes_two_seeds_same_bytes(archive: Path, tmp_path: Path, fmt: str) -> None:
    tamper(archive)
    outputs: list[bytes] = []
    for seed, jobs in RUNS:
        counts = tmp_path / f"read-processes-{jobs}.txt"
        outputs.append(check(archive, fmt, seed, jobs, counts))
        # one run per child; -j 1 read in one process, -j 2 in two
        assert counts.read_text(encoding="utf-8") == f"{jobs}\n"
    assert outputs[0] == outputs[1]
    assert outputs[0]  # something was written to compare

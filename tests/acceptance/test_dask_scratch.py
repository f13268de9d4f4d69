"""A run on a local Dask cluster leaves nothing behind (issue 34, class 9): Dask put its
workers' ``dask-scratch-space`` in the temporary folder and left it there after every run.
The executor gives the cluster a scratch folder of its own and removes it on close."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import copy_bundled
from tests.dasktest import need_dask


@pytest.mark.parametrize(
    "args",
    [
        ["check", "-q"],
        ["coverage", "-q", "--mutate", "--max-mutants", "4"],
    ],
)
def test_a_dask_run_leaves_no_scratch_space(args: list[str], tmp_path: Path) -> None:
    need_dask()
    root = copy_bundled(tmp_path / "a")
    tmp, work = tmp_path / "tmp", tmp_path / "work"
    tmp.mkdir()
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VERIFIER_", "DASK_"))}
    env["TMPDIR"] = str(tmp)
    proc = subprocess.run(
        [sys.executable, "-m", "verifier", *args, str(root), "--executor", "dask", "-j", "2"],
        capture_output=True,
        text=True,
        env=env,
        cwd=work,
        timeout=300,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert sorted(p.name for p in tmp.iterdir()) == []
    assert sorted(p.name for p in work.iterdir()) == []


def test_a_local_cluster_says_nothing_when_the_dashboard_port_is_taken(tmp_path: Path) -> None:
    """Dask's scheduler starts an HTTP server even without a dashboard, on port 8787 of
    every interface, and warned on stderr when another cluster held that port (two runs at
    once). The executor's cluster serves it on a free port of the loopback: a quiet run
    says nothing."""
    import contextlib
    import socket

    need_dask()
    root = copy_bundled(tmp_path / "a")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VERIFIER_", "DASK_"))}
    with socket.socket() as held:
        with contextlib.suppress(OSError):  # (taken already: as good)
            held.bind(("127.0.0.1", 8787))
            held.listen()
        proc = subprocess.run(
            [sys.executable, "-m", "verifier", "check", "-q", str(root), "--executor", "dask"],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=300,
            check=False,
        )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""

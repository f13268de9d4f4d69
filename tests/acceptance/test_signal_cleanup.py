"""A run stopped by SIGTERM (or SIGINT, or SIGHUP) cleans up after itself (issue 34, class 9):
``coverage --mutate --full`` leaves no scratch copy in the temporary folder. The mechanism is
process-wide (``verifier.interrupt``: the signal raises, every ``finally`` runs), so the test
sends the signal to a real ``verify-evidence`` process while its scratch copy exists."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import copy_bundled
from tests.dasktest import need_dask


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


def _children(pid: int) -> set[int]:
    """The processes ``pid`` started (and theirs), from /proc."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children") as handle:
                    kids = {int(p) for p in handle.read().split()}
            except OSError:
                continue
            todo.extend(kids - found)
            found |= kids
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.slow  # a 3,000-record archive generated, a Dask cluster started
@pytest.mark.parametrize(
    ("executor", "when"), [("dask", "starting"), ("dask", "up"), ("processes", "starting")]
)
def test_a_stopped_run_on_workers_leaves_no_scratch_and_no_worker(
    executor: str, when: str, tmp_path: Path
) -> None:
    """SIGTERM as the workers start (a local Dask cluster: while it starts, which left its
    workers running and their semaphores leaked) or once a Dask cluster's two workers have
    their folders (``up``: the batches follow): the run exits 143 in one line, its workers
    (a Dask cluster's nannies and workers, or local processes) are gone, and the temporary
    folder is empty (a Dask cluster's scratch folder removed)."""
    from tests.acceptance.test_executors_differential import _generator

    if executor == "dask":
        need_dask()
    root = tmp_path / "archive"
    _generator().generate(str(root), 3000, 3, 0, 0)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VERIFIER_", "DASK_"))}
    env["TMPDIR"] = str(tmp)
    args = ["check", str(root), "-q", "--executor", executor, "-j", "2"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "verifier", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    workers: set[int] = set()
    try:
        # no deadline (a loaded machine is slow, not wrong): the wait ends, at the latest,
        # when the run does (and that fails)
        while len(workers) < 2 or (when == "up" and len(_worker_folders(tmp)) < 2):
            assert proc.poll() is None, "the run ended before its workers started"
            workers |= _children(proc.pid)
            time.sleep(0.02)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if proc.returncode == 0:  # pragma: no cover - the run finished before the signal
        pytest.skip("the run finished before the signal came")
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert b"Traceback" not in err and err.count(b"\n") == 1, err
    assert sorted(p.name for p in tmp.iterdir()) == []
    # an orphan may still be ending (Python's resource tracker ends after its parent): a
    # bounded wait for that, then each one still there is one left running
    deadline = time.monotonic() + 15
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = {pid: _status(pid) for pid in workers if _alive(pid)}
    assert not left, f"processes left running: {left}"


def _worker_folders(tmp: Path) -> list[Path]:
    """The folders a local Dask cluster's workers made in its scratch folder as they started."""
    return list(tmp.glob("verifier-dask-*/dask-scratch-space/worker-*/"))


def _status(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text()[:300]
    except OSError:
        return "(gone)"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize("where", ["validator_for", "is_valid"])
def test_a_signal_a_caller_swallowed_still_stops_the_command(
    signum: int,
    where: str,
    archive: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """jsonschema-rs runs Python code (the format checkers) from Rust, and what that code
    raises there can be swallowed: CI saw a SIGTERM during ``coverage --mutate --full`` come
    out as "Exception ignored in: 'duration'", and the command ran on to exit 0. Here the
    engine's calls are wrapped to do just that (the signal comes inside, its exception is
    swallowed): the signal stays pending, so the command still ends as stopped by it, with
    nothing written but the one line."""
    import jsonschema_rs

    from verifier import cli

    if os.environ.get("VERIFIER_ENGINE") == "reference":
        pytest.skip("the reference engine alone calls nothing in jsonschema-rs")
    came: list[int] = []

    def swallowing(call: Any) -> Any:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if not came:
                came.append(signum)
                # the handler raises inside, and the engine swallows it
                with contextlib.suppress(BaseException):
                    signal.raise_signal(signum)
            return call(*args, **kwargs)

        return wrapped

    real = jsonschema_rs.validator_for
    if where == "validator_for":
        monkeypatch.setattr(jsonschema_rs, "validator_for", swallowing(real))
    else:

        class Validator:
            def __init__(self, inner: Any) -> None:
                self.is_valid = swallowing(inner.is_valid)
                self.iter_errors = inner.iter_errors

        monkeypatch.setattr(
            jsonschema_rs, "validator_for", lambda *a, **k: Validator(real(*a, **k))
        )
    with pytest.raises(SystemExit) as stopped:
        cli.main(["check", str(archive), "-q"])
    assert came == [signum]
    assert stopped.value.code == (130 if signum == signal.SIGINT else 128 + signum)
    assert capsys.readouterr() == ("", f"verify-evidence: stopped by signal {signum}\n")
    # the signal ended with that command: the next one in this process runs to its verdict
    monkeypatch.undo()
    with pytest.raises(SystemExit) as again:
        cli.main(["check", str(archive), "-q"])
    assert again.value.code == 0

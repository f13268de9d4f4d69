"""``--executor dask --scheduler ADDRESS`` against a real cluster (issue 35): a scheduler and
two workers started with the ``dask scheduler`` and ``dask worker`` commands, each its own
OS process, on this machine's loopback address. On a damaged generated archive, the JSON,
SARIF and JUnit reports of a run there are byte for byte those of the serial run, of local
worker processes and of threads. The workers are given the files' bytes with their tasks
(:mod:`verifier.inspect.carried`): a worker whose own copy of the archive differs, or that
has none, still inspects what this machine read. Nothing is left in the temporary folder,
and the cluster is stopped whatever the outcome (the fixture's finalizer)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO, need_oracle, rewrite_manifest
from tests.dasktest import need_dask

# slow: a cluster of three processes and five runs of the CLI
pytestmark = pytest.mark.slow

RECORDS = 300
WAIT = 120  # seconds the cluster gets to come up (a bound, not an assertion on speed)

#: run in a child process: waits until the scheduler has ``n`` workers (Dask's own bounded
#: wait), so that nothing of Dask is left in the test's process
WAIT_FOR_WORKERS = """
import sys
from distributed import Client

with Client(scheduler_file=sys.argv[1], timeout=sys.argv[3]) as client:
    client.wait_for_workers(int(sys.argv[2]), timeout=sys.argv[3])
    print(client.scheduler.address)
"""


def _dask_command() -> str:
    """The ``dask`` console script that came with this interpreter's ``distributed``."""
    need_dask()
    beside = Path(sys.executable).with_name("dask")
    found = str(beside) if beside.exists() else shutil.which("dask")
    need_oracle(found is not None, "the dask command (distributed) is not installed")
    assert found is not None
    return found


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    """Each process asked to end (SIGTERM: Dask's own shutdown), killed if it does not."""
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A scheduler and two workers, separate processes; the scheduler's address."""
    dask = _dask_command()
    here = tmp_path_factory.mktemp("cluster")
    info = here / "scheduler.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VERIFIER_", "DASK_"))}
    env["TMPDIR"] = str(here)  # what the cluster leaves is its own, not the runs' folder
    procs: list[subprocess.Popen[bytes]] = []
    log = (here / "cluster.log").open("wb")

    def start(*args: str) -> None:
        procs.append(subprocess.Popen([dask, *args], stdout=log, stderr=log, env=env, cwd=here))

    try:
        start(
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(info),
        )
        for n in range(2):
            start(
                "worker",
                "--scheduler-file",
                str(info),
                "--nthreads",
                "1",
                "--no-dashboard",
                "--local-directory",
                str(here / f"worker-{n}"),
                "--death-timeout",
                str(WAIT),
            )
        waited = subprocess.run(
            [sys.executable, "-c", WAIT_FOR_WORKERS, str(info), "2", f"{WAIT}s"],
            capture_output=True,
            env=env,
            cwd=REPO,
            timeout=WAIT + 60,
            check=False,
        )
        log.flush()
        said = (here / "cluster.log").read_text("utf-8", "replace")[-3000:]
        assert waited.returncode == 0, waited.stderr.decode("utf-8", "replace")[-3000:] + said
        address = waited.stdout.decode().strip()
        assert address == json.loads(info.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        yield address
    finally:
        _stop(procs)
        log.close()
    assert all(proc.poll() is not None for proc in procs)


@pytest.fixture(scope="module", params=["written", "rules"])
def damaged(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    """A generated archive with damage of each stage's kinds: a record's bytes changed, a
    record deleted, an unlisted file added (the manifest not rewritten: integrity), and a
    schema-valid field made invalid (the manifest rewritten: validity, consistency); its
    spec written out, or in the per-case rule form (most instances then judged by the
    worker that read their case, on the cluster too)."""
    from tests.acceptance.test_executors_differential import _generator

    root = tmp_path_factory.mktemp("archive") / "archive"
    _generator().generate(str(root), RECORDS, 7, 0, 0, request.param == "rules")
    cases = root / "evidence" / "cases" / "000"
    path = cases / "case-000004" / "run.json"
    record = json.loads(path.read_text())
    record["status"] = "sideways"  # schema.invalid
    path.write_text(json.dumps(record))
    rewrite_manifest(root)
    readback = cases / "case-000002" / "readback.json"
    readback.write_text(readback.read_text().replace('"pi_', '"px_', 1))  # manifest.mismatch
    (cases / "case-000006" / "run.json").unlink()  # manifest.missing
    (cases / "case-000008" / "stray.json").write_text('{"a": 1}')  # manifest.unlisted
    return root


FORMATS = ("json", "sarif", "junit")


def _check(archive: Path, out: Path, tmp: Path, *executor: str) -> dict[str, bytes]:
    """The three reports of one ``check`` run (its temporary folder ``tmp``, empty after)."""
    out.mkdir()
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VERIFIER_", "DASK_"))}
    env["TMPDIR"] = str(tmp)
    outputs = [a for f in FORMATS for a in ("-o", f"{f}={out / f}")]
    done = subprocess.run(
        [sys.executable, "-m", "verifier", "check", str(archive), "-q", *outputs, *executor],
        capture_output=True,
        env=env,
        cwd=out,
        timeout=600,
        check=False,
    )
    assert done.returncode == 1, done.stderr.decode("utf-8", "replace")[-3000:]
    assert sorted(p.name for p in tmp.iterdir()) == []
    return {f: (out / f).read_bytes() for f in FORMATS}


@pytest.fixture(scope="module")
def serial(damaged: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    here = tmp_path_factory.mktemp("serial")
    return _check(damaged, here / "out", here / "tmp", "--executor", "inline")


def test_the_damage_is_seen(serial: dict[str, bytes]) -> None:
    report = json.loads(serial["json"])
    codes = {f["code"] for s in report["stages"] for f in s["findings"]}
    expected = {"manifest.mismatch", "manifest.missing", "manifest.unlisted", "schema.invalid"}
    assert expected <= codes


@pytest.mark.parametrize("executor", ["processes", "threads"])
def test_local_executors_write_the_serial_reports(
    damaged: Path, serial: dict[str, bytes], executor: str, tmp_path: Path
) -> None:
    args = ("--executor", executor, "-j", "2")
    assert _check(damaged, tmp_path / "out", tmp_path / "tmp", *args) == serial


def test_a_separate_process_cluster_writes_the_serial_reports(
    damaged: Path, serial: dict[str, bytes], cluster: str, tmp_path: Path
) -> None:
    args = ("--executor", "dask", "--scheduler", cluster)
    assert _check(damaged, tmp_path / "out", tmp_path / "tmp", *args) == serial

"""The executor differential test: on a damaged generated archive (over
``verifier.execute.registry.MIN_ITEMS`` files, so ``auto`` picks local processes), the JSON
report is byte for byte the same whether the files were inspected in this process, by local
worker processes, or on a Dask ``LocalCluster`` of two workers; and the same again from the
command line under two other ``PYTHONHASHSEED`` values. The same holds for the archive as a
folder, as tarballs and as a git commit. The damage is of every stage's
kinds (a mismatched digest, an unlisted file, an invalid record, a failing assertion), so
the report is far from empty: the executors agree on what they found, not on nothing."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, rewrite_manifest
from tests.dasktest import need_dask
from verifier.execute.registry import MIN_ITEMS
from verifier.pipeline import Options, Run, run
from verifier.views.check import CHECK as FORMATS

# slow: every executor over generated archives, Dask clusters included (-m "not slow" leaves it out)
pytestmark = pytest.mark.slow

CASES = 700  # three records each: 2,100 records, over MIN_ITEMS files


def _generator() -> Any:
    """The benchmark's archive generator (``benchmarks/generate.py``)."""
    spec = importlib.util.spec_from_file_location("generate", REPO / "benchmarks" / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _generate(root: Path) -> Path:
    _generator().generate(str(root), CASES * 3, 11, 0, 0)
    return root


@pytest.fixture(scope="module")
def damaged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = _generate(tmp_path_factory.mktemp("executors") / "archive")
    cases = root / "evidence" / "cases" / "000"
    # content a forger covers by rewriting the manifest: validity and consistency see it
    (cases / "case-000005" / "run.json").write_text("{not json")  # record.invalid-json
    path = cases / "case-000009" / "run.json"
    record = json.loads(path.read_text())
    record["counters"]["toolExecutions"] += 1  # assertion.failed
    record["status"] = "sideways"  # schema.invalid
    path.write_text(json.dumps(record))
    rewrite_manifest(root)
    # then what the manifest no longer covers: integrity sees it
    readback = cases / "case-000003" / "readback.json"
    readback.write_text(readback.read_text().replace('"pi_', '"px_', 1))  # manifest.mismatch
    (cases / "case-000013" / "stray.json").write_text('{"a": 1}')  # manifest.unlisted
    files = sum(1 for _ in root.rglob("*") if _.is_file())
    assert files > MIN_ITEMS
    return root


def _json(result: Run) -> str:
    return FORMATS["json"](result.report)


def _ran(result: Run) -> Any:
    return result.executor  # the executor's describe() for the main inspection pass


@pytest.fixture(scope="module")
def inline(damaged: Path) -> str:
    return _json(run(damaged, Options(executor="inline", workers=2)))


def test_the_damage_is_seen(inline: str) -> None:
    report = json.loads(inline)
    codes = {f["code"] for s in report["stages"] for f in s["findings"]}
    assert {
        "manifest.mismatch",
        "manifest.unlisted",
        "record.invalid-json",
        "schema.invalid",
        "assertion.failed",
    } <= codes
    statuses = {a["id"]: a["status"] for a in report["assertions"]}
    assert statuses["c000003.same-payment"] == "failed"
    assert statuses["c000009.unchanged"] == "failed"


@pytest.mark.parametrize(
    ("executor", "expected"),
    [
        ("inline", "inline"),
        ("processes", "processes"),
        ("threads", "threads"),
        ("auto", "processes"),
    ],
)
def test_every_executor_writes_the_same_report(
    damaged: Path, inline: str, executor: str, expected: str
) -> None:
    result = run(damaged, Options(executor=executor, workers=2))
    assert _json(result) == inline
    assert _ran(result)["executor"] == expected


#: run in a child process: Dask leaves process-wide threads behind (tests/unit/test_executors.py)
DASK_RUN = """
import json, sys
from pathlib import Path
from verifier.views.check import CHECK as FORMATS
from verifier.pipeline import Options, run

if __name__ == "__main__":
    result = run(sys.argv[1], Options(executor="dask", workers=2))
    Path(sys.argv[2]).write_text(FORMATS["json"](result.report), encoding="utf-8")
    ran = result.executor
    Path(sys.argv[3]).write_text(json.dumps(ran), encoding="utf-8")
"""


def _on_dask(location: str, tmp_path: Path) -> tuple[str, Any]:
    """The JSON report of a run on two Dask workers of a ``LocalCluster`` (in a child
    process, which a spawned Dask worker can re-import as its main module), and what ran."""
    need_dask()
    script = tmp_path / "dask_run.py"
    script.write_text(DASK_RUN, encoding="utf-8")
    report, ran = tmp_path / "report.json", tmp_path / "ran.json"
    done = subprocess.run(
        [sys.executable, str(script), location, str(report), str(ran)],
        capture_output=True,
        cwd=REPO,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-4000:]
    return report.read_text(encoding="utf-8"), json.loads(ran.read_text(encoding="utf-8"))


@pytest.mark.parametrize("form", ["", "_rules"])
def test_a_local_dask_cluster_writes_the_same_report(
    form: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Two Dask workers of a ``LocalCluster``: the same bytes, for written-out assertions and
    for the rule form."""
    damaged: Path = request.getfixturevalue("damaged" + form)
    report, ran = _on_dask(str(damaged), tmp_path)
    assert report == request.getfixturevalue("inline" + form)
    assert ran["executor"] == "dask"


@pytest.mark.parametrize("seed", ["1", "4242"])
def test_the_report_does_not_depend_on_the_hash_seed(damaged: Path, inline: str, seed: str) -> None:
    """The command line, on local processes, under another PYTHONHASHSEED: the same bytes."""
    env = {**os.environ, "PYTHONHASHSEED": seed, "NO_COLOR": "1"}
    command = [sys.executable, "-m", "verifier", "check", str(damaged), "--format", "json"]
    done = subprocess.run(
        [*command, "--executor", "processes", "-j", "2"],
        capture_output=True,
        env=env,
        cwd=REPO,
        timeout=600,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert done.stdout.decode("utf-8") == inline


@pytest.fixture(scope="module")
def tarballs(damaged: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The damaged archive as an uncompressed tarball (its members read in place by the
    workers) and as a gzipped one (read in one pass here)."""
    import tarfile

    out = tmp_path_factory.mktemp("tarballs")
    made = {}
    for name, mode in (("archive.tar", "w"), ("archive.tar.gz", "w:gz")):
        with tarfile.open(out / name, mode, format=tarfile.PAX_FORMAT) as tar:  # type: ignore[call-overload]
            for path in sorted(damaged.rglob("*")):
                tar.add(path, arcname=path.relative_to(damaged).as_posix(), recursive=False)
        made[name] = out / name
    return made


@pytest.mark.parametrize(
    ("name", "expected"), [("archive.tar", "processes"), ("archive.tar.gz", "serial")]
)
def test_a_tarball_reads_the_same_in_workers_as_in_one_pass(
    tarballs: dict[str, Path], name: str, expected: str
) -> None:
    """An uncompressed tarball's members are opened by the workers at their offsets; a
    compressed one is read here in one pass whatever the executor; the report is the same
    as the in-process one, and as the folder's findings."""
    tarball = tarballs[name]
    here = _json(run(tarball, Options(executor="inline", workers=2)))
    spread = run(tarball, Options(executor="processes", workers=2))
    assert _json(spread) == here
    assert _ran(spread)["executor"] == expected
    codes = {f["code"] for s in json.loads(here)["stages"] for f in s["findings"]}
    assert {"manifest.mismatch", "manifest.unlisted", "assertion.failed"} <= codes


@pytest.fixture(scope="module")
def commit(damaged: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The damaged archive as a git commit (its blobs read by id by the workers)."""
    import shutil

    from tests.archives import git_repo

    root = tmp_path_factory.mktemp("git") / "repo"
    shutil.copytree(damaged, root)
    git_repo(root)
    return f"{root}@HEAD"


@pytest.fixture(scope="module")
def commit_inline(commit: str) -> str:
    return _json(run(commit, Options(executor="inline", workers=2)))


@pytest.mark.parametrize("executor", ["processes", "auto"])
def test_a_git_commit_reads_the_same_in_workers_as_here(
    commit: str, commit_inline: str, executor: str
) -> None:
    """Workers read the commit's blobs by id from git processes of their own, and confirm
    each against its id: the same bytes as the in-process run, blobs confirmed included."""
    result = run(commit, Options(executor=executor, workers=2))
    assert _json(result) == commit_inline
    assert _ran(result)["executor"] == "processes"
    report = json.loads(commit_inline)
    codes = {f["code"] for s in report["stages"] for f in s["findings"]}
    assert {"manifest.mismatch", "manifest.unlisted", "assertion.failed"} <= codes
    assert report["source"]["kind"] == "git" and report["source"]["blobsConfirmed"] > MIN_ITEMS


def test_a_git_commit_on_a_local_dask_cluster_writes_the_same_report(
    commit: str, commit_inline: str, tmp_path: Path
) -> None:
    report, ran = _on_dask(commit, tmp_path)
    assert report == commit_inline
    assert ran["executor"] == "dask"


@pytest.mark.parametrize("name", ["archive.tar", "archive.zip"])
def test_threads_read_a_tarball_and_a_zip_the_same_as_here(
    damaged: Path, tarballs: dict[str, Path], tmp_path: Path, name: str
) -> None:
    """An uncompressed tarball and a zip have one handle per opener: each thread opens its
    own (its copy of the context), so concurrent reads never interleave on one handle."""
    import zipfile

    if name == "archive.zip":
        archive = tmp_path / name
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as zipped:
            for path in sorted(damaged.rglob("*")):
                if path.is_file():
                    zipped.write(path, path.relative_to(damaged).as_posix())
    else:
        archive = tarballs[name]
    here = _json(run(archive, Options(executor="inline", workers=2)))
    spread = run(archive, Options(executor="threads", workers=2))
    assert _json(spread) == here
    assert _ran(spread)["executor"] == "threads" and _ran(spread)["threads"] == 2


def test_a_git_commit_reads_the_same_in_threads_as_here(commit: str, commit_inline: str) -> None:
    """Each thread's opener runs its own git process, closed when the map ends."""

    def git_children() -> set[int]:
        found: set[int] = set()
        for task in os.listdir(f"/proc/{os.getpid()}/task"):
            with open(f"/proc/{os.getpid()}/task/{task}/children") as handle:
                found.update(int(pid) for pid in handle.read().split())
        return found

    before = git_children()
    result = run(commit, Options(executor="threads", workers=2))
    assert _json(result) == commit_inline
    assert _ran(result)["executor"] == "threads"
    assert git_children() <= before  # no git process of the threads' openers left


def test_auto_hashes_a_few_large_blobs_in_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Few files, most of their bytes blobs to hash (the threshold lowered to this test's
    two 1 MB blobs): ``auto`` picks threads; a blob damaged after the manifest was written
    is found the same way as in this process."""
    import verifier.execute.registry as registry

    root = tmp_path / "blobs"
    _generator().generate(str(root), 3, 5, 2, 1)
    blob = sorted((root / "blobs").iterdir())[1]
    data = bytearray(blob.read_bytes())
    data[len(data) // 2] ^= 1
    blob.write_bytes(bytes(data))
    monkeypatch.setattr(registry, "MIN_WEIGHT", 1 << 20)
    here = run(root, Options(executor="inline", workers=2))
    spread = run(root, Options(executor="auto", workers=2))
    assert _json(spread) == _json(here)
    assert _ran(spread)["executor"] == "threads"
    mismatched = [f["path"] for s in json.loads(_json(here))["stages"] for f in s["findings"]]
    assert f"blobs/{blob.name}" in mismatched


@pytest.fixture(scope="module")
def damaged_rules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same damage in the per-case rule form: most instances are judged by the workers
    that read their case, the damaged ones by the consistency stage."""
    root = tmp_path_factory.mktemp("executors-rules") / "archive"
    _generator().generate(str(root), CASES * 3, 11, 0, 0, True)
    cases = root / "evidence" / "cases" / "000"
    (cases / "case-000005" / "run.json").write_text("{not json")
    path = cases / "case-000009" / "run.json"
    record = json.loads(path.read_text())
    record["counters"]["toolExecutions"] += 1
    path.write_text(json.dumps(record))
    rewrite_manifest(root)
    readback = cases / "case-000003" / "readback.json"
    readback.write_text(readback.read_text().replace('"pi_', '"px_', 1))
    (cases / "case-000013" / "run.json").unlink()
    return root


@pytest.fixture(scope="module")
def inline_rules(damaged_rules: Path) -> str:
    report = _json(run(damaged_rules, Options(executor="inline", workers=2)))
    statuses = {a["id"]: a["status"] for a in json.loads(report)["assertions"]}
    case = "evidence/cases/000/case-0000"
    assert statuses[f"unchanged@{case}09"] == "failed"
    assert statuses[f"same-payment@{case}03"] == "failed"
    assert statuses[f"unchanged@{case}13"] == "error"
    return report


@pytest.mark.parametrize("executor", ["processes", "threads"])
def test_every_executor_writes_the_same_report_in_the_rule_form(
    damaged_rules: Path, inline_rules: str, executor: str
) -> None:
    assert _json(run(damaged_rules, Options(executor=executor, workers=2))) == inline_rules

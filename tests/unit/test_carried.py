"""Files carried to workers that may not see this machine's files (``--scheduler``): the
inspect step reads each file here and sends its bytes with its task
(:mod:`verifier.inspect.carried`); a worker never opens the archive. Here an executor that
says it is remote, and runs each batch on a pickled copy of the context and of the batch as
a remote worker would, stands in for a Dask cluster (tests/acceptance/test_dask_cluster.py
runs a real one)."""

from __future__ import annotations

import io
import json
import pickle
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import verifier.inspect.carried as carried
import verifier.inspect.gather as gather
from tests.conftest import copy_bundled
from verifier.execute.inline import InlineExecutor
from verifier.execute.interface import BatchFn
from verifier.inspect.carried import INSPECTED_HERE, Carried, CarriedOpener, carry
from verifier.pipeline import Options, run
from verifier.plan.task import FileTask
from verifier.sources.directory import DirectorySource
from verifier.views.check import CHECK as FORMATS


class Remote(InlineExecutor):
    """Batches run on pickled copies, as on another machine; records what was sent."""

    name = "remote"
    remote = True

    def __init__(self, workers: int = 1, scheduler: str | None = None) -> None:
        super().__init__(workers, scheduler)
        self.sent: list[Any] = []

    def _map(
        self,
        fn: BatchFn,
        context: Any,
        batches: Iterator[list[Any]],
        progress: Callable[[int], None] | None,
    ) -> Iterator[Any]:
        assert isinstance(context.opener, CarriedOpener)
        copy = pickle.loads(pickle.dumps(context))
        for batch in batches:
            self.sent.extend(task.where for task in batch)
            yield from fn(copy, pickle.loads(pickle.dumps(batch)))


@pytest.fixture
def remote(monkeypatch: pytest.MonkeyPatch) -> list[Remote]:
    made: list[Remote] = []

    def create(name: str, workers: int = 1, scheduler: str | None = None) -> Remote:
        made.append(Remote(workers, scheduler))
        return made[-1]

    monkeypatch.setattr(gather, "create", create)
    return made


def _damaged(tmp_path: Path) -> Path:
    root = copy_bundled(tmp_path / "a")
    record = next(p for p in sorted((root / "evidence").rglob("*.json")) if p.stat().st_size)
    record.write_bytes(record.read_bytes() + b" ")  # manifest.mismatch
    (root / "evidence" / "stray.txt").write_text("not listed")  # manifest.unlisted
    return root


def test_a_remote_executor_gets_every_file_s_bytes_and_the_same_report(
    tmp_path: Path, remote: list[Remote]
) -> None:
    root = _damaged(tmp_path)
    here = FORMATS["json"](run(root, Options(executor="inline")).report)
    there = FORMATS["json"](run(root, Options(executor="processes", workers=2)).report)
    assert there == here
    [executor] = remote
    assert executor.sent and all(isinstance(w, Carried) for w in executor.sent)
    assert all(w.data is not None and not w.here for w in executor.sent)
    codes = {f["code"] for s in json.loads(here)["stages"] for f in s["findings"]}
    assert {"manifest.mismatch", "manifest.unlisted"} <= codes


def test_a_git_commit_s_blobs_are_confirmed_as_they_are_carried(
    tmp_path: Path, remote: list[Remote], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit's blobs are read here by the source's opener, which recomputes each blob's
    id; the source judges those ids as it judges a worker's: the same report, blobs
    confirmed included, whether a file is carried or (over CARRY_MAX) read here."""
    from tests.archives import git_repo

    root = _damaged(tmp_path)
    git_repo(root)
    commit = f"{root}@HEAD"
    here = FORMATS["json"](run(commit, Options(executor="inline")).report)
    assert json.loads(here)["source"]["blobsConfirmed"] > 0
    there = FORMATS["json"](run(commit, Options(executor="processes", workers=2)).report)
    assert there == here
    monkeypatch.setattr(carried, "CARRY_MAX", 300)
    there = FORMATS["json"](run(commit, Options(executor="processes", workers=2)).report)
    assert there == here
    assert any(w.here for w in remote[-1].sent)


def test_a_file_too_large_to_carry_is_inspected_here(
    tmp_path: Path, remote: list[Remote], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over CARRY_MAX (lowered here), a file's bytes do not travel: it is read here, and the
    report is the same."""
    root = _damaged(tmp_path)
    here = FORMATS["json"](run(root, Options(executor="inline")).report)
    monkeypatch.setattr(carried, "CARRY_MAX", 300)
    there = FORMATS["json"](run(root, Options(executor="processes", workers=2)).report)
    assert there == here
    sent = remote[0].sent
    assert any(w.here for w in sent) and any(w.data is not None for w in sent)
    assert all(w.data is None or len(w.data) <= 300 for w in sent)


def test_carry_reads_the_bytes_or_the_error(tmp_path: Path) -> None:
    root = copy_bundled(tmp_path / "a")
    opener = DirectorySource(root).opener()
    data = (root / "manifest.sha256").read_bytes()

    def task(name: str, size: int) -> FileTask:
        return FileTask(name, name, size, "other", None, None, False, ())

    for size in (0, len(data)):  # (0: unknown)
        assert carry(opener, task("manifest.sha256", size)) == (Carried(data), ())
    too_large = task("manifest.sha256", carried.CARRY_MAX + 1)
    assert carry(opener, too_large) == (Carried(None, None, True), ())
    gone, checks = carry(opener, task("no-such-file", 10))
    assert gone.data is None and gone.error and not gone.here and checks == ()


def test_the_carried_opener_serves_the_bytes_and_never_the_disk() -> None:
    opener = CarriedOpener()
    assert opener.read_whole("x", Carried(b"abc")) == b"abc"
    assert opener.read_small("x", Carried(b"abc"), 2) is None
    with opener.open("x", Carried(b"abc")) as stream:
        assert isinstance(stream, io.BytesIO) and stream.read() == b"abc"
    for where, said in [
        (Carried(None, "Permission denied"), "Permission denied"),
        (Carried(None, None, True), INSPECTED_HERE),
        ("x", "a task came without its bytes"),  # a path is never opened
    ]:
        with pytest.raises(OSError) as caught:
            opener.read_whole("x", where)
        assert caught.value.strerror == said

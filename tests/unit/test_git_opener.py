"""Git commits read by workers: a picklable opener reads blobs by id from a ``git cat-file``
process of its own (started by gitrun, as the main process's is), recomputes each blob's
object id and sends it back with the file's facts; the main process judges it as it judges
its own reads. The report is the same from the workers as from this process, for a good
commit and for a damaged object store; a blob of another size than the tree records is
refused without reading it."""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import zlib
from pathlib import Path

import pytest

from tests.archives import git, git_repo
from tests.conftest import REPO, write_archive
from tests.spread import spread_reads
from verifier.pipeline import Options, run
from verifier.sources import open_source
from verifier.sources.capabilities import ReadChecks, WorkerReads
from verifier.sources.git import GitSource
from verifier.sources.gitblobs import CHECK, GitOpener
from verifier.views.check import CHECK as FORMATS

FILES = {"data/a.txt": b"alpha\n", "data/empty.txt": b"", "data/b.bin": bytes(range(256)) * 300}


@pytest.fixture
def spread(monkeypatch: pytest.MonkeyPatch) -> None:
    spread_reads(monkeypatch.setattr)


def _source(root: Path) -> GitSource:
    source = open_source(f"{root}@HEAD")
    assert isinstance(source, GitSource)
    return source


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_a_worker_reads_each_blob_and_recomputes_its_id(tmp_path: Path, object_format: str) -> None:
    root = git_repo(write_archive(tmp_path / "r", FILES), object_format)
    with _source(root) as source:
        reads = source.capability(WorkerReads)
        assert reads is not None
        opener = pickle.loads(pickle.dumps(reads.opener()))  # as a worker gets it
        assert isinstance(opener, GitOpener)
        assert opener.repo == os.path.abspath(root)
        for name, data in FILES.items():
            where = reads.locate(name)
            blob = git(root, "rev-parse", f"HEAD:{name}").strip()
            assert where == (blob, len(data))
            assert opener.checked(name) == ()  # nothing until it is read to its end
            with opener.open(name, where) as stream:
                assert stream.read() == data
            ((label, computed),) = opener.checked(name)
            header = b"blob %d\0" % len(data)
            assert (label, computed) == (
                CHECK,
                hashlib.new(object_format, header + data).hexdigest(),
            )
            assert computed == blob
        opener.close()


def test_a_blob_of_another_size_is_refused_unread_and_the_next_one_reads(tmp_path: Path) -> None:
    root = git_repo(write_archive(tmp_path / "r", FILES))
    with _source(root) as source:
        opener = source.opener()
        oid, _ = source.locate("data/b.bin")
        with pytest.raises(OSError, match="holds 76800 bytes, the commit's tree records 5"):
            opener.open("data/b.bin", (oid, 5))
        assert opener.checked("data/b.bin") == ()
        missing = "0" * len(oid)
        with pytest.raises(OSError, match="git has no blob for it"):
            opener.open("data/x", (missing, 1))
        with opener.open("data/a.txt", source.locate("data/a.txt")) as stream:
            assert stream.read() == b"alpha\n"
        opener.close()


def test_a_read_that_brought_back_no_check_is_a_finding(tmp_path: Path) -> None:
    root = git_repo(write_archive(tmp_path / "r", FILES))
    with _source(root) as source:
        judge = source.capability(ReadChecks)
        assert judge is not None
        judge.take_checks("data/a.txt", ())
        (finding,) = source.findings()
        assert finding.code == "manifest.git-blob-mismatch"
        assert "did not confirm" in finding.message
        before = source.confirmed
        judge.take_checks("data/a.txt", ((CHECK, source.locate("data/a.txt")[0]),))
        assert source.confirmed == before + 1 and len(source.findings()) == 1


def _repo_of_the_bundle(root: Path) -> Path:
    for part in ("evidence", "schemas"):
        shutil.copytree(REPO / part, root / part)
    shutil.copy2(REPO / "manifest.sha256", root / "manifest.sha256")
    (root / "evidence/e7-stripe-readback/payment-intents.json").write_text("{}")
    return git_repo(root)


def test_workers_read_a_commit_with_the_report_of_this_process(
    tmp_path: Path, spread: None
) -> None:
    root = _repo_of_the_bundle(tmp_path / "repo")
    here = run(f"{root}@HEAD", Options(executor="inline", workers=2))
    there = run(f"{root}@HEAD", Options(executor="processes", workers=2))
    assert there.executor["executor"] == "processes"
    assert there.read_processes == 2, "the parallel path did not run: no worker read a blob"
    assert FORMATS["json"](there.report) == FORMATS["json"](here.report)
    assert there.source["blobsConfirmed"] == here.source["blobsConfirmed"] > 30
    codes = {f.code for f in here.report.findings}
    assert "manifest.mismatch" in codes


def test_a_damaged_object_store_is_the_same_finding_from_the_workers(
    tmp_path: Path, spread: None
) -> None:
    files = {f"data/{i}.txt": b"%d\n" % i for i in range(6)}
    root = git_repo(write_archive(tmp_path / "r", files))
    blob = git(root, "rev-parse", "HEAD:data/3.txt").strip()
    loose = root / ".git" / "objects" / blob[:2] / blob[2:]
    os.chmod(loose, 0o644)
    loose.write_bytes(zlib.compress(b"blob 2\0x\n"))  # same size, other bytes
    here = run(f"{root}@HEAD", Options(executor="inline"))
    there = run(f"{root}@HEAD", Options(executor="processes", workers=2))
    assert there.read_processes == 2
    assert FORMATS["json"](there.report) == FORMATS["json"](here.report)
    found = sorted((f.code, f.path) for f in there.report.findings)
    assert found == [
        ("manifest.git-blob-mismatch", "data/3.txt"),
        ("manifest.mismatch", "data/3.txt"),
    ]

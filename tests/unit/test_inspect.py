"""The inspect step is pure and crosses processes: its context (the source's opener and the
schema bundle) and its tasks pickle, a worker started with ``spawn`` (which inherits
nothing) gives the same facts as this process, and every source kind that can be opened
independently (a folder, a zip, a bag on either) is read in parallel with the serial
report; a tarball is read in one pass here, and the run says so."""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import shutil
from pathlib import Path

import pytest

from tests.archives import tar_tree, zip_tree
from tests.conftest import REPO, write_archive
from tests.spread import spread_reads
from verifier.inspect.inspect import FileFacts, InspectContext, inspect_batch
from verifier.pipeline import Options, run
from verifier.plan.records import RecordPlan
from verifier.plan.task import FileTask
from verifier.sources import DirectorySource, open_source
from verifier.views.check import CHECK as FORMATS


@pytest.fixture
def spread(monkeypatch: pytest.MonkeyPatch) -> None:
    spread_reads(monkeypatch.setattr)


def _tasks_and_context(location: Path) -> tuple[InspectContext, list[FileTask]]:
    source = open_source(location)
    assert isinstance(source, DirectorySource)
    plan = RecordPlan("")
    schemas = sorted(
        p.relative_to(location).as_posix() for p in (location / "schemas").glob("*.json")
    )
    plan.prepare({name: (location / name).read_bytes() for name in schemas})
    assert plan.bundle is not None and plan.bundle.schema_count == len(schemas) > 0
    names = sorted(
        p.relative_to(location).as_posix() for p in (location / "evidence").rglob("*.json")
    )
    tasks = [
        FileTask(
            name,
            source.locate(name),
            source.size_hint(name),
            "record" if plan.inner(name) else "other",
            plan.inner(name),
            None,
            True,
            ("sha512",),
            plan.wants(name),
        )
        for name in names
    ]
    opener = source.opener()
    assert opener is not None
    return InspectContext(opener, plan.bundle), tasks


def test_context_and_tasks_pickle_and_spawned_workers_agree() -> None:
    context, tasks = _tasks_and_context(REPO)
    again = pickle.loads(pickle.dumps(context))
    assert again.bundle.validators is not None and again.bundle.schemas == context.bundle.schemas
    here = inspect_batch(context, tasks)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        there: list[FileFacts] = pool.apply(inspect_batch, (context, tasks))
    assert there == here
    assert all(f.digest is not None and f.error is None for f in here)
    assert any(f.record is not None and f.record.validated for f in here)
    assert all(f.data is None for f in here)  # no record's bytes come back


def _damaged(root: Path) -> Path:
    shutil.copytree(REPO / "evidence", root / "evidence")
    shutil.copytree(REPO / "schemas", root / "schemas")
    shutil.copy2(REPO / "manifest.sha256", root / "manifest.sha256")
    (root / "evidence/e7-stripe-readback/payment-intents.json").write_text("{}")
    return root


def test_a_zip_is_read_in_parallel_with_the_serial_report(tmp_path: Path, spread: None) -> None:
    archive = zip_tree(_damaged(tmp_path / "tree"), tmp_path / "a.zip")
    one = run(archive, Options(workers=1))
    two = run(archive, Options(workers=2))
    assert one.read_processes == 1
    assert two.read_processes == 2, "the parallel path did not run: no worker read a member"
    assert FORMATS["json"](one.report) == FORMATS["json"](two.report)
    codes = {
        f["code"] for s in json.loads(FORMATS["json"](one.report))["stages"] for f in s["findings"]
    }
    assert "manifest.mismatch" in codes


def test_a_tarball_is_read_in_one_pass_here_and_says_so(tmp_path: Path) -> None:
    root = write_archive(tmp_path / "a", {f"data/f{i}.txt": str(i) for i in range(10)})
    result = run(tar_tree(root, tmp_path / "a.tar.gz"), Options(workers=2))
    assert result.read_processes == 1
    assert result.executors == [{"executor": "serial", "workers": 1, "onePass": True}]


def test_a_file_of_unknown_size_is_read_whole_only_if_found_small() -> None:
    """A task's size 0 is unknown (a folder walked apart takes no sizes; a source may know
    none): such a file may be of any size, so it is read whole only if the opener finds it
    small when it opens it, and streamed otherwise, never read whole blindly; a record is
    read whole as always (it is parsed whole)."""
    import io

    from verifier.inspect.digest import _WHOLE
    from verifier.inspect.inspect import InspectContext, inspect
    from verifier.plan.task import FileTask

    calls: list[str] = []

    class Opener:
        def __init__(self, content: bytes) -> None:
            self.content = content

        def read_whole(self, name: str, where: object) -> bytes:
            calls.append("whole")
            return self.content

        def read_small(self, name: str, where: object, limit: int) -> bytes | None:
            calls.append("small")
            return self.content if len(self.content) <= limit else None

        def open(self, name: str, where: object) -> io.BytesIO:
            calls.append("stream")
            return io.BytesIO(self.content)

        def checked(self, name: str) -> tuple[tuple[str, str], ...]:
            return ()

    big = b"x" * (_WHOLE + 1)
    for content, size, role, want in (
        (b"{}", 0, "other", ["small"]),
        (big, 0, "other", ["small", "stream"]),
        (b"{}", 2, "other", ["whole"]),
        (big, 5 << 20, "other", ["stream"]),
        (b"{}", 0, "record", ["whole"]),
    ):
        calls.clear()
        context = InspectContext(Opener(content), None)  # type: ignore[arg-type]
        task = FileTask("a.bin", "a.bin", size, role, None, None, False, ())
        facts = inspect(context, task)
        assert facts.digest is not None and facts.digest.size == len(content)
        assert calls == want, (size, role, calls)


def test_a_worker_inspecting_valid_records_imports_only_what_inspecting_needs() -> None:
    """A worker unpickles tasks and the context, and inspects: it imports the unit of work
    (:mod:`verifier.plan.task`), not the plan's world (its manifests, assertion kinds), and
    python-jsonschema with ``referencing`` only when a record fails the fast engine (the
    bundled archive's records all pass): less memory in every worker."""
    from tests import batchfns as fns
    from verifier.execute import create

    context, tasks = _tasks_and_context(REPO)
    with create("processes", 1) as executor:
        facts = list(executor.map(inspect_batch, context, tasks))
        [loaded] = list(executor.map(fns.modules, None, [0]))
    assert len(facts) == len(tasks) and all(f.error is None for f in facts)
    assert sum(1 for f in facts if f.record is not None and f.record.validated) > 10
    assert all(not f.record.findings for f in facts if f.record is not None)
    left_out = {"verifier.plan.plan", "verifier.assertions"}
    if os.environ.get("VERIFIER_ENGINE") != "reference":  # (there, it is python-jsonschema)
        left_out |= {"referencing", "jsonschema"}
        assert "jsonschema_rs" in loaded
    assert not left_out & set(loaded), sorted(left_out & set(loaded))
    assert "verifier.plan.task" in loaded

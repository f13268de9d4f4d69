"""The scope walk run by another process (``verifier.sources.directory._ChildWalk``, above
``verifier.plan.build.WALK_APART_MIN`` listed files) while this one reads and plans the early
files: the report is byte for byte the one of the walk run here first, on a folder damaged in
every way the walk sees (unlisted files, a listed file missing, a link, a FIFO, an empty
folder, an unlisted schema that makes the early files read again), on an untouched one, and
when the child cannot start."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import verifier.execute.processes
import verifier.plan.build
import verifier.plan.plan
import verifier.plan.records
import verifier.sources.directory
from tests.acceptance.test_executors_differential import _generate
from verifier.pipeline import Options, run
from verifier.sources.interface import Kind
from verifier.views.check import CHECK as FORMATS

CASES = 40


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory.mktemp("apart") / "clean")


def _damaged(clean: Path, where: Path, schema: bool) -> Path:
    root = where / "damaged"
    shutil.copytree(clean, root)
    cases = root / "evidence" / "cases" / "000"
    (cases / "case-000002" / "stray.json").write_text('{"a": 1}')  # manifest.unlisted
    (cases / "case-000004" / "readback.json").unlink()  # manifest.missing
    os.symlink("../case-000001/run.json", cases / "case-000006" / "linked.json")  # a link
    os.mkfifo(cases / "case-000007" / "pipe")  # not a regular file
    (cases / "case-000008" / "empty").mkdir()
    (cases / "case-000009" / "run.json").write_text("{not json")  # manifest.mismatch
    if schema:  # read early only once the walk has met it
        (root / "schemas" / "stray.schema.json").write_text('{"type": "object"}')
    return root


def _report(
    root: Path,
    apart: bool,
    monkeypatch: pytest.MonkeyPatch,
    stages: frozenset[str] = Options().stages,
    ways: int = 1,
) -> str:
    """The JSON report, the walk apart (split between ``ways`` children) or here."""
    monkeypatch.setattr(verifier.plan.build, "WALK_APART_MIN", 0 if apart else 10**9)
    options = Options(executor="inline", stages=stages, workers=ways)
    return FORMATS["json"](run(root, options).report)


WAYS = pytest.mark.parametrize("ways", [1, 3], ids=["one-child", "split"])


class _Spy:
    """The folders this process walked itself, and how often the early files were planned
    again. ``scope``: the walks of the manifest's scope (``evidence`` and ``schemas``; the
    hints' walk of the whole root, for an archive with findings, is not one of them)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.folders: list[str] = []
        self.fresh = 0
        walk = verifier.sources.directory.DirectorySource.walk
        fresh = verifier.plan.records.RecordPlan.fresh

        def counted_walk(source: object, folder: str, *skip: object) -> object:
            self.folders.append(folder)
            return walk(source, folder, *skip)  # type: ignore[arg-type]

        def counted_fresh(plan: object) -> object:
            self.fresh += 1
            return fresh(plan)  # type: ignore[arg-type]

        monkeypatch.setattr(verifier.sources.directory.DirectorySource, "walk", counted_walk)
        monkeypatch.setattr(verifier.plan.records.RecordPlan, "fresh", counted_fresh)

    @property
    def scope(self) -> list[str]:
        return [folder for folder in self.folders if folder]


@WAYS
@pytest.mark.parametrize("schema", [False, True], ids=["damaged", "unlisted-schema"])
def test_a_walk_apart_writes_the_same_report(
    clean: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, schema: bool, ways: int
) -> None:
    root = _damaged(clean, tmp_path, schema)
    here = _report(root, False, monkeypatch)
    spy = _Spy(monkeypatch)
    apart = _report(root, True, monkeypatch, ways=ways)
    assert apart == here
    # the child walked (this process did not), and the early files were read again only
    # when the walk met one the manifest does not list
    assert (spy.scope, spy.fresh) == ([], 1 if schema else 0)
    codes = {f["code"] for s in json.loads(apart)["stages"] for f in s["findings"]}
    assert {"manifest.unlisted", "manifest.missing", "manifest.mismatch"} <= codes


@WAYS
@pytest.mark.parametrize("damaged", [False, True], ids=["untouched", "damaged"])
def test_integrity_alone_is_walked_apart_too(
    clean: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damaged: bool, ways: int
) -> None:
    """With no record parsed (``--stages integrity``) the scope is walked apart as well (the
    child walks without taking sizes, which here cost more than its start): the same report,
    and this process walked nothing of the scope."""
    root = _damaged(clean, tmp_path, True) if damaged else clean
    integrity = frozenset({"integrity"})
    here = _report(root, False, monkeypatch, integrity)
    spy = _Spy(monkeypatch)
    apart = _report(root, True, monkeypatch, integrity, ways)
    assert apart == here
    assert spy.scope == []
    codes = {f["code"] for s in json.loads(apart)["stages"] for f in s["findings"]}
    assert codes >= ({"manifest.unlisted", "manifest.missing"} if damaged else set())
    assert json.loads(apart)["ok"] is not damaged


@WAYS
def test_an_untouched_archive_walked_apart_passes(
    clean: Path, monkeypatch: pytest.MonkeyPatch, ways: int
) -> None:
    here = _report(clean, False, monkeypatch)
    spy = _Spy(monkeypatch)
    apart = _report(clean, True, monkeypatch, ways=ways)
    assert apart == here
    assert (spy.scope, spy.fresh) == ([], 0)
    assert json.loads(apart)["ok"] is True


def test_a_child_that_cannot_start_is_walked_here(
    clean: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _damaged(clean, tmp_path, True)
    here = _report(root, False, monkeypatch)

    def refused(*args: object, **kwargs: object) -> object:
        raise OSError("no process")

    monkeypatch.setattr("verifier.sources.directory.subprocess.Popen", refused)
    spy = _Spy(monkeypatch)
    assert _report(root, True, monkeypatch) == here
    assert spy.scope == ["evidence", "schemas"]  # the scope, walked here after all
    spy.folders.clear()
    assert _report(root, True, monkeypatch, ways=3) == here  # split: each child's share
    cases = {f"evidence/cases/000/{p.name}" for p in (root / "evidence/cases/000").iterdir()}
    assert sorted(spy.scope) == sorted({"evidence", "schemas"} | cases)  # each once


def test_a_child_that_writes_nonsense_is_walked_here(
    clean: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child that exits 0 having written something else than its pickle (here: the walk
    of no folder) is not believed: the folders are walked here."""
    here = _report(clean, False, monkeypatch)
    real = verifier.sources.directory._ChildWalk.__init__

    def no_folders(
        walk: verifier.sources.directory._ChildWalk, source: object, jobs: list[Any]
    ) -> None:
        real(walk, source, [])  # type: ignore[arg-type]
        walk.jobs = list(jobs)

    monkeypatch.setattr(verifier.sources.directory._ChildWalk, "__init__", no_folders)
    spy = _Spy(monkeypatch)
    assert _report(clean, True, monkeypatch) == here
    assert spy.scope == ["evidence", "schemas"]


def test_a_walk_apart_on_worker_processes_writes_the_same_report(
    clean: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child walks without sizes (a file's size is unknown, 0, and never looked up one
    by one): the workers then stream every file that is not parsed, and the report is the
    one of the walk run here, with sizes, on one process."""
    root = _damaged(clean, tmp_path, True)
    (root / "evidence" / "blob.bin").write_bytes(os.urandom(3 << 20))  # hashed only
    here = _report(root, False, monkeypatch)
    monkeypatch.setattr(verifier.plan.build, "WALK_APART_MIN", 0)
    apart = FORMATS["json"](run(root, Options(executor="processes", workers=2)).report)
    assert apart == here
    codes = {f["code"] for s in json.loads(apart)["stages"] for f in s["findings"]}
    assert "manifest.unlisted" in codes


def test_files_walked_apart_have_no_size_and_none_is_looked_up(
    clean: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = verifier.sources.directory.DirectorySource(clean)
    pending = source.walk_apart(["evidence"])
    walked = [name for name, _ in pending.result()[0]]
    assert walked and all(name.startswith("evidence/") for name in walked)
    looked: list[str] = []
    lstat = os.lstat

    def counted(path: str, *args: object, **kwargs: object) -> os.stat_result:
        looked.append(path)
        return lstat(path)

    monkeypatch.setattr(os, "lstat", counted)
    assert {source.size_hint(name) for name in walked} == {0}
    assert looked == []
    assert source.size_hint("manifest.sha256") > 0  # outside the walked folders: looked up
    assert len(looked) == 1


def test_a_walk_of_more_than_one_part_comes_back_whole_and_in_order(tmp_path: Path) -> None:
    """The child writes its walk a part at a time (never holding it whole): a folder of
    more entries than a part, beside an empty one and a second folder, comes back as the
    walk run here gives it."""
    root = tmp_path / "many"
    many = root / "a" / "many"
    many.mkdir(parents=True)
    count = verifier.sources.directory._WALK_PART * 2 + 3
    for i in range(count):
        (many / f"f{i:05d}").write_bytes(b"")
    (root / "a" / "empty").mkdir()
    (root / "b").mkdir()
    (root / "b" / "one").write_bytes(b"1")
    here = verifier.sources.directory.DirectorySource(str(root))
    expected = [list(here.walk(folder)) for folder in ("a", "b")]
    source = verifier.sources.directory.DirectorySource(str(root))
    got = source.walk_apart(["a", "b"]).result()
    assert got == expected
    assert len(got[0]) == count and got[1] == [("b/one", Kind.FILE)]


@pytest.mark.parametrize(
    "written",
    [
        [("part", 0, [("x", None)])],  # cut short: no end
        [("end", 1, {})],  # fewer folders than asked for
        [("part", 2, []), ("end", 2, {})],  # a folder that was not asked for
        [("part", 0, "x"), ("end", 2, {})],  # not a list of entries
        [("other", 0, []), ("end", 2, {})],
        [("end", 2, [])],  # errors that are not a mapping
        [("part", 0, []), "cut", ("end", 2, {})],  # a part shorter than its head says
        [("part", 0, []), "long", ("end", 2, {})],  # a head longer than any part
    ],
    ids=["no-end", "fewer", "index", "entries", "kind", "errors", "cut", "long"],
)
def test_a_walk_written_otherwise_is_not_believed(written: list[object]) -> None:
    import io

    out = io.BytesIO()
    for item in written:
        if item == "cut":
            out.write((100).to_bytes(8, "little") + b"\x80")
        elif item == "long":
            out.write((1 << 40).to_bytes(8, "little"))
        else:
            verifier.sources.directory._write_part(out, item)  # type: ignore[arg-type]
    out.seek(0)
    try:
        got = verifier.sources.directory._read_walk(out, 2)
    except Exception:
        got = None  # (result() walks here on any exception)
    assert got is None


def _streamed(monkeypatch: pytest.MonkeyPatch, extra: tuple[str, ...] = ()) -> list[str]:
    """Record the order of events: each name the walk gave as it went (``met``), and when
    the walk was taken (``taken``); ``extra``: names given first as if the walk had met
    them as files (a child that got it wrong: its result, then the walk's word, says
    otherwise)."""
    events: list[str] = []
    finish = verifier.plan.plan.Plan.finish_walk

    def counted(kind: Any) -> Any:
        met = kind.files_met

        def files_met(walk: Any) -> Iterator[str]:
            for name in (*extra, *met(walk)):
                events.append("met")
                yield name

        return files_met

    def finish_walk(plan: verifier.plan.plan.Plan, source: object) -> None:
        events.append("taken")
        finish(plan, source)  # type: ignore[arg-type]

    for kind in (verifier.sources.directory._ChildWalk, verifier.sources.directory._SplitWalk):
        monkeypatch.setattr(kind, "files_met", counted(kind))
    monkeypatch.setattr(verifier.plan.plan.Plan, "finish_walk", finish_walk)
    return events


@pytest.mark.parametrize("executor", ["inline", "processes", "auto"])
def test_integrity_alone_reads_the_files_as_the_walk_meets_them(
    clean: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, executor: str
) -> None:
    """``--stages integrity`` with the walk apart: the listed files are read as the walk
    meets them, before it is taken, and the report is the one of the walk run here."""
    root = _damaged(clean, tmp_path, True)
    integrity = frozenset({"integrity"})
    here = _report(root, False, monkeypatch, integrity)
    events = _streamed(monkeypatch)
    monkeypatch.setattr(verifier.plan.build, "WALK_APART_MIN", 0)
    options = Options(executor=executor, workers=2, stages=integrity)
    apart = FORMATS["json"](run(root, options).report)
    assert apart == here
    assert "taken" in events and events.index("taken") > 100  # (over 2,000 files listed)
    assert events.count("taken") == 1


def test_a_name_the_walk_gave_wrongly_as_it_went_changes_nothing(
    clean: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A listed name given as a file as the walk went, which its result says is not one
    (here: a listed file removed, so missing, and a listed name made a link): read (and
    failing, or refused), then judged by the walk's word: the same report."""
    root = _damaged(clean, tmp_path, False)
    cases = root / "evidence" / "cases" / "000"
    (cases / "case-000005" / "run.json").unlink()
    os.symlink("../case-000001/run.json", cases / "case-000005" / "run.json")
    integrity = frozenset({"integrity"})
    here = _report(root, False, monkeypatch, integrity)
    wrong = (
        "evidence/cases/000/case-000004/readback.json",
        "evidence/cases/000/case-000005/run.json",
    )
    events = _streamed(monkeypatch, wrong)
    apart = _report(root, True, monkeypatch, integrity)
    assert apart == here
    assert events[:2] == ["met", "met"] and "taken" in events
    codes = {f["code"] for s in json.loads(apart)["stages"] for f in s["findings"]}
    assert "manifest.missing" in codes


def test_a_small_scope_streamed_on_auto_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fewer files than decide the executor by their count alone: ``auto`` would weigh
    their sizes, which a streamed walk's tasks do not have (and which a pass over them
    would take from the executor); they are weighed as unknown, and read once."""
    import hashlib

    root = tmp_path / "small"
    (root / "data" / "sub").mkdir(parents=True)
    files = {"data/a.txt": b"a\n", "data/sub/b.txt": b"b\n", "data/sub/c.bin": b"\0" * 10}
    for name, data in files.items():
        (root / name).write_bytes(data)
    listed = "".join(f"{hashlib.sha256(d).hexdigest()}  {n}\n" for n, d in files.items())
    (root / "manifest.sha256").write_text(listed)
    (root / "data" / "stray.txt").write_text("unlisted")
    integrity = frozenset({"integrity"})
    here = _report(root, False, monkeypatch, integrity)
    events = _streamed(monkeypatch)
    monkeypatch.setattr(verifier.plan.build, "WALK_APART_MIN", 0)
    options = Options(executor="auto", workers=2, stages=integrity)
    apart = FORMATS["json"](run(root, options).report)
    assert apart == here
    assert events == ["met"] * 4 + ["taken"]  # (the unlisted file is met too, and not read)
    codes = {f["code"] for s in json.loads(apart)["stages"] for f in s["findings"]}
    assert codes == {"manifest.unlisted"}


def test_a_walk_taken_as_it_is_read_is_the_result_without_holding_it_whole(
    tmp_path: Path,
) -> None:
    """What the plan takes (``walks``): each folder's entries, read a part at a time from the
    child's output as they are taken: the result's entries, in order, and the peak of the
    allocations while they are counted is under half of the result's (which holds every
    entry at once)."""
    import tracemalloc

    root = tmp_path / "many"
    many = root / "a"
    many.mkdir(parents=True)
    count = verifier.sources.directory._WALK_PART * 6 + 1
    for i in range(count):
        (many / f"f{i:05d}").write_bytes(b"")
    (root / "b").mkdir()
    (root / "b" / "one").write_bytes(b"1")
    here = verifier.sources.directory.DirectorySource(str(root))
    expected = [list(here.walk(folder)) for folder in ("a", "b")]

    def peak(take: Any) -> tuple[Any, int]:
        source = verifier.sources.directory.DirectorySource(str(root))
        pending = source.walk_apart(["a", "b"])
        tracemalloc.start()
        try:
            got = take(pending)
            return got, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            pending.close()

    whole, whole_peak = peak(lambda p: [len(w) for w in p.result()])
    seen: list[tuple[str, Kind]] = []

    def counted(pending: Any) -> list[int]:
        counts = []
        for walk in pending.walks():
            n = 0
            for entry in walk:
                n += 1
                if n % 997 == 0 or entry[0] == "b/one":
                    seen.append(entry)  # (a few, to check the order)
            counts.append(n)
        return counts

    taken, taken_peak = peak(counted)
    assert taken == whole == [count, 1]
    flat = [e for walk in expected for e in walk]
    assert seen == [e for i, e in enumerate(flat[:count], 1) if i % 997 == 0] + [
        ("b/one", Kind.FILE)
    ]
    assert taken_peak < whole_peak / 2


def _tree(root: Path) -> None:
    """Folders to split at (30, at the second level), with files above them, one inside
    another and an empty one; beside them a link to one, a file and a FIFO; a flat folder."""
    for i in range(30):
        sub = root / "evidence" / "cases" / f"case-{i:02d}"
        (sub / "inner").mkdir(parents=True)
        (sub / "run.json").write_text("{}")
        (sub / "inner" / "deep.txt").write_text("x")
    (root / "evidence" / "cases" / "empty").mkdir()
    (root / "evidence" / "top.json").write_text("{}")
    (root / "evidence" / "cases" / "loose.txt").write_text("x")
    os.symlink("case-00", root / "evidence" / "cases" / "linked")
    os.mkfifo(root / "evidence" / "cases" / "pipe")
    (root / "schemas").mkdir()
    (root / "schemas" / "a.schema.json").write_text("{}")


@pytest.mark.parametrize("ways", [2, 3, 16])
@pytest.mark.parametrize("folders", [["evidence", "schemas"], [""], ["schemas"]])
def test_a_split_walk_meets_what_one_walk_meets(
    tmp_path: Path, ways: int, folders: list[str]
) -> None:
    """Split between children (or not, where no folder has enough folders to split at), each
    folder's walk has the entries of the walk run here, each once, and the same errors; as
    it goes, it meets every regular file of them once."""
    _tree(tmp_path)
    here = verifier.sources.directory.DirectorySource(str(tmp_path))
    expected = [sorted(here.walk(folder)) for folder in folders]
    source = verifier.sources.directory.DirectorySource(str(tmp_path))
    pending = source.walk_apart(folders, ways)
    split = isinstance(pending, verifier.sources.directory._SplitWalk)
    splits = ways * verifier.sources.directory._PER_WAY <= 31  # (the folders to split at)
    assert split is (folders != ["schemas"] and splits)
    met = list(pending.files_met())
    got = pending.result()
    assert [sorted(walk) for walk in got] == expected
    assert [len(walk) for walk in got] == [len(walk) for walk in expected]  # (each once)
    assert sorted(met) == sorted(n for walk in expected for n, k in walk if k is Kind.FILE)
    assert source.walk_errors == here.walk_errors
    assert ("evidence/cases/linked", Kind.LINK) in expected[0] or folders == ["schemas"]


def test_a_split_walk_whose_child_cannot_start_is_walked_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _tree(tmp_path)
    here = verifier.sources.directory.DirectorySource(str(tmp_path))
    expected = [sorted(here.walk(folder)) for folder in ("evidence", "schemas")]
    source = verifier.sources.directory.DirectorySource(str(tmp_path))
    start = verifier.execute.processes.start_python
    started: list[object] = []

    def second_refused(*args: Any, **kwargs: Any) -> Any:
        started.append(args)
        if len(started) == 2:
            raise OSError("no process")
        return start(*args, **kwargs)

    monkeypatch.setattr(verifier.execute.processes, "start_python", second_refused)
    got = source.walk_apart(["evidence", "schemas"], 3).result()
    assert len(started) == 3
    assert [sorted(walk) for walk in got] == expected

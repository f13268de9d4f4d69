"""The plan's tasks: made in one pass (Plan.tasks) they are the tasks the per-file questions
give (role, listed SHA-256, further algorithms, wants, container), on a plain archive and on
a bag with other algorithms; made lazily (Plan.rest) they are counted before they are made,
and the executor is chosen as from the whole list; and they pickle compactly (a typical
batch within one 64 KiB pipe buffer), back equal, as their facts do."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import copy_bundled, require_module, write_archive
from verifier.execute.registry import MIN_ITEMS
from verifier.inspect.digest import Digest
from verifier.inspect.gather import Facts, executor_name, inspect_all
from verifier.inspect.inspect import FileFacts
from verifier.pipeline import _digest_preread, open_location
from verifier.plan.build import build_plan
from verifier.plan.options import Options
from verifier.plan.plan import Plan, Tasks
from verifier.plan.task import FileTask
from verifier.record.check import RecordResult
from verifier.sources import Source
from verifier.sources.capabilities import SizeHints, WorkerReads
from verifier.sources.interface import Kind


def _one_by_one(plan: Plan, source: Source, name: str) -> FileTask:
    """A task as the plan made it before Plan.tasks: every question asked again per file."""
    records = plan.records
    role, inner = records.classify(name) if plan.parse else ("other", None)
    wants = records.wants(inner) if role == "record" and inner is not None else ()
    listed = None
    for manifest in plan.manifests:
        if manifest.algorithm == "sha256" and manifest.kinds.get(name) is Kind.FILE:
            listed = manifest.wanted[name]
            break
    reads = source.capability(WorkerReads)
    sizes = source.capability(SizeHints)
    return FileTask(
        name,
        reads.locate(name) if reads is not None else name,
        sizes.size_hint(name) if sizes is not None else 0,
        role,
        inner,
        listed,
        listed is not None,
        plan.algorithms(name),
        wants,
        records.container_of(inner) if role == "record" and inner is not None else None,
    )


def _planned(root: Path, options: Options) -> tuple[Plan, Source, list[FileTask]]:
    """The plan of ``root`` as the pipeline makes it: early tasks, the documents prepared."""
    source = open_location(root, options)
    plan = build_plan(source, str(root), options)
    facts = Facts()
    _digest_preread(plan, facts)
    early = list(plan.tasks(source, plan.early_names()))
    assert early == [
        _one_by_one(plan, source, n)
        for n in plan.order
        if plan.parse and plan.records.classify(n)[0] in ("schema", "document")
    ]
    inspect_all(source, plan.records.bundle, early, facts, options, here=True)
    held, facts.held = facts.held, {}
    plan.records.prepare(held)
    return plan, source, early


def _agree(root: Path, options: Options = Options()) -> list[FileTask]:
    plan, source, early = _planned(root, options)
    with source:
        rest = plan.rest(source, {t.name for t in early})
        made = list(rest)
        assert len(rest) == len(made) == len(plan.order) - len(early)
        assert made == [_one_by_one(plan, source, t.name) for t in made]
        assert list(rest) == made  # made again, the same
        return made


def test_the_bundled_archive(tmp_path: Path) -> None:
    made = _agree(copy_bundled(tmp_path / "a"))
    assert {t.role for t in made} >= {"record", "other"}
    assert any(t.wants for t in made)


def test_a_content_root_and_the_stages_without_parsing(tmp_path: Path) -> None:
    root = tmp_path / "a"
    root.mkdir()
    copy_bundled(root / "inner")
    write_archive(root, {"inner/notes.txt": "x\n"}, manifest=False)
    (root / "inner" / "manifest.sha256").rename(root / "manifest.sha256")
    _agree(root, Options(base="inner"))
    _agree(copy_bundled(tmp_path / "b"), Options(stages=frozenset({"integrity"})))


def test_a_bag_with_other_algorithms(tmp_path: Path) -> None:
    bagit: Any = require_module("bagit")
    root = write_archive(tmp_path / "bag", {"a.txt": "a\n", "evidence/x.json": "{}\n"}, False)
    bagit.make_bag(str(root), checksums=["sha256", "sha512", "md5"])
    made = _agree(root)
    assert any(t.algorithms for t in made)


def test_the_executor_is_chosen_from_the_count_and_the_size_only_if_needed() -> None:
    def never(names: Any) -> Any:
        raise AssertionError("made for the executor's choice")

    many = Tasks(never, lambda: [], MIN_ITEMS)
    assert executor_name(Options(workers=2), many) == "processes"
    assert executor_name(Options(workers=1), many) == "inline"
    big = FileTask("a", "a", 1 << 30, "other", None, None, False, ())
    few = Tasks(lambda names: iter([big, big]), lambda: [], 2)
    assert executor_name(Options(workers=2), few) == executor_name(Options(workers=2), [big, big])
    # two 1 GB files to hash, nothing to parse: threads (reads and hashes run beside each
    # other without the interpreter lock); the same size in records to parse: processes
    assert executor_name(Options(workers=2), few) == "threads"
    records = big._replace(role="record", record="a")
    assert executor_name(Options(workers=2), [records, records]) == "processes"
    made: list[int] = []

    def make(names: Any) -> Iterator[FileTask]:
        made.append(1)
        return iter([big, big])

    counted = Tasks(make, lambda: [], 2)
    assert executor_name(Options(workers=2), counted) == "threads" and made == [1]  # one pass
    small = big._replace(size=1)
    assert executor_name(Options(workers=2), [small, small]) == "inline"


SHA = "ab" * 32
CASES = [
    FileTask("e/a.json", "e/a.json", 3, "record", "e/a.json", SHA, True, (), (("/x", False),)),
    FileTask("c/e/a.json", ("zip", 7), 3, "record", "e/a.json", SHA.upper(), True, ("md5",)),
    FileTask("c/e/a.json", None, 0, "record", "e/a.json", SHA, False, (), (), ("pi", True)),
    FileTask("s/x.json", "s/x.json", 1 << 40, "schema", None, None, True, ("sha512", "md5")),
    FileTask("odd", "odd", 0, "unknown", "elsewhere", "not hex", False, ()),
    FileTask("odd", "odd", 0, "other", "elsewhere", "zz" * 32, False, ()),
    FileTask("", "", 0, "document", "", None, False, ()),
]


@pytest.mark.parametrize("task", CASES)
def test_a_task_pickles_back_equal(task: FileTask) -> None:
    again = pickle.loads(pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL))
    assert type(again) is FileTask and again == task
    assert (again.where is again.name) == (task.where is task.name)


def test_a_batch_pickles_smaller_than_its_fields_and_within_a_pipe_buffer() -> None:
    wants = (("/object/id", False),)
    batch = [
        FileTask(n, n, 246, "record", n, f"{i:064x}", True, (), wants)
        for i in range(512)
        for n in [f"evidence/cases/{i:03}/case-{i:06}/readback.json"]
    ]
    plain = pickle.dumps([tuple(t) for t in batch], protocol=pickle.HIGHEST_PROTOCOL)
    compact = pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL)
    assert pickle.loads(compact) == batch
    assert len(compact) < 0.75 * len(plain) and len(compact) < 64 << 10


DIGEST = Digest(SHA, 618)
RECORD = RecordResult((), [], True, 1, {"/a": {"b": 1}, "/c": "d"})
FACTS = [
    FileFacts("e/a.json", DIGEST, None, RECORD),
    FileFacts("e/a.txt", Digest(SHA, 3, SHA, None, (("md5", "0" * 32),)), None, None),
    FileFacts("e/a.txt", Digest(SHA.upper(), 3), None, None),
    FileFacts("e/a.txt", Digest("short", 3), None, None),
    FileFacts("e/a.json", None, "Permission denied", None),
    FileFacts("e/s.json", DIGEST, None, None, b"{}"),
    FileFacts("e/a.json", DIGEST, None, RECORD, None, (("blob", "ab" * 20),)),
    FileFacts("e/a.json", DIGEST, None, RECORD._replace(extracted=None, parsed=False)),
]


@pytest.mark.parametrize("facts", FACTS)
def test_facts_pickle_back_equal(facts: FileFacts) -> None:
    again = pickle.loads(pickle.dumps(facts, protocol=pickle.HIGHEST_PROTOCOL))
    assert type(again) is FileFacts and again == facts
    assert type(again.digest) is type(facts.digest)
    assert type(again.record) is type(facts.record)

"""The source interface: a small core every source implements, and capabilities a source may
also have, asked for with ``Source.capability``. Which source has which capability; a bag
exposes its container's (no hand-forwarded method to forget); a method of a capability on a
class that does not declare the capability (called by nobody) is caught."""

from __future__ import annotations

import ast
import hashlib
import inspect
import shutil
from pathlib import Path

import pytest

from tests.archives import git_repo, tar_tree, zip_tree
from tests.conftest import write_archive
from verifier.manifest import format_manifest
from verifier.sources import open_source
from verifier.sources.bagit import BagSource
from verifier.sources.capabilities import (
    CAPABILITIES,
    FileDetails,
    History,
    OwnLayout,
    WorkerReads,
    layout_of,
)
from verifier.sources.interface import Layout, Source

SOURCES = Path(__file__).resolve().parents[2] / "verifier" / "sources"
NAMES = {c: c.__name__ for c in CAPABILITIES}


def _caps(source: Source) -> set[str]:
    return {NAMES[c] for c in CAPABILITIES if source.capability(c) is not None}


def _bag(root: Path) -> Path:
    files = {"data/a.txt": b"alpha\n"}
    write_archive(root, files, manifest=False)
    (root / "bagit.txt").write_bytes(b"BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n")
    lines = format_manifest((n, hashlib.sha256(d).hexdigest()) for n, d in files.items())
    (root / "manifest-sha256.txt").write_bytes(lines)
    return root


def test_each_source_kind_has_its_capabilities(tmp_path: Path) -> None:
    root = write_archive(tmp_path / "src", {"data/a.txt": b"alpha\n"})
    plain = {"WorkerReads", "SizeHints"}
    expected = {
        root: plain | {"WalkErrors"},
        zip_tree(root, tmp_path / "a.zip"): plain,
        tar_tree(root, tmp_path / "a.tar", "w"): plain,
        tar_tree(root, tmp_path / "a.tar.gz", "w:gz"): {"SizeHints"},  # read in one pass
    }
    for location, caps in expected.items():
        with open_source(location) as source:
            assert _caps(source) == caps, location
    repo = git_repo(shutil.copytree(root, tmp_path / "repo"))
    with open_source(f"{repo}@HEAD") as source:
        assert _caps(source) == {"History", "FileDetails", "ReadChecks"} | plain


def test_a_bag_has_its_layout_and_its_containers_capabilities(tmp_path: Path) -> None:
    bag = _bag(tmp_path / "bag")
    containers = {
        bag: {"WorkerReads", "SizeHints", "WalkErrors"},
        zip_tree(bag, tmp_path / "bag.zip"): {"WorkerReads", "SizeHints"},
        tar_tree(bag, tmp_path / "bag.tar.gz", "w:gz"): {"SizeHints"},
    }
    for location, caps in containers.items():
        with open_source(location) as source:
            assert isinstance(source, BagSource)
            assert _caps(source) == caps | {"OwnLayout"}, location
            # the capability is the container itself: workers open a bag's files as its own
            reads = source.capability(WorkerReads)
            container: object = source.container
            assert reads is None or reads is container
            assert source.capability(OwnLayout) is source
            assert layout_of(source).payload == "data"
    repo = git_repo(shutil.copytree(bag, tmp_path / "repo"))
    with open_source(f"{repo}@HEAD") as source:
        assert isinstance(source, BagSource)
        assert _caps(source) == {
            "History",
            "FileDetails",
            "OwnLayout",
            "ReadChecks",
            "WorkerReads",
            "SizeHints",
        }
        details = source.capability(FileDetails)
        assert details is not None and "gitBlob" in details.details("data/a.txt")
        inner: object = source.container
        assert source.capability(History) is inner


def test_a_source_without_a_layout_of_its_own_has_the_default_one(tmp_path: Path) -> None:
    with open_source(write_archive(tmp_path / "src", {"a.txt": b"a\n"})) as source:
        assert source.capability(OwnLayout) is None
        assert layout_of(source) == Layout()


def _core_methods() -> set[str]:
    return {
        name
        for name, member in vars(Source).items()
        if inspect.isfunction(member) and not name.startswith("_") and name != "capability"
    }


def test_the_bag_answers_every_core_method_itself() -> None:
    # a core method with a default that the bag left to Source would answer for the bag, not
    # for its container (the way bags once lost parallel reads and size hints)
    core = _core_methods()
    assert {"kind", "walk", "open", "read_many", "findings", "complete", "close"} <= core
    missing = sorted(core - set(vars(BagSource)))
    assert missing == [], missing
    assert not hasattr(Source, "parallel_reads")


def _capability_methods() -> dict[str, str]:
    return {
        method: cap.__name__
        for cap in CAPABILITIES
        for method in getattr(cap, "__abstractmethods__", ())
    }


def _undeclared(tree: ast.Module, methods: dict[str, str]) -> list[str]:
    """``Class.method`` for each capability method a class defines without declaring the
    capability among its bases (by name)."""
    out: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        bases = {b.id for b in node.bases if isinstance(b, ast.Name)}
        if not bases & {"Source", "IndexedSource", *NAMES.values()} or "Opener" in bases:
            continue
        for item in node.body:
            if (
                isinstance(item, ast.FunctionDef)
                and item.name in methods
                and methods[item.name] not in bases
            ):
                out.append(f"{node.name}.{item.name}")
    return out


def test_no_source_defines_a_capability_method_it_does_not_declare() -> None:
    methods = _capability_methods()
    assert {"opener", "locate", "older_version", "walk_error", "layout"} <= set(methods)
    found = {
        path.name: bad
        for path in sorted(SOURCES.glob("*.py"))
        if (bad := _undeclared(ast.parse(path.read_text()), methods))
    }
    assert found == {}, found


def test_the_undeclared_method_check_can_fail() -> None:
    code = "class S(Source):\n    def older_version(self, name, sha256):\n        return None\n"
    assert _undeclared(ast.parse(code), _capability_methods()) == ["S.older_version"]


@pytest.mark.parametrize("cap", CAPABILITIES)
def test_a_capability_is_not_a_source(cap: type) -> None:
    # small and separate: a capability adds methods, it never carries the core
    assert not issubclass(cap, Source)
    assert len(getattr(cap, "__abstractmethods__", ())) <= 6

"""The hostile corpus through every output format (issue 34, "Done when"): each archive of a
fixed, deterministic corpus (fuzzed copies of the bundled archive as a folder, a zip and a
tarball, resealed or not; byte-built zips and tarballs from ``archives_build``; one without a
manifest) is checked with EVERY format of ``check`` in one run, each to a declared file but
one, which goes to standard output with ``-o -`` (it turns, so every format goes to ``-``
once); ``coverage`` the same with its formats; ``table`` (standard output only) with each of
its formats in turn. Every run must exit 0, 1 or 2 (never 3, never a hang), print no
traceback, write the declared files and nothing else (not in the archive's folder, the
working directory, HOME or TMPDIR), and a report on standard output is never empty.

About 65 runs of the real CLI, under a second each."""

from __future__ import annotations

import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hostile import archives_build as build
from tests.hostile.harness import Run, assert_safe, run_cli
from tests.hostile.test_fuzz import BUNDLED, FORMS, MANIFEST, Mutation, mutate, mutate_outer
from verifier.views.check import CHECK
from verifier.views.coverage import COVERAGE
from verifier.views.table import TABLE

CHECK_FORMATS = list(CHECK.choices("auto"))
COVERAGE_FORMATS = list(COVERAGE.choices("auto"))
TABLE_FORMATS = list(TABLE.choices("auto"))
TIMEOUT = 120.0


def _fuzzed(
    form: str, plan: list[Mutation], reseal: bool, outer: list[Mutation] | None = None
) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        target = FORMS[form](mutate(BUNDLED, plan, reseal), tmp)
        if outer and target.is_file():
            mutate_outer(target, outer)
        return target

    return make


def _built(kind: str) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        if kind == "zip-control-names":
            names = ["evidence/\x1b[31mred\x1b[0m.json", "evidence/line\nforged.json", "=1+1.json"]
            return build.zip_of(tmp / "a.zip", [(n, b'{"x": "\\u001b[2J"}\n') for n in names])
        if kind == "tar-long-names":
            members = [("evidence/" + "d/" * 60 + "deep.json", b"{}\n"), ("-cmd.json", b"[]\n")]
            return build.tar_of(tmp / "a.tar", members, tarfile.PAX_FORMAT)
        if kind == "zip-truncated":
            path = build.zip_of(tmp / "a.zip", [("evidence/more.json", b"{}\n" * 100)])
            with zipfile.ZipFile(path) as archive:
                start = archive.start_dir
            path.write_bytes(path.read_bytes()[: start + 10])
            return path
        raise AssertionError(kind)

    return make


#: name -> builder of the archive in a fresh folder (deterministic: fixed plans, no RNG)
CORPUS: dict[str, Callable[[Path], Path]] = {
    "folder-hostile-values-resealed": _fuzzed(
        "folder",
        [
            ("json-key", 7, 3, "\x1b[2J\x1b[1;1H"),
            ("json", 11, 9, '"\\ud800"'),
            ("json-string", "evidence/assertions.json", 7, "line\nforged: finding"),
            ("json-string", "evidence/cases.json", 2, "<script>alert(1)</script>"),
        ],
        True,
    ),
    "zip-renamed-nested-resealed": _fuzzed(
        "zip", [("rename", 5, "[/bold]"), ("json", 3, 4, "[" * 300 + "]" * 300)], True
    ),
    "tar-markup-resealed": _fuzzed(
        "tar",
        [
            ("json-string", "evidence/cases.json", 3, "=1+1"),
            ("insert-text", 9, 0.5, "\u202egnp.exe"),
            ("json", 6, 2, "1e400"),
        ],
        True,
    ),
    "folder-tampered": _fuzzed(
        "folder", [("flip", 4, 0.5, 7), ("json-key", 2, 1, "%0A%25"), ("delete", 8)], False
    ),
    "zip-outer-flip": _fuzzed("zip", [("json", 1, 1, "-0")], False, [("flip", 0.6, 0x55)]),
    "folder-no-manifest": _fuzzed("folder", [("delete", sorted(BUNDLED).index(MANIFEST))], False),
    "zip-control-names": _built("zip-control-names"),
    "tar-long-names": _built("tar-long-names"),
    "zip-truncated": _built("zip-truncated"),
}
NAMES = sorted(CORPUS)


def test_the_corpus_is_what_it_says() -> None:
    without = mutate(BUNDLED, [("delete", sorted(BUNDLED).index(MANIFEST))], False)
    assert MANIFEST not in without  # the one without a manifest
    assert len(NAMES) >= 8


def _made(name: str, tmp_path: Path) -> tuple[Path, Path, Path]:
    """The archive (in ``tmp_path/src``), an empty output folder and an empty working one."""
    src, out, work = tmp_path / "src", tmp_path / "out", tmp_path / "work"
    for folder in (src, out, work):
        folder.mkdir()
    return CORPUS[name](src), out, work


def _held(run: Run, out: Path, declared: list[str]) -> None:
    assert_safe(run, rc=(0, 1, 2), json_report=False, max_rss_mib=600)
    written = sorted(p.name for p in out.iterdir())
    if run.rc == 2:  # refused before anything was written
        assert written == [], run.args
        return
    assert written == sorted(declared), (run.args, written)
    assert run.stdout, f"{run.args}: nothing on standard output"
    for name in declared:
        assert (out / name).stat().st_size > 0, name


def _outputs(formats: list[str], to_stdout: str, out: Path) -> tuple[list[str], list[str]]:
    args: list[str] = []
    declared: list[str] = []
    for fmt in formats:
        if fmt == to_stdout:
            args += ["-f", fmt, "-o", "-"]
        else:
            declared.append(f"report.{fmt}")
            args += ["-f", fmt, "-o", str(out / f"report.{fmt}")]
    return args, declared


#: (archive, the check format sent to standard output): every archive three times, so each
#: format goes to ``-`` three times, on three archives, and to a file on every archive
CHECK_ROUNDS = [
    (name, CHECK_FORMATS[(3 * i + k) % len(CHECK_FORMATS)])
    for i, name in enumerate(NAMES)
    for k in range(3)
]


@pytest.mark.parametrize(("name", "to_stdout"), CHECK_ROUNDS)
def test_check_writes_every_format_and_nothing_else(
    name: str, to_stdout: str, tmp_path: Path
) -> None:
    archive, out, work = _made(name, tmp_path)
    args, declared = _outputs(CHECK_FORMATS, to_stdout, out)
    run = run_cli(
        ["check", str(archive), "--no-config", *args],
        cwd=work,
        watch=[archive.parent, work],
        timeout=TIMEOUT,
    )
    _held(run, out, declared)


def test_every_check_format_goes_to_standard_output() -> None:
    assert {fmt for _, fmt in CHECK_ROUNDS} == set(CHECK_FORMATS)
    assert {name for name, _ in CHECK_ROUNDS} == set(NAMES)


COVERAGE_ROUNDS = [
    (name, COVERAGE_FORMATS[(2 * i + k) % len(COVERAGE_FORMATS)], k == 1 and i % 3 == 0)
    for i, name in enumerate(NAMES)
    for k in range(2)
]


@pytest.mark.parametrize(("name", "to_stdout", "mutating"), COVERAGE_ROUNDS)
def test_coverage_writes_every_format_and_nothing_else(
    name: str, to_stdout: str, mutating: bool, tmp_path: Path
) -> None:
    archive, out, work = _made(name, tmp_path)
    args, declared = _outputs(COVERAGE_FORMATS, to_stdout, out)
    mutate_args = ["--mutate", "--max-mutants", "3", "-j", "1"] if mutating else []
    run = run_cli(
        ["coverage", str(archive), "--no-config", *mutate_args, *args],
        cwd=work,
        watch=[archive.parent, work],
        timeout=TIMEOUT,
    )
    _held(run, out, declared)


TABLE_ROUNDS = [
    (NAMES[(3 * i + k) % len(NAMES)], fmt) for i, fmt in enumerate(TABLE_FORMATS) for k in range(3)
]


@pytest.mark.parametrize(("name", "fmt"), TABLE_ROUNDS)
def test_table_prints_every_format_and_writes_nothing(name: str, fmt: str, tmp_path: Path) -> None:
    archive, out, work = _made(name, tmp_path)
    run = run_cli(
        ["table", str(archive), "--no-config", "-f", fmt],
        cwd=work,
        watch=[archive.parent, work],
        timeout=TIMEOUT,
    )
    _held(run, out, [])

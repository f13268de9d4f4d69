"""A time-bounded fuzz test (issue 11, "What to build"): mutated copies of the bundled archive,
as a folder, a zip and a tarball, run through the real CLI under the hostile harness.

Each example is a short list of mutations of the archive held in memory (byte flips,
truncations, inserted bytes, renamed and deleted files, JSON values replaced by hostile ones,
hostile strings in names and values), optionally "resealed" (the manifest rewritten to match,
as a forger would, so that the damage reaches the validity and consistency stages), and for a
zip or tarball, its own bytes flipped, cut or extended. Every run must hold the safety
contract (:func:`tests.hostile.harness.assert_safe`: exit 0 or 1, no hang, no traceback,
bounded memory, nothing written, a report valid against its schema; exit 2 "no manifest" only
when the mutations removed the manifest itself), and
two runs with different ``PYTHONHASHSEED`` must print byte-identical JSON.

Deterministic (``derandomize=True``, no example database) and small (a few examples per form,
each two child runs of about a second), so that it runs in well under a minute.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from tests.conftest import BUNDLED_PARTS, REPO
from tests.hostile.harness import assert_safe, run_cli
from verifier.manifest import format_manifest

MANIFEST = "manifest.sha256"
# A few per form in the suite; FUZZ_EXAMPLES=200 (say) explores further, still deterministic.
EXAMPLES_PER_FORM = int(os.environ.get("FUZZ_EXAMPLES", "4"))

HOSTILE_STRINGS = [
    "[/bold]",
    "[link](http://x)",
    "\x1b[2J\x1b[1;1H",
    "line\nforged: finding",
    "cr\rreturn",
    "\x01\x02\x7f",
    "<!-- hidden",
    "<script>alert(1)</script>",
    "=1+1",
    "@SUM(A1)",
    "-cmd",
    "e\u0301",
    "\u00e9",
    "\u202egnp.exe",
    "\ufeffbom",
    "\uff21\uff22",  # fullwidth AB
    "..",
    ".",
    "",
    " ",
    "%0A%25",
    "a" * 300,
    "/" + "9" * 3000,
    "nope",
    "^(a+)+$",
    "*",
    "evidence/**",
]
# Raw JSON text put where a value was (each is valid JSON, or deliberately not quite).
HOSTILE_VALUES = [
    "null",
    "true",
    "{}",
    "[]",
    "-0",
    "1e400",
    "-1e400",
    "1.5e-400",
    "123456789012345678901234567890",
    "9" * 2000,
    "[" * 300 + "]" * 300,
    "[" * 50 + "]" * 50,
    '"\\ud800"',
    '"\\u0000"',
    '{"a": 1, "a": 2}',
    *(json.dumps(s) for s in HOSTILE_STRINGS),
]
SENTINEL = "\x00fuzz-sentinel\x00"
# the documents whose strings steer the run: the assertion spec, the case catalogue, schemas
SPECS = ["evidence/assertions.json", "evidence/cases.json", "schemas/study.schema.json"]

Files = dict[str, bytes]


def _bundled() -> Files:
    files: Files = {}
    for part in BUNDLED_PARTS:
        src = REPO / part
        paths = sorted(p for p in src.rglob("*") if p.is_file()) if src.is_dir() else [src]
        for path in paths:
            files[path.relative_to(REPO).as_posix()] = path.read_bytes()
    return files


BUNDLED = _bundled()

# -- mutations (each a small tuple, so a failing example reads as what was done) -----------

Mutation = tuple[Any, ...]
integers = st.integers(min_value=0, max_value=10**6)
fraction = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
hostile_string = st.sampled_from(HOSTILE_STRINGS)
mutations: st.SearchStrategy[Mutation] = st.one_of(
    st.tuples(st.just("flip"), integers, fraction, st.integers(1, 255)),
    st.tuples(st.just("truncate"), integers, fraction),
    st.tuples(st.just("insert"), integers, fraction, st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("insert-text"), integers, fraction, hostile_string),
    st.tuples(st.just("rename"), integers, hostile_string),
    st.tuples(st.just("rename-into"), integers, st.sampled_from(["evidence/", "schemas/", ""])),
    st.tuples(st.just("delete"), integers),
    st.tuples(st.just("json"), integers, integers, st.sampled_from(HOSTILE_VALUES)),
    st.tuples(st.just("json-key"), integers, integers, hostile_string),
    st.tuples(st.just("json-string"), st.sampled_from(SPECS), integers, hostile_string),
)
# applied to the packed zip or tarball's own bytes (a folder has none)
outer_mutations: st.SearchStrategy[Mutation] = st.one_of(
    st.tuples(st.just("flip"), fraction, st.integers(1, 255)),
    st.tuples(st.just("truncate"), fraction),
    st.tuples(st.just("insert"), fraction, st.binary(min_size=1, max_size=8)),
)
plans = st.tuples(
    st.lists(mutations, min_size=1, max_size=4),
    st.booleans(),
    st.lists(outer_mutations, max_size=1),
)


def _pick(files: Files, index: int, only_json: bool = False) -> str | None:
    names = sorted(n for n in files if not only_json or n.endswith(".json"))
    return names[index % len(names)] if names else None


def _spots(doc: Any, into: list[tuple[Any, Any]]) -> None:
    """Every (container, key) of a JSON document, depth first, in document order."""
    if isinstance(doc, dict):
        for key in list(doc):
            into.append((doc, key))
            _spots(doc[key], into)
    elif isinstance(doc, list):
        for i, item in enumerate(doc):
            into.append((doc, i))
            _spots(item, into)


def _string_spots(data: bytes) -> list[int]:
    """The indexes (into :func:`_spots`) of string values."""
    try:
        doc = json.loads(data)
    except ValueError:
        return []
    spots: list[tuple[Any, Any]] = []
    _spots(doc, spots)
    return [i for i, (c, k) in enumerate(spots) if isinstance(c[k], str)]


def _json_edit(data: bytes, where: int, edit: Callable[[Any, Any], str]) -> bytes | None:
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    spots: list[tuple[Any, Any]] = []
    _spots(doc, spots)
    if not spots:
        return None
    container, key = spots[where % len(spots)]
    raw = edit(container, key)
    text = json.dumps(doc, ensure_ascii=False, indent=1)
    return text.replace(json.dumps(SENTINEL, ensure_ascii=False), raw, 1).encode("utf-8")


def _replace_value(raw: str) -> Callable[[Any, Any], str]:
    def edit(container: Any, key: Any) -> str:
        container[key] = SENTINEL
        return raw

    return edit


def _replace_string(raw: str) -> Callable[[Any, Any], str]:
    def edit(container: Any, key: Any) -> str:
        if isinstance(container[key], str):
            container[key] = SENTINEL
            return raw
        return json.dumps(SENTINEL)  # not a string there: nothing put in

    return edit


def _rename_key(new: str) -> Callable[[Any, Any], str]:
    def edit(container: Any, key: Any) -> str:
        if isinstance(container, dict):
            value = container.pop(key)
            container[new] = value
        else:
            container[key] = new
        return json.dumps(SENTINEL)  # nothing put in: the sentinel is not in the text

    return edit


def mutate(files: Files, plan: list[Mutation], reseal: bool) -> Files:
    out = dict(files)
    for op, *args in plan:
        if op == "json-string":
            name = args[0]
            if name in out:
                strings = _string_spots(out[name])
                where = strings[args[1] % len(strings)] if strings else 0
                changed = _json_edit(out[name], where, _replace_string(json.dumps(args[2])))
                out[name] = changed if changed is not None else out[name]
            continue
        only_json = op in ("json", "json-key")
        name = _pick(out, args[0], only_json)
        if name is None:
            continue
        data = out[name]
        if op == "flip":
            if data:
                at = min(int(args[1] * len(data)), len(data) - 1)
                out[name] = data[:at] + bytes([data[at] ^ args[2]]) + data[at + 1 :]
        elif op == "truncate":
            out[name] = data[: int(args[1] * len(data))]
        elif op in ("insert", "insert-text"):
            at = int(args[1] * len(data))
            extra = args[2] if op == "insert" else args[2].encode("utf-8")
            out[name] = data[:at] + extra + data[at:]
        elif op == "rename":
            folder = name.rpartition("/")[0]
            del out[name]
            out[f"{folder}/{args[1]}" if folder else args[1]] = data
        elif op == "rename-into":
            del out[name]
            out[args[1] + name.rpartition("/")[2]] = data
        elif op == "delete":
            del out[name]
        elif op in ("json", "json-key"):
            edit = _replace_value(args[2]) if op == "json" else _rename_key(args[2])
            changed = _json_edit(data, args[1], edit)
            if changed is not None:
                out[name] = changed
    if reseal:
        entries = [(n, hashlib.sha256(d).hexdigest()) for n, d in sorted(out.items())]
        out[MANIFEST] = format_manifest([(n, d) for n, d in entries if n != MANIFEST])
    return out


# -- the three forms -----------------------------------------------------------------------


def _fs_name(name: str) -> str:
    """A name a folder can hold inside its root (the archive forms take names as they are)."""
    parts = [p.replace("\0", "_")[:200] for p in name.split("/")]
    parts = [p if p not in ("", ".", "..") else "_" for p in parts]
    return "/".join(parts)


def as_folder(files: Files, dest: Path) -> Path:
    dest.mkdir()
    for name, data in sorted(files.items()):
        path = dest / _fs_name(name)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.is_dir():
                continue  # a file renamed onto a folder's name: that name stays a folder
            path.write_bytes(data)
        except (NotADirectoryError, FileExistsError):
            continue  # a folder wanted where a file is: the file stays
    return dest


def as_zip(files: Files, dest: Path) -> Path:
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in sorted(files.items()):
            archive.writestr(zipfile.ZipInfo(name or "_", (2026, 1, 1, 0, 0, 0)), data)
    return dest


def as_tar(files: Files, dest: Path) -> Path:
    with tarfile.open(dest, "w:gz", format=tarfile.PAX_FORMAT) as archive:
        for name, data in sorted(files.items()):
            info = tarfile.TarInfo(name or "_")
            info.size = len(data)
            info.mtime = 1767225600
            archive.addfile(info, io.BytesIO(data))
    return dest


FORMS: dict[str, Callable[[Files, Path], Path]] = {
    "folder": lambda files, tmp: as_folder(files, tmp / "archive"),
    "zip": lambda files, tmp: as_zip(files, tmp / "archive.zip"),
    "tar": lambda files, tmp: as_tar(files, tmp / "archive.tar.gz"),
}


def mutate_outer(path: Path, plan: list[Mutation]) -> None:
    data = path.read_bytes()
    for op, at, *args in plan:
        cut = min(int(at * len(data)), len(data) - 1)
        if op == "flip":
            data = data[:cut] + bytes([data[cut] ^ args[0]]) + data[cut + 1 :]
        elif op == "truncate":
            data = data[:cut]
        elif op == "insert":
            data = data[:cut] + args[0] + data[cut:]
    path.write_bytes(data)


def check_one(
    form: str, plan: list[Mutation], reseal: bool, outer: list[Mutation] | None = None
) -> None:
    files = mutate(BUNDLED, plan, reseal)
    with tempfile.TemporaryDirectory(prefix="fuzz-") as scratch:
        tmp = Path(scratch)
        target = FORMS[form](files, tmp)
        if outer and target.is_file():
            mutate_outer(target, outer)
        args = ["check", str(target), "--format", "json"]
        runs = [
            run_cli(args, env={"PYTHONHASHSEED": seed}, watch=[tmp], timeout=60)
            for seed in ("1", "2")
        ]
        # A missing manifest is the one documented exit 2 an archive can cause ("no manifest",
        # README: Exit codes); everything else an archive holds is a finding (exit 0 or 1).
        no_manifest = MANIFEST not in files
        for run in runs:
            assert_safe(run, rc=(0, 1, 2) if no_manifest else (0, 1))
            if run.rc == 2:
                assert "no manifest" in run.stderr, run.stderr
        assert runs[0].stdout == runs[1].stdout, "the report depends on PYTHONHASHSEED"


@pytest.mark.parametrize("form", sorted(FORMS))
@settings(
    max_examples=EXAMPLES_PER_FORM,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: bounded time; note() shows input
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(plan=plans)
def test_mutated_archives_hold_the_contract(
    form: str, plan: tuple[list[Mutation], bool, list[Mutation]]
) -> None:
    mutations_, reseal, outer = plan
    note(f"form={form} reseal={reseal} mutations={mutations_!r} outer={outer!r}")
    check_one(form, mutations_, reseal, outer)


def test_the_mutations_change_what_they_say() -> None:
    """The generator itself: each kind of mutation changes the archive (no vacuous fuzzing)."""
    for plan in (
        [("flip", 3, 0.5, 1)],
        [("truncate", 3, 0.5)],
        [("insert", 3, 0.5, b"\0")],
        [("rename", 3, "[/bold]")],
        [("delete", 3)],
        [("json", 3, 5, "1e400")],
        [("json-key", 3, 5, "\x1b[2J")],
        [("json-string", "evidence/assertions.json", 7, "nope")],
    ):
        assert mutate(BUNDLED, plan, False) != BUNDLED, plan
    sealed = mutate(BUNDLED, [("flip", 3, 0.5, 1)], True)
    assert sealed[MANIFEST] != BUNDLED[MANIFEST]

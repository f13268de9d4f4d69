"""Time the serial main-process parts of a full check, one by one, on a generated archive.

    python benchmarks/serial.py ARCHIVE [--repeat 3]

Prints one JSON object: ``form`` (``rules`` when the spec holds per-case rules, else
``written``), ``seconds`` (the median of ``--repeat`` runs) for each part and ``sum`` (every
part but the windowed preparation, an alternative to the whole one, and the walk in one
process: the parts overlap, as the
preparation parses and plans the spec, so the sum is an upper bound, added up the way
issue 35 adds up the 2.7 s it starts from).

Both forms: the manifest parse (the plan's: its lines, and the names and scope taken from
them), the scope walk (this process's part of it: a large folder is walked by children, split
between as many as the check's workers, while this process goes on; it starts them and takes
their walk; ``scope walk in one process`` times the whole walk here, shown but not summed:
the children's work, which spreads), the assertion spec's strict parse (its
strings shared, as the pipeline parses it), the spec prepared as the pipeline prepares it
before any record is read, planning from it (what each assertion reads, indexed by file) and
the main process's judging of the consistency stage over the values extracted from the
records (the extraction itself is not timed: it happens in the workers). The written-out
form also times the spec prepared a window at a time. The rule form also times the case set
(the case folders or the catalogue's cases) and, where the library judges rules in the main
process, their expansion into one assertion per case (``verifier.plan.cases``); where it
judges them in the worker that read their case (``planned``), no instance is made here, and
the judging part is the written assertions plus every instance's result taken from what the
workers sent (made beforehand, untimed: the workers' work).

Each part calls the library function the pipeline calls, in this process, with the cyclic
garbage collector off as during a check. A part whose function cannot be found (the library
moved it, or has no rules yet) is reported as ``null`` with the reason under ``"missing"``.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SPEC = "evidence/assertions.json"
RECORDS = "evidence/"


def _find(name: str, *modules: str) -> Any:
    """``name`` from the first of ``modules`` that has it (the pipeline's modules move)."""
    for module in modules:
        try:
            found = getattr(importlib.import_module(module), name, None)
        except ImportError:
            continue
        if found is not None:
            return found
    raise LookupError(f"{name} not found in {', '.join(modules)}")


def _median(fn: Callable[[], object], repeat: int) -> float:
    """The median wall time of ``repeat`` calls; with ``VERIFIER_BENCH_CPU=1``, CPU time
    (steadier on a shared machine, for comparing two versions of one part)."""
    clock = time.process_time if os.environ.get("VERIFIER_BENCH_CPU") == "1" else time.perf_counter
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times) if os.environ.get("VERIFIER_BENCH_MIN") == "1" else statistics.median(times)


MANIFEST = "manifest.sha256"
WALK, WHOLE_WALK = "scope walk", "scope walk in one process"
CASES = "verifier.plan.cases"  # the case set and the rules' expansion (issue 35)
CASE_SET = ("case_set", "cases_of", "find_cases", "case_ids")  # (spec, listed names)
WINDOWS = "spec prepared in windows"


def form_of(spec_bytes: bytes) -> str:
    """``rules`` when the spec has per-case rules, else ``written``."""
    try:
        spec = json.loads(spec_bytes)
    except ValueError:
        return "written"
    return "rules" if isinstance(spec, dict) and "rules" in spec else "written"


def measure(root: Path, repeat: int) -> dict[str, Any]:
    gc.disable()
    spec_bytes = (root / SPEC).read_bytes()
    form = form_of(spec_bytes)
    out: dict[str, Any] = {"form": form, "seconds": {}, "missing": {}}
    seconds, missing = out["seconds"], out["missing"]

    def part(label: str, fn: Callable[[], Callable[[], object]]) -> None:
        try:
            seconds[label] = _median(fn(), repeat)
        except Exception as exc:  # moved or changed in the library: say so, time the rest
            seconds[label], missing[label] = None, f"{type(exc).__name__}: {exc}"

    manifest = (root / "manifest.sha256").read_bytes()

    def manifest_parse() -> Callable[[], object]:
        # the plan's half of it where the library has one (the lines, and the names and
        # scope taken from them), else the lines alone
        try:
            entries = _find("parse_entries", "verifier.plan.entries")
        except LookupError:
            parse = _find("parse_manifest", "verifier.manifest", "verifier.plan.manifest")
            return lambda: parse(manifest)
        return lambda: entries(MANIFEST, manifest, MANIFEST, None)

    def walk_taken() -> Callable[[], object]:
        return _walk_taken(root, manifest, repeat)

    def walk() -> Callable[[], object]:
        # as the pipeline's child walks a large folder: without a size per file (a library
        # whose folder source takes no ``sizes`` walks with them)
        source_class = _find("DirectorySource", "verifier.sources.directory")
        try:
            source_class(root, sizes=False)
        except TypeError:
            return lambda: list(source_class(root).walk(""))
        return lambda: list(source_class(root, sizes=False).walk(""))

    seed = _listed(manifest)

    def spec_parse() -> Callable[[], object]:
        loads = _shared_loads()
        return lambda: loads(spec_bytes, dict(seed))

    early = {SPEC: spec_bytes}
    for schema in sorted((root / "schemas").glob("*.json")):
        early[f"schemas/{schema.name}"] = schema.read_bytes()

    def prepared(windowed: bool) -> Callable[[], Callable[[], object]]:
        def made() -> Callable[[], object]:
            records = importlib.import_module("verifier.plan.records")
            settings = vars(records)  # (the threshold, set for a run and put back)
            if "WINDOWED_FROM" not in settings:
                raise LookupError("this library reads its spec whole only")
            plan_class = records.RecordPlan

            def run() -> None:
                saved = settings["WINDOWED_FROM"]
                settings["WINDOWED_FROM"] = saved if windowed else len(spec_bytes) + 1
                try:
                    try:  # (rules judged where their cases are read, as a run judges them)
                        plan = plan_class("", judge_cases=True)
                    except TypeError:
                        plan = plan_class("")
                    plan.prepare(dict(early), seed)
                    plan.pack()  # (a spec read in windows is packed as it is read)
                finally:
                    settings["WINDOWED_FROM"] = saved

            return run

        return made

    part("manifest parse", manifest_parse)
    try:
        seconds[WALK] = walk_taken()()
    except Exception as exc:  # no walk apart in this library: the walk is this process's
        missing[WALK] = f"{type(exc).__name__}: {exc}"
        part(WALK, walk)
    else:
        part(WHOLE_WALK, walk)
    part("spec strict parse", spec_parse)
    # the schemas and the spec as the pipeline prepares them before any record is read:
    # parsed, validated, planned and packed, the spec whole or a window at a time
    part("spec prepared whole", prepared(False))
    if form == "written":
        part(WINDOWS, prepared(True))
    else:
        _rules(spec_bytes, seed, repeat, seconds, missing)
    try:
        _evaluation(root, spec_bytes, seed, repeat, seconds)
    except Exception as exc:  # the library's functions moved or changed: say so, time the rest
        for label in ("spec plan", "assertion evaluation"):
            if label not in seconds:
                seconds[label], missing[label] = None, f"{type(exc).__name__}: {exc}"
    apart = [k for k in (WINDOWS, WHOLE_WALK) if k in seconds]
    timed = [v for k, v in seconds.items() if k not in apart and v is not None]
    out["sum"] = sum(timed) if len(timed) == len(seconds) - len(apart) else None
    return out


def _walk_taken(root: Path, manifest: bytes, repeat: int) -> Callable[[], float]:
    """The main process's part of the scope's walk, as a check runs it on a large folder:
    the walk started apart, split between as many children as a check starts workers
    (where the library splits it; the children's walking is waited for, untimed: theirs,
    not this process's), then taken (read back and reduced to the listing's kinds and
    the unlisted files). The median of ``repeat`` runs."""
    entries = importlib.import_module("verifier.plan.entries")
    source_class = _find("DirectorySource", "verifier.sources.directory")
    ways = _find("Options", "verifier.plan.options", "verifier.pipeline")().worker_count()

    def run() -> float:
        plan = entries.parse_entries(MANIFEST, manifest, MANIFEST, None)
        source = source_class(root, sizes=False)
        clock = time.perf_counter
        start = clock()
        pending = source.walk_apart(entries.walk_starts(plan), ways)
        started = clock() - start
        for child in getattr(pending, "children", [pending]):
            if child.proc is not None:  # (none: it could not start, and is walked here)
                child.proc.wait()
        start = clock()
        entries.take_walk(plan, source, pending.walks())
        pending.close()
        return started + clock() - start

    return lambda: statistics.median(run() for _ in range(repeat))


def _rules(
    spec_bytes: bytes,
    seed: dict[str, str],
    repeat: int,
    seconds: dict[str, Any],
    missing: dict[str, str],
) -> None:
    """The rule form's own parts: the case set from the spec and the manifest's names, then
    every rule expanded into its instances (one assertion per case)."""
    spec, _ = _shared_loads()(spec_bytes, dict(seed))
    names = list(seed)
    try:
        case_set = _case_set()
        seconds["case set"] = _median(lambda: case_set(spec, names), repeat)
        cases = case_set(spec, names)
    except Exception as exc:  # no rules in this library yet, or moved: say so
        for label in ("case set", "rule expansion"):
            seconds[label], missing[label] = None, f"{type(exc).__name__}: {exc}"
        return
    if _apart(spec, names) is not None:  # judged where the cases are read: none made here
        return
    try:
        expand = _find("expand", CASES)
        seconds["rule expansion"] = _median(lambda: list(expand(spec, cases)), repeat)
    except Exception as exc:
        seconds["rule expansion"], missing["rule expansion"] = None, f"{type(exc).__name__}: {exc}"


def _apart(spec: Any, names: list[str]) -> Any:
    """The spec's ``(shell, rules)`` when this library judges its rules where their cases
    are read (issue 35: the main process then expands and judges none of them), else
    ``None``."""
    try:
        planned = _find("planned", CASES)
    except LookupError:
        return None
    return planned(spec, names, 1_000_000, SPEC)


def _judged_apart(rules: Any, store: Any) -> dict[str, Any]:
    """What the workers send back of every instance (untimed: their work, not the main
    process's), as the pipeline's log hands it to the consistency stage."""
    from verifier.assertions.evaluate import evaluate_items
    from verifier.plan.cases import instance

    out: dict[str, Any] = {}
    names = store.names
    manifested = frozenset(names)  # (once: made per case, it was quadratic in the records)
    for case in rules.cases:
        places = [
            p for p, r in enumerate(rules.rules) if all(f"{case}/{f}" in names for f in r.files)
        ]
        items = [instance(rules.rules[p].rule, case, rules.rules[p].holes) for p in places]
        pointers = [f"/rules/{rules.rules[p].spec_index}" for p in places]
        found = evaluate_items(items, pointers, store, manifested, None, SPEC)
        out[case] = {
            p: (p, r.status.value, r.message, r.flat_reads, r.finding)
            for p, r in zip(places, found, strict=True)
        }
    return out


def _case_set() -> Callable[[Any, list[str]], Any]:
    for name in CASE_SET:
        try:
            found: Callable[[Any, list[str]], Any] = _find(name, CASES)
        except LookupError:
            continue
        return found
    raise LookupError(f"none of {', '.join(CASE_SET)} in {CASES}")


def _listed(manifest: bytes) -> dict[str, str]:
    """The manifest's file names, each its own key and value: the strings a run's spec
    parse starts from (the spec's file names are then the manifest's own strings)."""
    seed: dict[str, str] = {}
    for line in manifest.decode("utf-8", "replace").splitlines():
        name = line[66:] if len(line) > 66 and line[64:66] in ("  ", " *") else ""
        seed[name] = name
    return seed


def _shared_loads() -> Callable[[bytes, dict[str, str]], tuple[Any, Any]]:
    """The strict parse as the pipeline runs it on the spec: every string shared
    (``strings``), the manifest's file names among them from the start; a library whose
    parse takes no ``strings`` is run without."""
    loads = _find("loads_strict", "verifier.json.parse")
    try:
        loads(b"{}", strings={})
    except TypeError:
        return lambda data, seed: loads(data)
    return lambda data, seed: loads(data, strings=seed)


def _evaluation(
    root: Path, spec_bytes: bytes, seed: dict[str, str], repeat: int, seconds: dict[str, Any]
) -> None:
    """Planning from the parsed spec (parsed as the pipeline parses it: the spec's strings
    shared, its file names the manifest's), then every assertion evaluated over the values
    the plan says each record yields (extracted here, untimed). A rule-form spec is planned and
    judged as the pipeline judges it: its rules expanded into their instances first."""
    needs_of = _find("needs_of", "verifier.plan.spec", "verifier.consistency")
    need_index = _find(
        "NeedIndex",
        "verifier.values.needs",
        "verifier.plan.needs",
        "verifier.plan.spec",
        "verifier.records",
    )
    records_class = _find(
        "Records", "verifier.values.records", "verifier.judge.records", "verifier.records"
    )
    extract = _find(
        "extract",
        "verifier.values.extract",
        "verifier.inspect.values",
        "verifier.inspect.record",
        "verifier.records",
    )
    check = _find("check_consistency", "verifier.judge.consistency", "verifier.consistency")
    spec, _ = _shared_loads()(spec_bytes, dict(seed))
    apart = None
    if isinstance(spec, dict) and "rules" in spec:  # planned and judged as its instances
        apart = _apart(spec, list(seed))
        # the written assertions and what each case's files yield for its rules, or (rules
        # judged in the main process) every instance, the expansion timed apart
        spec = _find("expanded", CASES)(spec, list(seed)) if apart is None else apart[0]

    def plan() -> Any:
        index = need_index(needs_of(spec))
        if apart is not None:
            index.add_per_case(apart[1].members, apart[1].needs())
        return index

    seconds["spec plan"] = _median(plan, repeat)
    index = plan()
    store = records_class()
    listed: set[str] = set()
    import orjson

    for folder, _, names in os.walk(root / RECORDS):
        for name in names:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            rel = seed.get(rel, rel)  # the manifest's own string, as the run's task names are
            listed.add(rel)
            if rel == SPEC or not rel.endswith(".json"):
                continue
            with open(path, "rb") as handle:
                store.add(rel, extract(orjson.loads(handle.read()), index.wants(rel)))
    store.add(SPEC, document=spec)
    if apart is None:
        seconds["assertion evaluation"] = _median(
            lambda: check(store, listed, SPEC, True, {}), repeat
        )
        return
    # the main process's part: the written assertions judged, every instance's result taken
    # from what the workers sent
    judged = _judged_apart(apart[1], store)
    seconds["assertion evaluation"] = _median(
        lambda: check(store, listed, SPEC, True, {}, cases=apart[1], judged=dict(judged)), repeat
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("archive", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(measure(args.archive, args.repeat)))


if __name__ == "__main__":
    main()

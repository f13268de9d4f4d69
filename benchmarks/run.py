"""Time ``verify-evidence check`` against its peers on the same synthetic archive.

For each archive (generated on first use by ``generate.py``, cached under ``--cache``), every
command runs ``--rounds`` times, the commands alternating within each round; before every
timed run the archive is read once, untimed (this machine drops file pages from its cache
after about a minute idle, and every command should meet the same warm cache). Prints medians,
ratios to the verifier's full check, and the peak memory of each command's whole process
tree, sampled from /proc: resident set size summed over the processes (pages a forked worker
shares with its parent count once in each; a child caught running its parent's program
is counted from its second sample on: at the first it is most likely between vfork and
exec, its address space its parent's), every 10 ms, and proportional set size (shared
pages split between the
processes sharing them), every 50 ms. A last table shows how the
full check grows with the number of records.

    python benchmarks/run.py --sizes 1000 10000 100000 --blobs --rounds 3

Peers (installed by benchmarks/requirements.txt, not by the package): GNU ``sha256sum -c``
(integrity only), ``check-jsonschema`` (validity only), ``bagit`` validation (integrity only,
on a bag of the same payload).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass
class Command:
    name: str
    argv: list[str]
    cwd: Path
    what: str
    reads: Path | None = None  # what it reads, if not cwd
    times: list[float] = field(default_factory=list)
    peaks: list[int] = field(default_factory=list)
    pss: list[int] = field(default_factory=list)
    codes: list[int] = field(default_factory=list)


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[21]) * os.sysconf("SC_PAGE_SIZE")


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as handle:
                out.extend(int(c) for c in handle.read().split())
        except OSError:
            continue
    return out


def _pss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
            for line in handle:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _tree(pid: int) -> list[int]:
    out, stack = [], [pid]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(_children(current))
    return out


def tree_pss(pid: int) -> int:
    """Proportional set size of ``pid`` and its descendants, in bytes (0 if unknown)."""
    return sum(_pss(p) for p in _tree(pid))


def tree_rss(pid: int, forked: set[int] | None = None) -> int:
    """Resident set size of ``pid`` and all its descendants, in bytes. Walks the tree through
    /proc/PID/task/TID/children (a few reads per sample, so sampling costs little of the
    two cores being measured); without that file, scans every process's parent.

    ``forked`` (kept across one run's samples): the children seen running their parent's
    program. A child seen so for the first time is not counted: it is most likely between
    vfork and exec (the way ``subprocess`` starts a program), when its address space is its
    parent's and its resident size is its parent's; a forked worker that goes on running
    its parent's program (a peer's multiprocessing pool) counts from its second sample on."""
    if not os.path.exists(f"/proc/{pid}/task/{pid}/children"):
        return _tree_rss_scan(pid)
    total, stack = 0, [(pid, b"")]
    while stack:
        current, parent_line = stack.pop()
        line = _cmdline(current)
        first = False
        if forked is not None and parent_line and line == parent_line:
            first = current not in forked
            forked.add(current)
        if not first:
            total += _rss(current)
        stack.extend((child, line) for child in _children(current))
    return total


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def _tree_rss_scan(pid: int) -> int:
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        ppid, pages = int(fields[1]), int(fields[21])
        children.setdefault(ppid, []).append(int(entry))
        rss[int(entry)] = pages * os.sysconf("SC_PAGE_SIZE")
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        total += rss.get(current, 0)
        stack.extend(children.get(current, []))
    return total


def run_once(command: Command) -> None:
    start = time.perf_counter()
    proc = subprocess.Popen(
        command.argv, cwd=command.cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    peak = pss = 0
    done = threading.Event()
    forked: set[int] = set()

    def sample() -> None:
        nonlocal peak, pss
        count = 0
        while not done.is_set():
            peak = max(peak, tree_rss(proc.pid, forked))
            if count % 5 == 0:
                pss = max(pss, tree_pss(proc.pid))
            count += 1
            time.sleep(0.01)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    code = proc.wait()
    elapsed = time.perf_counter() - start
    done.set()
    sampler.join()
    command.times.append(elapsed)
    command.peaks.append(peak)
    command.pss.append(pss)
    command.codes.append(code)


def compile_package() -> str:
    """Byte-compile the verifier's modules where Python looks for them, as ``pip install``
    does for an installed package (the peers, installed by pip, are compiled already). An
    editable install is not: where ``PYTHONDONTWRITEBYTECODE`` is set (as on the machine
    these figures come from), every timed run, and every worker it starts, would compile
    some 500 modules from source first (about 0.15 s of CPU per process), a cost no installed
    copy pays. Returns the sentence the report says it in."""
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("verifier")
    if spec is None or not spec.submodule_search_locations:
        return "The verifier's modules could not be found to byte-compile them."
    folder = Path(next(iter(spec.submodule_search_locations)))
    ok = compileall.compile_dir(str(folder), quiet=1)
    said = "were" if ok else "could not all be"
    return f"The verifier's modules {said} byte-compiled before timing, as pip installs them."


def warm(root: Path) -> None:
    """Read every file once, untimed, so every command meets the same page cache."""
    for folder, _, files in os.walk(root):
        for name in files:
            with open(os.path.join(folder, name), "rb") as handle:
                while handle.read(1 << 20):
                    pass


def archive(
    cache: Path, records: int, blobs: int, rules: bool = False
) -> tuple[Path, float | None]:
    """The archive, generated on first use; and how long generating it took (``None``: it
    was already in ``cache``). ``rules``: its spec in the per-case rule form (the same
    records; ``generate.py --rules``), else written out."""
    name = f"blobs-{blobs}x256MB" if blobs else f"{'rules' if rules else 'records'}-{records}"
    path = cache / name
    if (path / "manifest.sha256").exists() and not _stale(path):
        return path, None
    shutil.rmtree(path, ignore_errors=True)
    args = [sys.executable, str(HERE / "generate.py"), str(path), "--records", str(records)]
    if blobs:
        args += ["--blobs", str(blobs)]
    if rules and not blobs:
        args.append("--rules")
    start = time.perf_counter()
    subprocess.run(args, check=True)
    return path, time.perf_counter() - start


def _stale(path: Path) -> bool:
    """Whether a cached archive's copies of the project's own schemas (the assertion spec's
    among them) differ from the project's: then it is generated again (a spec the verifier
    being measured would not accept measures nothing)."""
    for copy in sorted((path / "schemas").glob("*.json")):
        own = HERE.parent / "schemas" / copy.name
        if own.exists() and own.read_bytes() != copy.read_bytes():
            return True
    return False


def bag_of(root: Path, cache: Path) -> Path | None:
    """A BagIt bag of the same payload (hard links, so no second copy on disk)."""
    try:
        import bagit  # type: ignore[import-untyped]  # bagit-python ships no type hints
    except ImportError:
        return None
    bag = cache / (root.name + ".bag")
    if not (bag / "bagit.txt").exists():
        shutil.rmtree(bag, ignore_errors=True)
        shutil.copytree(
            root, bag, copy_function=os.link, ignore=shutil.ignore_patterns("manifest.sha256")
        )
        bagit.make_bag(str(bag), checksums=["sha256"], processes=2)
    return bag


def coverage_commands(root: Path) -> list[Command]:
    """``verify-evidence coverage`` (one check, every leaf classified) and ``--mutate`` over
    200 covered values picked by seed 0 (each mutant's record re-validated and the spec and
    catalogue re-judged: the default fast judge)."""
    coverage = [sys.executable, "-m", "verifier", "coverage", str(root), "--quiet"]
    return [
        Command("verify-evidence coverage", coverage, root, "coverage of the spec"),
        Command(
            "verify-evidence coverage --mutate --max-mutants 200",
            [*coverage, "--mutate", "--max-mutants", "200"],
            root,
            "coverage, 200 mutants",
        ),
    ]


NO_OPTION = "this verifier has no --executor option yet"


def executor_support() -> str | None:
    """Why the Dask row cannot run here (``None``: it can)."""
    probe = subprocess.run(
        [sys.executable, "-m", "verifier", "check", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    if "--executor" not in probe.stdout:
        return NO_OPTION
    try:
        import dask.distributed  # noqa: F401  # only whether it imports
    except ImportError:
        return 'dask is not installed (pip install "verify-evidence[dask]")'
    return None


FULL = "verify-evidence check"
STRESS = f"{FULL} (written-out spec: stress)"
ONE = f"{FULL} --executor processes --jobs 1"
TWO = f"{FULL} --executor processes --jobs 2"
DASK = f"{FULL} --executor dask --jobs 2"
START_UP = "verify-evidence --version"
INTEGRITY = "verify-evidence (integrity)"
VALIDITY = "verify-evidence (integrity + validity)"


def check_jsonschema(records: int) -> str:
    """One ``check-jsonschema`` run per record schema over its files, each split over as many
    parallel runs as the machine has cores (the verifier uses every core too)."""
    cores = os.cpu_count() or 1
    per = max(1, -(-max(1, records // 3) // cores))  # a case has one file of each schema
    return (
        "set -e; for s in run transcript readback; do "
        f'find evidence/cases -name "$s.json" -print0 | xargs -0 -P {cores} -n {per} '
        "check-jsonschema --schemafile schemas/$s.schema.json >/dev/null; done"
    )


def commands(
    root: Path,
    cache: Path,
    blobs: bool,
    coverage: bool = False,
    peers: bool = True,
    executors: str | None = "",
    stress: Path | None = None,
    records: int = 0,
) -> list[Command]:
    """The commands timed on one archive. ``peers``: also bagit, check-jsonschema, the
    verifier's single stages and its start-up (else only ``sha256sum -c`` and the full
    check). ``executors``: ``""`` adds the rows of one and two worker processes and Dask's
    two workers (and on the blob archive a threads row), ``None`` none, other text is why the
    Dask row is skipped (the others are still added). ``stress``: the same records with the
    spec written out, checked in full as one more row."""
    verifier = [sys.executable, "-m", "verifier", "check", str(root), "--quiet"]
    out = [
        Command(
            "sha256sum -c",
            ["sha256sum", "-c", "--quiet", "manifest.sha256"],
            root,
            "integrity only",
        )
    ]
    if peers:
        out.append(
            Command(
                START_UP,
                [sys.executable, "-m", "verifier", "--version"],
                root,
                "start-up only",
            )
        )
        out.append(Command(INTEGRITY, [*verifier, "--stages", "integrity"], root, "integrity only"))
        bag = bag_of(root, cache)
        if bag is not None:
            out.append(
                Command(
                    "bagit --validate",
                    [sys.executable, "-m", "bagit", "--validate", "--processes", "2", str(bag)],
                    root,
                    "integrity only",
                    reads=bag,
                )
            )
    if peers and not blobs:
        if shutil.which("check-jsonschema"):
            script = check_jsonschema(records)
            out.append(Command("check-jsonschema", ["bash", "-c", script], root, "validity only"))
        out += [
            Command(
                VALIDITY, [*verifier, "--stages", "integrity,validity"], root, "integrity, validity"
            ),
            Command(
                "verify-evidence (integrity + consistency)",
                [*verifier, "--stages", "integrity,consistency"],
                root,
                "integrity, consistency",
            ),
        ]
    out.append(Command(FULL, verifier, root, "all four stages"))
    if stress is not None and not blobs:
        written = [sys.executable, "-m", "verifier", "check", str(stress), "--quiet"]
        out.append(Command(STRESS, written, stress, "all four, spec written out"))
    if executors is not None:
        processes = [*verifier, "--executor", "processes", "--jobs"]
        out.append(Command(ONE, [*processes, "1"], root, "all four, 1 worker"))
        out.append(Command(TWO, [*processes, "2"], root, "all four, 2 workers"))
        if blobs:  # (what auto picks there; on many records threads wait on the GIL)
            out.append(
                Command(
                    f"{FULL} --executor threads",
                    [*verifier, "--executor", "threads", "--jobs", "2"],
                    root,
                    "all four, 2 threads",
                )
            )
        if not executors:
            out.append(
                Command(
                    DASK,
                    [*verifier, "--executor", "dask", "--jobs", "2"],
                    root,
                    "all four, local cluster of 2",
                )
            )
    if coverage and not blobs:
        out += coverage_commands(root)
    return out


def size_of(root: Path) -> tuple[int, int]:
    files = total = 0
    for folder, _, names in os.walk(root):
        for name in names:
            files += 1
            total += os.path.getsize(os.path.join(folder, name))
    return files, total


def report(label: str, files: int, total: int, cmds: list[Command], rounds: int) -> str:
    full = next(c for c in cmds if c.name == FULL)
    base = statistics.median(full.times)
    runs = f"median of {rounds}" if rounds > 1 else "one run"
    lines = [
        f"### {label}: {files:,} files, {total / 1e6:,.0f} MB ({runs})",
        "",
        "| command | checks | median s | files/s | MB/s | vs verify-evidence check "
        "| peak RSS MB | peak PSS MB | exit |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c in cmds:
        med = statistics.median(c.times)
        lines.append(
            f"| {c.name} | {c.what} | {med:.2f} | {files / med:,.0f} | {total / 1e6 / med:,.0f} "
            f"| {med / base:.2f}x | {max(c.peaks) / 1e6:.0f} | {max(c.pss) / 1e6:.0f} "
            f"| {sorted(set(c.codes))} |"
        )
    lines.append("")
    return "\n".join(lines)


def machine() -> str:
    cpu = "unknown cpu"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (
        f"{platform.machine()}, {os.cpu_count()} cores ({cpu}), Python "
        f"{platform.python_version()}, {platform.system()} {platform.release()}"
    )


def commit() -> str:
    """The checked-out commit of the verifier being measured (and whether it has changes)."""
    run = [
        subprocess.run(["git", *a], cwd=HERE, capture_output=True, text=True, check=False)
        for a in (["rev-parse", "--short", "HEAD"], ["status", "--porcelain", "--", "verifier"])
    ]
    if run[0].returncode:
        return "unknown commit"
    return run[0].stdout.strip() + (" with uncommitted changes" if run[1].stdout.strip() else "")


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def parse_points(text: str) -> list[int]:
    """``1k,10k,100k,1M`` (or plain numbers) as record counts."""
    out = []
    for part in text.split(","):
        part = part.strip()
        scale = {"k": 1000, "m": 1_000_000}.get(part[-1:].lower(), 1)
        number = part[:-1] if scale > 1 else part
        if not number.isdigit() or int(number) * scale < 1:
            raise argparse.ArgumentTypeError(f"not a record count: {part!r}")
        out.append(int(number) * scale)
    return out


@dataclass
class Serial:
    """The serial main-process parts of one archive (``benchmarks/serial.py``)."""

    records: int
    form: str  # rules or written
    seconds: dict[str, float | None]
    total: float | None  # summed (None: a part was not timed)


def serial_parts(root: Path, records: int, repeat: int) -> Serial | None:
    """The serial main-process parts, timed in their own process (benchmarks/serial.py)."""
    done = subprocess.run(
        [sys.executable, str(HERE / "serial.py"), str(root), "--repeat", str(repeat)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        print(f"serial.py failed: {done.stderr.strip()[-300:]}", file=sys.stderr)
        return None
    result = json.loads(done.stdout)
    for label, why in result.get("missing", {}).items():
        print(f"serial.py: {label} not timed: {why}", file=sys.stderr)
    return Serial(records, result["form"], result["seconds"], result.get("sum"))


ORDER = (  # the serial parts' columns, in the order a check meets them
    "manifest parse",
    "scope walk",
    "scope walk in one process",
    "spec strict parse",
    "spec prepared whole",
    "spec prepared in windows",
    "case set",
    "rule expansion",
    "spec plan",
    "assertion evaluation",
)


def serial_table(parts: list[Serial]) -> str:
    seen = {name for p in parts for name in p.seconds}
    names = [n for n in ORDER if n in seen] + sorted(seen.difference(ORDER))
    lines = [
        "### Serial main-process parts (seconds; target: summed < 0.5 s at 100k, rule form)",
        "",
        "| records | spec | " + " | ".join(names) + " | summed |",
        "|---|---|" + "---|" * (len(names) + 1),
    ]
    for p in parts:
        cells = [
            "-" if n not in p.seconds else "n/a" if p.seconds[n] is None else f"{p.seconds[n]:.3f}"
            for n in names
        ]
        total = "n/a" if p.total is None else f"{p.total:.3f}"
        lines.append(f"| {p.records:,} | {FORMS[p.form]} | " + " | ".join(cells) + f" | {total} |")
    lines += [
        "",
        "Manifest parse: the plan's (the lines, and the names and scope taken from them). "
        "Scope walk: the main process's part (it starts the children that walk a large "
        "folder, split between as many as the workers, and takes their walk); the walk in "
        "one process is the whole walk timed in the main process, shown, not summed (the "
        "children's work, which spreads over them). "
        "Summed: every part but the preparation in windows (the alternative to the whole "
        "one) and the walk in one process; the parts overlap (the preparation parses and "
        "plans the spec), so the sum is "
        "an upper bound, added up as issue 35 adds up the 2.7 s it starts from. -: not a part "
        "of that form. n/a: not timed (serial.py says why on standard error: the library "
        "moved the function, or has no rules yet).",
        "",
    ]
    return "\n".join(lines)


FORMS = {"rules": "rules", "written": "written out"}


def scaling(growth: list[tuple[int, Command]]) -> str:
    """How the full check grows: time and memory at each size, and what each record added
    since the size before (the marginal cost, without the fixed start-up)."""
    lines = [
        "### Scaling of the full check",
        "",
        "| records | median s | peak RSS MB | peak PSS MB | µs per added record "
        "| KB (RSS) per added record | KB (PSS) per added record |",
        "|---|---|---|---|---|---|---|",
    ]
    before: tuple[int, float, int, int] | None = None
    for records, c in growth:
        med, rss, pss = statistics.median(c.times), max(c.peaks), max(c.pss)
        added = "| - | - | - |"
        if before is not None:
            n = records - before[0]
            added = (
                f"| {(med - before[1]) / n * 1e6:,.0f} | {(rss - before[2]) / n / 1e3:,.2f} "
                f"| {(pss - before[3]) / n / 1e3:,.2f} |"
            )
        lines.append(f"| {records:,} | {med:.2f} | {rss / 1e6:.0f} | {pss / 1e6:.0f} {added}")
        before = (records, med, rss, pss)
    lines.append("")
    return "\n".join(lines)


def generation_table(made: list[tuple[str, float | None]]) -> str:
    lines = ["### Generating the archives (not part of any timing above)", ""]
    lines += ["| archive | seconds |", "|---|---|"]
    for label, seconds in made:
        lines.append(f"| {label} | {'cached' if seconds is None else f'{seconds:.1f}'} |")
    lines.append("")
    return "\n".join(lines)


@dataclass
class Point:
    label: str
    records: int
    blobs: bool
    files: int
    total: int
    cmds: list[Command]


def _cmd(point: Point | None, name: str) -> Command | None:
    return next((c for c in point.cmds if c.name == name and c.times), None) if point else None


def _med(point: Point | None, name: str) -> float | None:
    c = _cmd(point, name)
    return statistics.median(c.times) if c else None


def _failed(*cmds: Command) -> str:
    """What says a figure is not of a passing run ('' when every run exited 0)."""
    bad = [f"{c.name} exited {sorted(set(c.codes))}" for c in cmds if set(c.codes) != {0}]
    return f" (not a passing run: {'; '.join(bad)})" if bad else ""


# The last pass before issue 35 (commit 2cca7cc, CHANGELOG "Issue 14, sixth stop"), 100k
# records, spec written out: the full check 3.90 s against sha256sum -c's 0.57 s, peak RSS
# summed 146 MB. The written-out form must be no slower (as a ratio to sha256sum -c measured
# in the same pass) and no larger.
BEFORE_COMMIT, BEFORE_RATIO, BEFORE_RSS_MB = "2cca7cc", 6.83, 146

Row = tuple[str, str, bool | None]


def amdahl(point: Point | None, serial: Serial | None) -> tuple[str, Row]:
    """Amdahl's law from this pass: the section that shows the projection and its inputs,
    and the target's row."""
    label = "Amdahl: 16 workers >= 8x faster than 1 (projected)"
    t1, t2, start = _med(point, ONE), _med(point, TWO), _med(point, START_UP)
    parts = serial.total if serial is not None else None
    if point is None or t1 is None or start is None or parts is None:
        return "", (label, "not measured in this pass (needs the 1-worker row and serial.py)", None)
    cut, whole = parts + start, t1
    spread = whole - cut
    lines = [
        f"### Amdahl's law: 16 workers projected from this pass ({point.label})",
        "",
        "| input | seconds |",
        "|---|---|",
        f"| T1: the full check with 1 worker process (`{ONE[len(FULL) + 1 :]}`) | {t1:.3f} |",
        f"| serial main-process parts summed (`benchmarks/serial.py`) | {parts:.3f} |",
        f"| start-up (`{START_UP}`: the interpreter and the CLI's imports) | {start:.3f} |",
        f"| S: serial, the two above | {cut:.3f} |",
        f"| P = T1 - S: the work that spreads over the workers | {spread:.3f} |",
        "",
    ]
    if spread <= 0:
        lines += ["P is not positive: the serial parts as timed alone take all of T1.", ""]
        return "\n".join(lines), (label, f"P = {spread:.3f} s: nothing to spread", False)
    t16 = cut + spread / 16
    x16 = whole / t16
    lines.append(
        f"T(n) = S + P / n, so T(16) = {cut:.3f} + {spread:.3f} / 16 = {t16:.3f} s, and "
        f"T1 / T(16) = {whole:.3f} / {t16:.3f} = **{x16:.2f}x** (target 8x; the serial "
        f"fraction S / T1 = {cut / whole:.1%} bounds any number of workers at "
        f"{whole / cut:.1f}x)."
    )
    if t2 is not None:
        sp = t1 / t2
        e = 2 / sp - 1  # Karp-Flatt, n = 2: (1/sp - 1/n) / (1 - 1/n)
        kf = 1 / (e + (1 - e) / 16) if 0 < e <= 1 else None
        said = f"projects {kf:.2f}x at 16" if kf is not None else "projects nothing sound"
        lines.append(
            f"Cross-check from the measured 2-worker time ({t2:.3f} s): T1 / T2 = {sp:.2f}x, "
            f"so the serial fraction that speed-up implies (Karp-Flatt, n = 2: "
            f"e = 2 / (T1 / T2) - 1) is {e:.1%}, which {said} (1 / (e + (1 - e) / 16)); "
            "on a shared 2-core machine the second worker competes with the main process "
            "and other work, so this reads low."
        )
    lines.append("")
    bad = _failed(*[c for c in (_cmd(point, ONE),) if c is not None])
    measured = f"{x16:.2f}x (S {cut:.3f} s, P {spread:.3f} s){bad}"
    return "\n".join(lines), (label, measured, x16 >= 8 and not bad)


def targets(
    points: list[Point],
    serial: list[Serial],
    growth: list[tuple[int, Command]],
    at_records: int,
    form: str,
) -> str:
    """The targets of issue 35, each with the figure measured in this pass and PASS or MISS."""
    at = next((p for p in points if p.records == at_records and not p.blobs), None)
    blob = next((p for p in points if p.blobs), None)
    mine = next((x for x in serial if x.records == at_records and x.form == form), None)
    rows: list[Row] = []

    def ratio(label: str, a_name: str, b_name: str, goal: float, faster: bool) -> None:
        a, b = _cmd(at, a_name), _cmd(at, b_name)
        if a is None or b is None:
            rows.append((label, "not measured in this pass", None))
            return
        ta, tb = statistics.median(a.times), statistics.median(b.times)
        bad = _failed(a, b)
        if faster:  # how many times faster the verifier is than the peer
            x = tb / ta
            rows.append(
                (
                    label,
                    f"{x:.2f}x faster ({ta:.2f} s against {tb:.2f} s){bad}",
                    x >= goal and not bad,
                )
            )
        else:  # how many times the other's time it takes
            x = ta / tb
            rows.append(
                (
                    label,
                    f"{x:.2f}x its time ({ta:.2f} s against {tb:.2f} s){bad}",
                    x <= goal and not bad,
                )
            )

    ratio("full check within 3x of `sha256sum -c`", FULL, "sha256sum -c", 3, False)
    full = _cmd(at, FULL)
    if full is not None:
        peak = max(full.peaks) / 1e6
        rows.append(
            (
                "full check: peak RSS summed < 150 MB",
                f"{peak:.0f} MB{_failed(full)}",
                peak < 150 and not _failed(full),
            )
        )
    if mine is not None:
        total = "n/a (a part was not timed)" if mine.total is None else f"{mine.total:.3f} s"
        rows.append(
            (
                "serial main-process parts summed < 0.5 s",
                total,
                None if mine.total is None else mine.total < 0.5,
            )
        )
    stress, sha = _cmd(at, STRESS), _med(at, "sha256sum -c")
    if stress is not None and sha is not None:
        sec = statistics.median(stress.times)
        x = sec / sha
        before = f"(as at {BEFORE_COMMIT})"
        rows.append(
            (
                f"written-out spec no slower: <= {BEFORE_RATIO}x `sha256sum -c` {before}",
                f"{x:.2f}x ({sec:.2f} s against {sha:.2f} s){_failed(stress)}",
                x <= BEFORE_RATIO and not _failed(stress),
            )
        )
        peak = max(stress.peaks) / 1e6
        rows.append(
            (
                f"written-out spec no larger: peak RSS <= {BEFORE_RSS_MB} MB {before}",
                f"{peak:.0f} MB",
                peak <= BEFORE_RSS_MB,
            )
        )
    ratio("2 workers >= 1.8x faster than 1", TWO, ONE, 1.8, True)
    section, row = amdahl(at, mine)
    rows.append(row)
    ratio("Dask (2 workers) within 1.3x of processes (2 workers)", DASK, TWO, 1.3, False)
    ratio("integrity >= 5x faster than `bagit --validate`", INTEGRITY, "bagit --validate", 5, True)
    ratio("validity >= 10x faster than `check-jsonschema`", VALIDITY, "check-jsonschema", 10, True)
    rows += linear(points, growth)
    for name in (FULL, INTEGRITY):
        took = _med(blob, name)
        if blob is not None and took is not None:
            rate = blob.total / 1e6 / took
            rows.append(
                (
                    f"4 x 256 MB blobs >= 2,000 MB/s, {name} (issue 14)",
                    f"{rate:,.0f} MB/s",
                    rate >= 2000,
                )
            )
    where = f"at {at_records:,} records; spec: {FORMS[form]}"
    if at_records != 100_000:
        where += "; the issue's targets are at 100,000"
    lines = [f"### Targets of issue 35 in this pass ({where})", ""]
    lines += ["| target | measured | met? |", "|---|---|---|"]
    for label, measured, met in rows:
        mark = "n/a" if met is None else ("PASS" if met else "**MISS**")
        lines.append(f"| {label} | {measured} | {mark} |")
    lines.append("")
    return (section + "\n" if section else "") + "\n".join(lines)


def linear(points: list[Point], growth: list[tuple[int, Command]]) -> list[Row]:
    """The largest point of 1M records or more against the one before: time and memory
    linear (growth within 1.5x of the records' growth; ``sha256sum -c``'s own growth in the
    same pass beside it) and the peak RSS summed under 1 GB."""
    if len(growth) < 2 or growth[-1][0] < 1_000_000:
        return []
    (n0, c0), (n1, c1) = growth[-2], growth[-1]
    times = statistics.median(c1.times) / statistics.median(c0.times)
    memory = max(c1.peaks) / max(c0.peaks)
    shas = [
        _med(p, "sha256sum -c") for n in (n0, n1) for p in points if p.records == n and not p.blobs
    ]
    peer = (
        f"; `sha256sum -c` grew {shas[1] / shas[0]:.1f}x"
        if len(shas) == 2 and shas[0] and shas[1]
        else ""
    )
    more = n1 / n0
    peak = max(c1.peaks) / 1e6
    t0, t1 = statistics.median(c0.times), statistics.median(c1.times)
    return [
        (
            f"{n1:,} records: time linear (x{more:g} records)",
            f"x{times:.1f} ({t0:.2f} to {t1:.2f} s){peer}{_failed(c1)}",
            times <= 1.5 * more and not _failed(c1),
        ),
        (
            f"{n1:,} records: memory linear, peak RSS summed < 1 GB",
            f"x{memory:.1f} ({max(c0.peaks) / 1e6:.0f} to {peak:.0f} MB)",
            memory <= 1.5 * more and peak < 1000,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--points",
        type=parse_points,
        default=[10_000, 100_000],
        help="record counts, e.g. 10k,100k (default 10k,100k)",
    )
    parser.add_argument("--sizes", type=int, nargs="*", help="record counts (old spelling)")
    parser.add_argument(
        "--million", action="store_true", help="also 1M records (rule form; about 1.1 GB)"
    )
    parser.add_argument(
        "--form",
        choices=sorted(FORMS),
        default="rules",
        help="the spec of the main rows: per-case rules (default) or written out",
    )
    parser.add_argument(
        "--no-stress", action="store_true", help="no row of the written-out spec (stress)"
    )
    parser.add_argument("--blobs", action="store_true", help="also 4 x 256 MB blobs")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--peers-up-to",
        type=int,
        default=100_000,
        help="larger points time only sha256sum -c and the full check, --big-rounds times",
    )
    parser.add_argument("--big-rounds", type=int, default=1)
    parser.add_argument(
        "--temp-above",
        type=int,
        default=100_000,
        help="larger points are generated into a temporary folder, removed afterwards",
    )
    parser.add_argument("--cache", type=Path, default=Path("/tmp/verifier-bench"))
    parser.add_argument("--no-executors", action="store_true", help="no worker and Dask rows")
    parser.add_argument("--no-serial", action="store_true", help="do not time the serial parts")
    parser.add_argument(
        "--readme",
        action="store_true",
        help="print only, at the end, the Markdown block docs/performance.md takes",
    )
    parser.add_argument(
        "--write-readme",
        type=Path,
        metavar="README",
        help=f"also put the block between the {START} and {END} lines of README",
    )
    parser.add_argument(
        "--coverage",
        action="store_true",
        help="also time verify-evidence coverage, and coverage --mutate --max-mutants 200",
    )
    parser.add_argument(
        "--only-coverage",
        action="store_true",
        help="time only verify-evidence check and the coverage commands",
    )
    args = parser.parse_args()
    sizes = list(args.sizes if args.sizes is not None else args.points)
    if args.million and 1_000_000 not in sizes:
        sizes.append(1_000_000)
    args.cache.mkdir(parents=True, exist_ok=True)
    out: list[str] = []

    def emit(text: str) -> None:
        out.append(text)
        print(text, file=sys.stderr if args.readme else sys.stdout, flush=True)

    dask_skip = None if args.no_executors else executor_support()
    compiled = compile_package()
    rules = args.form == "rules"
    stressed = "" if not rules or args.no_stress else " with the written-out spec as a stress row"
    emit(
        f"Machine: {machine()}; 2 cores shared with other work (load average {load()} at the "
        f"start). Verifier at commit {commit()}. Spec: {FORMS[args.form]}{stressed}. Medians "
        f"of {args.rounds} runs (points above {args.peers_up_to:,} records: {args.big_rounds} "
        "run(s)), commands alternating; before every timed run the archive was read once, "
        f"untimed (warm page cache). {compiled}\n"
    )
    if dask_skip == NO_OPTION:
        emit(f"The worker and Dask rows are skipped: {dask_skip}.\n")
        args.no_executors = True
    elif dask_skip:
        emit(f"The Dask row is skipped: {dask_skip}.\n")
    plans: list[tuple[str, int, bool]] = [(f"{n:,} records", n, False) for n in sizes]
    if args.blobs:
        plans.append(("4 x 256 MB blobs", 0, True))
    made: list[tuple[str, float | None]] = []
    points: list[Point] = []
    serial: list[Serial] = []
    growth: list[tuple[int, Command]] = []
    for label, records, blobs in plans:
        temporary = not blobs and records > args.temp_above
        where = Path(tempfile.mkdtemp(dir=args.cache)) if temporary else args.cache
        try:
            root, seconds = archive(where, records, 4 if blobs else 0, rules)
            made.append((label + ("" if blobs else f", {FORMS[args.form]}"), seconds))
            peers = blobs or records <= args.peers_up_to
            stress = None
            if rules and peers and not blobs and not args.no_stress:
                stress, seconds = archive(where, records, 0)
                made.append((f"{label}, written out", seconds))
            rounds = args.rounds if peers else args.big_rounds
            executors = None if args.no_executors or not peers else (dask_skip or "")
            only = args.coverage or args.only_coverage
            cmds = commands(root, args.cache, blobs, only, peers, executors, stress, records)
            if args.only_coverage:
                cmds = [
                    c for c in cmds if c.name == FULL or c.name.startswith("verify-evidence cov")
                ]
            for _ in range(rounds):
                for command in cmds:
                    warm(command.reads or command.cwd)
                    run_once(command)
            files, total = size_of(root)
            points.append(Point(label, records, blobs, files, total, cmds))
            emit(report(label, files, total, cmds, rounds))
            if not blobs:
                growth.append((records, next(c for c in cmds if c.name == FULL)))
                for path in [root] + ([stress] if stress is not None else []):
                    if not args.no_serial:
                        warm(path)
                        timed = serial_parts(path, records, 3 if peers else 1)
                        serial += [timed] if timed is not None else []
        finally:
            if temporary:
                shutil.rmtree(where, ignore_errors=True)
    if serial:
        emit(serial_table(serial))
    if len(growth) > 1:
        emit(scaling(growth))
    emit(generation_table(made))
    measured = [p.records for p in points if not p.blobs and p.records <= args.peers_up_to]
    at = 100_000 if 100_000 in measured else max(measured, default=0)
    emit(targets(points, serial, growth, at, args.form))
    emit(f"Load average at the end: {load()}.\n")
    if args.readme:
        print("\n".join(out))
    if args.write_readme is not None:
        write_readme(args.write_readme, "\n".join(out))


START, END = "<!-- benchmarks/run.py: start -->", "<!-- benchmarks/run.py: end -->"


def write_readme(path: Path, block: str) -> None:
    """Replace what lies between the START and END lines of ``path`` with ``block``."""
    text = path.read_text(encoding="utf-8")
    head, start, rest = text.partition(START + "\n")
    _, end, tail = rest.partition(END + "\n")
    if not start or not end:
        sys.exit(f"{path} has no {START} ... {END} lines")
    path.write_text(f"{head}{start}\n{block.strip()}\n\n{end}{tail}", encoding="utf-8")


if __name__ == "__main__":
    main()

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
import itertools
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


def archive(cache: Path, records: int, blobs: int) -> tuple[Path, float | None]:
    """The archive, generated on first use; and how long generating it took (``None``: it
    was already in ``cache``)."""
    name = f"blobs-{blobs}x256MB" if blobs else f"records-{records}"
    path = cache / name
    if (path / "manifest.sha256").exists():
        return path, None
    shutil.rmtree(path, ignore_errors=True)
    args = [sys.executable, str(HERE / "generate.py"), str(path), "--records", str(records)]
    if blobs:
        args += ["--blobs", str(blobs)]
    start = time.perf_counter()
    subprocess.run(args, check=True)
    return path, time.perf_counter() - start


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


def commands(
    root: Path,
    cache: Path,
    blobs: bool,
    coverage: bool = False,
    peers: bool = True,
    executors: str | None = "",
) -> list[Command]:
    """The commands timed on one archive. ``peers``: also bagit, check-jsonschema and the
    verifier's single stages (else only ``sha256sum -c`` and the full check). ``executors``:
    ``""`` adds the processes and Dask rows (and on the blob archive a threads row), ``None``
    none, other text is why the Dask row is skipped (the others are still added)."""
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
                "verify-evidence (integrity)",
                [*verifier, "--stages", "integrity"],
                root,
                "integrity only",
            )
        )
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
            script = (
                "set -e; for s in run transcript readback; do "
                'find evidence/cases -name "$s.json" -print0 | xargs -0 check-jsonschema '
                "--schemafile schemas/$s.schema.json >/dev/null; done"
            )
            out.append(Command("check-jsonschema", ["bash", "-c", script], root, "validity only"))
        out += [
            Command(
                "verify-evidence (integrity + validity)",
                [*verifier, "--stages", "integrity,validity"],
                root,
                "integrity, validity",
            ),
            Command(
                "verify-evidence (integrity + consistency)",
                [*verifier, "--stages", "integrity,consistency"],
                root,
                "integrity, consistency",
            ),
        ]
    out.append(Command(FULL, verifier, root, "all four stages"))
    if executors is not None:
        out.append(
            Command(
                f"{FULL} --executor processes",
                [*verifier, "--executor", "processes"],
                root,
                "all four stages",
            )
        )
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
                    f"{FULL} --executor dask",
                    [*verifier, "--executor", "dask", "--jobs", "2"],
                    root,
                    "all four, local cluster of 2",
                )
            )
    if coverage and not blobs:
        out += coverage_commands(root)
    return out


FULL = "verify-evidence check"


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


def serial_parts(root: Path, repeat: int) -> dict[str, float | None]:
    """The serial main-process parts, timed in their own process (benchmarks/serial.py)."""
    done = subprocess.run(
        [sys.executable, str(HERE / "serial.py"), str(root), "--repeat", str(repeat)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        print(f"serial.py failed: {done.stderr.strip()[-300:]}", file=sys.stderr)
        return {}
    result = json.loads(done.stdout)
    for label, why in result.get("missing", {}).items():
        print(f"serial.py: {label} not timed: {why}", file=sys.stderr)
    got: dict[str, float | None] = result["seconds"]
    return got


def serial_table(parts: list[tuple[int, dict[str, float | None]]]) -> str:
    names = list(dict.fromkeys(name for _, p in parts for name in p))
    lines = [
        "### Serial main-process parts (seconds; target < 0.3 s each at 100k records)",
        "",
        "| records | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for records, p in parts:
        cells = [("n/a" if p.get(n) is None else f"{p[n]:.3f}") for n in names]
        lines.append(f"| {records:,} | " + " | ".join(cells) + " |")
    lines.append("")
    if any(v is None for _, p in parts for v in p.values()):
        lines += ["n/a: not timed (the library function moved; serial.py says why on stderr).", ""]
    return "\n".join(lines)


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


def _med(point: Point | None, name: str) -> float | None:
    c = next((c for c in point.cmds if c.name == name), None) if point else None
    return statistics.median(c.times) if c and c.times else None


def targets(
    points: list[Point],
    serial: list[tuple[int, dict[str, float | None]]],
    growth: list[tuple[int, Command]],
) -> str:
    """The targets of issue 14, each with the figure measured in this pass."""
    at = next((p for p in points if p.records == 100_000 and not p.blobs), None)
    blob = next((p for p in points if p.blobs), None)
    rows: list[tuple[str, str, bool | None]] = []

    def ratio(label: str, mine: str, theirs: str, goal: float, faster: bool) -> None:
        a, b = _med(at, mine), _med(at, theirs)
        if a is None or b is None:
            rows.append((label, "not measured in this pass", None))
            return
        if faster:  # how many times faster the verifier is than the peer
            x = b / a
            rows.append((label, f"{x:.2f}x faster ({a:.2f} s against {b:.2f} s)", x >= goal))
        else:  # how many times the peer's time the verifier takes
            x = a / b
            rows.append((label, f"{x:.2f}x its time ({a:.2f} s against {b:.2f} s)", x <= goal))

    ratio("100k full check within 2x of `sha256sum -c`", FULL, "sha256sum -c", 2, False)
    ratio(
        "100k integrity >= 5x faster than `bagit --validate`",
        "verify-evidence (integrity)",
        "bagit --validate",
        5,
        True,
    )
    ratio(
        "100k validity >= 10x faster than `check-jsonschema`",
        "verify-evidence (integrity + validity)",
        "check-jsonschema",
        10,
        True,
    )
    for name in (FULL, "verify-evidence (integrity)"):
        sec = _med(blob, name)
        if blob is not None and sec is not None:
            rate = blob.total / 1e6 / sec
            rows.append(
                (f"4 x 256 MB blobs >= 2,000 MB/s ({name})", f"{rate:,.0f} MB/s", rate >= 2000)
            )
    for records, parts in serial:
        if records != 100_000:
            continue
        for name, sec in parts.items():
            if sec is not None:
                # (the walk's own time: a child process runs it beside the spec's parse and
                # plan from 20,000 listed files, so it is no longer the main process's)
                label = "scope walk (in a child process)" if name == "scope walk" else name
                rows.append((f"100k serial part < 0.3 s: {label}", f"{sec:.3f} s", sec < 0.3))
    full = next((c for c in at.cmds if c.name == FULL), None) if at else None
    if full is not None:
        peak = max(full.peaks) / 1e6
        rows.append(("100k peak RSS summed over processes < 150 MB", f"{peak:.0f} MB", peak < 150))
    for (n0, c0), (n1, c1) in itertools.pairwise(growth):
        if n1 >= 100_000:
            per = (max(c1.peaks) - max(c0.peaks)) / (n1 - n0) / 1e3
            pss = (max(c1.pss) - max(c0.pss)) / (n1 - n0) / 1e3
            rows.append(
                (
                    f"< 2 KB per added record ({n0:,} to {n1:,})",
                    f"{per:.2f} KB RSS, {pss:.2f} KB PSS",
                    per < 2,
                )
            )
    lines = ["### Targets of issue 14 in this pass", "", "| target | measured | met? |"]
    lines.append("|---|---|---|")
    for label, measured, met in rows:
        mark = "n/a" if met is None else ("yes" if met else "**no**")
        lines.append(f"| {label} | {measured} | {mark} |")
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--points",
        type=parse_points,
        default=[1000, 10000, 100000],
        help="record counts, e.g. 1k,10k,100k,1M (default 1k,10k,100k)",
    )
    parser.add_argument("--sizes", type=int, nargs="*", help="record counts (old spelling)")
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
    parser.add_argument(
        "--no-executors", action="store_true", help="no --executor processes / dask rows"
    )
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
    sizes = args.sizes if args.sizes is not None else args.points
    args.cache.mkdir(parents=True, exist_ok=True)
    out: list[str] = []

    def emit(text: str) -> None:
        out.append(text)
        print(text, file=sys.stderr if args.readme else sys.stdout, flush=True)

    dask_skip = None if args.no_executors else executor_support()
    compiled = compile_package()
    emit(
        f"Machine: {machine()}; 2 cores shared with other work (load average {load()} at the "
        f"start). Verifier at commit {commit()}. Medians of {args.rounds} runs (points above "
        f"{args.peers_up_to:,} records: {args.big_rounds} run(s)), commands alternating; "
        "before every timed run the archive was read once, untimed (warm page cache). "
        f"{compiled}\n"
    )
    if dask_skip == NO_OPTION:
        emit(f"The --executor processes and dask rows are skipped: {dask_skip}.\n")
        args.no_executors = True
    elif dask_skip:
        emit(f"The Dask row is skipped: {dask_skip}.\n")
    plans: list[tuple[str, int, bool]] = [(f"{n:,} records", n, False) for n in sizes]
    if args.blobs:
        plans.append(("4 x 256 MB blobs", 0, True))
    made: list[tuple[str, float | None]] = []
    points: list[Point] = []
    serial: list[tuple[int, dict[str, float | None]]] = []
    growth: list[tuple[int, Command]] = []
    for label, records, blobs in plans:
        temporary = not blobs and records > args.temp_above
        where = Path(tempfile.mkdtemp(dir=args.cache)) if temporary else args.cache
        try:
            root, seconds = archive(where, records, 4 if blobs else 0)
            made.append((label, seconds))
            peers = blobs or records <= args.peers_up_to
            rounds = args.rounds if peers else args.big_rounds
            executors = None if args.no_executors or not peers else (dask_skip or "")
            cmds = commands(
                root, args.cache, blobs, args.coverage or args.only_coverage, peers, executors
            )
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
                if not args.no_serial:
                    warm(root)
                    serial.append((records, serial_parts(root, 3 if peers else 1)))
        finally:
            if temporary:
                shutil.rmtree(where, ignore_errors=True)
    if serial:
        emit(serial_table(serial))
    if len(growth) > 1:
        emit(scaling(growth))
    emit(generation_table(made))
    emit(targets(points, serial, growth))
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

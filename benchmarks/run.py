"""Time ``verify-evidence check`` against its peers on the same synthetic archive.

For each archive (generated on first use by ``generate.py``, cached under ``--cache``), every
command runs ``--rounds`` times, the commands alternating within each round; before every
timed run the archive is read once, untimed (this machine drops file pages from its cache
after about a minute idle, and every command should meet the same warm cache). Prints medians,
ratios to the verifier's full check, and the peak memory of each command's whole process
tree, sampled from /proc: resident set size summed over the processes (pages a forked worker
shares with its parent count once in each), every 10 ms, and proportional set size (shared
pages split between the processes sharing them), every 50 ms. A last table shows how the
full check grows with the number of records.

    python benchmarks/run.py --sizes 1000 10000 100000 --blobs --rounds 3

Peers (installed by benchmarks/requirements.txt, not by the package): GNU ``sha256sum -c``
(integrity only), ``check-jsonschema`` (validity only), ``bagit`` validation (integrity only,
on a bag of the same payload).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
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


def tree_rss(pid: int) -> int:
    """Resident set size of ``pid`` and all its descendants, in bytes. Walks the tree through
    /proc/PID/task/TID/children (a few reads per sample, so sampling costs little of the
    two cores being measured); without that file, scans every process's parent."""
    if not os.path.exists(f"/proc/{pid}/task/{pid}/children"):
        return _tree_rss_scan(pid)
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        total += _rss(current)
        stack.extend(_children(current))
    return total


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

    def sample() -> None:
        nonlocal peak, pss
        count = 0
        while not done.is_set():
            peak = max(peak, tree_rss(proc.pid))
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


def warm(root: Path) -> None:
    """Read every file once, untimed, so every command meets the same page cache."""
    for folder, _, files in os.walk(root):
        for name in files:
            with open(os.path.join(folder, name), "rb") as handle:
                while handle.read(1 << 20):
                    pass


def archive(cache: Path, records: int, blobs: int) -> Path:
    name = f"blobs-{blobs}x256MB" if blobs else f"records-{records}"
    path = cache / name
    if not (path / "manifest.sha256").exists():
        shutil.rmtree(path, ignore_errors=True)
        args = [sys.executable, str(HERE / "generate.py"), str(path), "--records", str(records)]
        if blobs:
            args += ["--blobs", str(blobs)]
        subprocess.run(args, check=True)
    return path


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


def commands(root: Path, cache: Path, blobs: bool, coverage: bool = False) -> list[Command]:
    verifier = [sys.executable, "-m", "verifier", "check", str(root), "--quiet"]
    out = [
        Command(
            "sha256sum -c",
            ["sha256sum", "-c", "--quiet", "manifest.sha256"],
            root,
            "integrity only",
        ),
        Command(
            "verify-evidence (integrity)",
            [*verifier, "--stages", "integrity"],
            root,
            "integrity only",
        ),
    ]
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
    if not blobs:
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
    out.append(Command("verify-evidence check", verifier, root, "all three stages"))
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


def report(label: str, root: Path, cmds: list[Command], rounds: int) -> str:
    files, total = size_of(root)
    full = next(c for c in cmds if c.name == "verify-evidence check")
    base = statistics.median(full.times)
    lines = [
        f"### {label}: {files:,} files, {total / 1e6:,.0f} MB",
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000, 100000])
    parser.add_argument("--blobs", action="store_true", help="also 4 x 256 MB blobs")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/verifier-bench"))
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
    args.cache.mkdir(parents=True, exist_ok=True)
    print(
        f"Machine: {machine()}. Medians of {args.rounds} runs, commands alternating; "
        "before every timed run the archive was read once, untimed (warm page cache).\n"
    )
    plans = [(f"{n:,} records", archive(args.cache, n, 0), False) for n in args.sizes]
    if args.blobs:
        plans.append(("4 x 256 MB blobs", archive(args.cache, 0, 4), True))
    growth: list[tuple[int, Command]] = []
    for (label, root, blobs), size in zip(plans, [*args.sizes, 0], strict=False):
        cmds = commands(root, args.cache, blobs, args.coverage or args.only_coverage)
        if args.only_coverage:
            cmds = [
                c
                for c in cmds
                if c.name == "verify-evidence check" or c.name.startswith("verify-evidence cov")
            ]
        for _ in range(args.rounds):
            for command in cmds:
                warm(command.reads or command.cwd)
                run_once(command)
        print(report(label, root, cmds, args.rounds), flush=True)
        if not blobs:
            growth.append((size, next(c for c in cmds if c.name == "verify-evidence check")))
    if len(growth) > 1:
        print(scaling(growth))


def scaling(growth: list[tuple[int, Command]]) -> str:
    """How the full check grows: time and memory at each size, and what each record added
    since the size before (the marginal cost, without the fixed start-up)."""
    lines = [
        "### Scaling of the full check",
        "",
        "| records | median s | peak RSS MB | peak PSS MB | µs per added record "
        "| KB (PSS) per added record |",
        "|---|---|---|---|---|---|",
    ]
    before: tuple[int, float, int] | None = None
    for records, c in growth:
        med, pss = statistics.median(c.times), max(c.pss)
        added = "| - | - |"
        if before is not None:
            n = records - before[0]
            added = f"| {(med - before[1]) / n * 1e6:,.0f} | {(pss - before[2]) / n / 1e3:,.1f} |"
        lines.append(
            f"| {records:,} | {med:.2f} | {max(c.peaks) / 1e6:.0f} | {pss / 1e6:.0f} {added}"
        )
        before = (records, med, pss)
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main()

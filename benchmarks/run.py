"""Time ``verify-evidence check`` against its peers on the same synthetic archive.

For each archive (generated on first use by ``generate.py``, cached under ``--cache``), every
command runs ``--rounds`` times, the commands alternating within each round; before every
timed run the archive is read once, untimed (this machine drops file pages from its cache
after about a minute idle, and every command should meet the same warm cache). Prints medians,
ratios to the verifier's full check, and the peak resident memory of each command's whole
process tree (sampled every 5 ms from /proc, summed over worker processes).

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
    codes: list[int] = field(default_factory=list)


def tree_rss(pid: int) -> int:
    """Resident set size of ``pid`` and all its descendants, in bytes."""
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
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_rss(proc.pid))
            time.sleep(0.005)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    code = proc.wait()
    elapsed = time.perf_counter() - start
    done.set()
    sampler.join()
    command.times.append(elapsed)
    command.peaks.append(peak)
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
        import bagit
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


def commands(root: Path, cache: Path, blobs: bool) -> list[Command]:
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
        "| peak MB | exit |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in cmds:
        med = statistics.median(c.times)
        lines.append(
            f"| {c.name} | {c.what} | {med:.2f} | {files / med:,.0f} | {total / 1e6 / med:,.0f} "
            f"| {med / base:.2f}x | {max(c.peaks) / 1e6:.0f} | {sorted(set(c.codes))} |"
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
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    print(
        f"Machine: {machine()}. Medians of {args.rounds} runs, commands alternating; "
        "before every timed run the archive was read once, untimed (warm page cache).\n"
    )
    plans = [(f"{n:,} records", archive(args.cache, n, 0), False) for n in args.sizes]
    if args.blobs:
        plans.append(("4 x 256 MB blobs", archive(args.cache, 0, 4), True))
    for label, root, blobs in plans:
        cmds = commands(root, args.cache, blobs)
        for _ in range(args.rounds):
            for command in cmds:
                warm(command.reads or command.cwd)
                run_once(command)
        print(report(label, root, cmds, args.rounds), flush=True)


if __name__ == "__main__":
    main()

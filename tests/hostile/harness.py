"""The hostile-input harness: run the real CLI in a child process on an input built to break
it, and hold the run to the safety contract.

Every hostile test goes through :func:`run_cli` and then :func:`assert_safe`:

- the child is killed after ``timeout`` seconds (a hang is a failure, never a wait);
- its peak resident memory (its own and its workers', from ``wait4``) is measured;
- ``HOME`` and ``TMPDIR`` are fresh empty folders, and every folder named in ``watch`` is
  snapshotted before and compared after, so a write anywhere but the declared output fails;
- the exit code must be one the test names (never 3: a crash), standard error holds at most
  one line for exit 2, and never a traceback;
- a JSON report, when one was asked for, must validate against
  ``verifier/schemas/report.schema.json``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.archives import snapshot
from tests.conftest import REPO

REPORT_SCHEMA = REPO / "verifier" / "schemas" / "report.schema.json"
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RSS_MIB = 400


@dataclass
class Run:
    """One finished child run of ``python -m verifier``."""

    args: list[str]
    rc: int
    stdout: str
    stderr: str
    peak_rss_mib: float
    timed_out: bool
    written: list[str] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        """The JSON report on standard output (the run must have used ``--format json``)."""
        data = json.loads(self.stdout)
        assert isinstance(data, dict), self.stdout[:200]
        return data

    def codes(self) -> set[str]:
        return {f["code"] for s in self.report()["stages"] for f in s["findings"]}

    def findings(self, code: str | None = None) -> list[dict[str, Any]]:
        return [
            f
            for s in self.report()["stages"]
            for f in s["findings"]
            if code is None or f["code"] == code
        ]


def _tree(root: Path) -> dict[str, tuple[str, int]]:
    if not root.exists():
        return {}
    snap = snapshot(root)
    # folders too: a new empty folder is a write
    for p in sorted(root.rglob("*")):
        if p.is_dir() and not p.is_symlink():
            snap[str(p.relative_to(root)) + "/"] = ("dir", 0)
    return snap


#: run the command given after the rusage file's path; write its peak RSS (KiB) there
_LAUNCH = """
import os, sys
out, argv = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    try:
        os.execv(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(out, "w") as handle:
    handle.write(str(usage.ru_maxrss))
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


def _peak_kib(path: Path, fallback: int) -> int:
    """The verifier's own peak RSS as the launcher measured it; if the launcher could not
    say (killed first), the launcher's, which is an overestimate, never an underestimate."""
    try:
        return int(path.read_text(encoding="ascii"))
    except (OSError, ValueError):
        return fallback


def run_cli(
    args: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    watch: Iterable[Path] = (),
    timeout: float = DEFAULT_TIMEOUT,
    stdin: bytes | None = None,
) -> Run:
    """Run ``python -m verifier *args`` and measure it; never raises for the child's sake."""
    with tempfile.TemporaryDirectory(prefix="hostile-") as scratch_name:
        scratch = Path(scratch_name)
        home = scratch / "home"
        tmp = scratch / "tmp"
        home.mkdir()
        tmp.mkdir()
        child_env = {
            k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "VERIFIER_OUT"))
        }
        child_env.update(HOME=str(home), TMPDIR=str(tmp), PYTHONDONTWRITEBYTECODE="1")
        child_env.pop("FORCE_COLOR", None)
        if env:
            child_env.update(env)
        watched = [Path(p) for p in watch]
        before = {str(p): _tree(p) for p in watched}
        out_path = scratch / "stdout"
        err_path = scratch / "stderr"
        rss_path = scratch / "rss"
        # through a small launcher: a child forked from this (large) test process would have
        # this process's memory counted in its peak RSS (Linux records the old address
        # space's high-water mark at exec); the launcher is small, so its child is measured
        # alone, and it writes that child's rusage for us (the exit code passed through)
        argv = [
            sys.executable,
            "-S",
            "-c",
            _LAUNCH,
            str(rss_path),
            sys.executable,
            "-m",
            "verifier",
            *args,
        ]
        with out_path.open("wb") as out, err_path.open("wb") as err:
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                env=child_env,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
            timed_out = threading.Event()

            def kill() -> None:
                timed_out.set()
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)

            timer = threading.Timer(timeout, kill)
            timer.start()
            try:
                if stdin is not None and proc.stdin is not None:
                    try:
                        proc.stdin.write(stdin)
                        proc.stdin.close()
                    except BrokenPipeError:
                        pass
                _, status, usage = os.wait4(proc.pid, 0)
            finally:
                timer.cancel()
            proc.returncode = os.waitstatus_to_exitcode(status)
            # workers left behind are killed too (they would be a leak of their own)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        written: list[str] = []
        for p in watched:
            after = _tree(p)
            old = before[str(p)]
            written += [f"{p}/{k}" for k in sorted(set(after) ^ set(old))]
            written += [f"{p}/{k}" for k in sorted(set(after) & set(old)) if after[k] != old[k]]
        for name, folder in (("HOME", home), ("TMPDIR", tmp)):
            written += [f"${name}/{k}" for k in sorted(_tree(folder))]
        return Run(
            args=list(args),
            rc=proc.returncode,
            stdout=out_path.read_bytes().decode("utf-8", "replace"),
            stderr=err_path.read_bytes().decode("utf-8", "replace"),
            peak_rss_mib=_peak_kib(rss_path, usage.ru_maxrss) / 1024,
            timed_out=timed_out.is_set(),
            written=written,
        )


def validate_report(report: Mapping[str, Any]) -> None:
    """The JSON report validates against the project's own report schema."""
    import jsonschema

    schema = json.loads(REPORT_SCHEMA.read_text(encoding="utf-8"))
    errors = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(report), key=lambda e: e.json_path
    )
    assert not errors, "; ".join(f"{e.json_path}: {e.message}" for e in errors[:5])


def assert_safe(
    run: Run,
    *,
    rc: int | Iterable[int] = (0, 1),
    codes: Iterable[str] = (),
    max_rss_mib: float = DEFAULT_MAX_RSS_MIB,
    json_report: bool | None = None,
) -> None:
    """Hold ``run`` to the safety contract; ``codes`` must all appear among its findings."""
    allowed = {rc} if isinstance(rc, int) else set(rc)
    where = f"verify-evidence {' '.join(run.args)}"
    assert not run.timed_out, f"{where}: still running when killed (a hang)"
    assert run.rc != 3, f"{where}: exit 3 (a crash): {run.stderr[-2000:]}"
    assert "internal error" not in run.stderr, f"{where}: a crash: {run.stderr[-2000:]}"
    assert run.rc in allowed, f"{where}: exit {run.rc}, expected {sorted(allowed)}: {run.stderr}"
    assert "Traceback" not in run.stderr, f"{where}: traceback: {run.stderr[-2000:]}"
    if run.rc == 2:
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 1, f"{where}: exit 2 must print one line, got {run.stderr!r}"
    assert run.peak_rss_mib <= max_rss_mib, (
        f"{where}: peak RSS {run.peak_rss_mib:.0f} MiB over the bound of {max_rss_mib} MiB"
    )
    assert not run.written, f"{where}: wrote outside its output: {run.written[:10]}"
    wants_json = json_report
    if wants_json is None:
        wants_json = "json" in run.args and run.rc in (0, 1) and "-o" not in run.args
    if wants_json:
        report = run.report()
        validate_report(report)
        missing = set(codes) - run.codes()
        assert not missing, f"{where}: expected {sorted(missing)} among {sorted(run.codes())}"
    else:
        assert not set(codes), "codes can only be checked on a JSON report on standard output"

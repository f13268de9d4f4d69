"""Make Claude Code and Pi write real session files of their own, offline, against the
scripted fake model in fake_model_server.py, for the measurements in docs/transcripts.md
("Sessions written by Pi and Claude Code themselves"). Not part of the package or the tests;
standard library only. The harnesses are installed outside the repository, never globally:

    npm install --prefix /tmp/fakeprov/cc @anthropic-ai/claude-code      # 2.1.197 on 2 Dec 2026
    npm install --prefix /tmp/fakeprov/pi @mariozechner/pi-coding-agent  # 0.73.1
    python3 tests/real_files/harness_sessions.py --root /tmp/fakeprov
    python -m verifier transcript check FILE            # each file it prints
    python -m verifier transcript check FILE --format json

Each run has a fresh HOME (Claude Code writes ``$HOME/.claude/projects/<cwd>/<id>.jsonl``;
Pi is given ``PI_CODING_AGENT_DIR=$HOME/agent`` and writes
``$HOME/agent/sessions/--<cwd>--/*.jsonl``) and a fresh working directory:

- ``cc-answered`` / ``pi-answered``: the model calls bash ``echo hi``, the harness runs it,
  the model ends with a text.
- ``cc-killed`` / ``pi-killed``: the model calls bash ``sleep 60``; once that ``sleep`` runs
  (found below the harness process by ancestry), the harness process alone gets the
  ``--signals`` in turn, 5 s apart, then SIGKILL; whatever session file it left is what is
  measured. ``--signals INT,TERM`` (the default) and ``--signals TERM`` were both run. A
  ``sleep`` of the run left running (a harness may detach its tools) is killed afterwards.
- ``pi-aborted``: the same slow call with Pi in RPC mode (``pi --mode rpc``): the prompt and,
  once ``sleep 60`` runs, ``{"type": "abort"}`` go in on stdin (Pi's own abort, as Escape in
  its terminal UI); 3 s later stdin is closed, then SIGTERM if Pi still runs.

So the measured runs were::

    python3 tests/real_files/harness_sessions.py --only cc-answered cc-killed pi-answered pi-killed pi-aborted
    python3 tests/real_files/harness_sessions.py --only cc-killed pi-killed --signals TERM --port 8768

Claude Code runs as ``claude -p PROMPT --allowedTools Bash --model claude-sonnet-4-5`` with
ANTHROPIC_BASE_URL pointing at the fake, ANTHROPIC_API_KEY=fake,
CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, DISABLE_TELEMETRY=1. Pi runs as
``pi --offline -p PROMPT --provider fake --model claude-fake-1`` with a ``models.json``
declaring the provider ``fake`` (``api: anthropic-messages``, ``baseUrl`` the fake) and
PI_OFFLINE=1. Neither needs the network beyond 127.0.0.1.
"""

# ruff: noqa
# mypy: ignore-errors
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fake_model_server  # noqa: E402

PROMPTS = {
    "answered": "Run echo hi with bash.",
    "killed": "SLOWCALL: run the slow command with bash.",
    "aborted": "SLOWCALL: run the slow command with bash.",
}


def _parent(pid):
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


def _sleep_running(root_pid):
    """Whether a ``sleep 60`` runs below the harness process (harnesses may detach their tools
    into sessions of their own, so ancestry is followed, not the session id)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            if len(cmd) > 1 and cmd[0].rsplit(b"/", 1)[-1] == b"sleep" and cmd[1] == b"60":
                pid = int(entry)
                while pid > 1:
                    pid = _parent(pid)
                    if pid == root_pid:
                        return True
        except (OSError, IndexError, ValueError):
            continue
    return False


def _orphans(work):
    """``sleep 60`` processes of this run left running (a detached tool can outlive its
    harness): the ones whose working directory is the run's."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            if os.readlink(f"/proc/{entry}/cwd") != str(work):
                continue
        except OSError:
            continue
        if len(cmd) > 1 and cmd[0].rsplit(b"/", 1)[-1] == b"sleep" and cmd[1] == b"60":
            found.append(int(entry))
    return found


def _stop(proc, log, signals):
    """The signals in turn (then SIGKILL) to the harness process alone, 5 s apart."""
    for sig in (*signals, signal.SIGKILL):
        proc.send_signal(sig)
        log.append(f"sent {sig.name}")
        try:
            proc.wait(timeout=5)
            log.append(f"exited rc={proc.returncode} after {sig.name}")
            return sig.name
        except subprocess.TimeoutExpired:
            continue
    return "none"


def run(harness, case, root, port, bins, signals=(signal.SIGINT, signal.SIGTERM)):
    tag = "-".join(
        [harness, case] + ([s.name.lower() for s in signals] if case == "killed" else [])
    )
    home = root / f"home-{tag}"
    work = root / f"work-{tag}"
    for d in (home, work):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "TERM": "dumb"}
    if harness == "cc":
        env.update(
            ANTHROPIC_BASE_URL=f"http://127.0.0.1:{port}",
            ANTHROPIC_API_KEY="fake",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_TELEMETRY="1",
        )
        argv = [
            bins["cc"],
            "-p",
            PROMPTS[case],
            "--allowedTools",
            "Bash",
            "--model",
            "claude-sonnet-4-5",
        ]
        pattern = ".claude/projects/*/*.jsonl"
    else:
        agent = home / "agent"
        agent.mkdir()
        model = {
            "id": "claude-fake-1",
            "reasoning": False,
            "input": ["text"],
            "contextWindow": 200000,
            "maxTokens": 4096,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        }
        provider = {
            "baseUrl": f"http://127.0.0.1:{port}",
            "api": "anthropic-messages",
            "apiKey": "fake",
            "models": [model],
        }
        (agent / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
        env.update(PI_CODING_AGENT_DIR=str(agent), PI_OFFLINE="1")
        argv = [
            bins["pi"],
            "--offline",
            "-p",
            PROMPTS[case],
            "--provider",
            "fake",
            "--model",
            "claude-fake-1",
        ]
        if case == "aborted":
            argv = [
                bins["pi"],
                "--offline",
                "--mode",
                "rpc",
                "--provider",
                "fake",
                "--model",
                "claude-fake-1",
            ]
        pattern = "agent/sessions/*/*.jsonl"
    log = []
    rpc = case == "aborted"
    proc = subprocess.Popen(
        argv,
        cwd=work,
        env=env,
        stdin=subprocess.PIPE if rpc else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    if rpc:
        proc.stdin.write(
            (
                json.dumps({"id": "req-1", "type": "prompt", "message": PROMPTS[case]}) + "\n"
            ).encode()
        )
        proc.stdin.flush()
    if case == "answered":
        out, _ = proc.communicate(timeout=120)
        log.append(f"exited rc={proc.returncode}")
    else:
        deadline = time.monotonic() + 120
        while not _sleep_running(proc.pid) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        log.append("sleep 60 running" if _sleep_running(proc.pid) else "sleep 60 never seen")
        time.sleep(1)
        log.append(f"session files while it runs: {len(list(home.glob(pattern)))}")
        if rpc:
            proc.stdin.write(b'{"id": "req-2", "type": "abort"}\n')
            proc.stdin.flush()
            log.append("sent RPC abort")
            time.sleep(3)
            proc.stdin.close()
            log.append("closed stdin")
            try:
                proc.wait(timeout=5)
                log.append(f"exited rc={proc.returncode}")
            except subprocess.TimeoutExpired:
                _stop(proc, log, (signal.SIGTERM,))
        else:
            _stop(proc, log, signals)
        out = proc.stdout.read()
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        left = _orphans(work)
        log.append(f"sleep 60 of this run still running after it: {len(left)}")
        for pid in left:
            os.kill(pid, signal.SIGKILL)
    files = sorted(str(p) for p in home.glob(pattern))
    return {
        "run": tag,
        "events": log,
        "output": out.decode(errors="replace")[-400:],
        "files": files,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="/tmp/fakeprov")
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--only", nargs="*", help="runs to do, e.g. cc-answered pi-killed")
    parser.add_argument(
        "--signals", default="INT,TERM", help="signals sent in turn in a killed run, e.g. TERM"
    )
    args = parser.parse_args()
    root = Path(args.root)
    bins = {
        "cc": str(root / "cc/node_modules/.bin/claude"),
        "pi": str(root / "pi/node_modules/.bin/pi"),
    }
    server = fake_model_server.serve(args.port, str(root / "requests.jsonl"))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        for name in args.only or [
            "cc-answered",
            "cc-killed",
            "pi-answered",
            "pi-killed",
            "pi-aborted",
        ]:
            harness, case = name.split("-")
            signals = tuple(getattr(signal, "SIG" + n) for n in args.signals.split(","))
            print(
                json.dumps(run(harness, case, root, args.port, bins, signals), indent=1), flush=True
            )
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()

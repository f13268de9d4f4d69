"""Hostile git repositories (issue 11, item 1): a repository's own configuration, and every file
it includes, points each program or behaviour setting git could act on at a canary script. No
git invocation of the verifier may run it, and nothing may be written: not in the repository,
not in HOME or TMPDIR (git writes a signature to a temporary file before it runs gpg).

The stale-line hint (``GitSource.older_version`` and ``_describe``) is reached by a manifest
line that lists an older commit's bytes of a file; that older commit carries a (fake) signature,
so that a ``log --show-signature`` would hand it to ``gpg.program``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from pathlib import Path

import pytest

from tests.archives import git, git_repo
from tests.conftest import write_archive
from tests.hostile.harness import assert_safe, run_cli

# Every setting whose value git runs as a program (or that makes git run one, write, or reach
# out) in some command. The canary stands in for each program.
PROGRAM_SETTINGS = (
    "core.fsmonitor",
    "core.hooksPath",
    "core.pager",
    "core.sshCommand",
    "core.askPass",
    "core.editor",
    "core.gitProxy",
    "core.alternateRefsCommand",
    "sequence.editor",
    "gpg.program",
    "gpg.openpgp.program",
    "gpg.x509.program",
    "gpg.ssh.program",
    "gpg.ssh.defaultKeyCommand",
    "diff.external",
    "diff.evil.command",
    "diff.evil.textconv",
    "filter.evil.clean",
    "filter.evil.smudge",
    "filter.evil.process",
    "credential.helper",
    "pager.log",
    "pager.rev-list",
    "pager.cat-file",
    "pager.ls-tree",
    "pager.rev-parse",
    "uploadpack.packObjectsHook",
    "remote.origin.uploadpack",
    "remote.origin.receivepack",
)
BEHAVIOUR_SETTINGS = {
    "log.showSignature": "true",
    "gpg.format": "openpgp",
    "core.untrackedCache": "true",
    "core.preloadIndex": "true",
    "gc.auto": "1",
    "gc.autoDetach": "false",
    "maintenance.auto": "true",
    "fetch.writeCommitGraph": "true",
    "core.commitGraph": "true",
    "protocol.allow": "always",
    "protocol.ext.allow": "always",
    "color.ui": "always",
    "log.decorate": "full",
    "format.pretty": "%H%n%G?%n%GS",
}


def _canary(folder: Path) -> Path:
    script = folder / "canary.sh"
    fired = folder / "fired"
    script.write_text(f'#!/bin/sh\necho "$0 $*" >> "{fired}"\ncat >/dev/null\nexit 0\n')
    script.chmod(0o755)
    return script


def _config_lines(canary: Path) -> list[str]:
    lines: list[str] = []
    for key in PROGRAM_SETTINGS:
        lines.append(f"{key} = {canary}")
    for key, value in BEHAVIOUR_SETTINGS.items():
        lines.append(f"{key} = {value}")
    return lines


def _write_config(path: Path, lines: list[str]) -> None:
    """Write ``lines`` (``section.sub.key = value``) as a git config file."""
    sections: dict[str, list[str]] = {}
    for line in lines:
        key, _, value = line.partition(" = ")
        section, _, name = key.rpartition(".")
        head, _, sub = section.partition(".")
        title = f'[{head} "{sub}"]' if sub else f"[{head}]"
        sections.setdefault(title, []).append(f"\t{name} = {value}")
    text = "".join(f"{title}\n" + "\n".join(body) + "\n" for title, body in sections.items())
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


def _signed_commit(repo: Path, message: str) -> str:
    """Commit the work tree with a (fake) PGP signature header; return the commit id."""
    git(repo, "add", "-A")
    tree = git(repo, "write-tree").strip()
    parent = git(repo, "rev-parse", "--verify", "--quiet", "HEAD").strip()
    who = "Test <test@example.invalid> 1767225600 +0000"
    sig = "-----BEGIN PGP SIGNATURE-----\n \n iQEz\n -----END PGP SIGNATURE-----"
    body = f"tree {tree}\nparent {parent}\nauthor {who}\ncommitter {who}\ngpgsig {sig}\n\n"
    path = repo.parent / "commit.txt"
    path.write_text(body + message + "\n", encoding="utf-8")
    oid = git(repo, "hash-object", "-t", "commit", "-w", str(path)).strip()
    path.unlink()
    git(repo, "update-ref", "HEAD", oid)
    return oid


@pytest.fixture
def hostile_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose HEAD lists an older commit's bytes of one file (a stale line), with a
    configuration (and two included files) pointing everything at a canary."""
    canary_dir = tmp_path / "canary"
    canary_dir.mkdir()
    canary = _canary(canary_dir)
    repo = write_archive(tmp_path / "repo", {"data/a.txt": b"one\n", "data/b.txt": b"bee\n"})
    (repo / ".gitattributes").write_text("* diff=evil filter=evil\n", encoding="utf-8")
    git_repo(repo)
    (repo / "data" / "a.txt").write_bytes(b"two\n")  # the manifest still lists "one"
    _signed_commit(repo, "signed second commit")
    old = hashlib.sha256(b"one\n").hexdigest()
    assert old in (repo / "manifest.sha256").read_text(encoding="utf-8")
    # make the first commit signed too: the stale line's commit is the one _describe reads
    git(repo, "checkout", "-q", "HEAD~1", "--", "data/a.txt")
    _signed_commit(repo, "signed third commit, a.txt back to one")
    (repo / "data" / "a.txt").write_bytes(b"three\n")
    _signed_commit(repo, "signed fourth commit, a.txt is three")

    git_dir = repo / ".git"
    config = git_dir / "config"
    included = tmp_path / "included.cfg"
    conditional = tmp_path / "conditional.cfg"
    _write_config(included, _config_lines(canary))
    _write_config(conditional, _config_lines(canary))
    with config.open("a", encoding="utf-8") as handle:
        handle.write(f"[include]\n\tpath = {included}\n")
        handle.write(f'[includeIf "gitdir:{git_dir}/"]\n\tpath = {conditional}\n')
        handle.write(f'[includeIf "onbranch:main"]\n\tpath = {conditional}\n')
    _write_config(config, _config_lines(canary))
    (git_dir / "info").mkdir(exist_ok=True)
    (git_dir / "info" / "attributes").write_text("* diff=evil filter=evil\n", encoding="utf-8")
    hooks = git_dir / "hooks"
    hooks.mkdir(exist_ok=True)
    for hook in ("post-checkout", "pre-auto-gc", "post-index-change", "reference-transaction"):
        shutil.copy(canary, hooks / hook)
        (hooks / hook).chmod(stat.S_IRWXU)
    # the repository is as hostile as it gets; git itself (without our rules) would run it:
    probe = git(repo, "log", "-1", "--format=%s", "HEAD~1")
    assert probe.strip()
    assert (canary_dir / "fired").exists(), "the canary config does not fire: the test is void"
    (canary_dir / "fired").unlink()
    return repo, canary_dir


def _assert_inert(repo: Path, canary_dir: Path, args: list[str]) -> None:
    run = run_cli(args, watch=[repo, canary_dir])
    assert_safe(run, rc=1, codes=["manifest.mismatch"] if "json" in args else ())
    fired = canary_dir / "fired"
    assert not fired.exists(), f"git ran the canary: {fired.read_text(encoding='utf-8')}"
    if "json" in args:
        (finding,) = run.findings("manifest.mismatch")
        assert "stale line" in (finding.get("hint") or ""), finding
        assert "signed third commit" in finding["hint"], finding


def test_check_repo_at_rev_runs_nothing_from_the_repository(
    hostile_repo: tuple[Path, Path],
) -> None:
    repo, canary_dir = hostile_repo
    _assert_inert(repo, canary_dir, ["check", f"{repo}@HEAD", "--format", "json"])


def test_workers_reading_blobs_run_nothing_from_the_repository(
    hostile_repo: tuple[Path, Path],
) -> None:
    """Worker processes read the blobs themselves (their own git cat-file, from gitrun): the
    same rules hold there."""
    repo, canary_dir = hostile_repo
    args = ["check", f"{repo}@HEAD", "--format", "json", "--executor", "processes", "-j", "2"]
    _assert_inert(repo, canary_dir, args)


def test_check_git_option_runs_nothing_from_the_repository(
    hostile_repo: tuple[Path, Path],
) -> None:
    repo, canary_dir = hostile_repo
    _assert_inert(
        repo, canary_dir, ["check", "--git", str(repo), "--rev", "HEAD", "--format", "json"]
    )


def test_audit_runs_nothing_from_the_repository(
    hostile_repo: tuple[Path, Path], tmp_path: Path
) -> None:
    repo, canary_dir = hostile_repo
    run = run_cli(["audit", f"{repo}@HEAD"], watch=[repo, canary_dir])
    assert_safe(run, rc=1)
    assert not (canary_dir / "fired").exists()
    assert "stale line" in run.stdout


def test_global_and_system_configuration_are_ignored(
    hostile_repo: tuple[Path, Path], tmp_path: Path
) -> None:
    """The caller's own git configuration (GIT_CONFIG_GLOBAL, GIT_CONFIG_PARAMETERS, a
    GIT_CONFIG_COUNT list) is not the verifier's either."""
    repo, canary_dir = hostile_repo
    canary = canary_dir / "canary.sh"
    user = tmp_path / "user.gitconfig"
    _write_config(user, _config_lines(canary))
    env = {
        "GIT_CONFIG_GLOBAL": str(user),
        "GIT_CONFIG_PARAMETERS": f"'gpg.program'='{canary}' 'log.showsignature'='true'",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "gpg.program",
        "GIT_CONFIG_VALUE_0": str(canary),
        "GIT_PAGER": str(canary),
        "PAGER": str(canary),
        "GIT_EXTERNAL_DIFF": str(canary),
        "GIT_SSH_COMMAND": str(canary),
        "GIT_ASKPASS": str(canary),
    }
    run = run_cli(["check", f"{repo}@HEAD", "--format", "json"], env=env, watch=[repo, canary_dir])
    assert_safe(run, rc=1, codes=["manifest.mismatch"])
    assert not (canary_dir / "fired").exists()


def test_git_is_run_with_a_neutral_environment(tmp_path: Path) -> None:
    """The one place that runs git: its environment and its overrides (a unit check of the
    mechanism the tests above exercise end to end)."""
    from verifier.sources.gitrun import git_argv, git_env

    env = git_env(str(tmp_path))
    assert env["GIT_CONFIG_NOSYSTEM"] == "1"
    assert env["GIT_CONFIG_GLOBAL"] == os.devnull
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    assert env["GIT_OPTIONAL_LOCKS"] == "0"
    assert env["HOME"] == os.devnull
    assert not {
        k
        for k in env
        if k.startswith("GIT_CONFIG_") and k not in ("GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL")
    }
    argv = " ".join(str(a) for a in git_argv(str(tmp_path), "log"))
    for key in ("core.fsmonitor", "gpg.program", "log.showSignature", "gc.auto", "core.pager"):
        assert f"{key}=" in argv, key


def test_only_gitrun_starts_processes() -> None:
    """The one place: no other module of the package starts a process (a regression guard).
    Besides git, the processes executor starts this same Python (``sys.executable`` with a
    fixed argv: no byte of an archive reaches its command line or its environment), for its
    workers and for a folder's walk apart (``start_python``); the
    OpenPGP check starts ``gpgv`` (a fixed argv of temporary copies, an empty home of its
    own, a time limit) and ``manifest --sign-ssh`` starts ``ssh-keygen -Y sign`` with the
    author's own key."""
    import re

    from tests.conftest import REPO

    starts = re.compile(
        r"subprocess\.(run|Popen|call|check_call|check_output)\(|os\.(system|exec|spawn|popen)"
    )
    offenders = [
        str(path.relative_to(REPO))
        for path in sorted((REPO / "verifier").rglob("*.py"))
        if str(path.relative_to(REPO))
        not in (
            "verifier/sources/gitrun.py",
            "verifier/execute/processes.py",
            "verifier/authenticity/openpgp.py",
            "verifier/authoring/sign_ssh.py",
        )
        and starts.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []

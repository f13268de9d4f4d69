"""The one place that runs ``git``: every git process of the verifier starts here.

A repository under audit is hostile like any other input, and its own ``.git/config`` (and any
file it includes, unconditionally or through ``includeIf``) can name programs for git to run:
a signature verifier (``gpg.program`` with ``log.showSignature``), a pager, an external diff or
textconv, filter drivers, an fsmonitor hook, an ssh command, a credential helper. git cannot be
told to skip a repository's configuration, so the rules are:

* the environment is built from nothing (only ``PATH``, and ``SYSTEMROOT`` on Windows, are
  kept): no caller ``GIT_*`` variable (``GIT_CONFIG_PARAMETERS``, ``GIT_EXTERNAL_DIFF``,
  ``GIT_SSH_COMMAND``...), ``GIT_CONFIG_NOSYSTEM=1``, ``GIT_CONFIG_GLOBAL`` and ``HOME`` and
  ``XDG_CONFIG_HOME`` at the null device (no user configuration or attributes), no terminal
  prompt, no optional locks (no index refresh), no replace objects, no lazy fetch, ``LC_ALL=C``;
* ``-c`` overrides on the command line (which outrank every configuration file, included ones
  too) set every program setting git could act on to the null device (which cannot be run)
  or to nothing, and every behaviour that could write, run or reach out (signature display,
  automatic gc and maintenance, protocols) off; ``--no-pager`` always;
* only commands that run no configured program are used: ``rev-parse``, ``ls-tree``,
  ``cat-file --batch`` (no ``--textconv`` or ``--filters``) and ``rev-list``; a commit's date and
  subject are parsed from its object here, never asked of ``git log``;
* each one-shot command has a time budget (:data:`TIMEOUT`; the first one a short
  :data:`PROBE_TIMEOUT`, since git reads the repository's configuration, which could name a
  FIFO as an included file, before anything else), and its standard input is the null device.

What this does not cover: a repository owned by another user is refused by git itself (its
``safe.directory`` rule, left in force: the verifier does not widen it), and the git program
on ``PATH`` is trusted.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from types import MappingProxyType

TIMEOUT = 600.0  # seconds for one git command on an honest (possibly large) repository
PROBE_TIMEOUT = 30.0  # the first command: reading the configuration and the commit

NULL = os.devnull

# setting -> value; the null device for a program (it cannot be executed), empty for a list
# reset (credential.helper), off for a behaviour.
OVERRIDES: Mapping[str, str] = MappingProxyType(
    {
        "core.fsmonitor": "false",
        "core.hooksPath": NULL,
        "core.pager": "cat",
        "core.editor": NULL,
        "core.sshCommand": NULL,
        "core.askPass": NULL,
        "core.gitProxy": NULL,
        "core.alternateRefsCommand": NULL,
        "core.attributesFile": NULL,
        "core.untrackedCache": "false",
        "core.preloadIndex": "false",
        "sequence.editor": NULL,
        "gpg.program": NULL,
        "gpg.openpgp.program": NULL,
        "gpg.x509.program": NULL,
        "gpg.ssh.program": NULL,
        "gpg.ssh.defaultKeyCommand": NULL,
        "gpg.ssh.allowedSignersFile": NULL,
        "log.showSignature": "false",
        "diff.external": NULL,
        "credential.helper": "",
        "protocol.allow": "never",
        "protocol.file.allow": "never",
        "protocol.ext.allow": "never",
        "uploadpack.packObjectsHook": NULL,
        "gc.auto": "0",
        "gc.autoDetach": "false",
        "gc.writeCommitGraph": "false",
        "maintenance.auto": "false",
        "fetch.writeCommitGraph": "false",
        "color.ui": "never",
        "i18n.logOutputEncoding": "UTF-8",
    }
)


class GitError(Exception):
    """git could not be run, failed, or did not answer in time; the message says which."""


def git_program() -> str:
    found = shutil.which("git")
    if found is None:
        raise GitError("git is not installed; it is needed to read a git commit")
    return found


def git_env(repo: str) -> dict[str, str]:
    """The environment for git: built from nothing; no discovery above the repository (a
    subfolder of a repository is not a repository)."""
    env = {k: os.environ[k] for k in ("PATH", "SYSTEMROOT") if k in os.environ}
    env.update(
        GIT_CEILING_DIRECTORIES=os.path.dirname(os.path.abspath(repo)),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=NULL,
        GIT_ATTR_NOSYSTEM="1",
        GIT_NO_REPLACE_OBJECTS="1",
        GIT_OPTIONAL_LOCKS="0",
        GIT_TERMINAL_PROMPT="0",
        GIT_NO_LAZY_FETCH="1",
        GIT_LITERAL_PATHSPECS="1",
        GIT_PAGER="cat",
        PAGER="cat",
        HOME=NULL,
        XDG_CONFIG_HOME=NULL,
        LC_ALL="C",
    )
    return env


def git_argv(repo: str, *args: str | bytes) -> list[str | bytes]:
    """``git`` with every override, run in ``repo``, then ``args``."""
    argv: list[str | bytes] = [git_program(), "--no-pager"]
    for key, value in OVERRIDES.items():
        argv += ["-c", f"{key}={value}"]
    return [*argv, "-C", repo, *args]


def run_git(repo: str, *args: str | bytes, timeout: float = TIMEOUT) -> bytes | None:
    """The standard output of one git command, or ``None`` when it exits non-zero.

    Raises :class:`GitError` when git cannot be started or does not finish in ``timeout``
    seconds, or when it refuses the repository as owned by another user."""
    try:
        proc = subprocess.run(
            git_argv(repo, *args),
            capture_output=True,
            stdin=subprocess.DEVNULL,
            env=git_env(repo),
            check=False,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        raise GitError(f"git did not answer within {timeout:g} seconds in {repo}") from None
    except OSError as exc:
        raise GitError(f"cannot run git: {exc.strerror or exc}") from None
    if proc.returncode != 0 and b"dubious ownership" in proc.stderr:
        raise GitError(
            f"git refuses {repo}: it is owned by another user (git's safe.directory rule)"
        )
    return proc.stdout if proc.returncode == 0 else None


def start_batch(repo: str) -> subprocess.Popen[bytes]:
    """A ``git cat-file --batch`` process (objects by id, raw bytes: no filter, no textconv)."""
    return subprocess.Popen(
        git_argv(repo, "cat-file", "--batch"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=git_env(repo),
    )


def commit_summary(body: bytes) -> tuple[str, str]:
    """A commit object's committer date (``YYYY-MM-DD`` in the committer's time zone, git's
    ``%cs``) and subject (its first paragraph on one line, git's ``%s``)."""
    from datetime import UTC, datetime, timedelta, timezone

    head, _, message = body.partition(b"\n\n")
    date = ""
    for line in head.split(b"\n"):
        if line.startswith(b"committer "):
            parts = line.rsplit(b" ", 2)
            if len(parts) == 3 and parts[1].isdigit() and len(parts[1]) <= 12:
                zone = parts[2].decode("ascii", "replace")
                offset = timedelta(0)
                if len(zone) == 5 and zone[0] in "+-" and zone[1:].isdigit():
                    offset = timedelta(hours=int(zone[1:3]), minutes=int(zone[3:]))
                    offset = -offset if zone[0] == "-" else offset
                try:
                    when = datetime.fromtimestamp(int(parts[1]), UTC)
                    date = when.astimezone(timezone(offset)).strftime("%Y-%m-%d")
                except (OverflowError, OSError, ValueError):
                    date = ""
            break
    # as git's format_subject: blank lines skipped, then the lines up to the next blank one,
    # each without its trailing white space, joined by spaces
    lines: list[str] = []
    for text in message.decode("utf-8", "replace").split("\n"):
        text = text.rstrip(" \t\r\v\f")
        if not text:
            if lines:
                break
            continue
        lines.append(text)
    return date, " ".join(lines)

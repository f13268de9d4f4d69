"""``--config``, ``--no-config`` and ``--show-config``: where a command's settings come from.

Order, first found wins: ``--config FILE``; else ``verify-evidence.toml`` in the working
directory; else the ``[tool.verify-evidence]`` table of ``pyproject.toml`` there. SOURCE is
never searched (an archive is data, not configuration), and nothing inside a zip, tarball or
git commit is ever read as configuration. A flag given on the command line always wins over
the file.

The working directory is often the archive itself (``verify-evidence check`` in its folder),
and an archive's files come from whoever made it. So a file *found* (not named with
``--config``) inside the folder being verified may set only the safe keys
(:mod:`verifier.plan.config`); one that sets a relaxing key (``ignore``, ``baseline``,
``stages``, ...) or a process key (``jobs``, ``executor``) stops the run with exit 2, naming
the keys: pass ``--config FILE`` to accept it, or ``--no-config``. For a git source, the
folders verified are the repository's, however it is named (:func:`verified_folders`).
Whatever a file sets is named in the report (``configuration``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer

from verifier.errors import UsageError
from verifier.plan.config import CONFIG_FILE, KEYS, PYPROJECT, Config, parse_config


@dataclass(slots=True)
class Configured:
    """The configuration a command ran with: the file (or ``None``), how it was found, the
    values it set that no flag overrode, and each key's origin for ``--show-config``."""

    config: Config | None = None
    found: str = ""
    applied: dict[str, Any] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any] | None:
        if self.config is None:
            return None
        return {
            "file": self.config.name,
            "found": self.found,
            "settings": {k: _plain(v) for k, v in sorted(self.applied.items())},
        }


def _plain(value: Any) -> Any:
    if isinstance(value, Path):
        return os.fspath(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _read(path: Path, pyproject: bool) -> Config | None:
    name = os.fspath(path)
    if not path.is_file():
        raise UsageError(
            f"--config {name}: not a file" if path.exists() else f"{name}: no such file"
        )
    try:
        with open(path, "rb") as handle:
            data = handle.read((1 << 20) + 1)
    except OSError as exc:
        raise UsageError(f"{name}: cannot read it: {exc.strerror or exc}") from None
    return parse_config(data, name, pyproject)


def find_config(explicit: Path | None, no_config: bool, cwd: Path) -> tuple[Config | None, str]:
    """The configuration to use, and how it was found (``""`` when none)."""
    if no_config:
        if explicit is not None:
            raise UsageError("give --config FILE or --no-config, not both")
        return None, ""
    if explicit is not None:
        config = _read(explicit, explicit.name == PYPROJECT)
        if config is None:
            raise UsageError(f"--config {explicit}: it has no [tool.verify-evidence] table")
        return config, "--config"
    for name, pyproject in ((CONFIG_FILE, False), (PYPROJECT, True)):
        path = cwd / name
        if path.is_file():
            config = _read(Path(name) if cwd == Path(".") else path, pyproject)
            if config is not None:
                return config, "working directory"
    return None, ""


def _inside(path: str, folders: Iterable[str]) -> bool:
    """Whether ``path`` is in one of ``folders`` (taken one at a time: the first hit stops,
    so git is not asked when the source's own folder already holds the file)."""
    real = os.path.realpath(path)
    for folder in folders:
        top = os.path.realpath(folder)
        if real == top or real.startswith(top.rstrip(os.sep) + os.sep):
            return True
    return False


def verified_folders(location: str, git: Path | None, rev: str | None = None) -> Iterator[str]:
    """The folders whose files are being verified, or that the source's maker controls: a
    folder source (a bag too); for a git source however it is named (the work tree, its
    ``.git``, a bare repository, a linked work tree, through a symbolic link, relative or
    absolute, ``--git DIR``, ``DIR --rev REV`` or ``DIR@REV``), the repository's folder, its
    git folders and its work trees, as git itself finds them (git is asked only for a git
    source). Nothing for a zip or tarball (a single file, which holds no folder of the
    working directory)."""
    from verifier.sources.git import split_location

    if git is not None:
        yield from _git_folders(os.fspath(git))
    elif os.path.isdir(location) and rev is None:  # a folder
        yield os.path.realpath(location)
    elif os.path.isdir(location):  # a repository read with --rev
        yield from _git_folders(location)
    elif not os.path.isfile(location):
        split = split_location(location)  # as the source splits it (the first @ that works)
        if split is not None:
            yield from _git_folders(split[0])


def _git_folders(repo: str) -> Iterator[str]:
    """``repo`` and what git takes as its git folder, common git folder and work trees (the
    parent of a ``.git`` folder also when git cannot say: git missing, or not a repository)."""
    real = os.path.realpath(repo)
    yield real
    if os.path.basename(real) == ".git":
        yield os.path.dirname(real)
    from verifier.sources.gitrun import PROBE_TIMEOUT, GitError, run_git

    for ask in ("--absolute-git-dir", "--git-common-dir", "--show-toplevel"):
        try:
            out = run_git(real, "rev-parse", "--path-format=absolute", ask, timeout=PROBE_TIMEOUT)
        except GitError:
            return
        text = os.fsdecode(out or b"").rstrip("\n")
        if text and "\n" not in text and os.path.isabs(text):
            yield text
            if os.path.basename(text.rstrip(os.sep)) == ".git":  # the main work tree
                yield os.path.dirname(text.rstrip(os.sep))
            if ask == "--git-common-dir":
                yield from _linked_work_trees(text)


MAX_WORK_TREES = 256
_READ_NOW = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)


def _regular(fd: int) -> bool:
    import stat

    return stat.S_ISREG(os.fstat(fd).st_mode)


def _linked_work_trees(common: str) -> list[str]:
    """The linked work trees git records in ``common/worktrees/*/gitdir`` (the path of each
    one's ``.git`` file), at most :data:`MAX_WORK_TREES`."""
    out: list[str] = []
    try:
        names = sorted(os.listdir(os.path.join(common, "worktrees")))[:MAX_WORK_TREES]
    except OSError:
        return out
    for name in names:
        try:  # (not blocking on a FIFO a hostile repository put there)
            fd = os.open(os.path.join(common, "worktrees", name, "gitdir"), _READ_NOW)
        except OSError:
            continue
        try:
            text = os.fsdecode(os.read(fd, 4097)).strip() if _regular(fd) else ""
        except (OSError, ValueError):
            continue
        finally:
            os.close(fd)
        if text and len(text) <= 4096 and "\n" not in text and os.path.isabs(text):
            out.append(os.path.dirname(text))
    return out


def refuse_archive_config(
    config: Config, location: str, git: Path | None, rev: str | None = None
) -> None:
    """Exit 2 when a configuration file found (not named with ``--config``) inside what is
    verified sets a relaxing key (it could make the archive pass) or a process key (the
    archive would choose how many processes the verifier starts)."""
    from verifier.views.inert import visible

    relaxing, processes = config.relaxing, config.processes
    if not (relaxing or processes):
        return
    if not _inside(config.name, verified_folders(location, git, rev)):
        return
    why = []
    if relaxing:
        why.append(f"{', '.join(relaxing)}, which can make it pass")
    if processes:
        why.append(f"{', '.join(processes)}, which chooses how many processes run")
    name = visible(config.name)
    raise UsageError(
        f"{name} is inside the archive being verified and sets {'; and '.join(why)}: pass "
        f"--config {name} to use it anyway, or --no-config"
    )


def show_config(configured: Configured, ctx: typer.Context, command: str) -> str:
    """The ``--show-config`` text: the file, then ``key = value  # origin`` per key."""
    from verifier.views.inert import visible

    config = configured.config
    head = f"# verify-evidence {command}: effective settings"
    lines = [head]
    if config is None:
        lines.append(
            "# no configuration file (looked for: --config, ./verify-evidence.toml, "
            "./pyproject.toml [tool.verify-evidence])"
        )
    else:
        lines.append(f"# configuration file: {visible(config.name)} ({configured.found})")
    for key, spec in KEYS.items():
        origin = configured.origins.get(key, "default")
        if origin.endswith(f"not taken by {command}"):
            lines.append(f"# {key}: {visible(origin)}")
            continue
        if spec.param not in ctx.params or key not in configured.origins:
            continue
        value = configured.applied.get(key, ctx.params[spec.param])
        shown = json.dumps(_plain(getattr(value, "value", value)), ensure_ascii=True, default=str)
        lines.append(f"{key} = {shown}  # {visible(configured.origins.get(key, 'default'))}")
    return "\n".join(lines) + "\n"


def verbose_text(configured: Configured) -> str:
    """What ``-v`` says on standard error: the file read, and every setting not a default."""
    from verifier.views.inert import visible

    config = configured.config
    lines = [
        "verify-evidence: configuration: "
        + (f"{visible(config.name)} ({configured.found})" if config else "none")
    ]
    for key, origin in configured.origins.items():
        if origin != "default":
            lines.append(f"verify-evidence: {key} from {visible(origin)}")
    return "\n".join(lines) + "\n"

"""``verify-evidence init``: a new archive that passes ``check`` from the start.

It holds one example run record (with its tool-call transcript) and the readback that refers
to it, their schemas, an assertion spec with one assertion of each kind, a case catalogue with
one case, and a manifest. Its vocabulary (case kinds, evidence ids) is its own, in
``schemas/archive.schema.json`` (:mod:`verifier.authoring.vocabulary`). It writes into a new
folder, an empty one, or one that holds only dotfiles (a fresh ``git init``: ``.git``,
``.gitignore``); anything else is refused. ``ci="github"`` adds a GitHub Actions workflow and
``pre_commit`` a ``.pre-commit-config.yaml`` (:mod:`verifier.authoring.ci`).
"""

from __future__ import annotations

import os
from importlib import resources
from importlib.abc import Traversable

from verifier.pipeline import UsageError

TEMPLATE = "templates/init"


def _files(node: Traversable, prefix: str = "") -> list[tuple[str, bytes]]:
    out: list[tuple[str, bytes]] = []
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        name = f"{prefix}{child.name}"
        if child.is_dir():
            out.extend(_files(child, name + "/"))
        elif child.is_file():
            out.append((name, child.read_bytes()))
    return out


def template_files() -> list[tuple[str, bytes]]:
    """The template's files, as (relative path, bytes), sorted."""
    return _files(resources.files("verifier").joinpath(TEMPLATE))


def scaffold(
    target: str | os.PathLike[str],
    ci: str | None = None,
    pre_commit: bool = False,
    install: str | None = None,
) -> list[str]:
    """Write a new archive into ``target`` (created if missing). Returns the paths written."""
    from verifier.authoring.ci import extra_files

    root = os.fspath(target)
    files = template_files() + extra_files(ci, pre_commit, install)
    if os.path.exists(root):
        if not os.path.isdir(root):
            raise UsageError(f"{root} exists and is not a directory")
        other = sorted(n for n in os.listdir(root) if not n.startswith("."))
        if other:
            shown = ", ".join(other[:3]) + (", ..." if len(other) > 3 else "")
            raise UsageError(
                f"{root} is not empty (it holds {shown}); init only writes into a new or empty "
                "folder, or one that holds only dotfiles such as .git"
            )
        taken = [n for n, _ in files if os.path.lexists(os.path.join(root, *n.split("/")))]
        if taken:
            raise UsageError(f"{root}/{taken[0]} exists already; init never overwrites a file")
    os.makedirs(root, exist_ok=True)
    written = []
    for name, data in files:
        path = os.path.join(root, *name.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "xb") as handle:
            handle.write(data)
        written.append(name)
    from verifier.authoring.manifest_file import write_manifest

    write_manifest(root, None, None, True)
    written.append("manifest.sha256")
    return written

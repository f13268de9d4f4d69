"""``verify-evidence init``: a new archive that passes ``check`` from the start.

It holds one example run record (with its tool-call transcript) and the readback that refers
to it, their schemas, an assertion spec with one assertion of each kind, a case catalogue with
one case, and a manifest. It refuses to write into a folder that is not empty.
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


def scaffold(target: str | os.PathLike[str]) -> list[str]:
    """Write a new archive into ``target`` (created if missing). Returns the paths written."""
    root = os.fspath(target)
    if os.path.exists(root):
        if not os.path.isdir(root):
            raise UsageError(f"{root} exists and is not a directory")
        if os.listdir(root):
            raise UsageError(f"{root} is not empty; init only writes into an empty or new folder")
    files = template_files()
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

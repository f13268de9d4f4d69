"""The scope: where unlisted files are looked for, and which names are never archive
content (``.git/``)."""

from __future__ import annotations

from collections.abc import Iterable

ROOT_FILES = "."
ALWAYS_EXCLUDED = (".git",)


def default_scope(names: Iterable[str]) -> list[str]:
    """Where unlisted files are looked for when no scope is given: every top-level folder
    holding a listed file (recursively), and the root's own files if the manifest lists a
    file at the root. Never the manifest itself, never ``.git/``."""
    scope: set[str] = set()
    add = scope.add
    within = ""  # the folder of the name before, with its slash (names come in runs)
    for name in names:
        if within and name.startswith(within):
            continue
        head, sep, _ = name.partition("/")
        add(head if sep else ROOT_FILES)
        within = head + sep if sep else ""
    return sorted(scope)


def join(base: str, name: str) -> str:
    return f"{base}/{name}" if base else name


def scope_in_source(scope: Iterable[str], base: str) -> list[str]:
    """Scope items relative to the base, as paths of the source: ``X`` is folder X
    (recursively), ``.`` the root's own files, ``X/.`` folder X's own files."""
    out = set()
    for item in scope:
        if item == ROOT_FILES:
            out.add(join(base, ROOT_FILES))
        else:
            out.add(join(base, item))
    return sorted(out)


def _in_scope(path: str, scope: list[str]) -> bool:
    for item in scope:
        if item == ROOT_FILES:
            if "/" not in path:
                return True
        elif item.endswith("/" + ROOT_FILES):
            folder = item[: -len(ROOT_FILES) - 1]
            if path.startswith(folder + "/") and "/" not in path[len(folder) + 1 :]:
                return True
        elif item == "" or path == item or path.startswith(item + "/"):
            return True
    return False


def _walk_start(item: str) -> str:
    if item == ROOT_FILES:
        return ""
    if item.endswith("/" + ROOT_FILES):
        return item[: -len(ROOT_FILES) - 1]
    return item


def excluded(path: str) -> bool:
    head = path.split("/", 1)[0]
    return head in ALWAYS_EXCLUDED

"""A folder of another source read as a source of its own: a bag's payload (``data/``) when
it holds an evidence archive with its own manifest, checked as a plain archive rooted there.

Every answer is the container's, under the folder's prefix; names come back relative to the
folder. The container's findings (a limit, damage, a refused name) are the container's own
run's, so this view reports none of them again; it closes nothing (the container's owner
does). It offers no capability: its files are read here, in this process.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from verifier.findings import Finding
from verifier.sources.interface import Kind, Source, Stream


class SubtreeSource(Source):
    name = "subtree"

    def __init__(self, container: Source, folder: str) -> None:
        self.container = container
        self.prefix = folder.strip("/") + "/"
        self.description = f"{container.description}:{self.prefix}"

    def _inner(self, name: str) -> str:
        return self.prefix + name if name else self.prefix.rstrip("/")

    def _outer(self, name: str) -> str | None:
        return name[len(self.prefix) :] if name.startswith(self.prefix) else None

    def kind(self, name: str) -> Kind:
        return self.container.kind(self._inner(name))

    def walk(self, folder: str) -> Iterator[tuple[str, Kind]]:
        for name, kind in self.container.walk(self._inner(folder)):
            inner = self._outer(name)
            if inner:
                yield inner, kind

    def open(self, name: str) -> Stream:
        return self.container.open(self._inner(name))

    def read_many(self, names: Iterable[str]) -> Iterator[tuple[str, Stream | OSError]]:
        for name, stream in self.container.read_many(self._inner(n) for n in names):
            yield self._outer(name) or name, stream

    def findings(self) -> list[Finding]:
        return []

    def complete(self) -> bool:
        return self.container.complete()

    def identity(self) -> dict[str, Any]:
        return {**self.container.identity(), "kind": self.name, "folder": self.prefix}

"""A source with the files its publisher withheld supplied from a folder of their own
(``--withheld-dir``): every answer is the archive's, except for the withheld files the archive
does not hold and the folder does, which are read from the folder (by the names the manifest
gives them), through the folder's own safety rules (no link followed). The run then checks
them against the digests the manifest committed to, and every stage runs on them. It offers
no capability: its files are read here, in this process; it closes the folder's source."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from verifier.findings import Finding
from verifier.sources.interface import Kind, Source, Stream


class SuppliedSource(Source):
    name = "supplied"

    def __init__(self, archive: Source, folder: Source, names: Mapping[str, str]) -> None:
        """``names``: the supplied files, path in the archive -> name in ``folder``."""
        self.archive = archive
        self.folder = folder
        self.names = dict(names)
        self.description = archive.description

    def kind(self, name: str) -> Kind:
        if name in self.names:
            return Kind.FILE
        return self.archive.kind(name)

    def walk(self, folder: str) -> Iterator[tuple[str, Kind]]:
        yield from self.archive.walk(folder)
        start = folder.strip("/") + "/" if folder.strip("/") else ""
        for name in sorted(self.names):
            if name.startswith(start):
                yield name, Kind.FILE

    def open(self, name: str) -> Stream:
        inner = self.names.get(name)
        return self.folder.open(inner) if inner is not None else self.archive.open(name)

    def read_many(self, names: Iterable[str]) -> Iterator[tuple[str, Stream | OSError]]:
        wanted = sorted(set(names))
        yield from self.archive.read_many(n for n in wanted if n not in self.names)
        for name in wanted:
            if name in self.names:
                try:
                    yield name, self.folder.open(self.names[name])
                except OSError as exc:
                    yield name, exc

    def findings(self) -> list[Finding]:
        return [*self.archive.findings(), *self.folder.findings()]

    def complete(self) -> bool:
        return self.archive.complete()

    def identity(self) -> dict[str, Any]:
        return self.archive.identity()

    def close(self) -> None:
        self.folder.close()


__all__ = ["SuppliedSource"]

"""The one renderer interface every report family shares, and the registry helper each family
builds its registry with.

A renderer is a function ``render(report) -> str``: one module per output format exports it,
and it never prints, reads or exits. A :class:`Registry` maps each format's name to where its
renderer lives (``"module:function"``) and imports that module only when the format is used:
the CLI builds its ``--format`` choices from :meth:`Registry.choices` at start-up without
importing a single renderer. Registries are read-only mappings (name -> renderer), in the
order the CLI lists them.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Generic, Protocol, TypeVar, cast

R = TypeVar("R")
R_contra = TypeVar("R_contra", contravariant=True)


class Renderer(Protocol[R_contra]):
    """One output format: the report rendered whole, as text (machine formats end with LF)."""

    def __call__(self, report: R_contra, /) -> str: ...


@dataclass(frozen=True, slots=True)
class Format:
    """A registry entry: the format's name (its ``--format`` choice), where its renderer lives,
    and the file suffix its output usually takes."""

    name: str
    where: str  # "module:function"
    suffix: str


class Registry(Mapping[str, Renderer[R]], Generic[R]):
    """A report family's formats, name -> renderer (imported on first use); read-only."""

    __slots__ = ("_formats", "family")

    def __init__(self, family: str, *formats: Format) -> None:
        self.family = family
        entries = {f.name: f for f in formats}
        if len(entries) != len(formats):
            raise ValueError(f"{family}: a format name is registered twice")
        self._formats: Mapping[str, Format] = MappingProxyType(entries)

    def __getitem__(self, name: str) -> Renderer[R]:
        module, _, function = self._formats[name].where.partition(":")
        return cast(Renderer[R], getattr(importlib.import_module(module), function))

    def __iter__(self) -> Iterator[str]:
        return iter(self._formats)

    def __len__(self) -> int:
        return len(self._formats)

    def format(self, name: str) -> Format:
        """The entry of ``name`` (its suffix, where it lives), without importing it."""
        return self._formats[name]

    def choices(self, *extra: str) -> tuple[str, ...]:
        """The names the CLI offers: ``extra`` first (such as ``auto``), then every format."""
        return (*extra, *self._formats)

    def listing(self) -> str:
        """The names for a help text: ``text, json or markdown``."""
        names = list(self._formats)
        return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


__all__ = ["Format", "Registry", "Renderer"]

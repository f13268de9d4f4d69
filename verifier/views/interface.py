"""The one renderer interface every report family shares, and the registry helper each family
builds its registry with.

A renderer is a function ``render(report) -> str``: one module per output format exports it,
and it never prints, reads or exits. A :class:`Registry` (the plug-in registry of
:mod:`verifier.registry`) maps each format's name to where its renderer lives
(``"module:function"``) and imports that module only when the format is used: the CLI builds
its ``--format`` choices from :meth:`Registry.choices` at start-up without importing a single
renderer. Registries are read-only mappings (name -> renderer), in the order the CLI lists
them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar, cast

from verifier.registry import Registry as BaseRegistry

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


class Registry(BaseRegistry[Renderer[R]], Generic[R]):
    """A report family's formats, name -> renderer (imported on first use); read-only."""

    __slots__ = ()

    def format(self, name: str) -> Format:
        """The entry of ``name`` (its suffix, where it lives), without importing it."""
        return cast(Format, self.entry(name))


__all__ = ["Format", "Registry", "Renderer"]

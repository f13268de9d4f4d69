"""The one renderer interface every report family shares, and the registry helper each family
builds its registry with.

A renderer is a function ``render(report) -> str``: one module per output format exports it,
and it never prints, reads or exits (a check report's also takes :class:`RenderSettings`). A
format whose text grows with the archive (the check report's JSON) may also export
``render_parts(report)``, the same text in parts, named in its registry entry; the CLI writes
whatever :meth:`Registry.parts` gives a part at a time.

A :class:`Registry` (the plug-in registry of :mod:`verifier.registry`) maps each format's name
to where its renderer lives (``"module:function"``) and imports that module only when the
format is used: the CLI builds its ``--format`` choices from :meth:`Registry.choices` at
start-up without importing a single renderer. Registries are read-only mappings (name ->
renderer), in the order the CLI lists them.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar, cast

from verifier.findings import Severity
from verifier.registry import Registry as BaseRegistry

R = TypeVar("R")
R_contra = TypeVar("R_contra", contravariant=True)


@dataclass(frozen=True, slots=True)
class RenderSettings:
    """How a command asks for a check report rendered: ``--fail-on`` (the verdict's
    threshold), what CI formats put before a path so it is relative to the working directory
    (``my-archive/`` for ``check my-archive``; ``--path-prefix``), ``--all-blocked``."""

    fail_on: Severity = Severity.ERROR
    path_prefix: str = ""
    all_blocked: bool = False
    #: the in-toto format's predicate (``--in-toto-predicate``): ``test-result``, or ``vsa``
    #: (a SLSA Verification Summary, :mod:`verifier.views.check.vsa`)
    in_toto_predicate: str = "test-result"
    #: when the check ran (UTC, ``YYYY-MM-DDTHH:MM:SSZ``; ``SOURCE_DATE_EPOCH`` fixes it): a
    #: verification summary must say; no other format does
    verified_at: str = "1970-01-01T00:00:00Z"

    def ci_path(self, path: str) -> str:
        """``path`` (of the source) as CI formats name it: with :attr:`path_prefix`."""
        if not self.path_prefix or path.startswith("/"):
            return path
        return self.path_prefix.rstrip("/") + "/" + path


DEFAULT_SETTINGS = RenderSettings()


class Renderer(Protocol[R_contra]):
    """One output format: the report rendered whole, as text (machine formats end with LF)."""

    def __call__(self, report: R_contra, settings: RenderSettings = ..., /) -> str: ...


class PartsRenderer(Protocol[R_contra]):
    """The same text in parts, made as they are taken (``"".join`` of them is the
    renderer's text): a format whose output grows with the archive may also export one, so
    that the CLI writes a large report a part at a time instead of holding it whole."""

    def __call__(self, report: R_contra, settings: RenderSettings = ..., /) -> Iterator[str]: ...


@dataclass(frozen=True, slots=True)
class Format:
    """A registry entry: the format's name (its ``--format`` choice), where its renderer lives,
    and the file suffix its output usually takes."""

    name: str
    where: str  # "module:function"
    suffix: str
    parts: str | None = None  # "module:function" of its PartsRenderer, if it has one


class Registry(BaseRegistry[Renderer[R]], Generic[R]):
    """A report family's formats, name -> renderer (imported on first use); read-only."""

    __slots__ = ()

    def format(self, name: str) -> Format:
        """The entry of ``name`` (its suffix, where it lives), without importing it."""
        return cast(Format, self.entry(name))

    def parts(self, name: str) -> PartsRenderer[R]:
        """The format's text in parts: its :class:`PartsRenderer` if it has one, else its
        whole text as the one part (both imported on first use)."""
        where = self.format(name).parts
        if where is None:
            whole = self[name]
            return lambda report, *settings: iter((whole(report, *settings),))
        module, _, function = where.partition(":")
        return cast(PartsRenderer[R], getattr(importlib.import_module(module), function))


__all__ = ["DEFAULT_SETTINGS", "Format", "PartsRenderer", "Registry", "RenderSettings", "Renderer"]

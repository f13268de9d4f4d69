"""The registry every plug-in family builds its own from: output formats (per report family),
transcript shapes and containers, signature formats, executors, assertion kinds and source
kinds.

A :class:`Registry` is a read-only mapping from a member's name to the member, in the order
the CLI lists them. Each entry says where its member lives (``"module:attribute"``) and the
module is imported only when that member is used, so the CLI builds its choices and help
from a registry at start-up without importing one member. Nothing is cached here: Python's
module table already holds what was imported.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType, ModuleType
from typing import Generic, Protocol, TypeVar, cast, overload

T = TypeVar("T")


class Entry(Protocol):
    """What a registry entry carries: the member's name and where it lives."""

    @property
    def name(self) -> str: ...

    @property
    def where(self) -> str: ...  # "module:attribute"


@dataclass(frozen=True, slots=True)
class Plugin:
    """A plain registry entry."""

    name: str
    where: str


E = TypeVar("E", bound=Entry)
D = TypeVar("D")


def _module(name: str) -> ModuleType:
    """The module ``name``, imported if it is not yet (or is still being, in another thread)."""
    module = sys.modules.get(name)
    if module is None or getattr(module.__spec__, "_initializing", False):
        module = importlib.import_module(name)
    return module


class Registry(Mapping[str, T], Generic[T]):
    """A family's members, name -> member (imported on first use); read-only."""

    __slots__ = ("_entries", "_where", "family")

    def __init__(self, family: str, *entries: Entry) -> None:
        self.family = family
        table = {e.name: e for e in entries}
        if len(table) != len(entries):
            raise ValueError(f"{family}: a name is registered twice")
        self._entries: Mapping[str, Entry] = MappingProxyType(table)
        where = {e.name: e.where.partition(":")[::2] for e in entries}
        self._where: Mapping[str, tuple[str, str]] = MappingProxyType(where)

    def __getitem__(self, name: str) -> T:
        module, attribute = self._where[name]
        return cast(T, getattr(_module(module), attribute))

    def __contains__(self, name: object) -> bool:  # without importing the member
        return name in self._entries

    @overload
    def get(self, name: str, /) -> T | None: ...
    @overload
    def get(self, name: str, /, default: T | D) -> T | D: ...
    def get(self, name: str, /, default: object = None) -> object:
        """The member called ``name``, or ``default``: looked up once per assertion in a large
        spec, so without the exception :class:`Mapping`'s ``get`` goes through."""
        where = self._where.get(name)
        return default if where is None else getattr(_module(where[0]), where[1])

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def entry(self, name: str) -> Entry:
        """The entry of ``name`` (where it lives), without importing it."""
        return self._entries[name]

    def choices(self, *extra: str) -> tuple[str, ...]:
        """The names the CLI offers: ``extra`` first (such as ``auto``), then every member."""
        return (*extra, *self._entries)

    def listing(self) -> str:
        """The names for a help text: ``text, json or markdown``."""
        return said(self._entries)


def said(words: Iterable[str]) -> str:
    """Words in a sentence: ``a``, ``a or b``, ``a, b or c``."""
    items = list(words)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


__all__ = ["Entry", "Plugin", "Registry", "said"]

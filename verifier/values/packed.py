"""A kept document held packed with :mod:`marshal`, from when the need index is made until the
document is judged, and a large assertion spec's ``assertions`` array in parts that the
consistency stage unpacks one at a time.

A parsed spec's objects take about four times the bytes of their packed form (at 100,000
records, 56 MB against 12 MB). Unpacked whole at the end of a run, beside the assertions'
results, it made the run's peak; taken a part at a time, only a part's objects are alive at
once, besides the strings the results keep (an assertion's id, its description, what it
read). :mod:`marshal` writes exactly what strict parsing makes (dicts, lists, strings,
integers of any size, floats, booleans, null) and reads it back equal, in the same order;
a document holding anything else (a number kept with its literal, an object that repeated a
key) is not packed (:meth:`PackedDocument.pack` says ``None``). Only bytes this process wrote
are ever unmarshalled.

Each packed form is also compressed (:mod:`zlib`, level 1): a spec repeats its kinds,
descriptions, pointers and file names from one assertion to the next, and at 100,000 records
its 13.5 MB of packed parts took 1 MB compressed, held while the workers run, for about
0.04 s to compress and 0.02 s to decompress (measured on the benchmark's spec).
"""

from __future__ import annotations

import marshal
import zlib
from collections.abc import Iterator
from typing import Any

#: assertions per packed part: a part's objects are what is alive at once while judging
WINDOW = 4096
_VERSION = 4
_LEVEL = 1  # zlib's fastest: most of the gain, a fraction of the time of its default


def _packed(value: Any) -> bytes:
    return zlib.compress(marshal.dumps(value, _VERSION), _LEVEL)


def _unpacked(data: bytes) -> Any:
    return marshal.loads(zlib.decompress(data))


class PackedDocument:
    """One kept document, packed; :meth:`value` unpacks it whole (once: kept from then on, as
    a document read whole is needed whole), :meth:`windows` the array at ``key`` a part at a
    time (never kept)."""

    __slots__ = ("_key", "_parts", "_shell", "_whole", "truthy")

    def __init__(self, shell: bytes, key: str | None, parts: list[bytes]) -> None:
        self._shell = shell
        self._key = key
        self._parts = parts
        self._whole: Any = _NOT_YET
        self.truthy = True  # (set by pack: what bool() of the value says)

    @classmethod
    def pack(cls, value: Any, key: str | None = None) -> PackedDocument | None:
        """``value`` packed; with ``key``, an object whose ``key`` holds an array of more than
        :data:`WINDOW` entries is packed in parts of that array. ``None``: :mod:`marshal`
        cannot write it as it is (a subclass of a JSON type)."""
        try:
            items = value.get(key) if key is not None and type(value) is dict else None
            if type(items) is list and len(items) > WINDOW:
                shell = dict(value)
                shell[key] = []  # (keeps the key's place among the others)
                parts = [_packed(items[at : at + WINDOW]) for at in range(0, len(items), WINDOW)]
                made = cls(_packed(shell), key, parts)
            else:
                made = cls(_packed(value), None, [])
        except (ValueError, UnicodeError):
            return None
        made.truthy = bool(value)
        return made

    @classmethod
    def in_parts(cls, shell: dict[str, Any], key: str, parts: list[bytes]) -> PackedDocument:
        """A document whose array at ``key`` was packed a part at a time (:func:`pack_part`,
        in order) as it was read; ``shell``: its other members, ``key`` holding ``[]`` in its
        place. The same as :meth:`pack` of the whole document, but for where the parts are
        cut."""
        made = cls(_packed(shell), key, parts)
        made.truthy = True  # (an object with a member)
        return made

    def value(self) -> Any:
        """The document, unpacked whole (the first time; the same object from then on)."""
        if self._whole is _NOT_YET:
            whole = _unpacked(self._shell)
            if self._key is not None:
                whole[self._key] = [item for part in self._parts for item in _unpacked(part)]
            self._whole = whole
            self._shell, self._parts = b"", []
        return self._whole

    def shell(self) -> Any:
        """The document without the array packed in parts (``[]`` in its place), unpacked
        afresh; the whole document if it is not packed in parts or was unpacked whole."""
        if self._key is None or self._whole is not _NOT_YET:
            return self.value()
        return _unpacked(self._shell)

    @property
    def nbytes(self) -> int:
        """The bytes held packed (0 once unpacked whole)."""
        return len(self._shell) + sum(len(part) for part in self._parts)

    def windows(self) -> Iterator[tuple[int, list[Any]]] | None:
        """The array packed in parts, a part at a time: (index of its first entry, entries),
        each part unpacked afresh and not kept; ``None`` if the document is not packed in
        parts, or was unpacked whole already (then read it whole)."""
        if self._key is None or self._whole is not _NOT_YET:
            return None
        return self._windows(list(self._parts))

    @staticmethod
    def _windows(parts: list[bytes]) -> Iterator[tuple[int, list[Any]]]:
        at = 0
        for part in parts:
            items = _unpacked(part)
            yield at, items
            at += len(items)


def pack_part(items: list[Any]) -> bytes | None:
    """A part of an array, packed for :meth:`PackedDocument.in_parts`; ``None`` if
    :mod:`marshal` cannot write it as it is."""
    try:
        return _packed(items)
    except (ValueError, UnicodeError):
        return None


_NOT_YET: Any = object()

__all__ = ["WINDOW", "PackedDocument", "pack_part"]

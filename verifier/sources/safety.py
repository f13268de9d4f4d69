"""The one safety policy every archive source applies to its entries.

A zip file, a tarball and a git tree are all read as a list of entries (name, type, size)
before any byte of content is read. :class:`IndexBuilder` takes those entries one by one and
builds an :class:`Index`, the only view the rest of the verifier gets:

* names that are absolute (``/x``, ``C:\\x``), hold a ``..`` segment (``/`` or ``\\`` as
  separator), an empty segment, a NUL or another control character (C0, DEL, C1: a CR or LF
  would forge a line of a report, an escape sequence would rewrite a terminal) are refused
  (``source.unsafe-member``), and so is a name the source's own reader found ambiguous (a zip
  name that differs between the central directory and the local header); the finding names
  the raw name, NUL and all, so it is never mistaken for the real member (every output
  format shows it with visible escapes: :mod:`verifier.views.inert`);
* symbolic links, hard links, devices, FIFOs and sockets are never read or followed: they are
  :attr:`Kind.LINK` or :attr:`Kind.OTHER`, exactly as in a folder, and the integrity stage
  reports them when the manifest lists them or they lie in its scope; an entry below a link
  is :attr:`Kind.LINK` too;
* a name held by more than one entry, or by a file and a folder, is refused
  (``source.duplicate-member``), every copy of it;
* names equal after Unicode NFC normalisation and case folding, or once a ``\\`` is read as
  the folder separator it is on Windows, are refused, all of them (``source.name-collision``);
* the total uncompressed size is bounded (:attr:`Limits.max_bytes`), and so is the
  compression ratio (:attr:`Limits.max_ratio`, per zip member, per compressed tarball as a
  whole); an entry past a limit is refused (``source.too-large``) before it is decompressed,
  so an archive bomb costs neither memory nor time. A tarball's headers count too: a source
  that reads its own structure (tar headers, GNU long names, pax headers, padding, the bytes
  after the end-of-archive marker) charges every byte with :meth:`IndexBuilder.charge` before
  it reads it.

A folder on the local file system is already a set of distinct names on this machine: it has
no names to refuse and nothing expands, so only the link and device rules apply to it (see
:mod:`verifier.sources.directory`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from verifier.findings import Finding
from verifier.sources.interface import Kind

KIB = 1 << 10
MIB = 1 << 20
GIB = 1 << 30


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on what an archive may expand to. Defaults: 4 GiB in all (the files; for a
    tarball also its whole tar stream, headers included), a compression ratio of at most 100
    for anything over 1 MiB, at most a million entries."""

    max_bytes: int = 4 * GIB
    max_ratio: float = 100.0
    max_entries: int = 1_000_000
    ratio_floor: int = MIB  # ratios are only checked for sizes above this

    def to_dict(self) -> dict[str, Any]:
        return {
            "maxBytes": self.max_bytes,
            "maxRatio": self.max_ratio,
            "maxEntries": self.max_entries,
            "ratioFloor": self.ratio_floor,
        }


class EntryType(StrEnum):
    FILE = "file"
    DIRECTORY = "directory"
    SYMLINK = "symlink"
    HARDLINK = "hardlink"
    DEVICE = "device"  # character or block device, FIFO, socket
    OTHER = "other"  # git submodule, anything else that is not content


_KIND_OF_TYPE = MappingProxyType(
    {
        EntryType.FILE: Kind.FILE,
        EntryType.DIRECTORY: Kind.DIRECTORY,
        EntryType.SYMLINK: Kind.LINK,
        EntryType.HARDLINK: Kind.LINK,
        EntryType.DEVICE: Kind.OTHER,
        EntryType.OTHER: Kind.OTHER,
    }
)

_DRIVE = re.compile(r"^[A-Za-z]:")


def human(n: float) -> str:
    """A byte count for a message: 1.5 MiB, 20 KiB, 512 bytes."""
    for unit, size in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value >= 10 else f"{value:.1f} {unit}"
    return f"{int(n)} bytes"


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def member_name(raw: str) -> tuple[str | None, str]:
    """The archive-relative path an entry's stored name stands for, or ``None`` and why not.

    ``./`` and ``.`` segments are dropped and a trailing ``/`` is ignored; the root itself
    (``./``) gives ``""``.
    """
    if "\0" in raw:
        return None, "the name holds a NUL byte (tools that stop at it read another name)"
    control = _CONTROL.search(raw)
    if control is not None:
        return None, (
            f"the name holds the control character U+{ord(control.group()):04X} (a line "
            "break or escape sequence in a name can forge report lines or rewrite a terminal)"
        )
    if raw.startswith(("/", "\\")) or _DRIVE.match(raw):
        return None, "the name is absolute"
    if ".." in re.split(r"[/\\]", raw):
        return None, "the name has a '..' segment (it would be written outside the folder)"
    parts = raw.rstrip("/").split("/")
    kept = [p for p in parts if p != "."]
    if any(p == "" for p in kept):
        return None, "the name has an empty segment"
    return "/".join(kept), ""


def collision_key(name: str) -> str:
    """Names with the same key are one file on a case-insensitive or normalising system, or
    on Windows, where ``\\`` separates folders as ``/`` does."""
    folded = unicodedata.normalize("NFC", name).casefold().replace("\\", "/")
    return unicodedata.normalize("NFC", folded)


@dataclass(slots=True)
class Entry:
    name: str
    kind: Kind
    size: int
    ref: Any  # the source's own handle: a ZipInfo, a member number, a blob id


@dataclass(slots=True)
class Index:
    """The admitted entries of an archive, and what the policy refused."""

    entries: dict[str, Entry] = field(default_factory=dict)
    dirs: set[str] = field(default_factory=set)
    findings: list[Finding] = field(default_factory=list)
    complete: bool = True  # False when reading stopped at a limit or at damage
    total: int = 0  # uncompressed bytes of admitted regular files
    _sorted: list[str] = field(default_factory=list)

    def kind(self, name: str) -> Kind:
        parts = name.split("/")
        for i in range(1, len(parts)):
            above = self.entries.get("/".join(parts[:i]))
            if above is not None and above.kind is Kind.LINK:
                return Kind.LINK
        entry = self.entries.get(name)
        if entry is not None:
            return entry.kind
        if name in self.dirs or name == "":
            return Kind.DIRECTORY
        return Kind.MISSING

    def walk(self, folder: str) -> Iterator[tuple[str, Kind]]:
        if folder and self.kind(folder) is not Kind.DIRECTORY:
            return
        prefix = folder + "/" if folder else ""
        for name in self._sorted:
            if name.startswith(prefix):
                yield name, self.kind(name)

    def reroot(self, top: str) -> Index:
        """The same index seen from inside its folder ``top``."""
        cut = len(top) + 1
        out = Index(findings=self.findings, complete=self.complete, total=self.total)
        for name, entry in self.entries.items():
            if name.startswith(top + "/"):
                entry.name = name[cut:]
                out.entries[entry.name] = entry
        out.dirs = {d[cut:] for d in self.dirs if d.startswith(top + "/")}
        out._sorted = sorted(out.entries)
        return out

    def single_top_folder(self) -> str | None:
        """The one folder everything lies in (a release zip's ``project-1.0/``), if any."""
        tops = {name.split("/", 1)[0] for name in self.entries} | {
            d.split("/", 1)[0] for d in self.dirs
        }
        if len(tops) != 1:
            return None
        (top,) = tops
        return top if top in self.dirs else None


class IndexBuilder:
    """Feed entries in archive order with :meth:`add`; stop when it returns ``False``."""

    def __init__(self, limits: Limits, expand_limit: int | None = None) -> None:
        """``expand_limit``: what a compressed archive as a whole may expand to (the ratio
        limit times its size), checked before each entry is decompressed."""
        self.limits = limits
        self.expand_limit = expand_limit
        self.index = Index()
        self._seen: dict[str, list[Entry]] = {}
        self._count = 0
        self._expanded = 0

    def refuse(self, code: str, path: str, message: str) -> None:
        self.index.findings.append(Finding(code, path, message))

    def refuse_name(self, raw_name: str, why: str) -> None:
        """Refuse an entry for its name (``source.unsafe-member``), on its raw name."""
        self.refuse("source.unsafe-member", raw_name, f"Refused: {why}.")

    def charge(self, nbytes: int, after: str | None = None) -> bool:
        """Before a source reads ``nbytes`` of an archive's stream (a header, a long name, a
        member's content or padding, what follows the end-of-archive marker): count them, and
        return ``False`` with a finding when they would pass a limit (nothing is read then)."""
        self._expanded += nbytes
        where = f"after the entry {after}" if after else "at its start"
        if self._expanded > self.limits.max_bytes:
            self.refuse(
                "source.too-large",
                after or "",
                f"Refused: the archive's stream, headers included, is longer than "
                f"{human(self.limits.max_bytes)} (the limit, --max-bytes); nothing {where} "
                "was read.",
            )
            self.index.complete = False
            return False
        if self.expand_limit is not None and self._expanded > self.expand_limit:
            self.refuse(
                "source.too-large",
                after or "",
                f"Refused: the archive expands to more than {human(self.expand_limit)}, over "
                f"{self.limits.max_ratio:g} times its compressed size, headers included (the "
                f"limit, --max-ratio); nothing {where} was read.",
            )
            self.index.complete = False
            return False
        return True

    def add(
        self,
        raw_name: str,
        etype: EntryType,
        size: int,
        ref: Any,
        compressed: int | None = None,
    ) -> bool:
        """Admit or refuse one entry. ``compressed``: its compressed size, where the archive
        says (a zip member). With an expansion limit (a compressed tarball), a file's size is
        checked against what the stream may still expand to before its content is read; the
        source charges the bytes themselves (:meth:`charge`) as it reads them."""
        limits = self.limits
        self._count += 1
        if self._count > limits.max_entries:
            self.refuse(
                "source.too-large",
                raw_name,
                f"Refused: the archive has more than {limits.max_entries} entries (the "
                "limit); this entry and any after it were not read.",
            )
            self.index.complete = False
            return False
        name, why = member_name(raw_name)
        if name is None:
            self.refuse_name(raw_name, why)
            return True
        if name == "":
            return True  # the root folder itself
        if etype is EntryType.FILE:
            if self.index.total + size > limits.max_bytes:
                self.refuse(
                    "source.too-large",
                    name,
                    f"Refused: the archive's files expand to more than {human(limits.max_bytes)} "
                    "(the limit, --max-bytes); this entry and any after it were not read.",
                )
                self.index.complete = False
                return False
            if self.expand_limit is not None and self._expanded + size > self.expand_limit:
                self.refuse(
                    "source.too-large",
                    name,
                    f"Refused: the archive expands to more than {human(self.expand_limit)}, "
                    f"over {limits.max_ratio:g} times its compressed size (the limit, "
                    "--max-ratio); this entry and any after it were not read.",
                )
                self.index.complete = False
                return False
            if (
                compressed is not None
                and size > limits.ratio_floor
                and size > limits.max_ratio * max(compressed, 1)
            ):
                ratio = size / max(compressed, 1)
                self.refuse(
                    "source.too-large",
                    name,
                    f"Refused: it expands from {human(compressed)} to {human(size)}, a "
                    f"compression ratio of {ratio:.0f} (the limit is {limits.max_ratio:g}, "
                    "--max-ratio).",
                )
                self._seen.setdefault(name, []).append(Entry(name, Kind.REFUSED, size, ref))
                return True
            self.index.total += size
        kind = _KIND_OF_TYPE[etype]
        self._seen.setdefault(name, []).append(Entry(name, kind, size, ref))
        return True

    def damaged(self, after: str | None, why: str, *, complete: bool = False) -> None:
        """Reading stopped at damage (a truncated or corrupt archive). ``complete``: every
        entry was read all the same (the damage is in a compressed stream's trailer)."""
        where = f"after the entry {after}" if after else "at its start"
        rest = "every entry before it was read" if complete else "nothing after it was read"
        self.refuse(
            "source.unreadable",
            after or "",
            f"The archive is damaged {where}: {why}; {rest}. Re-create or re-download it.",
        )
        self.index.complete = self.index.complete and complete

    def finish(self) -> Index:
        index = self.index
        files: dict[str, Entry] = {}
        dirs: set[str] = set()
        for name, copies in self._seen.items():
            if all(c.kind is Kind.DIRECTORY for c in copies):
                dirs.add(name)
                continue
            if len(copies) > 1:
                self.refuse(
                    "source.duplicate-member",
                    name,
                    f"Refused: the archive holds {len(copies)} entries with this name; "
                    "tools disagree on which one is meant.",
                )
                files[name] = Entry(name, Kind.REFUSED, 0, None)
                continue
            files[name] = copies[0]
        for name in list(files):  # every folder on the way of an entry exists implicitly
            parts = name.split("/")
            for i in range(1, len(parts)):
                dirs.add("/".join(parts[:i]))
        for name in sorted(dirs & set(files)):
            if files[name].kind is Kind.LINK:
                continue  # entries below a link are reached through it: Kind.LINK
            if files[name].kind is not Kind.REFUSED:
                self.refuse(
                    "source.duplicate-member",
                    name,
                    "Refused: the archive holds both a file and a folder with this name.",
                )
            files[name] = Entry(name, Kind.REFUSED, 0, None)
        groups: dict[str, list[str]] = {}
        for name, entry in files.items():
            if entry.kind is not Kind.REFUSED:
                groups.setdefault(collision_key(name), []).append(name)
        for names in groups.values():
            if len(names) < 2:
                continue
            names.sort()
            for name in names:
                others = ", ".join(n for n in names if n != name)
                self.refuse(
                    "source.name-collision",
                    name,
                    f"Refused: the name collides with {others} after Unicode NFC "
                    "normalisation or case folding; extracted on another system, one would "
                    "replace the other.",
                )
                files[name] = Entry(name, Kind.REFUSED, 0, None)
        index.entries = files
        index.dirs = dirs - set(files)
        index._sorted = sorted(files)
        return index

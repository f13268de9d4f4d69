"""How a file of a source is opened where it is inspected: a small, picklable opener per
source kind, sent to each worker once with the context, and a per-file spec in each task
(both from the source's :class:`~verifier.sources.capabilities.WorkerReads` capability); each
source kind defines its own. A worker opens the file itself; nothing of the main process's
open source crosses.

* a folder: the root (the task's spec is the file's name below it);
* a zip: the zip's path (the spec: the member's name, local header offset and size, which
  the worker checks against its own reading of the central directory);
* an uncompressed tarball: the tarball's path and stamp (the spec: the member's content span
  and a digest of its header block);
* a git commit: the repository's path and object format (the spec: the blob id and the size
  the tree records; :mod:`verifier.sources.gitblobs`);
* a bag: its container's opener.

A compressed tarball has none (no ``WorkerReads``): its files are read in the main process,
in one pass (``Source.read_many``), and the audit record says so.
"""

from __future__ import annotations

from typing import Any

from verifier.sources.interface import Opener, Source, Stream


class LiveOpener(Opener):
    """This process's open source itself, for the in-process executor (never pickled)."""

    def __init__(self, source: Source) -> None:
        self.source = source

    def __getstate__(self) -> Any:
        raise TypeError("a live source does not cross processes: use its opener()")

    def open(self, name: str, where: Any) -> Stream:
        return self.source.open(name)

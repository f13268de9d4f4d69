"""A folder on the local file system."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator

from verifier.sources.interface import Kind, Source, SourceError, Stream


class DirectorySource(Source):
    """Files under a root folder. Never follows a symbolic link, never writes.

    Of the safety policy (:mod:`verifier.sources.safety`) only the link and device rules can
    apply to a folder: its names are already distinct entries of this file system, and
    nothing in it expands.
    """

    name = "directory"

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = os.path.abspath(os.fspath(root))
        if not os.path.isdir(self.root):
            raise SourceError(f"{os.fspath(root)} is not a directory")
        self.description = os.fspath(root)
        self._real_dirs: set[str] = set()
        self._sizes: dict[str, int] = {}  # sizes seen by kind()'s lstat, for size_hint

    def _full(self, name: str) -> str:
        if not name:
            return self.root
        return self.root + os.sep + (name if os.sep == "/" else name.replace("/", os.sep))

    def kind(self, name: str) -> Kind:
        head, _, _ = name.rpartition("/")
        if head in self._real_dirs:  # the common case: a file in a folder already seen
            try:
                st = os.lstat(self._full(name))
            except (FileNotFoundError, NotADirectoryError):
                return Kind.MISSING
            except OSError:
                return Kind.OTHER
            if stat.S_ISREG(st.st_mode):
                self._sizes[name] = st.st_size
                return Kind.FILE
            if stat.S_ISLNK(st.st_mode):
                return Kind.LINK
            return Kind.DIRECTORY if stat.S_ISDIR(st.st_mode) else Kind.OTHER
        path = self.root
        parts = name.split("/")
        # Folders on the way already seen to be real folders (not links) are not looked at
        # again: with many files per folder, one lstat per file instead of one per segment.
        start = 0
        for i in range(len(parts) - 1, 0, -1):
            prefix = "/".join(parts[:i])
            if prefix in self._real_dirs:
                start = i
                path = self._full(prefix)
                break
        for i in range(start, len(parts)):
            path = path + os.sep + parts[i]
            try:
                st = os.lstat(path)
            except (FileNotFoundError, NotADirectoryError):
                return Kind.MISSING
            except OSError:
                return Kind.OTHER
            if stat.S_ISLNK(st.st_mode):
                return Kind.LINK
            last = i == len(parts) - 1
            if not last and not stat.S_ISDIR(st.st_mode):
                return Kind.MISSING
            if not last:
                self._real_dirs.add("/".join(parts[: i + 1]))
            if last:
                if stat.S_ISREG(st.st_mode):
                    self._sizes[name] = st.st_size
                    return Kind.FILE
                if stat.S_ISDIR(st.st_mode):
                    return Kind.DIRECTORY
                return Kind.OTHER
        return Kind.MISSING

    def walk(self, folder: str) -> Iterator[tuple[str, Kind]]:
        if self.kind(folder) != Kind.DIRECTORY and folder:
            return
        stack = [folder]
        while stack:
            current = stack.pop()
            try:
                with os.scandir(self._full(current)) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                rel = f"{current}/{entry.name}" if current else entry.name
                if entry.is_symlink():
                    yield rel, Kind.LINK
                elif entry.is_dir(follow_symlinks=False):
                    stack.append(rel)
                elif entry.is_file(follow_symlinks=False):
                    with contextlib.suppress(OSError):  # its size, to spread reads by weight
                        self._sizes[rel] = entry.stat(follow_symlinks=False).st_size
                    yield rel, Kind.FILE
                else:
                    yield rel, Kind.OTHER

    def parallel_reads(self) -> bool:
        return True

    def size_hint(self, name: str) -> int:
        if name in self._sizes:
            return self._sizes[name]
        try:
            return os.lstat(self._full(name)).st_size
        except OSError:
            return 0

    def read_whole(self, name: str) -> bytes:
        """The bytes of a regular file, read in as few calls as its size allows (for small
        files read whole: no stream object). Raises OSError as :meth:`open` does."""
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
        fd = os.open(self._full(name), flags)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise OSError(f"{name} is not a regular file")
            parts = [os.read(fd, st.st_size + 1)]
            while parts[-1]:  # the file grew, or a short read: read to the end
                parts.append(os.read(fd, 1 << 20))
            return b"".join(parts) if len(parts) > 2 else parts[0]
        finally:
            os.close(fd)

    def open(self, name: str) -> Stream:
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
        fd = os.open(self._full(name), flags)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(f"{name} is not a regular file")
            return os.fdopen(fd, "rb", buffering=0)
        except BaseException:
            os.close(fd)
            raise


__all__ = ["DirectorySource", "SourceError"]

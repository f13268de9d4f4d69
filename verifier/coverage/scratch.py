"""The reference judge of ``--mutate --full``: the whole check, run on a scratch copy.

The listed files (and the manifest) are read from the source once, through the source's own
reader, and written under a fresh ``tempfile.mkdtemp`` folder: the audited source, whatever
its kind (a folder, a zip, a tarball, a git revision), is only ever read. Each process that
judges mutants takes its own copy of that folder; per mutant it writes the mutated record
there, rewrites that record's manifest line to the new digest (so integrity passes), runs
:func:`verifier.pipeline.run` on the copy, then puts both back. :meth:`Scratch.remove`
deletes the whole folder.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import replace

from verifier.coverage.report import killed_by
from verifier.errors import UsageError
from verifier.manifest import parse_manifest
from verifier.pipeline import Options, Run, open_location, run
from verifier.plan.locate import find_manifest
from verifier.report import Report
from verifier.sources.capabilities import layout_of


def _inside(root: str, name: str) -> str:
    """The path of archive name ``name`` under ``root``; refuses one that leaves it."""
    target = os.path.normpath(os.path.join(root, *name.split("/")))
    if os.path.commonpath([root, target]) != root or target == root:
        raise UsageError(f"--full: {name!r} cannot be copied to a scratch folder")
    return target


def _write(path: str, data: bytes) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as stream:
        stream.write(data)


class Scratch:
    """A scratch copy of an archive's listed files, and the check of one mutant on it."""

    def __init__(
        self,
        root: str,
        data: dict[str, bytes],
        manifest: bytes,
        manifest_rel: str | None,
        manifest_name: str,
        base: str,
        options: Options,
    ) -> None:
        self.root = root
        self.data = data  # archive path -> bytes, as read from the source
        self.manifest = manifest
        self.manifest_rel = manifest_rel  # its path in the archive, None if outside
        self.manifest_name = manifest_name
        self.base = base
        self.options = options
        self.lines = {e.name: e.line for e in parse_manifest(manifest).entries}
        self.baseline: Report | None = None

    @classmethod
    def make(
        cls, location: str | os.PathLike[str], options: Options, run_options: Options, checked: Run
    ) -> Scratch:
        source = open_location(location, options)
        root = os.path.realpath(tempfile.mkdtemp(prefix="verifier-mutate-"))
        try:
            with source:
                layout = layout_of(source)
                if layout.payload_manifests or layout.tag_manifests or layout.content_root:
                    raise UsageError("--full cannot copy a BagIt bag yet; leave out --full")
                if layout.algorithm(layout.manifest) != "sha256":
                    raise UsageError("--full rewrites SHA-256 manifests only; leave out --full")
                found, _ = find_manifest(source, os.fspath(location), options)
                if found is None:
                    raise UsageError("--full: the manifest could not be read")
                label, manifest, rel = found
                data: dict[str, bytes] = {}
                for entry in checked.report.files:
                    if not entry.listed or entry.status != "ok":
                        continue
                    try:
                        with source.open(entry.path) as stream:
                            data[entry.path] = stream.read()
                    except OSError:
                        continue
            name = os.path.basename(label) if rel is None else rel
            scratch = cls(root, data, manifest, rel, name, checked.base, run_options)
            scratch.baseline = scratch.check()
        except BaseException:
            shutil.rmtree(root, ignore_errors=True)
            raise
        return scratch

    def _tree(self) -> tuple[str, str]:
        """This process's copy (made on first use) and its manifest's path."""
        here = os.path.join(self.root, f"p{os.getpid()}")
        tree = os.path.join(here, "tree")
        if self.manifest_rel is not None:
            manifest = _inside(tree, self.manifest_rel)
        else:
            manifest = os.path.join(here, self.manifest_name)
        if not os.path.isdir(tree):
            os.makedirs(tree)
            for name, data in self.data.items():
                _write(_inside(tree, name), data)
            _write(manifest, self.manifest)
        return tree, manifest

    def check(self, path: str | None = None, data: bytes | None = None) -> Report:
        """The whole check of the copy, with ``path`` holding ``data`` (and its manifest
        line rewritten) if given; the copy is put back afterwards."""
        tree, manifest = self._tree()
        options = replace(
            self.options,
            manifest=manifest,
            rev=None,
            workers=1,
            executor="inline",
            progress=None,
            hints=False,
        )
        if path is None or data is None:
            return run(tree, options).report
        name = path[len(self.base) + 1 :] if self.base else path
        line = self.lines.get(name)
        if line is None:
            raise UsageError(f"--full: {path} has no line of its own in the manifest")
        lines = self.manifest.split(b"\n")
        raw = lines[line - 1]
        start = 1 if raw.startswith(b"\\") else 0
        digest = hashlib.sha256(data).hexdigest().encode()
        lines[line - 1] = raw[:start] + digest + raw[start + 64 :]
        target = _inside(tree, path)
        try:
            _write(target, data)
            _write(manifest, b"\n".join(lines))
            return run(tree, options).report
        finally:
            _write(target, self.data[path])
            _write(manifest, self.manifest)

    def judge(self, path: str, data: bytes) -> tuple[str, ...]:
        base = self.baseline
        assert base is not None
        after = self.check(path, data)
        return killed_by(base.assertions, after.assertions, after.findings, base.findings)

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


__all__ = ["Scratch"]

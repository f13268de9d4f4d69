"""A BagIt bag (RFC 8493), in any container: a folder, a zip, a tarball or a git commit.

How a bag maps onto the pipeline:

* the payload manifest ``manifest-sha256.txt`` is the manifest; its names are relative to the
  bag's root (``data/...``) and percent-encoding of CR, LF and ``%`` is undone; the scope for
  unlisted files is ``data/`` (every payload file must be listed, as RFC 8493 requires);
* the tag manifest ``tagmanifest-sha256.txt``, when present, is checked as a second manifest
  over the tag files, with no scope (a bag may hold tag files its tag manifest does not list);
* records, schemas and the assertion spec are looked for under ``data/`` (``data/evidence``,
  ``data/schemas``), as if ``data/`` were the archive's root;
* ``bagit.txt`` must declare ``BagIt-Version`` and ``Tag-File-Character-Encoding`` without a
  byte-order mark, ``data/`` must exist, and a ``Payload-Oxum`` in ``bag-info.txt`` must equal
  the payload's size and file count (``bag.malformed``, ``bag.oxum-mismatch``).

Only SHA-256 manifests are checked; manifests for other algorithms are named in the source's
identity as unchecked (the tag manifest still covers their bytes).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from verifier.model import FileEntry, Finding
from verifier.sources.interface import Kind, Layout, Source, Stream

BAGIT_TXT = "bagit.txt"
BAG_INFO = "bag-info.txt"
PAYLOAD_MANIFEST = "manifest-sha256.txt"
TAG_MANIFEST = "tagmanifest-sha256.txt"
PAYLOAD = "data"
_OTHER_MANIFEST = re.compile(r"^(tag)?manifest-([a-z0-9]+)\.txt$")


def decode_name(name: str) -> str:
    """RFC 8493 percent-encodes CR, LF and ``%`` in manifest names (and only those)."""
    return re.sub(
        "%(0[DdAa]|25)", lambda m: {"0d": "\r", "0a": "\n", "25": "%"}[m.group(1).lower()], name
    )


def parse_tags(data: bytes) -> tuple[dict[str, str], str | None]:
    """``Label: value`` lines (with folded continuation lines); the first problem, if any."""
    if data.startswith(b"\xef\xbb\xbf"):
        return {}, "it starts with a byte-order mark"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return {}, "it is not UTF-8"
    tags: dict[str, str] = {}
    label: str | None = None
    for line in text.splitlines():
        if not line.strip():
            continue
        if line[0] in " \t" and label is not None:
            tags[label] += " " + line.strip()
            continue
        if ":" not in line:
            return tags, f"the line {line.strip()!r} is not 'Label: value'"
        label, _, value = line.partition(":")
        label = label.strip()
        tags.setdefault(label, value.strip())
    return tags, None


class BagSource(Source):
    """A bag, read through the source that holds it."""

    name = "bag"

    def __init__(self, container: Source) -> None:
        self.container = container
        self.description = container.description

    # The files are the container's.
    def kind(self, name: str) -> Kind:
        return self.container.kind(name)

    def walk(self, folder: str) -> Iterator[tuple[str, Kind]]:
        return self.container.walk(folder)

    def open(self, name: str) -> Stream:
        return self.container.open(name)

    def read_many(self, names: Iterable[str]) -> Iterator[tuple[str, Stream | OSError]]:
        return self.container.read_many(names)

    def findings(self) -> list[Finding]:
        return self.container.findings()

    def details(self, name: str) -> dict[str, str]:
        return self.container.details(name)

    def older_version(self, name: str, sha256: str) -> str | None:
        return self.container.older_version(name, sha256)

    def complete(self) -> bool:
        return self.container.complete()

    def close(self) -> None:
        self.container.close()

    # What makes it a bag.
    def _present(self, name: str) -> bool:
        return self.container.kind(name) is Kind.FILE

    def unchecked_manifests(self) -> list[str]:
        return sorted(
            name
            for name, kind in self.container.walk("")
            if "/" not in name
            and kind is Kind.FILE
            and _OTHER_MANIFEST.match(name)
            and name not in (PAYLOAD_MANIFEST, TAG_MANIFEST)
        )

    def identity(self) -> dict[str, Any]:
        return {
            **self.container.identity(),
            "kind": "bag",
            "container": self.container.name,
            "uncheckedManifests": self.unchecked_manifests(),
        }

    def layout(self) -> Layout:
        return Layout(
            manifest=PAYLOAD_MANIFEST,
            tag_manifests=(TAG_MANIFEST,) if self._present(TAG_MANIFEST) else (),
            content_root=PAYLOAD,
            preread=tuple(n for n in (BAGIT_TXT, BAG_INFO) if self._present(n)),
            percent_encoded_names=True,
            payload=PAYLOAD,
        )

    def check_layout(self, preread: dict[str, bytes], files: list[FileEntry]) -> list[Finding]:
        out: list[Finding] = []
        declaration = preread.get(BAGIT_TXT)
        if declaration is None:
            out.append(Finding("bag.malformed", BAGIT_TXT, "The bag declaration is unreadable."))
        else:
            tags, problem = parse_tags(declaration)
            if problem:
                out.append(
                    Finding("bag.malformed", BAGIT_TXT, f"Not a valid declaration: {problem}.")
                )
            for label in ("BagIt-Version", "Tag-File-Character-Encoding"):
                if label not in tags:
                    out.append(
                        Finding("bag.malformed", BAGIT_TXT, f"The declaration has no {label}.")
                    )
            version = tags.get("BagIt-Version", "1.0")
            if not re.fullmatch(r"[0-9]+\.[0-9]+", version):
                out.append(
                    Finding("bag.malformed", BAGIT_TXT, f"BagIt-Version {version!r} is not M.N.")
                )
        if not self._present(PAYLOAD_MANIFEST):
            out.append(
                Finding(
                    "bag.malformed",
                    PAYLOAD_MANIFEST,
                    "The bag has no SHA-256 payload manifest; its payload was not checked.",
                )
            )
        if self.container.kind(PAYLOAD) is not Kind.DIRECTORY:
            out.append(Finding("bag.malformed", PAYLOAD, "The bag has no data/ payload folder."))
        info = preread.get(BAG_INFO)
        if info is not None:
            tags, problem = parse_tags(info)
            if problem:
                out.append(Finding("bag.malformed", BAG_INFO, f"Not valid tag lines: {problem}."))
            oxum = tags.get("Payload-Oxum")
            if oxum is not None and self._present(PAYLOAD_MANIFEST):
                # without the manifest the payload was not read: nothing to compare with
                out.extend(_check_oxum(oxum, files))
        return out


def _check_oxum(oxum: str, files: list[FileEntry]) -> list[Finding]:
    match = re.fullmatch(r"([0-9]+)\.([0-9]+)", oxum)
    if match is None:
        return [Finding("bag.malformed", BAG_INFO, f"Payload-Oxum {oxum!r} is not OCTETS.COUNT.")]
    octets, count = int(match.group(1)), int(match.group(2))
    payload = [f for f in files if f.path.startswith(PAYLOAD + "/") and f.size is not None]
    found_octets = sum(f.size or 0 for f in payload)
    if (octets, count) == (found_octets, len(payload)):
        return []
    return [
        Finding(
            "bag.oxum-mismatch",
            BAG_INFO,
            f"Payload-Oxum says {count} files and {octets} bytes; the payload has "
            f"{len(payload)} files and {found_octets} bytes.",
        )
    ]

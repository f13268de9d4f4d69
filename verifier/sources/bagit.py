"""A BagIt bag (RFC 8493), in any container: a folder, a zip, a tarball or a git commit.

How a bag maps onto the pipeline (``docs/bagit.md`` says it for users):

* every payload manifest ``manifest-ALG.txt`` is checked, each with its own algorithm (MD5,
  SHA-1, SHA-2, SHA-3, BLAKE2: the hashlib algorithms bagit-python knows); the first (SHA-256
  when there is one) is the report's manifest, the others are checked over the same files with
  the same scope, ``data/``: every payload file must be listed in every payload manifest (RFC
  8493 section 3; before BagIt 1.0, in at least one). Each file is read once and hashed with
  every algorithm it needs;
* every tag manifest ``tagmanifest-ALG.txt`` is checked over the tag files, with no scope (a
  bag may hold tag files its tag manifests do not list);
* manifest lines are ``CHECKSUM``, one or more spaces or tabs, ``FILEPATH`` (RFC 8493 2.1.3),
  in the encoding ``bagit.txt`` declares, with ``%0D``, ``%0A`` and ``%25`` decoded;
* records, schemas and the assertion spec are looked for under ``data/``, as if ``data/`` were
  the archive's root;
* ``bagit.txt`` must be exactly ``BagIt-Version: M.N`` and ``Tag-File-Character-Encoding:
  ENCODING`` (UTF-8, no byte-order mark); ``bag-info.txt`` is read as bagit-python reads it, and
  a ``Payload-Oxum`` there must equal the payload's size and file count;
* ``fetch.txt`` is parsed and never fetched (the verifier is offline): a path that leaves
  ``data/`` is ``bag.fetch-invalid``, and a listed file it names that is absent is
  ``bag.not-fetched``, not checked.
"""

from __future__ import annotations

import codecs
import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from verifier.findings import Finding
from verifier.manifest import Entry, Malformed, ParsedManifest, normalize_name
from verifier.report import FileEntry
from verifier.sources.capabilities import LayoutRules, OwnLayout
from verifier.sources.interface import C, Kind, Layout, Source, Stream

BAGIT_TXT = "bagit.txt"
BAG_INFO = "bag-info.txt"
PACKAGE_INFO = "package-info.txt"  # BagIt 0.93 to 0.95
FETCH_TXT = "fetch.txt"
PAYLOAD = "data"
DEFAULT_MANIFEST = "manifest-sha256.txt"
#: the algorithms a manifest may name: bagit-python's (hashlib's guaranteed ones) but SHAKE,
#: whose digests have no fixed length
ALGORITHMS = (
    "md5",
    "sha1",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "sha3_224",
    "sha3_256",
    "sha3_384",
    "sha3_512",
    "blake2b",
    "blake2s",
)
_PREFERRED = ("sha256", "sha512")  # the report's manifest: the first of these present
_MANIFEST_NAME = re.compile(r"(tag)?manifest-([^/]+)\.txt", re.IGNORECASE)
_NEWLINE = re.compile(r"\r\n|\r|\n")
_DECLARATION = re.compile(
    r"BagIt-Version:[ \t]([0-9]+)\.([0-9]+)(?:\r\n|\r|\n)"
    r"Tag-File-Character-Encoding:[ \t]([^\r\n]*)(?:\r\n|\r|\n)?"
)
_ENCODING_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}")
_OXUM = re.compile(r"([0-9]{1,20})\.([0-9]{1,20})")
_MAX_DIGITS = 20  # a version or an octet count: up to 2**64
_LENGTH = re.compile(r"-|[0-9]{1,20}")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S+")
_MAX_FINDINGS = 20  # per tag file: the first problems say enough
_SHOWN = 60


def _bounded(findings: list[Finding]) -> list[Finding]:
    """The first findings of one kind in one file; the last kept one says how many more."""
    if len(findings) <= _MAX_FINDINGS:
        return findings
    kept = findings[:_MAX_FINDINGS]
    last = kept[-1]
    more = len(findings) - _MAX_FINDINGS
    kept[-1] = Finding(
        last.code,
        last.path,
        f"{last.message} ({more} more like it in {last.path} are not reported one by one.)",
        line=last.line,
    )
    return kept


def _show(text: str) -> str:
    """Archive text quoted in a message, cut to a readable length."""
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "...")


def decode_name(name: str) -> str:
    """RFC 8493 percent-encodes CR, LF and ``%`` in manifest names (and only those)."""
    return re.sub(
        "%(0[DdAa]|25)", lambda m: {"0d": "\r", "0a": "\n", "25": "%"}[m.group(1).lower()], name
    )


def split_lines(text: str) -> list[str]:
    """Lines ended by LF, CR or CRLF (never the other breaks ``str.splitlines`` knows)."""
    lines = _NEWLINE.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def decode_tag_file(data: bytes, encoding: str) -> tuple[str | None, str | None]:
    """A tag file's text in the bag's declared encoding (a leading byte-order mark dropped,
    as bagit-python does), or the problem."""
    try:
        text = data.decode(encoding)
    except (LookupError, ValueError) as exc:
        reason = exc.reason if isinstance(exc, UnicodeDecodeError) else str(exc)
        return None, f"it is not valid {encoding} text ({reason})"
    return text.removeprefix("\ufeff"), None


def _text_encoding(name: str) -> bool:
    """Whether Python knows ``name`` as a text encoding (not ``rot13``, ``hex`` or ``zlib``,
    which ``codecs`` also knows)."""
    try:
        info = codecs.lookup(name)
    except LookupError:
        return False
    return bool(getattr(info, "_is_text_encoding", True))


def parse_info(text: str) -> tuple[dict[str, str], list[tuple[int, str]]]:
    """``bag-info.txt`` (RFC 8493 2.2.2) read as bagit-python reads it: ``Label: value``
    elements, the label and value trimmed of whitespace (a space, a tab or nothing after the
    colon), a line starting with whitespace continues the element before it (at the top, it
    starts one); labels may repeat (the first value is kept), an empty label is skipped. Only
    a line with no colon is a problem; the problems come with their line numbers. Lines end
    at LF, CR or CRLF only (bagit-python also splits at the other Unicode line breaks)."""
    tags: dict[str, str] = {}
    problems: list[tuple[int, str]] = []
    current: str | None = None  # the label continuation lines extend (None: a repeat's)
    in_element = False
    for number, line in enumerate(split_lines(text), 1):
        if not line or line.isspace():
            continue
        if line[0].isspace() and in_element:
            if current is not None:
                tags[current] += " " + line.strip()
            continue
        in_element = False
        name, colon, value = line.strip().partition(":")
        if not colon:
            problems.append((number, f"the line {_show(line)} is not 'Label: value'"))
            continue
        name = name.strip()
        in_element = True
        current = None if not name or name in tags else name
        if name:
            tags.setdefault(name, value.strip())
    return tags, problems


def parse_tags(data: bytes, encoding: str = "utf-8") -> tuple[dict[str, str], str | None]:
    """``Label: value`` lines of a tag file in ``encoding``; the first problem, if any."""
    text, problem = decode_tag_file(data, encoding)
    if text is None:
        return {}, problem
    tags, problems = parse_info(text)
    return tags, (f"line {problems[0][0]}: {problems[0][1]}" if problems else None)


def parse_bag_manifest(text: str, algorithm: str) -> ParsedManifest:
    """A BagIt manifest (RFC 8493 2.1.3): ``CHECKSUM``, one or more spaces or tabs, then the
    rest of the line is ``FILEPATH`` (trailing blanks included: they are the name's). Blank
    lines are skipped, as are ``#`` lines (bagit-python's comments; no checksum starts with
    ``#``). Names come percent-encoded, as written."""
    hex_digits = hashlib.new(algorithm).digest_size * 2
    line_form = re.compile(r"([0-9A-Fa-f]+)[ \t]+(.+)", re.DOTALL)
    entries: list[Entry] = []
    malformed: list[Malformed] = []
    for number, line in enumerate(split_lines(text), 1):
        if not line.strip() or line.startswith("#"):
            continue
        match = line_form.fullmatch(line)
        if match is None:
            malformed.append(
                Malformed(number, "not 'CHECKSUM FILEPATH' (hexadecimal, blanks, a path)")
            )
            continue
        digest, name = match.groups()
        if len(digest) != hex_digits:
            malformed.append(
                Malformed(
                    number,
                    f"the checksum has {len(digest)} hexadecimal digits, "
                    f"{algorithm} has {hex_digits}",
                )
            )
            continue
        if decode_name(name).startswith("~"):
            malformed.append(
                Malformed(number, "the path starts with '~', a home folder to a shell")
            )
            continue
        entries.append(Entry(number, name, digest.lower(), False))
    return ParsedManifest(tuple(entries), tuple(malformed))


@dataclass(frozen=True, slots=True)
class FetchEntry:
    line: int
    url: str
    length: str
    path: str


def parse_fetch(text: str) -> tuple[dict[str, FetchEntry], list[Finding]]:
    """``fetch.txt`` (RFC 8493 2.2.3): ``URL LENGTH FILEPATH`` lines, LENGTH octets or ``-``,
    FILEPATH percent-encoded as in manifests. A path must name a payload file (under
    ``data/``, no ``..``, not absolute, no ``~``); nothing is ever fetched."""
    entries: dict[str, FetchEntry] = {}
    findings: list[Finding] = []

    def bad(number: int, message: str) -> None:
        findings.append(Finding("bag.fetch-invalid", FETCH_TXT, message, line=number))

    line_form = re.compile(r"(\S+)[ \t]+(\S+)[ \t]+(.+)", re.DOTALL)
    for number, line in enumerate(split_lines(text), 1):
        if not line.strip():
            continue
        match = line_form.fullmatch(line)
        if match is None:
            bad(number, "Not 'URL LENGTH FILEPATH'; fix or remove the line.")
            continue
        url, length, raw = match.groups()
        if not _URL.fullmatch(url):
            bad(number, f"The URL {_show(url)} is not an absolute URI; fix the line.")
            continue
        if not _LENGTH.fullmatch(length):
            bad(number, f"The length {_show(length)} is neither octets nor '-'; fix the line.")
            continue
        path = decode_name(raw)
        norm = normalize_name(path)
        if path.startswith("~") or norm is None or "\\" in path:
            bad(
                number,
                f"The path {_show(path)} escapes the bag (absolute, '..', '~' or a drive); "
                "the bag is invalid and nothing was fetched.",
            )
            continue
        if not norm.startswith(PAYLOAD + "/"):
            bad(
                number,
                f"The path {_show(path)} is not in the payload (data/); fetch.txt may name "
                "payload files only.",
            )
            continue
        if norm in entries:
            bad(
                number,
                f"The path {_show(path)} is named again (first on line {entries[norm].line}).",
            )
            continue
        entries[norm] = FetchEntry(number, url, length, norm)
    return entries, _bounded(findings)


@dataclass(slots=True)
class _Declared:
    """What the bag's own files say, parsed once from the bytes the pipeline read."""

    encoding: str = "utf-8"
    version: tuple[int, int] = (1, 0)
    findings: list[Finding] = field(default_factory=list)
    fetch: dict[str, FetchEntry] = field(default_factory=dict)


class BagSource(Source, OwnLayout):
    """A bag, read through the source that holds it: the core's answers are the container's,
    the layout is the bag's own, and every other capability is the container's
    (:meth:`capability`), so a bag on a folder or a zip is read by workers as they are."""

    name = "bag"

    def __init__(self, container: Source) -> None:
        self.container = container
        self.description = container.description
        self._manifests: tuple[dict[str, str], dict[str, str], list[str]] | None = None
        self._declared = _Declared()

    # The files are the container's: the core, and any capability but the layout.
    def capability(self, kind: Callable[..., C]) -> C | None:
        own = super().capability(kind)
        return own if own is not None else self.container.capability(kind)

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

    def complete(self) -> bool:
        return self.container.complete()

    def close(self) -> None:
        self.container.close()

    # What makes it a bag.
    def _present(self, name: str) -> bool:
        return self.container.kind(name) is Kind.FILE

    def manifests(self) -> tuple[dict[str, str], dict[str, str], list[str]]:
        """The payload manifests and the tag manifests (name -> algorithm), and the files
        named like manifests that cannot be checked (an unknown algorithm, a link)."""
        if self._manifests is None:
            payload: dict[str, str] = {}
            tags: dict[str, str] = {}
            unknown: list[str] = []
            for name, kind in self.container.walk(""):
                match = _MANIFEST_NAME.fullmatch(name)
                if "/" in name or match is None:
                    continue
                algorithm = match.group(2)
                if kind is not Kind.FILE or algorithm not in ALGORITHMS:
                    unknown.append(name)
                    continue
                (tags if match.group(1) else payload)[name] = algorithm
            self._manifests = (payload, tags, sorted(unknown))
        return self._manifests

    def _payload_order(self) -> list[str]:
        payload = self.manifests()[0]

        def rank(name: str) -> tuple[int, str]:
            algorithm = payload[name]
            at = _PREFERRED.index(algorithm) if algorithm in _PREFERRED else len(_PREFERRED)
            return at, name

        return sorted(payload, key=rank)

    def identity(self) -> dict[str, Any]:
        payload, tags, unknown = self.manifests()
        return {
            **self.container.identity(),
            "kind": "bag",
            "container": self.container.name,
            "manifests": dict(sorted({**payload, **tags}.items())),
            "uncheckedManifests": unknown,
        }

    def layout(self) -> Layout:
        payload, tags, _ = self.manifests()
        order = self._payload_order()
        primary = order[0] if order else DEFAULT_MANIFEST
        own = (BAGIT_TXT, BAG_INFO, PACKAGE_INFO, FETCH_TXT)
        return Layout(
            manifest=primary,
            payload_manifests=tuple(order[1:]),
            tag_manifests=tuple(sorted(tags)),
            content_root=PAYLOAD,
            preread=(
                *(n for n in own if self._present(n)),
                *order[1:],
                *sorted(tags),
            ),
            percent_encoded_names=True,
            payload=PAYLOAD,
            algorithms={**payload, **tags},
        )

    def take_layout_files(self, preread: dict[str, bytes]) -> None:
        declared = _Declared()
        self._declared = declared
        data = preread.get(BAGIT_TXT)
        if data is None:
            declared.findings.append(
                Finding("bag.malformed", BAGIT_TXT, "The bag declaration is unreadable.")
            )
        else:
            self._declaration(data, declared)
        fetch = preread.get(FETCH_TXT)
        if fetch is not None:
            text, problem = decode_tag_file(fetch, declared.encoding)
            if text is None:
                declared.findings.append(
                    Finding("bag.fetch-invalid", FETCH_TXT, f"Not readable: {problem}.")
                )
            else:
                declared.fetch, found = parse_fetch(text)
                declared.findings.extend(found)

    @staticmethod
    def _declaration(data: bytes, declared: _Declared) -> None:
        """``bagit.txt`` (RFC 8493 2.1.1): exactly two lines, in UTF-8 without a BOM."""

        def malformed(message: str) -> None:
            declared.findings.append(Finding("bag.malformed", BAGIT_TXT, message))

        if data.startswith(b"\xef\xbb\xbf"):
            malformed("The declaration starts with a byte-order mark; RFC 8493 forbids one.")
            data = data[3:]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            malformed("The declaration is not UTF-8.")
            return
        match = _DECLARATION.fullmatch(text)
        if match is not None:
            major, minor, encoding = match.groups()
        else:
            lines = split_lines(text)
            tags: dict[str, str] = {}
            for line in lines:
                label, _, value = line.partition(":")
                tags.setdefault(label.strip(), value.strip())
            malformed(
                "The declaration must be exactly the two lines 'BagIt-Version: M.N' and "
                "'Tag-File-Character-Encoding: ENCODING' (RFC 8493 2.1.1), not "
                + " and ".join(_show(line) for line in lines[:3])
                + ("..." if len(lines) > 3 else "")
                + "."
            )
            for label in ("BagIt-Version", "Tag-File-Character-Encoding"):
                if label not in tags:
                    malformed(f"The declaration has no {label}.")
            version = re.fullmatch(r"([0-9]{1,20})\.([0-9]{1,20})", tags.get("BagIt-Version", ""))
            if version is None:
                return
            major, minor = version.groups()
            encoding = tags.get("Tag-File-Character-Encoding", "UTF-8")
        if len(major) > _MAX_DIGITS or len(minor) > _MAX_DIGITS:
            malformed("BagIt-Version has too many digits.")
            return
        declared.version = (int(major), int(minor))
        if not (0, 93) <= declared.version < (2, 0):
            malformed(
                f"BagIt-Version {major}.{minor} is not a version this verifier reads "
                "(0.93 to 1.x); its tag files were read as BagIt 1.0."
            )
        if not _ENCODING_NAME.fullmatch(encoding) or not _text_encoding(encoding):
            malformed(
                f"Tag-File-Character-Encoding {_show(encoding)} is not a text encoding this "
                "verifier knows; the tag files were read as UTF-8."
            )
            return
        declared.encoding = encoding

    def payload_in_every_manifest(self) -> bool:
        return self._declared.version >= (1, 0)

    def parse_manifest(self, name: str, data: bytes) -> ParsedManifest | None:
        payload, tags, _ = self.manifests()
        algorithm = payload.get(name) or tags.get(name) or "sha256"
        text, problem = decode_tag_file(data, self._declared.encoding)
        if text is None:
            return ParsedManifest((), (Malformed(1, f"the manifest: {problem}"),))
        return parse_bag_manifest(text, algorithm)

    def layout_rules(self, preread: dict[str, bytes]) -> LayoutRules:
        payload, _, unknown = self.manifests()
        info_name = PACKAGE_INFO if self._declared.version < (0, 96) else BAG_INFO
        return _BagRules(
            self._declared,
            bool(payload),
            tuple(unknown),
            self.container.kind(PAYLOAD) is Kind.DIRECTORY,
            info_name,
            preread.get(info_name),
        )


class _BagRules(LayoutRules):
    """A bag's rules over what was taken from it: its declaration (``bagit.txt``,
    ``fetch.txt``), whether it has a payload manifest, the names like manifests it could not
    read, whether ``data/`` is a folder, and the bytes of ``bag-info.txt``."""

    def __init__(
        self,
        declared: _Declared,
        payload: bool,
        unknown: tuple[str, ...],
        payload_folder: bool,
        info_name: str,
        info: bytes | None,
    ) -> None:
        self._declared = declared
        self._payload = payload
        self._unknown = unknown
        self._payload_folder = payload_folder
        self._info_name = info_name
        self._info = info

    def explain_missing(self, name: str, line: int) -> Finding | None:
        entry = self._declared.fetch.get(name)
        if entry is None:
            return None
        return Finding(
            "bag.not-fetched",
            name,
            f"Absent, and fetch.txt (line {entry.line}) says to fetch it: nothing is fetched "
            "offline, so it was not checked. Fetch it into the bag and verify again.",
            line=line,
        )

    def check(self, files: list[FileEntry]) -> list[Finding]:
        declared = self._declared
        out = list(declared.findings)
        payload, info_name, info = self._payload, self._info_name, self._info
        for name in self._unknown:
            out.append(
                Finding(
                    "bag.malformed",
                    name,
                    "Named like a manifest, but not a regular file or not for an algorithm "
                    f"this verifier knows ({', '.join(ALGORITHMS)}); not checked.",
                )
            )
        if not payload:
            out.append(
                Finding(
                    "bag.malformed",
                    DEFAULT_MANIFEST,
                    "The bag has no payload manifest (manifest-ALG.txt); its payload was not "
                    "checked.",
                )
            )
        if not self._payload_folder:
            out.append(Finding("bag.malformed", PAYLOAD, "The bag has no data/ payload folder."))
        if info is not None:
            text, problem = decode_tag_file(info, declared.encoding)
            tags: dict[str, str] = {}
            if text is None:
                out.append(Finding("bag.malformed", info_name, f"Not readable: {problem}."))
            else:
                tags, problems = parse_info(text)
                out.extend(
                    _bounded(
                        [
                            Finding(
                                "bag.malformed",
                                info_name,
                                f"Not a 'Label: value' line: {p}.",
                                line=n,
                            )
                            for n, p in problems
                        ]
                    )
                )
            oxum = tags.get("Payload-Oxum")
            if oxum is not None and payload:
                # without a payload manifest the payload was not read: nothing to compare
                out.extend(_check_oxum(oxum, files, info_name))
        listed = {f.path for f in files if f.listed}
        unlisted: list[Finding] = []
        for path, entry in sorted(declared.fetch.items(), key=lambda item: item[1].line):
            if path not in listed and payload:
                unlisted.append(
                    Finding(
                        "bag.fetch-invalid",
                        FETCH_TXT,
                        f"Names {_show(path)}, which no payload manifest lists; every file to "
                        "fetch must be listed.",
                        line=entry.line,
                    )
                )
        out.extend(_bounded(unlisted))
        return out


def _check_oxum(oxum: str, files: list[FileEntry], info_name: str = BAG_INFO) -> list[Finding]:
    match = _OXUM.fullmatch(oxum)
    if match is None:
        return [
            Finding(
                "bag.malformed",
                info_name,
                f"Payload-Oxum {_show(oxum)} is not OCTETS.COUNT (ASCII digits, at most "
                f"{_MAX_DIGITS} each).",
            )
        ]
    octets, count = int(match.group(1)), int(match.group(2))
    payload = [f for f in files if f.path.startswith(PAYLOAD + "/") and f.size is not None]
    found_octets = sum(f.size or 0 for f in payload)
    if (octets, count) == (found_octets, len(payload)):
        return []
    holes = sum(1 for f in files if f.status == "not-fetched")
    held = sum(1 for f in files if f.status == "withheld")
    why = [f"{holes} named in fetch.txt not fetched"] if holes else []
    why += [f"{held} withheld by the archive's withheld list"] if held else []
    return [
        Finding(
            "bag.oxum-mismatch",
            info_name,
            f"Payload-Oxum says {count} files and {octets} bytes; the payload has "
            f"{len(payload)} files and {found_octets} bytes"
            + (f" ({', '.join(why)})." if why else "."),
        )
    ]

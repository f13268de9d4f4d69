"""The records' part of the plan: which files are records, schemas or documents (the assertion
spec, the case catalogue), the schema bundle built from the schemas, and the index of what
every other record must yield.

Schemas and documents are read first, in the main process (:meth:`RecordPlan.early`), and
handed to :meth:`RecordPlan.prepare`: the schemas are parsed and checked once into the
bundle; the documents are parsed (strictly, as every record), kept whole, and read for what
they select. Each bytes object is dropped as soon as it is parsed, so the spec is never held
twice. Every other record is then inspected wherever its task runs, with its wants.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from verifier.json.pointer import Glob
from verifier.plan.cases import (
    MAX_INSTANCES,
    META,
    CaseRules,
    expanded,
    expanded_in_parts,
    has_rules,
    planned,
)
from verifier.plan.spec import DEFAULT_SPEC, Container, containers_in, needs_of
from verifier.record.check import RecordResult, process_document, process_in_windows
from verifier.record.place import place_each
from verifier.schema.bundle import NO_WITNESS, Prepared, is_schema_path, prepare_validity
from verifier.values import packed as packing
from verifier.values.needs import CATALOGUE, Need, NeedIndex, Wants, selectors_in
from verifier.values.packed import PackedDocument, pack_part
from verifier.values.witness import WitnessSettings

ASSERTIONS = "assertions"  # the spec's array of assertions
#: a spec of this many bytes or more is read a window of its assertions at a time
#: (:meth:`RecordPlan._spec_in_windows`); a smaller one whole, as every document
WINDOWED_FROM = 4 << 20


@dataclass(slots=True)
class RecordPlan:
    """Where records, schemas and documents are, and (once :meth:`prepare` ran) the bundle,
    the documents' results and values, and the need index."""

    prefix: str  # the content root, with its slash ("" for the source's root)
    records_dir: str = "evidence"
    schemas_dir: str = "schemas"
    spec_path: str = DEFAULT_SPEC
    documents: tuple[str, ...] = (CATALOGUE,)
    whole: tuple[str, ...] = ()
    validate: bool = True
    consistency: bool = True
    #: at most this many rule instances are made (:mod:`verifier.plan.cases`)
    max_instances: int = MAX_INSTANCES
    #: what the witness logs are checked with (:class:`~verifier.values.witness.WitnessSettings`)
    witness: WitnessSettings = NO_WITNESS
    #: whether rules that read their own case's files only are judged where the case is read
    #: (:attr:`case_rules`), not expanded here
    judge_cases: bool = False
    bundle: Prepared | None = None
    results: dict[str, RecordResult] = field(default_factory=dict)  # the documents'
    kept: dict[str, Any] = field(default_factory=dict)  # documents kept whole
    #: the kept documents packed while the records are inspected (:meth:`pack`); the
    #: documents that could not be packed stay in :attr:`kept`
    packed: dict[str, PackedDocument] = field(default_factory=dict)
    index: NeedIndex | None = None
    #: the spec's ``transcripts`` and ``witnesses`` (:func:`~verifier.plan.spec.containers_in`),
    #: read in :meth:`prepare`
    containers: tuple[Container, ...] = ()
    globs: tuple[Glob, ...] = ()  # the containers' patterns, compiled
    #: the spec's rules judged where their cases are read, if it has such rules
    case_rules: CaseRules | None = None

    def fresh(self) -> RecordPlan:
        """The same plan before :meth:`prepare` (to prepare again from other files)."""
        return RecordPlan(
            self.prefix,
            self.records_dir,
            self.schemas_dir,
            self.spec_path,
            self.documents,
            self.whole,
            self.validate,
            self.consistency,
            self.max_instances,
            self.witness,
            self.judge_cases,
        )

    def is_record(self, inner: str) -> bool:
        if self.containers and self.container_of(inner) is not None:
            return True
        return inner.startswith(self.records_dir.strip("/") + "/") and inner.endswith(".json")

    def container_of(self, inner: str) -> tuple[str | None, bool] | None:
        """The shape (``None``: detected) and ``--leaf`` of a file the spec declares a
        transcript container, or ``None``."""
        if not self.containers or inner == self.spec_path:
            return None
        if len(self.globs) != len(self.containers):  # compiled once per spec, not per file
            self.globs = tuple(Glob(c[0]) for c in self.containers)
        for glob, (_, shape, leaf, _) in zip(self.globs, self.containers, strict=True):
            if glob.match(inner):
                return shape, leaf
        return None

    def classify(self, name: str) -> tuple[str, str | None]:
        """A source path's role and its record path inside the content root: ``("schema",
        None)``, ``("document", inner)`` (the spec, the catalogue: read first), ``("record",
        inner)``, or ``("other", None)`` (not parsed): what :meth:`parsed`, :meth:`inner` and
        :meth:`early` say together, decided once per file."""
        prefix = self.prefix
        if not name.startswith(prefix):
            return "other", None
        inner = name[len(prefix) :]
        if is_schema_path(inner, self.schemas_dir):
            return "schema", None
        if not self.is_record(inner):
            return "other", None
        if inner == self.spec_path or inner in self.documents:
            return "document", inner
        return "record", inner

    def classifier(self) -> Callable[[str], tuple[str, str | None]]:
        """:meth:`classify` with what is the same for every file (the prefixes, the
        documents, whether the spec declares containers) looked up once, for a run's every
        task: the same answers while the plan does not change (made after :meth:`prepare`)."""
        prefix, cut = self.prefix, len(self.prefix)
        schemas = self.schemas_dir + "/"
        records = self.records_dir.strip("/") + "/"
        documents = frozenset({self.spec_path, *self.documents})
        container_of = self.container_of if self.containers else None
        other: tuple[str, str | None] = ("other", None)
        schema: tuple[str, str | None] = ("schema", None)

        def classify(name: str) -> tuple[str, str | None]:
            if not name.startswith(prefix):
                return other
            inner = name[cut:]
            if inner.endswith(".json"):
                if inner.startswith(schemas):
                    return schema
                if not inner.startswith(records) and (
                    container_of is None or container_of(inner) is None
                ):
                    return other
            elif container_of is None or container_of(inner) is None:
                return other
            return ("document" if inner in documents else "record"), inner

        return classify

    def inner(self, name: str) -> str | None:
        """The record path inside the content root of a source path, or ``None`` if it is
        not a record (outside the root, a schema, another file)."""
        if not name.startswith(self.prefix):
            return None
        inner = name[len(self.prefix) :]
        if is_schema_path(inner, self.schemas_dir) or not self.is_record(inner):
            return None
        return inner

    def parsed(self, name: str) -> bool:
        """Whether a later stage parses this file (a record or a schema, inside the root)."""
        if not name.startswith(self.prefix):
            return False
        inner = name[len(self.prefix) :]
        return self.is_record(inner) or is_schema_path(inner, self.schemas_dir)

    def early(self, name: str) -> bool:
        """A file read before any record: a schema or a document."""
        if not name.startswith(self.prefix):
            return False
        inner = name[len(self.prefix) :]
        return is_schema_path(inner, self.schemas_dir) or inner in {
            self.spec_path,
            *self.documents,
        }

    def prepare(self, early: dict[str, bytes], listed: Iterable[str] = ()) -> None:
        """Build the bundle from the schemas among ``early`` (source path -> hashed bytes),
        check and keep the documents (and any other record among them), and index the
        needs. ``early`` is emptied as it is read.

        The documents are kept for the whole run, and a large spec repeats most of its
        strings (a kind, a description, a pointer, a file named by several assertions): each
        is held once, and a file the manifest lists (``listed``, paths in the source) is
        held as the manifest's own string when the content root is the source's root (then
        it is the same object as the record's name)."""
        cut = len(self.prefix)
        inner = {n[cut:]: b for n, b in early.items() if n.startswith(self.prefix)}
        self.bundle = prepare_validity(inner, self.schemas_dir, self.validate)
        self.bundle.witness = self.witness
        # the schemas' findings placed while their bytes are in hand (no second read)
        self.bundle.findings[:] = place_each(inner, self.bundle.findings)
        records = {p: b for n, b in early.items() if (p := self.inner(n)) is not None}
        early.clear()
        inner.clear()
        listed = listed if isinstance(listed, list | tuple) else list(listed)
        strings = {name: name for name in listed} if not self.prefix else {}
        index: NeedIndex | None = None  # (the spec's needs, when it is read in windows)
        shell: dict[str, Any] | None = None
        spec_bytes = records.get(self.spec_path, b"")
        # (a spec with rules is read whole: its rules are expanded below)
        if len(spec_bytes) >= WINDOWED_FROM and b'"rules"' not in spec_bytes:
            index, shell = self._spec_in_windows(records, strings)
        for path in sorted(records):
            # (its bytes handed over in the dict: let go once parsed, before validation)
            result, value = process_document(self.bundle, path, records, strings)
            self.results[path] = result
            if value is not None:
                self.kept[path] = value
        del strings
        spec = self.kept.get(self.spec_path)
        if isinstance(spec, dict) and has_rules(spec):  # once, here: every step reads them
            inside = [n[cut:] for n in listed if n.startswith(self.prefix)]
            apart = (
                planned(spec, inside, self.max_instances, self.spec_path)
                if self.judge_cases and self.consistency
                else None
            )
            if apart is not None:  # judged where each case is read: not expanded here
                self.kept[self.spec_path], self.case_rules = apart
                index = NeedIndex(needs_of(apart[0]))
                index.add_per_case(self.case_rules.members, self.case_rules.needs())
                shell = apart[0]
                done = None
            else:
                done = self._rules_in_parts(spec, inside)
            if done is not None:
                index, shell = done
            elif apart is None:  # (a part marshal could not write: expanded whole, packed
                # later or not)
                self.kept[self.spec_path] = expanded(spec, inside, self.max_instances)
        elif isinstance(spec, dict) and META in spec:  # (the expansion's own member only)
            self.kept[self.spec_path] = {k: v for k, v in spec.items() if k != META}
        self.containers = containers_in(
            shell if shell is not None else self.kept.get(self.spec_path)
        )
        self.globs = tuple(Glob(c[0]) for c in self.containers)
        if index is None:
            index = NeedIndex(needs_of(self.kept.get(self.spec_path)) if self.consistency else ())
        for path, value in self.kept.items():
            if path != self.spec_path:
                index.add(selectors_in(value))
        index.add(Need(pattern, "", glob=True) for pattern in self.whole)
        index.settle()
        self.index = index

    def _spec_in_windows(
        self, records: dict[str, bytes], names: dict[str, str]
    ) -> tuple[NeedIndex | None, dict[str, Any] | None]:
        """A large spec read a window of its assertions at a time
        (:func:`~verifier.record.check.process_in_windows`): each window's needs indexed
        and the window packed as it is read, so that its objects are never all alive at once
        (at 100,000 records they took 64 MB beside the spec's 33 MB text, the run's peak;
        its 200,000 needs, 16 MB). The index of its needs and its members other than the
        assertions; ``(None, None)`` where it is not read so (it is then read whole, as
        every document, and its bytes are in ``records``)."""
        assert self.bundle is not None
        index = NeedIndex()
        parts: list[bytes] = []

        def take(items: list[Any]) -> bool:
            part = pack_part(items)
            if part is None:
                return False
            if self.consistency:  # (indexed as they come: not 200,000 needs at once)
                index.add(needs_of({ASSERTIONS: items}))
            parts.append(part)
            return True

        path = self.spec_path
        window = packing.WINDOW
        done = process_in_windows(self.bundle, path, records, ASSERTIONS, window, names, take)
        if done is None:
            return None, None
        result, shell = done
        self.results[path] = result
        self.packed[path] = PackedDocument.in_parts(shell, ASSERTIONS, parts)
        return index, shell

    def _rules_in_parts(
        self, spec: dict[str, Any], inside: list[str]
    ) -> tuple[NeedIndex, dict[str, Any]] | None:
        """A rule-form spec expanded a part at a time: each part's needs indexed and the part
        packed as it is made, so that the instances are never all alive at once (at 100,000
        records they took about 70 MB, the main process's peak). The index and the expanded
        spec's other members (its assertions ``[]``); ``None``: a part could not be packed."""
        index = NeedIndex()
        parts: list[bytes] = []

        def take(items: list[Any]) -> bool:
            part = pack_part(items)
            if part is None:
                return False
            if self.consistency:
                index.add(needs_of({ASSERTIONS: items}))
            parts.append(part)
            return True

        shell = expanded_in_parts(spec, inside, take, self.max_instances)
        if shell is None:
            return None
        path = self.spec_path
        del self.kept[path]
        self.packed[path] = PackedDocument.in_parts(shell, ASSERTIONS, parts)
        return index, shell

    def pack(self) -> None:
        """Pack the kept documents while nothing reads them (from when the need index is
        made until the records are judged; :mod:`verifier.values.packed`): a parsed spec's
        objects take about four times the bytes of their packed form, held while the
        workers run. The spec's assertions are packed in parts, which the consistency stage
        unpacks one at a time. A document :mod:`marshal` cannot write as it is (a number
        kept with its literal, an object that repeated a key) stays as it is."""
        for path in sorted(self.kept):
            packed = PackedDocument.pack(
                self.kept[path], ASSERTIONS if path == self.spec_path else None
            )
            if packed is not None:
                self.packed[path] = packed
                del self.kept[path]

    def kept_paths(self) -> list[str]:
        """The paths of the documents kept whole, packed or not, in order."""
        return sorted({*self.kept, *self.packed})

    def held(self) -> dict[str, Any]:
        """The kept documents as they are held, in order: each a value, or a
        :class:`PackedDocument` (which the judging store unpacks as it is read)."""
        return {path: self.packed.get(path, self.kept.get(path)) for path in self.kept_paths()}

    def unpack(self) -> dict[str, Any]:
        """The kept documents again, unpacked whole (each once: the packed form is dropped),
        in the order they were kept."""
        if self.packed:
            for path in sorted(self.packed):
                self.kept[path] = self.packed.pop(path).value()
            self.kept = dict(sorted(self.kept.items()))
        return self.kept

    def wants(self, inner: str) -> Wants:
        assert self.index is not None, "prepare() first (and not after forget_needs())"
        return self.index.wants(inner)

    def forget_needs(self) -> None:
        """Drop the need index once every task is made (a tenth of a large run's memory:
        judging does not use it)."""
        self.index = None

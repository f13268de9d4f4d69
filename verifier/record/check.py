"""One record's inspection: parsed strictly from the bytes that were hashed, validated against
the schema bundle, checked if it is a transcript, and reduced to the values its task wants."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from verifier.findings import Finding
from verifier.json.parse import Given, loads_in_windows
from verifier.record.apart import on_own_thread
from verifier.record.place import place_in
from verifier.schema.bundle import Prepared, _parse
from verifier.transcripts.archive import (
    CONTAINER_SCHEMA,
    RECORD_KIND,
    check_container_file,
    check_transcript_record,
    container_facts,
)
from verifier.values.extract import extract
from verifier.values.needs import Extracted, Flat, Wants, flat
from verifier.witness import LOG_SHAPE, read_chain


class RecordResult(NamedTuple):
    """What one record's parse and validation found, and the values extracted from it: small,
    so it crosses processes cheaply; the parsed record itself is not kept."""

    findings: Sequence[Finding]
    transcript: Sequence[Finding]  # the transcript checker's, for a transcript record
    parsed: bool
    validated: int
    extracted: Extracted | Flat | None  # (Flat: as judged_form gives it back)


def held_form(result: RecordResult) -> RecordResult | Flat:
    """What the main process holds of a record's result until it is judged: a plain one
    (parsed, validated against one schema, no finding of either kind) as its extracted
    values alone, flat (:data:`~verifier.values.needs.Flat`; ``()`` for none): 56 bytes for
    one value, where the result and its dict took 272 (about 22 MB at 100,000 records).
    Any other result as it is; :func:`judged_form` gives the result back."""
    if result[0] or result[1] or not result[2] or result[3] != 1:
        return result
    return flat(result[4])


def judged_form(held: RecordResult | Flat) -> RecordResult:
    """The :class:`RecordResult` :func:`held_form` was given (its values flat)."""
    if type(held) is RecordResult:
        return held
    return RecordResult(_NONE, _NONE, True, 1, held or None)


def process_record(
    prep: Prepared,
    path: str,
    data: bytes,
    wants: Wants,
    keep: bool = False,
    strings: dict[str, str] | None = None,
    shared: dict[Any, Any] | None = None,
    parsed: tuple[Any, list[Finding]] | None = None,
) -> tuple[RecordResult, Any]:
    """Parse one record strictly from its hashed bytes, validate it, check it if it is a
    transcript, and extract the values at ``wants``. Returns the result and, with ``keep``,
    the parsed value (``None`` otherwise, or if it did not parse); a kept value's strings
    are shared through ``strings`` (see :func:`~verifier.json.parse.loads_strict`), the
    extracted objects through ``shared`` (see :func:`~verifier.values.extract.extract`);
    ``parsed``: the value and findings of a parse made already."""
    if parsed is not None:  # (parsed already, by process_document)
        value, findings = parsed
    else:
        findings = []
        value = _parse(path, data, findings, strings)
    if value is None:
        bad: Sequence[Finding] = place_in(data, findings) if prep.validate else _NONE
        return RecordResult(bad, _NONE, False, 0, None), None
    transcript: Sequence[Finding] = _NONE
    checked = 0
    if prep.validate and prep.validators is not None:
        more, checked = prep.validators.record(path, value)
        findings.extend(more)
        # (an empty list for most records: the shared empty tuple is held instead, once,
        # not a list per record in the main process: 5.6 MB at 100,000 records)
        transcript = check_transcript_record(path, value) or _NONE
    extracted = extract(value, wants, shared) if wants else None
    # placed here, with the hashed bytes in hand: no second read for a record's own findings
    if transcript:
        transcript = place_in(data, transcript)
    found: Sequence[Finding] = place_in(data, findings) if findings and prep.validate else _NONE
    return RecordResult(found, transcript, True, checked, extracted), (value if keep else None)


def process_document(
    prep: Prepared, path: str, pending: dict[str, bytes], strings: dict[str, str] | None
) -> tuple[RecordResult, Any]:
    """A document kept for the whole run (the assertion spec, the case catalogue): as
    :func:`process_record` with ``keep``, but its bytes, taken out of ``pending`` (which must
    be the only thing holding them), are handed to the parse, which lets them go once they
    are decoded, before the objects are built from the text: a large spec's bytes (33 MB at
    100,000 records) are not held beside its text and its objects, the run's peak. Its
    findings at a pointer (a repeated key, its schema's, its transcript's) are placed once
    the report is judged, from a second read checked against the digest of the first
    (:mod:`verifier.inspect.locate`), as the judges' findings are; those of a parse that
    failed carry their line already."""
    findings: list[Finding] = []
    value = _parse(path, Given(pending.pop(path)), findings, strings)
    if value is None or not prep.validate:
        return process_record(prep, path, b"", (), True, strings, parsed=(value, findings))
    found: list[Finding] = findings
    transcript: Sequence[Finding] = _NONE
    checked = 0
    validators = prep.validators
    if validators is not None:
        # on a thread of its own: the fast validator's copy of a large document is let go
        # with the thread, not kept to the end of the run (see verifier.record.apart)
        more, checked = on_own_thread(lambda: validators.record(path, value))
        found.extend(more)
        transcript = check_transcript_record(path, value) or _NONE
    return RecordResult(found or _NONE, transcript, True, checked, None), value


def process_in_windows(
    prep: Prepared,
    path: str,
    pending: dict[str, bytes],
    key: str,
    size: int,
    names: Mapping[str, str],
    take: Callable[[list[Any]], bool],
) -> tuple[RecordResult, dict[str, Any]] | None:
    """A large document kept for the run (the assertion spec) read a window of its array
    ``key`` at a time (:func:`~verifier.json.parse.loads_in_windows`): each window
    validated (:meth:`~verifier.schema.bundle.Validators.windowed`), then handed to
    ``take`` (which keeps what it needs of it, packed, or says ``False``), and let go; the
    result and the document's other members (``key`` holding ``[]``) are returned. Only a
    document whose every window and whose members pass is read so, as nothing about it is
    then to be reported; otherwise ``None``, its bytes put back in ``pending`` for
    :func:`process_document`, which reads it whole and says what is wrong (whatever
    ``take`` was given is the caller's to drop). String values are shared with ``names``
    (the manifest's names) and, within a window, with each other (see
    :func:`~verifier.json.parse.loads_in_windows`)."""
    validators = prep.validators
    if not prep.validate or validators is None:
        return None
    valid: Callable[[Any], bool] | None = None
    last: list[Any] = []

    def each(head: dict[str, Any], items: list[Any]) -> bool:
        nonlocal valid, last
        if valid is None:
            valid = validators.windowed(head, key)
        if valid is None or not valid({**head, key: items}) or not take(items):
            return False
        last = items
        return True

    def finish(shell: dict[str, Any]) -> bool:
        if valid is None or not last or shell.get("recordKind") == RECORD_KIND:
            return False  # (no window: a short document, read whole; a transcript's check)
        if shell.get("$schema") == CONTAINER_SCHEMA:
            return False
        members = dict(shell)
        members[key] = last  # (the last window, with every other member)
        return valid(members)

    shell, data = loads_in_windows(Given(pending.pop(path)), key, size, names, each, finish)
    if shell is None:
        pending[path] = data
        return None
    return RecordResult(_NONE, _NONE, True, 1, None), shell


def process_container(
    prep: Prepared, path: str, data: bytes, shape: str | None, leaf: bool, wants: Wants = ()
) -> RecordResult:
    """A file the spec declares a transcript container (every transcript in it checked, from
    its hashed bytes, whatever its format) or a witness log (its chain checked, and what it
    witnessed read as the record assertions see: ``{"calls": [...], "intact": ...}``, see
    :func:`verifier.witness.read_chain`); it is not a JSON record, so it has no schema. A
    transcript container an assertion reads whole is read for it as
    :func:`~verifier.transcripts.archive.container_facts` gives it."""
    if shape == LOG_SHAPE:
        found, witnessed = read_chain(path, data, prep.witness)
        extracted = extract(witnessed, wants) if wants else None
        return RecordResult(_NONE, tuple(found) if prep.validate else _NONE, True, 0, extracted)
    found = check_container_file(path, data, shape, leaf) if prep.validate else []
    if not wants:
        return RecordResult(_NONE, tuple(found), False, 0, None)
    # an assertion reads it whole (witnessed-calls): its transcripts' calls, as read here
    facts = container_facts(path, data, shape, leaf)
    return RecordResult(_NONE, tuple(found), True, 0, extract(facts, wants))


_NONE: tuple[Finding, ...] = ()  # one shared empty result: most records have no findings

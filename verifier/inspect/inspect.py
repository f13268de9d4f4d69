"""The inspect step: one file's facts from its task. Pure: it opens the file its task names
(through the context's opener, or the stream it is handed), hashes it, and for a record
parses, validates and extracts the values the task wants. Nothing else is read and nothing
is kept between tasks, so it runs the same in this process, in a worker started with
``spawn`` or on another machine; only the small :class:`FileFacts` come back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from verifier.inspect.digest import _WHOLE, Digest, _digest, _digest_bytes
from verifier.plan.task import FileTask, pack_sha256
from verifier.record.check import RecordResult, process_container, process_record
from verifier.schema.bundle import Prepared
from verifier.sources.interface import Stream

if TYPE_CHECKING:  # (a worker imports the assertion kinds only if it judges a case)
    from verifier.inspect.cases import Judged
    from verifier.plan.cases import CaseRules


class InspectContext(NamedTuple):
    """What every task shares, sent to each worker once: the source's opener and the schema
    bundle (its validators compiled on first use where it runs)."""

    opener: Any  # verifier.sources.openers.Opener (or this process's live source)
    bundle: Prepared
    #: the spec's rules judged where their cases are read (:mod:`verifier.inspect.cases`)
    cases: CaseRules | None = None

    def close(self) -> None:
        """Close what this copy's opener opened (a thread's copy, when its map ends)."""
        self.opener.close()


class FileFacts(NamedTuple):
    name: str
    digest: Digest | None  # None: it could not be read (``error`` says why)
    error: str | None
    record: RecordResult | None  # a record's verdicts and values
    data: bytes | None = None  # a document's or schema's bytes (read first, in this process)
    checks: tuple[tuple[str, str], ...] = ()  # what the opener verified (a git blob's id)
    #: rule instances the batch decided, of the cases whose last file in the batch this is
    judged: tuple[Judged, ...] = ()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled flat (a batch of them comes back from a worker, unpickled in the main
        process): a file read, with its digest and a record's result or none, is one call
        and its SHA-256 its 32 bytes; anything else (an error, bytes, checks) field by field."""
        name, digest, error, record, data, checks, judged = self
        if (
            error is not None
            or data is not None
            or checks
            or judged
            or type(digest) is not Digest
            or (record is not None and type(record) is not RecordResult)
        ):
            return FileFacts, tuple(self)
        packed = pack_sha256(digest[0])
        if record is None:
            return _facts, (name, packed, digest[1:])
        return _facts, (name, packed, digest[1:], tuple(record))


def _facts(
    name: str, sha: str | bytes, digest: tuple[Any, ...], record: tuple[Any, ...] | None = None
) -> FileFacts:
    """A :class:`FileFacts` from what its ``__reduce__`` keeps: the SHA-256, the digest's
    other fields, the record result's fields (if any)."""
    new = tuple.__new__
    return new(
        FileFacts,
        (
            name,
            new(Digest, (sha.hex() if type(sha) is bytes else sha, *digest)),
            None,
            new(RecordResult, record) if record is not None else None,
            None,
            (),
            (),
        ),
    )


def inspect(
    context: InspectContext,
    task: FileTask,
    stream: Stream | None = None,
    shared: dict[Any, Any] | None = None,
) -> FileFacts:
    """The facts of one file: from ``stream`` if given (a source read in one pass), else
    opened through the context's opener (``shared``: see
    :func:`~verifier.values.extract.extract`)."""
    keep = task.role != "other"
    checks: tuple[tuple[str, str], ...] = ()
    try:
        if stream is not None:
            with stream:
                digest, data = _digest(stream, keep, task.variants, task.expected, task.algorithms)
        else:
            opener = context.opener
            # read in one call, no stream object: what is parsed, and a small file (one of
            # unknown size, 0, only if the opener finds it small when it opens it)
            if keep or 0 < task.size <= _WHOLE:
                whole = opener.read_whole(task.name, task.where)
            elif not task.size:
                whole = opener.read_small(task.name, task.where, _WHOLE)
            else:
                whole = None
            if whole is not None:
                digest = _digest_bytes(whole, task.variants, task.expected, task.algorithms)
                data = whole if keep else None
                del whole
            else:
                with opener.open(task.name, task.where) as opened:
                    digest, data = _digest(
                        opened, keep, task.variants, task.expected, task.algorithms
                    )
            checks = opener.checked(task.name)
    except OSError as exc:
        return FileFacts(task.name, None, exc.strerror or str(exc), None)
    if data is None:
        return FileFacts(task.name, digest, None, None, None, checks)
    if task.role in ("document", "schema"):
        return FileFacts(task.name, digest, None, None, data, checks)
    record = None
    if task.record is not None and task.container is not None:
        record = process_container(context.bundle, task.record, data, *task.container, task.wants)
    elif task.record is not None:
        record = process_record(context.bundle, task.record, data, task.wants, shared=shared)[0]
    return FileFacts(task.name, digest, None, record, None, checks)


#: the SHA-256 of a file whose digest is the one its task expected, as a batch's facts carry
#: it: the plan's own string is put back by :meth:`verifier.inspect.gather.Facts.add`, so the
#: 64 characters neither cross the pipe nor are held a second time, once per file
AS_EXPECTED = ""


def inspect_batch(context: InspectContext, tasks: list[FileTask]) -> list[FileFacts]:
    """:func:`inspect` over a batch: what an executor runs. A digest that is the expected
    one comes back as :data:`AS_EXPECTED` (a SHA-256 is never empty)."""
    out = []
    shared: dict[Any, Any] = {}  # equal extracted objects, one per batch
    for task in tasks:
        found = inspect(context, task, shared=shared)
        digest = found.digest
        if digest is not None and digest.sha256 == task.expected:
            mark = Digest(AS_EXPECTED, digest.size, digest.crlf, digest.lf, digest.others)
            found = FileFacts(found.name, mark, None, found.record, found.data, found.checks)
        out.append(found)
    if context.cases is not None:  # the rule instances this batch's records decide
        from verifier.inspect.cases import judge_batch

        for at, judged in judge_batch(context.cases, tasks, out).items():
            out[at] = out[at]._replace(judged=tuple(judged))
    return out

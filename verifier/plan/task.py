"""The unit of work of a run: one small, picklable task per file.

A :class:`FileTask` says everything inspecting one file needs besides the context (the
source's opener and the schema bundle): its path, how to open it (its opener spec), its role,
the SHA-256 it is expected to have (for line-ending variants on a mismatch), the further
algorithms its manifests use, and the values a record must yield. It lives apart from the
plan (:mod:`verifier.plan.plan`) so that a worker, which unpickles tasks, imports this and
not the plan's whole world (its manifests, assertion kinds and sources).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from verifier.values.needs import Wants

#: what a file is to the run: ``record`` (parsed, validated, values extracted), ``schema``,
#: ``document`` (a record kept whole: the assertion spec, the case catalogue, read first),
#: ``other`` (hashed only)
ROLES = ("record", "schema", "document", "other")


def pack_sha256(text: str | None) -> str | bytes | None:
    """A SHA-256 as it is pickled compactly: a lowercase 64-digit hex digest as its 32 bytes
    (``bytes.hex()`` gives it back exactly), anything else as it is."""
    if type(text) is not str or len(text) != 64:
        return text
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        return text
    return raw if raw.hex() == text else text


class FileTask(NamedTuple):
    name: str  # path in the source
    where: Any  # the source's opener spec (Source.locate)
    size: int  # the size the source reports, to weigh batches (0: unknown)
    role: str  # one of ROLES
    record: str | None  # the record's path inside the content root (a record or document)
    expected: str | None  # the listed SHA-256, for line-ending variants on a mismatch
    variants: bool
    algorithms: tuple[str, ...]  # further hashlib algorithms, from the same read
    wants: Wants = ()  # what a record must yield
    container: tuple[str | None, bool] | None = None  # a transcript container: (shape, leaf)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled compactly (a batch of them goes to a worker): what is usually implied is
        left out, ``where`` when it is the name and the trailing defaults; the role,
        ``variants``, whether ``where`` is the name and where ``record`` starts in the name
        are one number; the expected SHA-256 travels as its 32 bytes. Anything else (a
        record that is not the name's tail, a role not in :data:`ROLES`): field by field."""
        name, where, size, role, record, expected, variants, algorithms, wants, container = self
        code = _ROLE_CODES.get(role)
        if code is None or type(variants) is not bool or type(name) is not str:
            return FileTask, tuple(self)
        if record is not None:
            if not name.endswith(record):
                return FileTask, tuple(self)
            code |= (len(name) - len(record) + 1) << 4
        if variants:
            code |= 4
        digest = pack_sha256(expected)
        if where is name:
            code |= 8
            if container is None:
                if not algorithms:
                    if not wants:
                        return _task, (name, size, code, digest)
                    return _task, (name, size, code, digest, wants)
                return _task, (name, size, code, digest, wants, algorithms)
            return _task, (name, size, code, digest, wants, algorithms, container)
        return _task, (name, size, code, digest, wants, algorithms, container, where)


_ROLE_CODES: Mapping[str, int] = MappingProxyType({role: i for i, role in enumerate(ROLES)})


def _task(
    name: str,
    size: int,
    code: int,
    digest: str | bytes | None,
    wants: Wants = (),
    algorithms: tuple[str, ...] = (),
    container: tuple[str | None, bool] | None = None,
    where: Any = None,
) -> FileTask:
    """A :class:`FileTask` from what its ``__reduce__`` keeps."""
    cut = code >> 4
    return tuple.__new__(
        FileTask,
        (
            name,
            name if code & 8 else where,
            size,
            ROLES[code & 3],
            name[cut - 1 :] if cut else None,
            digest.hex() if type(digest) is bytes else digest,
            bool(code & 4),
            algorithms,
            wants,
            container,
        ),
    )


__all__ = ["ROLES", "FileTask"]

"""verifier: offline verification of evidence archives of AI-agent runs.

The Python API is this module's names; the ``verify-evidence`` command is a thin layer over
them::

    from verifier import verify

    report = verify("path/to/archive")
    assert report.ok, [f.to_dict() for f in report.findings]

``verify`` never prints or exits; it raises :class:`UsageError` only when the run cannot go on
at all (no manifest, the root is not a folder). Everything else is a :class:`Finding` in the
returned :class:`Report`. Names are imported lazily so that the command starts fast.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from verifier.version import __version__

if TYPE_CHECKING:
    from verifier.findings import CODES, SEVERITIES, Finding, Severity, Stage
    from verifier.pipeline import Options, UsageError
    from verifier.report import (
        AssertionResult,
        AssertionStatus,
        FileEntry,
        Read,
        Report,
        StageResult,
        StageStatus,
    )

_LAZY = MappingProxyType(
    {
        "CODES": "verifier.findings",
        "SEVERITIES": "verifier.findings",
        "Severity": "verifier.findings",
        "AssertionResult": "verifier.report",
        "AssertionStatus": "verifier.report",
        "FileEntry": "verifier.report",
        "Finding": "verifier.findings",
        "Read": "verifier.report",
        "Report": "verifier.report",
        "Stage": "verifier.findings",
        "StageResult": "verifier.report",
        "StageStatus": "verifier.report",
        "Options": "verifier.pipeline",
        "UsageError": "verifier.pipeline",
    }
)


def verify(root: Any = ".", options: Options | None = None, **settings: Any) -> Report:
    """Verify the archive at ``root`` and return its :class:`Report`.

    ``settings`` are :class:`Options` fields (``manifest``, ``scope``, ``schemas_dir``,
    ``records_dir``, ``assertions``), a shorthand for passing ``options``.
    """
    from verifier import pipeline

    if options is None:
        options = pipeline.Options(**settings)
    elif settings:
        raise TypeError("pass either options or keyword settings, not both")
    return pipeline.verify(root, options)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'verifier' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "CODES",
    "SEVERITIES",
    "AssertionResult",
    "AssertionStatus",
    "FileEntry",
    "Finding",
    "Options",
    "Read",
    "Report",
    "Severity",
    "Stage",
    "StageResult",
    "StageStatus",
    "UsageError",
    "__version__",
    "verify",
]

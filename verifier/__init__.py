"""verifier: offline verification of evidence archives of AI-agent runs.

``verify(root)`` returns a :class:`~verifier.model.Report`; the ``verify-evidence`` command is
a thin layer over it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from verifier.model import Report
    from verifier.pipeline import Options


def verify(root: Any = ".", options: Options | None = None) -> Report:
    """Verify the archive at ``root`` (see :func:`verifier.pipeline.verify`)."""
    from verifier.pipeline import Options
    from verifier.pipeline import verify as _verify

    return _verify(root, options or Options())


__all__ = ["__version__", "verify"]

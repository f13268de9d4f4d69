"""Make names printable: file names that are not UTF-8 are kept as ``\\udcXX`` escapes.

:func:`clean_str` is :func:`verifier.views.inert.exact`, for machine formats (JSON, SARIF);
views for people use the other functions of :mod:`verifier.views.inert`.
"""

from __future__ import annotations

from typing import Any

from verifier.views.inert import exact as clean_str


def clean(value: Any) -> Any:
    if isinstance(value, str):
        return clean_str(value)
    if isinstance(value, dict):
        return {clean_str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    return value


__all__ = ["clean", "clean_str"]

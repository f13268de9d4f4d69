"""Make names printable: file names that are not UTF-8 are kept as ``\\udcXX`` escapes.

:func:`clean_str` is :func:`verifier.views.inert.exact`, for machine formats (JSON, SARIF);
views for people use the other functions of :mod:`verifier.views.inert`.
"""

from __future__ import annotations

from typing import Any

import orjson

from verifier.json.write import dumps_fast, dumps_report
from verifier.views.inert import exact as clean_str


def clean(value: Any) -> Any:
    if isinstance(value, str):
        return clean_str(value)
    if isinstance(value, dict):
        return {clean_str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    return value


def dumps_clean(value: Any, *, sort_keys: bool = True, indent: int | None = 2) -> str:
    """``dumps_report(clean(value))``, the same text, without copying ``value`` when nothing
    in it needs cleaning: orjson refuses every lone surrogate (the only thing
    :func:`clean_str` changes), and anything else it cannot write as it is (a tuple other
    than a plain one, a key that is not a plain string), so only then is the cleaned copy
    made and written the way it always was. A large report (hundreds of megabytes as
    Python objects) is not held twice."""
    try:
        return dumps_fast(value, sort_keys=sort_keys, indent=indent)
    except orjson.JSONEncodeError:
        return dumps_report(clean(value), sort_keys=sort_keys, indent=indent)


__all__ = ["clean", "clean_str", "dumps_clean"]

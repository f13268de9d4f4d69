"""Make names printable: file names that are not UTF-8 are kept as ``\\udcXX`` escapes."""

from __future__ import annotations

from typing import Any


def clean_str(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value


def clean(value: Any) -> Any:
    if isinstance(value, str):
        return clean_str(value)
    if isinstance(value, dict):
        return {clean_str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    return value

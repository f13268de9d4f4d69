"""Writing JSON that says exactly what was read, for any value the strict parser returns.

Two writers, one walk:

* :func:`dumps` writes like the standard library's ``json.dumps(value, ensure_ascii=False)``
  (the same bytes for the same values), except that a :class:`~verifier.json.numbers.JsonFloat`
  is written as its literal (never ``Infinity``, never a rounded double) and a lone surrogate
  (``"\\ud800"`` in the input) as its ``\\uXXXX`` escape, so the text is always valid UTF-8
  JSON that parses back to the same value. Transcript repair and values shown in messages
  use it.
* :func:`dumps_report` writes the machine formats (reports, the table, audit records) with
  orjson, two-space indented; where orjson cannot (an integer beyond 64 bits, nesting deeper
  than its 255 levels) the same walk writes it, with orjson's own spelling of every string
  and float, so normal input gives exactly orjson's bytes and nothing exits with a crash.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import orjson

from verifier.json.numbers import JsonFloat

_SURROGATE = re.compile("[\ud800-\udfff]")
_INT64 = (-(1 << 63), (1 << 64) - 1)  # what orjson writes itself


def _escape_surrogates(text: str) -> str:
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _std_string(value: str) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return _escape_surrogates(text) if _SURROGATE.search(text) else text


def _std_scalar(value: Any) -> str:
    if isinstance(value, str):
        return _std_string(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, JsonFloat):
        return value.literal
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return float.__repr__(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _orjson_scalar(value: Any) -> str:
    if isinstance(value, JsonFloat):
        return value.literal
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and not _INT64[0] <= value <= _INT64[1]
    ):
        return int.__repr__(value)
    return orjson.dumps(value).decode("utf-8")


def _walk(
    value: Any,
    scalar: Callable[[Any], str],
    key: Callable[[str], str],
    indent: int | None,
    item_sep: str,
    key_sep: str,
    sort_keys: bool,
) -> str:
    out: list[str] = []

    def write(node: Any, level: int) -> None:
        if isinstance(node, dict):
            if not node:
                out.append("{}")
                return
            items = sorted(node.items()) if sort_keys else list(node.items())
            inner, outer = _breaks(indent, level)
            out.append("{")
            for i, (k, v) in enumerate(items):
                out.append((item_sep if i else "") + inner + key(k) + key_sep)
                write(v, level + 1)
            out.append(outer + "}")
        elif isinstance(node, list | tuple):
            if not node:
                out.append("[]")
                return
            inner, outer = _breaks(indent, level)
            out.append("[")
            for i, v in enumerate(node):
                out.append((item_sep if i else "") + inner)
                write(v, level + 1)
            out.append(outer + "]")
        else:
            out.append(scalar(node))

    write(value, 0)
    return "".join(out)


def _breaks(indent: int | None, level: int) -> tuple[str, str]:
    if indent is None:
        return "", ""
    return "\n" + " " * (indent * (level + 1)), "\n" + " " * (indent * level)


def dumps(
    value: Any,
    *,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    """``json.dumps(value, ensure_ascii=False, ...)``, writing numbers as they were written
    and lone surrogates escaped (see the module's description)."""
    if separators is None:
        separators = (",", ": ") if indent is not None else (", ", ": ")
    item_sep, key_sep = separators
    return _walk(value, _std_scalar, _std_string, indent, item_sep, key_sep, sort_keys)


def _fragment(value: Any) -> Any:
    if isinstance(value, JsonFloat):
        return orjson.Fragment(value.literal)
    raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")


def dumps_fast(data: Any, *, sort_keys: bool = True, indent: int | None = 2) -> str:
    """:func:`dumps_report` by orjson alone: raises ``orjson.JSONEncodeError`` where orjson
    cannot write ``data`` as it is (then :func:`dumps_report` walks it)."""
    option = (orjson.OPT_INDENT_2 if indent is not None else 0) | (
        orjson.OPT_SORT_KEYS if sort_keys else 0
    )
    return orjson.dumps(data, option=option, default=_fragment).decode("utf-8")


def dumps_report(data: Any, *, sort_keys: bool = True, indent: int | None = 2) -> str:
    """The machine formats' JSON: orjson, two-space indent (sorted keys unless told; one
    compact line with ``indent=None``, for JSON Lines), LF line ends, no final newline; see
    the module's description."""
    try:
        return dumps_fast(data, sort_keys=sort_keys, indent=indent)
    except orjson.JSONEncodeError:
        return _walk(
            data,
            _orjson_scalar,
            lambda k: orjson.dumps(k).decode("utf-8"),
            2 if indent is not None else None,
            ",",
            ":" if indent is None else ": ",
            sort_keys,
        )


__all__ = ["dumps", "dumps_fast", "dumps_report"]

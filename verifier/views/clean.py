"""Make names printable: file names that are not UTF-8 are kept as ``\\udcXX`` escapes.

:func:`clean_str` is :func:`verifier.views.inert.exact`, for machine formats (JSON, SARIF);
views for people use the other functions of :mod:`verifier.views.inert`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import islice
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


#: list items written at a time by :func:`dumps_clean_parts`
PART_ITEMS = 2000


def dumps_clean_parts(
    head: Mapping[str, Any],
    lists: Mapping[str, Callable[[], Iterable[Any]]],
    *,
    items: int | None = None,
) -> Iterator[str]:
    """The text of ``dumps_clean({**head, **{key: list(make()) for key, make in
    lists.items()}})`` (sorted keys, two-space indent), in parts: each list of ``lists`` (a
    report's files, its assertions) is made and written ``items`` at a time, so neither the
    list nor its text is ever held whole. ``head`` holds an empty list at each of those
    keys, where the list's items go: a top-level key's line is the only one indented by
    exactly two spaces (a string holds no line break), so it is found unmistakably.
    ``items``: :data:`PART_ITEMS` unless given."""
    per_part = PART_ITEMS if items is None else items
    text = dumps_clean(dict(head))
    for key in sorted(lists):
        if head.get(key) != []:
            raise ValueError(f"the head holds no empty list at {key!r}")
        marker = "\n  " + dumps_clean(key) + ": []"
        at = text.find(marker)
        if at < 0 or text.find(marker, at + 1) >= 0:
            raise ValueError(f"{key!r} is not found once at the top level")
        cut = at + len(marker) - 1  # at the list's "]"
        yield text[:cut]
        text = text[cut:]
        first = True
        source = iter(lists[key]())
        while part := list(islice(source, per_part)):
            # "[\n  {...},\n  {...}\n]" at the top, written two spaces deeper, without
            # its brackets: the lines of a part's items as they stand inside the report
            body = dumps_clean(part)
            yield ("\n" if first else ",\n") + "  " + body[2:-2].replace("\n", "\n  ")
            first = False
        if not first:
            yield "\n  "
    yield text


__all__ = ["PART_ITEMS", "clean", "clean_str", "dumps_clean", "dumps_clean_parts"]


def lines_in_parts(lines: Iterable[str], per_part: int) -> Iterator[str]:
    """``lines``, each ended by LF, joined ``per_part`` at a time: a view's text written as
    it is made (``"".join`` of the parts is ``"\n".join(lines) + "\n"``, for lines at all)."""
    source = iter(lines)
    while part := list(islice(source, per_part)):
        yield "\n".join(part) + "\n"

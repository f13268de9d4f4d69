"""JSON pointers (RFC 6901) and path globs, as assertions and the case catalogue use them."""

from __future__ import annotations

import re
from typing import Any


class EvalError(Exception):
    """The assertion could not be evaluated (missing file, pointer to nothing, bad spec)."""


_INDEX = re.compile(r"0|[1-9][0-9]*")


def resolve_pointer(document: Any, pointer: str) -> Any:
    """RFC 6901. Returns the value, or raises :class:`EvalError`."""
    if pointer == "":
        return document
    if not pointer.startswith("/"):
        raise EvalError(f"{pointer!r} is not a JSON pointer (it must start with '/')")
    node = document
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~") if "~" in raw else raw
        if isinstance(node, dict):
            if token not in node:
                raise EvalError(f"pointer {pointer} resolves to nothing (no member {token!r})")
            node = node[token]
        elif isinstance(node, list):
            if not _INDEX.fullmatch(token) or int(token) >= len(node):
                raise EvalError(f"pointer {pointer} resolves to nothing (no index {token!r})")
            node = node[int(token)]
        else:
            raise EvalError(f"pointer {pointer} resolves to nothing ({token!r} below a scalar)")
    return node


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """``*`` and ``?`` stay within a path segment; ``**/`` spans any number of folders."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")

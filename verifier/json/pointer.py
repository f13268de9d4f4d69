"""JSON pointers (RFC 6901) and path globs, as assertions and the case catalogue use them.

Both come from the archive, so both are hostile: a pointer is checked for its syntax before
it is used and an array index is compared by its digits before any conversion (a token of a
million digits resolves to nothing, it does not raise); a glob is matched by an automaton
(:class:`Glob`) in time linear in the path, never by a backtracking regular expression.
"""

from __future__ import annotations

import json
import re
from typing import Any


class EvalError(Exception):
    """The assertion could not be evaluated (missing file, pointer to nothing, bad spec).
    ``code``: the finding code it is reported with, when not ``assertion.error`` (a file the
    publisher withholds: ``assertion.withheld``)."""

    code: str | None = None


_INDEX = re.compile(r"0|[1-9][0-9]*")  # RFC 6901 array index: ASCII digits, no leading zero
_BAD_ESCAPE = re.compile(r"~(?![01])")
_MAX_INDEX_DIGITS = 19  # no array holds 10**19 elements


def quote(text: str, limit: int = 80) -> str:
    """``text`` as a JSON string (control characters escaped), cut to about ``limit``."""
    shown = json.dumps(text[: limit + 1], ensure_ascii=False)
    return shown if len(text) <= limit else shown[:limit] + '..."'


def is_pointer(text: object) -> bool:
    """Whether ``text`` is a JSON pointer (RFC 6901): empty, or ``/``-separated tokens in
    which ``~`` is only ever ``~0`` or ``~1``."""
    return isinstance(text, str) and (
        text == ""
        or (text.startswith("/") and ("~" not in text or _BAD_ESCAPE.search(text) is None))
    )


def pointer_problem(text: object) -> str | None:
    """Why ``text`` is not a JSON pointer, or ``None`` if it is one."""
    if not isinstance(text, str):
        return "a JSON pointer must be a string"
    if is_pointer(text):
        return None
    if not text.startswith("/"):
        return f"{quote(text)} is not a JSON pointer (it must be empty or start with '/')"
    return f"{quote(text)} is not a JSON pointer ('~' must be followed by 0 or 1)"


def array_index(token: str, size: int) -> int | None:
    """The array index ``token`` names in an array of ``size`` elements, or ``None``: RFC 6901
    allows only ``0`` or ASCII digits without a leading zero; ``-`` (past the end), signs,
    other digits and indices out of range name nothing."""
    if len(token) > _MAX_INDEX_DIGITS or not _INDEX.fullmatch(token):
        return None
    index = int(token)
    return index if index < size else None


def _member_hint(token: str, node: dict[str, Any]) -> str:
    """``; did you mean "pinnedVersions"?`` among an object's members (at most 1,000 looked
    at, each quoted: the names are the record's)."""
    if len(node) > 1000 or len(token) > 200:
        return ""
    from verifier.suggest import close_matches

    found = close_matches(token, (k for k in node if len(k) <= 200))
    return f"; did you mean {' or '.join(quote(f) for f in found)}?" if found else ""


def resolve_pointer(document: Any, pointer: str) -> Any:
    """RFC 6901. Returns the value, or raises :class:`EvalError`."""
    if pointer == "":
        return document
    problem = pointer_problem(pointer)
    if problem is not None:
        raise EvalError(problem)
    node = document
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~") if "~" in raw else raw
        if isinstance(node, dict):
            if token not in node:
                raise EvalError(
                    f"pointer {quote(pointer)} resolves to nothing (no member {quote(token)}"
                    f"{_member_hint(token, node)})"
                )
            node = node[token]
        elif isinstance(node, list):
            index = array_index(token, len(node))
            if index is None:
                raise EvalError(
                    f"pointer {quote(pointer)} resolves to nothing (no index {quote(token)} in an "
                    f"array of {len(node)})"
                )
            node = node[index]
        else:
            raise EvalError(
                f"pointer {quote(pointer)} resolves to nothing ({quote(token)} below a scalar)"
            )
    return node


# --- globs ---------------------------------------------------------------------------------
#
# ``*`` is any run of characters within a path segment, ``?`` one character other than ``/``,
# ``**/`` any number of whole folders (``(?:[^/]+/)*``), ``**`` not before ``/`` any run of
# characters at all, ``/`` included; every other character stands for itself (there are no
# ``[...]`` classes). The match is of the whole path.

_LIT, _ONE, _STAR, _ANY, _FOLDERS = "lit", "?", "*", "**", "**/"
_RUNS = frozenset({_STAR, _ANY, _FOLDERS})
_CACHE_LIMIT = 4096  # automaton steps remembered per glob (a lazily built DFA), then not


def _tokens(pattern: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            token, i = (_FOLDERS, ""), i + 3
        elif pattern.startswith("**", i):
            token, i = (_ANY, ""), i + 2
        elif pattern[i] == "*":
            token, i = (_STAR, ""), i + 1
        elif pattern[i] == "?":
            token, i = (_ONE, ""), i + 1
        else:
            token, i = (_LIT, pattern[i]), i + 1
        # adjacent runs that mean one run: any run next to ``**`` is ``**``; a run repeated
        # is that run. What is left has at most two runs in a row (``**/`` then ``*``), which
        # bounds the automaton's empty moves.
        if out and token[0] in _RUNS and out[-1][0] in _RUNS:
            if _ANY in (token[0], out[-1][0]):
                out[-1] = (_ANY, "")
                continue
            if token[0] == out[-1][0]:
                continue
        out.append(token)
    return out


def _segments(tokens: list[tuple[str, str]]) -> tuple[str | None, ...] | None:
    """A glob whose segments (between its slashes) are each literal or a lone ``*`` (as
    ``evidence/cases/*/*``, the usual case folders): each segment's text, ``None`` for a
    ``*``, which matches any one path segment (no ``/`` in it); else ``None``."""
    out: list[str | None] = []
    segment: list[tuple[str, str]] = []
    for token in (*tokens, (_LIT, "/")):
        if token != (_LIT, "/"):
            segment.append(token)
            continue
        if segment == [(_STAR, "")]:
            out.append(None)
        elif all(kind == _LIT for kind, _ in segment):
            out.append("".join(char for _, char in segment))
        else:
            return None
        segment = []
    return tuple(out)


class Glob:
    """A path glob matched by simulating its automaton over the path, one character at a time,
    with the set of live states as the bits of one integer: the time is linear in the path's
    length (times the pattern's length over the machine word), whatever the pattern. A
    literal prefix and suffix are compared first; a glob of literal segments and lone ``*``
    segments is matched a whole segment at a time, without the automaton."""

    __slots__ = (
        "_accept",
        "_any_loop",
        "_cache",
        "_eps1",
        "_eps2",
        "_exact",
        "_lit",
        "_other_adv",
        "_other_loop",
        "_prefix",
        "_segments",
        "_slash_back",
        "_start",
        "_suffix",
        "pattern",
    )

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        tokens = _tokens(pattern)
        if all(kind == _LIT for kind, _ in tokens):
            self._exact: str | None = pattern
            tokens = []
        else:
            self._exact = None
        self._segments = _segments(tokens)
        head = 0
        while head < len(tokens) and tokens[head][0] == _LIT:
            head += 1
        tail = len(tokens)
        while tail > head and tokens[tail - 1][0] == _LIT:
            tail -= 1
        self._prefix = "".join(c for _, c in tokens[:head])
        self._suffix = "".join(c for _, c in tokens[tail:])
        self._lit: dict[str, int] = {}
        other_adv = other_loop = any_loop = slash_back = eps1 = eps2 = 0
        state = 0
        for kind, char in tokens[head:tail]:
            bit = 1 << state
            if kind == _LIT:
                self._lit[char] = self._lit.get(char, 0) | bit
            elif kind == _ONE:
                other_adv |= bit
            elif kind == _STAR:
                other_loop |= bit
                eps1 |= bit
            elif kind == _ANY:
                any_loop |= bit
                eps1 |= bit
            else:  # ``**/``: a boundary state, and an inner state within a folder name
                other_adv |= bit  # boundary -> inner on a character other than "/"
                eps2 |= bit  # boundary -> past the token
                other_loop |= bit << 1  # inner stays on characters other than "/"
                slash_back |= bit << 1  # inner -> boundary on "/"
                state += 1
            state += 1
        self._accept = 1 << state
        self._other_adv, self._other_loop, self._any_loop = other_adv, other_loop, any_loop
        self._slash_back, self._eps1, self._eps2 = slash_back, eps1, eps2
        self._start = self._closure(1)
        self._cache: dict[tuple[int, str], int] = {}

    def _closure(self, states: int) -> int:
        while True:
            more = states | ((states & self._eps1) << 1) | ((states & self._eps2) << 2)
            if more == states:
                return states
            states = more

    def _step(self, states: int, char: str) -> int:
        key = (states, char)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        if char == "/":
            moved = (
                ((states & self._lit.get("/", 0)) << 1)
                | (states & self._any_loop)
                | ((states & self._slash_back) >> 1)
            )
        else:
            moved = ((states & (self._lit.get(char, 0) | self._other_adv)) << 1) | (
                states & (self._other_loop | self._any_loop)
            )
        nxt = self._closure(moved)
        if len(self._cache) < _CACHE_LIMIT:
            self._cache[key] = nxt
        return nxt

    def match(self, path: str) -> bool:
        """Whether the whole of ``path`` matches."""
        if self._exact is not None:
            return path == self._exact
        segments = self._segments
        if segments is not None:  # (no automaton needed: a whole segment at a time)
            parts = path.split("/")
            if len(parts) != len(segments):
                return False
            for want, part in zip(segments, parts, strict=True):
                if want is not None and want != part:
                    return False
            return True
        prefix, suffix = self._prefix, self._suffix
        if (
            len(path) < len(prefix) + len(suffix)
            or not path.startswith(prefix)
            or not path.endswith(suffix)
        ):
            return False
        states = self._start
        for char in path[len(prefix) : len(path) - len(suffix)]:
            states = self._step(states, char)
            if not states:
                return False
        return bool(states & self._accept)

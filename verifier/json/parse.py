"""Strict JSON from bytes: what a record must be before any schema looks at it.

Refused, each with its own reason: a byte order mark, invalid UTF-8, duplicate object keys
(reported with the JSON pointer of the object), ``NaN``/``Infinity``, trailing data, and
nesting deeper than :data:`MAX_DEPTH`. Integers of any size parse (Python ints); an integer
too long for Python's int/str conversion limit is refused, not a crash.

Numbers keep their exact value (:mod:`verifier.json.numbers`): a literal no double holds is a
:class:`~verifier.json.numbers.JsonFloat` carrying its literal. One a double cannot stand for at
all (``1e400`` overflows, ``1e-400`` is not zero but rounds to it) is valid JSON, so the value
is returned, with a ``record.unrepresentable-number`` problem at its pointer.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from verifier.json.numbers import (
    JsonFloat,
    float_from_literal,
    float_keeping_spelling,
)

MAX_DEPTH = 256
MAX_NUMBER_PROBLEMS = 10  # per text; the rest are counted in one more problem
UNREPRESENTABLE = "record.unrepresentable-number"


@dataclass(frozen=True, slots=True)
class JsonProblem:
    code: str  # record.invalid-json | record.duplicate-key | record.unrepresentable-number
    message: str
    pointer: str | None = None
    line: int | None = None


class _Dup(dict[str, Any]):
    """A dict that remembers the keys its JSON object repeated."""

    __slots__ = ("dups",)

    def __init__(self, pairs: list[tuple[str, Any]], dups: list[str]) -> None:
        super().__init__(pairs)
        self.dups = dups


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    built = dict(pairs)
    if len(built) == len(pairs):  # the common case, decided in C
        return built
    seen: set[str] = set()
    dups: list[str] = []
    for key, _ in pairs:
        if key in seen:
            dups.append(key)
        seen.add(key)
    return _Dup(pairs, dups)


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def escape_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


_BRACKETS_AND_QUOTES = bytes(b for b in range(256) if b not in b'[]{}"')
_STRINGS = re.compile(rb'"[^"]*"')
_DEPTH_PART = 1 << 20


def _text_depth(data: bytes) -> int:
    """The maximum nesting depth of a JSON text that parsed (at least 1, stopping past
    :data:`MAX_DEPTH`), from its bytes: much faster than walking a large parsed value.
    Escaped backslashes, then escaped quotes, are taken out (escapes read left to right, so
    this is exact); then everything but brackets and quotes; then strings, which now hold no
    quote (two quotes in a row: an empty string, or the gap between two strings, which holds
    nothing). What remains are the brackets: each round takes out the innermost pairs."""
    plain = data.replace(b"\\\\", b"").replace(b'\\"', b"")  # (no copy when there is none)
    # a part at a time: translate makes a buffer of its input's size before it shrinks it
    # (a 33 MB spec: 33 MB more at its parse's peak); a byte's fate does not depend on its
    # neighbours, so the parts' results joined are the whole's
    quotes = b"".join(
        plain[at : at + _DEPTH_PART].translate(None, _BRACKETS_AND_QUOTES)
        for at in range(0, len(plain), _DEPTH_PART)
    ).replace(b'""', b"")  # most strings
    skeleton = _STRINGS.sub(b"", quotes)
    brackets = skeleton.replace(b"{", b"[").replace(b"}", b"]")
    depth = 0
    while brackets and depth <= MAX_DEPTH:
        inner = brackets.replace(b"[]", b"")
        if len(inner) == len(brackets):
            break  # not balanced: cannot happen for a text that parsed
        brackets, depth = inner, depth + 1
    return max(depth, 1)


def _depth_and_dups(value: Any) -> tuple[int, list[tuple[str, str]]]:
    """Maximum nesting depth and (pointer, key) of every repeated key, iteratively."""
    deepest = 0
    dups: list[tuple[str, str]] = []
    stack: list[tuple[Any, str, int]] = [(value, "", 1)]
    while stack:
        node, pointer, depth = stack.pop()
        if isinstance(node, dict):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                continue
            if isinstance(node, _Dup):
                dups.extend((pointer, key) for key in node.dups)
            for key, child in node.items():
                if isinstance(child, dict | list):
                    stack.append((child, f"{pointer}/{escape_token(key)}", depth + 1))
        elif isinstance(node, list):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                continue
            for i, child in enumerate(node):
                if isinstance(child, dict | list):
                    stack.append((child, f"{pointer}/{i}", depth + 1))
    return deepest, dups


def _unrepresentable(value: Any) -> list[JsonProblem]:
    """A problem for each number in ``value`` a double cannot stand for (document order)."""
    found: list[tuple[str, str]] = []
    total = 0
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        node, pointer = stack.pop()
        if isinstance(node, dict):
            children = [(c, f"{pointer}/{escape_token(k)}") for k, c in node.items()]
        elif isinstance(node, list):
            children = [(c, f"{pointer}/{i}") for i, c in enumerate(node)]
        else:
            if isinstance(node, JsonFloat) and not node.representable:
                total += 1
                if len(found) < MAX_NUMBER_PROBLEMS:
                    found.append((pointer, node.literal))
            continue
        stack.extend(reversed(children))
    problems = []
    for pointer, literal in found:
        shown = literal if len(literal) <= 40 else literal[:37] + "..."
        why = "beyond the range of" if float(literal) != 0 else "too small for"
        problems.append(
            JsonProblem(
                UNREPRESENTABLE,
                f"The number {shown} is {why} an IEEE 754 double (RFC 8259 §6, I-JSON RFC 7493 "
                "§2.2): most JSON readers turn it into "
                + ("an infinity" if why.startswith("beyond") else "zero")
                + "; write it within the double range, or as a string.",
                pointer=pointer,
            )
        )
    if total > len(found):
        problems.append(
            JsonProblem(
                UNREPRESENTABLE,
                f"{total - len(found)} further number(s) a double cannot represent not shown.",
                pointer="",
            )
        )
    return problems


def _int_keeping_spelling(literal: str) -> int | float:
    return JsonFloat(literal, -0.0) if literal == "-0" else int(literal)


_ZEROS = bytes.maketrans(b"123456789", b"000000000")  # every digit a 0: one pattern to find
_NUMBER = frozenset(b"0.e+-")  # a number's characters, once its digits are zeros
_BEFORE = frozenset(b":[,")  # what comes before a value in a container, written compactly
_AFTER = frozenset(b",]}")
_MOST_MARKS = 64  # places :func:`_holds_float` looks at before it leaves the strict parse to decide
_LONGEST_NUMBER = 32  # characters it looks at either way of one (orjson's longest float: 24)


def _holds_float(written: bytes) -> bool:
    """Whether orjson's compact output of a container holds a float. orjson writes every float
    with a fraction (``1.5``) or a signed exponent (``1e+20``) and no integer with either;
    each digit followed by ``.``, ``e+`` or ``e-`` is looked at (found in C): it is a float if
    its token, the run of number characters around it, stands where a value stands (after
    ``:``, ``[`` or ``,``; before ``,``, ``]`` or ``}``). A string holding the same
    characters answers yes too: the strict parse then decides (never a wrong answer).

    Bounded whatever the text: at most :data:`_MOST_MARKS` places are looked at (past that,
    yes: the strict parse decides), each no further than :data:`_LONGEST_NUMBER` characters
    either way (orjson's longest float has 24: a longer run of number characters is not one
    value, it is in a string)."""
    zeros = written.translate(_ZEROS)
    size = len(zeros)
    left = _MOST_MARKS
    for mark in (b"0.", b"0e+", b"0e-"):
        at = zeros.find(mark)
        while at != -1:
            left -= 1
            if left < 0:
                return True  # too many to look at here: the strict parse decides
            start = at
            while start and zeros[start - 1] in _NUMBER and at - start < _LONGEST_NUMBER:
                start -= 1
            end = at + 1
            while end < size and zeros[end] in _NUMBER and end - at < _LONGEST_NUMBER:
                end += 1
            if start and zeros[start - 1] in _BEFORE and end < size and zeros[end] in _AFTER:
                return True
            at = zeros.find(mark, at + 1)
    return False


_NOT_PLAIN: Any = object()


def _plain(data: bytes) -> Any:
    """orjson's parse of ``data`` when it is certainly the strict parse's value, with no
    problem; else :data:`_NOT_PLAIN` (the strict parse then runs and explains, so a text
    orjson refuses, or one this test cannot clear, is never answered here).

    Why an answer here is the strict parse's own: orjson refuses what the strict parse refuses
    as invalid (a byte order mark, invalid UTF-8, a lone surrogate, a control character in a
    string, ``NaN``, trailing data: the tests compare them). Where the two could differ on a
    text both accept, this path steps aside:

    - **a float, or an integer beyond 64 bits** (which orjson turns into a float): orjson's
      output of the value holds a float (:func:`_holds_float`; a value that is not a
      container is tested by its type). Every integer left is one orjson read exactly,
      as Python's ``int`` reads it.
    - **a repeated key** (orjson keeps the last value, silently): the colons are counted. In
      the text, each colon outside a string separates one key from its value, and each colon
      inside a string is one in the decoded string, unless the string escaped it
      (``\\u003a``: any text with ``\\u003`` steps aside). orjson's compact output of the
      value has one colon per key it kept plus the decoded strings' colons. A repeated key
      leaves its pair, and at least its separator, out of the value: the output then has
      fewer colons than the text. Equal counts: no key was repeated.
    - **nesting past** :data:`MAX_DEPTH`: the strict parse's own quick test (fewer openers
      than the limit) must hold."""
    if b"\\u003" in data or data.count(b"{") + data.count(b"[") > MAX_DEPTH:
        return _NOT_PLAIN
    try:
        value = orjson.loads(data)
        written = orjson.dumps(value)
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return _NOT_PLAIN
    if written.count(b":") != data.count(b":"):
        return _NOT_PLAIN
    if type(value) is dict or type(value) is list:
        if _holds_float(written):
            return _NOT_PLAIN
    elif type(value) is float:  # a number alone
        return _NOT_PLAIN
    return value


class Given:
    """Bytes handed over to the parse: it takes them out (:meth:`take`), so once they are
    decoded nothing holds them (a 33 MB spec's bytes are not held beside its text and the
    objects built from it, the parse's peak). The one who gives them keeps no reference."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def take(self) -> bytes:
        data, self.data = self.data, b""
        return data


def loads_strict(
    data: bytes | Given, keep_spelling: bool = False, strings: dict[str, str] | None = None
) -> tuple[Any, list[JsonProblem]]:
    """Parse ``data``; returns the value (``None`` if unusable) and the problems found.

    Numbers keep their exact value; with ``keep_spelling`` every number that is not written
    as Python would write it keeps its literal too (for writing the text back unchanged).

    ``strings``, for a document kept for the whole run (the assertion spec): every string an
    object holds as a value is replaced by the equal one in ``strings`` (added when new), so
    a value written many times (a kind, a description, a pointer, a file the manifest names)
    is held once. Keys are shared already (the decoder's own memo); the value is the same.

    Without either, a text :func:`_plain` clears is parsed by orjson (a record in a worker:
    about half the time); the value and the (absent) problems are the same.

    ``data`` :class:`Given`: the bytes are let go once decoded, before the objects are built."""
    if isinstance(data, Given):
        return _strict(data.take(), keep_spelling, strings)  # (its only reference from here)
    if not keep_spelling and strings is None:
        plain = _plain(data)
        if plain is not _NOT_PLAIN:
            return plain, []
    return _strict(data, keep_spelling, strings)


# the decoder's own pieces, as ``json.loads`` uses them (not in the standard library's stubs):
# its whitespace, a value scanned from a position, a string from after its opening quote
_SPACE: re.Pattern[str] = json.decoder.WHITESPACE  # type: ignore[attr-defined]
_COMMA = re.compile(f"{_SPACE.pattern},{_SPACE.pattern}")  # between two items or members
_Scan = Callable[[str, int], tuple[Any, int]]
_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def _skip(text: str, at: int) -> int:
    """Where the whitespace from ``at`` ends."""
    found = _SPACE.match(text, at)
    return found.end() if found is not None else at


class _Stop(Exception):
    """Raised inside :func:`loads_in_windows` to give up reading in windows."""


#: bytes of a document decoded at a time by :func:`loads_in_windows` (tests set it small):
#: the walk holds the text from the item it reads on, not the whole document's text beside
#: its bytes (a 33 MB spec was 33 MB more for as long as both were alive)
PART = 1 << 20
#: characters a token read must end before the end of the text decoded so far, unless that
#: is the document's end: a number cut at that end reads as a shorter one (``1.5e`` as
#: ``1.5``, giving back at most two characters); any other token cut there does not read
MARGIN = 64


class _Text:
    """A document's text, decoded a part of :data:`PART` bytes at a time: ``text`` is what
    is decoded from a position on (every position the walk holds is into it), ``done`` when
    it runs to the document's end."""

    __slots__ = ("_decode", "_next", "_raw", "done", "text")

    def __init__(self, raw: bytes) -> None:
        self._raw = raw
        self._next = 0
        self._decode = codecs.getincrementaldecoder("utf-8")("strict").decode
        self.text = ""
        self.done = not raw

    def more(self, at: int) -> int:
        """Let go of the text before ``at`` and decode the next part after the rest (invalid
        UTF-8: ``UnicodeDecodeError``); where ``at`` is now."""
        start, self._next = self._next, min(len(self._raw), self._next + PART)
        self.done = self._next == len(self._raw)
        self.text = self.text[at:] + self._decode(self._raw[start : self._next], self.done)
        return 0


def _ahead(doc: _Text, at: int) -> int:
    """Where the whitespace from ``at`` ends, with the character there decoded (if the
    document has one)."""
    while True:
        at = _skip(doc.text, at)
        if at < len(doc.text) or doc.done:
            return at
        at = doc.more(at)


def _read(doc: _Text, at: int, read: _Scan) -> tuple[Any, int]:
    """``read(text, at)`` (a value, or a string after its quote) and where it ends, over
    enough of the document's text that reading more could not change it: it ends
    :data:`MARGIN` characters before the text decoded so far does, or that text is the
    whole rest of the document. Otherwise (or where it does not read) more is decoded and
    it is read again; at the document's end, what it raises is raised."""
    while True:
        if doc.done:
            return read(doc.text, at)
        try:
            value, end = read(doc.text, at)
        except (StopIteration, ValueError, _Stop):  # (cut short, perhaps: a number kept
            pass  # for its literal may be one that is not, whole; read again with more)
        else:
            if len(doc.text) - end > MARGIN:
                return value, end
        at = doc.more(at)


def loads_in_windows(
    data: Given,
    key: str,
    size: int,
    names: Mapping[str, str],
    take: Callable[[dict[str, Any], list[Any]], bool],
    finish: Callable[[dict[str, Any]], bool],
) -> tuple[dict[str, Any] | None, bytes]:
    """A large JSON object whose member ``key`` is a long array, parsed a window of ``size``
    items at a time, so that only one window's objects are alive at once: ``take(head,
    items)`` is given each window in order as it is parsed (``head``: the members before the
    array), then ``finish`` the object with ``key`` holding ``[]`` in its place, which is
    returned with ``b""``. Its text is decoded a part at a time (:data:`PART`), as the walk
    reaches it.

    The value read so is :func:`loads_strict`'s exactly (the same decoder, hooks and
    checks, one item at a time): everything that would make it differ, or make a problem,
    is not read this way. Anything else than a top-level object without a repeated key whose
    ``key`` is an array, a byte order mark, invalid UTF-8, nesting over :data:`MAX_DEPTH`, a
    repeated key or a number kept with its literal anywhere, or ``take`` or ``finish``
    saying ``False``: ``(None, the bytes)``, which the caller parses whole (with the
    problems' findings); anything ``take`` did before is then the caller's to drop.

    An object's string value equal to one of ``names`` (the manifest's names) is that
    string; any other is held once within its window (as :func:`loads_strict` holds each
    once with ``strings``, but not beyond the window: the spec's own strings, an id per
    assertion, are not all kept to the end of the parse)."""
    raw = data.take()  # (its only reference from here: handed back, or let go at the end)
    if raw.startswith(b"\xef\xbb\xbf"):
        return None, raw
    if raw.count(b"{") + raw.count(b"[") > MAX_DEPTH and _text_depth(raw) > MAX_DEPTH:
        return None, raw
    try:
        shell = _windows(_Text(raw), key, size, names, take)
    except (_Stop, StopIteration, RecursionError, ValueError):  # (JSONDecodeError, and
        shell = None  # UnicodeDecodeError, too)
    if shell is None or not finish(shell):
        return None, raw
    return shell, b""


def _windows(
    doc: _Text,
    key: str,
    size: int,
    names: Mapping[str, str],
    take: Callable[[dict[str, Any], list[Any]], bool],
) -> dict[str, Any] | None:
    """:func:`loads_in_windows`'s walk over the top-level object; raises or says ``None``
    where it gives up."""
    named = names.get
    window_strings: dict[str, str] = {}
    held = window_strings.setdefault

    def number(literal: str) -> float:  # a number kept with its literal: give up
        made = float_from_literal(literal)
        if type(made) is not float:
            raise _Stop
        return made

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        built = dict(pairs)
        if len(built) != len(pairs):
            raise _Stop  # a repeated key: the whole parse names it
        for name, value in pairs:
            if type(value) is str:
                found = named(value)
                built[name] = found if found is not None else held(value, value)
        return built

    def taken(head: dict[str, Any], window: list[Any]) -> bool:
        window_strings.clear()  # (the window's own strings: held by its objects alone now)
        return take(head, window)

    def member_name(text: str, at: int) -> tuple[str, int]:
        return _scanstring(text, at, True)

    decoder = json.JSONDecoder(object_pairs_hook=hook, parse_constant=_constant, parse_float=number)
    scan: _Scan = decoder.scan_once  # type: ignore[attr-defined]
    at = _ahead(doc, 0)
    if doc.text[at : at + 1] != "{":
        return None
    at += 1
    pairs: list[tuple[str, Any]] = []
    windowed = False
    while True:
        at = _ahead(doc, at)  # (after the brace or a comma)
        if doc.text[at : at + 1] != '"':
            return None  # (an empty object too: no array to read)
        name, at = _read(doc, at + 1, member_name)
        at = _ahead(doc, at)
        if doc.text[at : at + 1] != ":":
            return None
        at = _ahead(doc, at + 1)
        if name == key and doc.text[at : at + 1] == "[":
            at = _items(doc, at + 1, size, scan, hook(pairs), taken)
            pairs.append((name, []))
            windowed = True
        else:
            value, at = _read(doc, at, scan)
            pairs.append((name, value))
        at, more = _after(doc, at, "}")
        if not more:
            break
    if not windowed or _ahead(doc, at) != len(doc.text):
        return None
    return hook(pairs)  # (a repeated member, the array's too, gives up here)


def _items(
    doc: _Text,
    at: int,
    size: int,
    scan: _Scan,
    head: dict[str, Any],
    take: Callable[[dict[str, Any], list[Any]], bool],
) -> int:
    """The array's items from ``at`` (after its ``[``), handed to ``take`` a window at a
    time; where the array ends."""
    at = _ahead(doc, at)
    if doc.text[at : at + 1] == "]":
        return at + 1
    window: list[Any] = []
    comma = _COMMA.match
    more = True
    while more:
        # (:func:`_read` and :func:`_after`, with their common case inline: an item and
        # the comma after it well inside the text decoded so far)
        text = doc.text
        try:
            value, end = scan(text, at)
        except (StopIteration, ValueError, _Stop):
            end = -1
        if end < 0 or (not doc.done and len(text) - end <= MARGIN):
            value, end = _read(doc, at, scan)
            text = doc.text
        window.append(value)
        if len(window) == size:
            if not take(head, window):
                raise _Stop
            window = []
        after = comma(text, end)
        if after is not None and after.end() < len(text):
            at = after.end()
            continue
        at, more = _after(doc, end, "]")
        if more:
            at = _ahead(doc, at)
    if window and not take(head, window):
        raise _Stop
    return at


def _after(doc: _Text, at: int, closer: str) -> tuple[int, bool]:
    """After a member or an item: where the comma after it ends and ``True``, or where its
    object or array ends and ``False`` (``closer``); :class:`_Stop` otherwise."""
    at = _ahead(doc, at)
    found = doc.text[at : at + 1]
    if found == ",":
        return at + 1, True
    if found != closer:
        raise _Stop
    return at + 1, False


def _strict(
    data: bytes, keep_spelling: bool, strings: dict[str, str] | None
) -> tuple[Any, list[JsonProblem]]:
    """:func:`loads_strict` by the standard library's decoder, every object through a hook."""
    if data.startswith(b"\xef\xbb\xbf"):
        return None, [
            JsonProblem(
                "record.invalid-json",
                "The file starts with a UTF-8 byte "
                "order mark; JSON texts must not (RFC 8259 §8.1).",
            )
        ]
    repeated: list[bool] = []
    odd_numbers: list[bool] = []

    def number(literal: str) -> float:
        return noted(float_from_literal(literal))

    def spelled(literal: str) -> float:
        return noted(float_keeping_spelling(literal))

    def noted(made: float) -> float:  # the text is walked for pointers only if one is seen
        if not odd_numbers and type(made) is JsonFloat and not made.representable:
            odd_numbers.append(True)
        return made

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        built = dict(pairs)
        if len(built) == len(pairs):  # the common case, decided in C
            return built
        repeated.append(True)
        return _pairs(pairs)

    shared = strings.setdefault if strings is not None else None

    def sharing_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        built = hook(pairs)
        assert shared is not None
        for key, value in pairs:  # (a repeated key: the last value, the one the dict keeps)
            if type(value) is str:
                built[key] = shared(value, value)
        return built

    # what the checks below need of the bytes, taken before they are let go: the openers,
    # and with many of them the depth of the text (used only if it parses)
    openers = data.count(b"{") + data.count(b"[")
    text_depth = _text_depth(data) if openers > MAX_DEPTH else 0
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, [
            JsonProblem("record.invalid-json", f"Invalid UTF-8 at byte {exc.start}.", line=line)
        ]
    del data  # (the last reference, when the caller handed it over: see Given)
    try:
        value = json.loads(
            text,
            object_pairs_hook=hook if shared is None else sharing_hook,
            parse_constant=_constant,
            parse_float=spelled if keep_spelling else number,
            parse_int=_int_keeping_spelling if keep_spelling else None,
        )
    except json.JSONDecodeError as exc:
        return None, [
            JsonProblem(
                "record.invalid-json",
                f"Not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}.",
                line=exc.lineno,
            )
        ]
    except RecursionError:
        return None, [
            JsonProblem(
                "record.invalid-json",
                f"Nesting is deeper than the verifier's limit of {MAX_DEPTH}.",
            )
        ]
    except ValueError as exc:
        return None, [JsonProblem("record.invalid-json", f"Not JSON: {exc}.")]
    del text  # (parsed: not held beside the value while it is checked below)
    numbers = _unrepresentable(value) if odd_numbers else []
    if not repeated and openers <= MAX_DEPTH:
        # No object repeated a key, and fewer openers than the limit: nothing to walk for.
        return value, numbers
    # Many openers, or a repeated key: measure the depth; name the repeats (with pointers)
    # only if there are any.
    depth, dups = _depth_and_dups(value) if repeated else (text_depth, [])
    if depth > MAX_DEPTH:
        return None, [
            JsonProblem(
                "record.invalid-json", f"Nesting depth exceeds the verifier's limit of {MAX_DEPTH}."
            )
        ]
    problems = [
        JsonProblem(
            "record.duplicate-key",
            f"The object repeats the key {json.dumps(key)}; which value counts is undefined.",
            pointer=pointer or "",
        )
        for pointer, key in sorted(dups)
    ]
    return value, problems + numbers

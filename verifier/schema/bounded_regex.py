"""Regular expressions from an archive, run in bounded time.

Every pattern an archive supplies (a schema's ``pattern``, ``patternProperties`` and
``propertyNames`` patterns, the ``regex`` format, and any other caller) goes through
:func:`compile`. There is one dialect, ``"ecma262"``: the ECMA-262 regular expressions that
JSON Schema names (section 6.4 of the 2020-12 core), with Unicode semantics (``\\p{Letter}``,
``\\p{L}``, astral characters as one character), and ``\\d``, ``\\w``, ``\\b`` ASCII-only, ``$``
only at the very end, as ECMA-262 writes them.

The engine is the one jsonschema-rs (the fast validator) uses, so both validation engines
share one ECMA-262 implementation and cannot disagree on what a pattern matches: the Rust
``regex`` crate, which runs in time linear in the text, for every pattern it can take; and
``fancy-regex`` for patterns that need backreferences or lookaround, which backtracks under a
fixed step budget (:data:`BACKTRACK_LIMIT`). Running over that budget raises
:class:`RegexBudgetExceeded`: the verdict is unknown, and the caller reports it as a finding,
never as a match or a non-match. The budget counts steps, not seconds, so the outcome is the
same on every machine and every run.

The interface is deliberately small: ``compile(pattern, dialect).search(text) -> bool``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

DIALECTS = ("ecma262",)
BACKTRACK_LIMIT = 1_000_000  # fancy-regex steps per search
SIZE_LIMIT = 10 * 2**20  # bytes of compiled program per pattern
DFA_SIZE_LIMIT = 2 * 2**20  # bytes of lazy-DFA cache per pattern


class RegexError(ValueError):
    """The pattern is not a regular expression of the dialect (or compiles too large)."""


class RegexBudgetExceeded(Exception):
    """A search ran over its step budget: whether the text matches is unknown."""

    def __init__(self, pattern: str, length: int) -> None:
        self.pattern = pattern
        self.length = length
        shown = pattern if len(pattern) <= 80 else pattern[:77] + "..."
        super().__init__(
            f"the pattern {shown!r} needs more than {BACKTRACK_LIMIT:,} backtracking steps "
            f"on a text of {length:,} characters"
        )


class BoundedRegex:
    """One compiled pattern; :meth:`search` says whether it matches anywhere in a text."""

    __slots__ = ("_validator", "pattern")

    def __init__(self, pattern: str, validator: Any) -> None:
        self.pattern = pattern
        self._validator = validator

    def search(self, text: str) -> bool:
        """True if the pattern matches somewhere in ``text`` (ECMA-262 ``RegExp.test``);
        raises :class:`RegexBudgetExceeded` when that cannot be told within the budget.

        A lone surrogate cannot reach the engine (it takes UTF-8); each is matched as
        U+FFFD, the replacement character."""
        try:
            if self._validator.is_valid(text):
                return True
        except UnicodeEncodeError:
            text = "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
            if self._validator.is_valid(text):
                return True
        for error in self._validator.iter_errors(text):
            if type(error.kind).__name__ != "Pattern":  # BacktrackLimitExceeded, engine failure
                raise RegexBudgetExceeded(self.pattern, len(text))
        return False


def compile(pattern: str, dialect: str = "ecma262") -> BoundedRegex:
    """The pattern, compiled for bounded searches; raises :class:`RegexError` if it is not a
    regular expression of ``dialect`` (only ``"ecma262"``)."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown regular-expression dialect {dialect!r}")
    if not isinstance(pattern, str):
        raise RegexError("a pattern must be a string")
    return _compile(pattern)


@lru_cache(maxsize=1024)
def _compile(pattern: str) -> BoundedRegex:
    import jsonschema_rs

    try:
        validator = jsonschema_rs.validator_for(
            {"type": "string", "pattern": pattern},
            pattern_options=jsonschema_rs.FancyRegexOptions(
                backtrack_limit=BACKTRACK_LIMIT,
                size_limit=SIZE_LIMIT,
                dfa_size_limit=DFA_SIZE_LIMIT,
            ),
        )
    except (ValueError, UnicodeEncodeError) as exc:  # jsonschema_rs.ValidationError is one
        raise RegexError(f"{pattern!r} is not an ECMA-262 regular expression") from exc
    return BoundedRegex(pattern, validator)


def fast_engine_options() -> Any:
    """The pattern options for the fast validator: the linear engine only, with the same
    size limits. A schema whose patterns need backtracking is then refused by the fast
    validator, and the reference validator, which raises on a budget overrun, decides."""
    import jsonschema_rs

    return jsonschema_rs.RegexOptions(size_limit=SIZE_LIMIT, dfa_size_limit=DFA_SIZE_LIMIT)


def is_regex(value: object) -> bool:
    """The ``regex`` format: a string that is an ECMA-262 regular expression."""
    if not isinstance(value, str):
        return True
    try:
        compile(value)
    except RegexError:
        return False
    return True

"""JSON numbers by their exact value, as written.

RFC 8259 §6 lets a parser limit range and precision, and I-JSON (RFC 7493 §2.2) asks writers
not to exceed what an IEEE 754 double holds. A verifier must not trade exactness for that:
two different numbers written in an archive never compare equal here, and a number a double
cannot stand for at all is a finding, never a silent infinity or zero.

How a parsed number is held (:mod:`verifier.json.parse`):

* an integer literal is a Python ``int``, exact at any size;
* a literal with a fraction or an exponent is a plain ``float`` when the shortest decimal
  form of that double (``repr``) has the literal's exact value: ``0.1``, ``1.5``, ``1E2``,
  ``2.50`` (all real data the verifier has seen);
* any other such literal (more digits than a double holds, e.g. ``0.10000000000000001``;
  beyond its range, ``1e400``; too small for it, ``1e-400``) is a :class:`JsonFloat`: a float
  (the nearest double, ``inf`` beyond the range, so schema engines still see a number) that
  carries its literal. Its value, for comparison and output, is the literal's.

Numbers are equal when their exact values are (JSON Schema's rule: ``1``, ``1.0`` and
``1e0`` are one number; ``-0`` equals ``0``). Comparing two plain floats, or two ints, is one
machine comparison; anything else compares :func:`number_key` values, exact decimal forms.
"""

from __future__ import annotations

import decimal
import math
import re
from typing import Any

_LITERAL = re.compile(r"(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?", re.ASCII)
# An exponent longer than this is converted through decimal (int() refuses long strings).
_LONG_EXPONENT = 4000

NumberKey = tuple[int, str, Any]  # (sign, significant digits, exponent): digits * 10**exponent
ZERO: NumberKey = (0, "", 0)


class JsonFloat(float):
    """A number literal whose exact value no double holds: the nearest double (``inf``
    beyond the range), and the literal as written."""

    __slots__ = ("literal",)
    literal: str

    def __new__(cls, literal: str, value: float | None = None) -> JsonFloat:
        made = super().__new__(cls, float(literal) if value is None else value)
        made.literal = literal
        return made

    def __reduce__(self) -> tuple[type[JsonFloat], tuple[str, float]]:
        return (JsonFloat, (self.literal, float(self)))

    def __repr__(self) -> str:  # in any message: the number as written, never "inf"
        return self.literal

    __str__ = __repr__

    @property
    def representable(self) -> bool:
        """False when a double cannot stand for the number at all: it overflows to an
        infinity, or a number that is not zero rounds to zero."""
        if math.isinf(self):
            return False
        return not (float(self) == 0.0 and literal_key(self.literal) != ZERO)


def literal_key(literal: str) -> NumberKey:
    """The exact value of a JSON number literal, canonical: equal values, equal keys."""
    match = _LITERAL.fullmatch(literal)
    if match is None:
        raise ValueError(f"not a JSON number: {literal[:40]!r}")
    sign_text, whole, fraction, exponent_text = match.groups()
    fraction = fraction or ""
    digits = (whole + fraction).lstrip("0")
    if not digits:
        return ZERO
    stripped = digits.rstrip("0")
    shift = len(digits) - len(stripped) - len(fraction)
    exponent: Any
    if exponent_text is None:
        exponent = shift
    elif len(exponent_text) <= _LONG_EXPONENT:
        exponent = int(exponent_text) + shift
    else:  # exact, however long: a context as precise as the exponent is long
        context = decimal.Context(
            prec=len(exponent_text) + 30, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN
        )
        exponent = context.add(decimal.Decimal(exponent_text), decimal.Decimal(shift))
    return (-1 if sign_text else 1, stripped, exponent)


def number_key(value: int | float) -> NumberKey:
    """The exact value of a parsed number (see the module's description)."""
    if isinstance(value, JsonFloat):
        return literal_key(value.literal)
    if isinstance(value, int):
        if value == 0:
            return ZERO
        text = str(abs(value))
        stripped = text.rstrip("0")
        return (-1 if value < 0 else 1, stripped, len(text) - len(stripped))
    if not math.isfinite(value):  # never parsed from JSON; computed values only
        return (0, repr(value), None)
    return literal_key(repr(value))


def numbers_equal(a: int | float, b: int | float) -> bool:
    """Whether two parsed numbers have the same exact value."""
    ta, tb = type(a), type(b)
    if ta is tb and (ta is int or ta is float):
        return bool(a == b)
    return number_key(a) == number_key(b)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def canonical(value: Any) -> Any:
    """A hashable key equal for JSON-equal values (numbers by exact value, objects without
    regard to member order): what counting distinct values counts."""
    if value is None or isinstance(value, bool | str):
        return (type(value).__name__, value)
    if is_number(value):
        return ("number", number_key(value))
    if isinstance(value, list):
        return ("array", tuple(canonical(v) for v in value))
    if isinstance(value, dict):
        return ("object", tuple(sorted((k, canonical(v)) for k, v in value.items())))
    return ("other", repr(value))


# A literal with a fraction or an exponent that is at most 16 characters long has at most 15
# significant digits; if its double is normal (not zero, not subnormal, finite), the shortest
# form of that double has its exact value (15 digits survive a double: DBL_DIG).
SHORT_LITERAL = 16
MIN_NORMAL = 2.2250738585072014e-308
MAX_DOUBLE = 1.7976931348623157e308


def float_from_literal(literal: str) -> float:
    """The parser's ``parse_float`` in its value-keeping mode: a plain float when the double
    states the literal's exact value, else a :class:`JsonFloat` (see the module's text)."""
    value = float(literal)
    if len(literal) <= SHORT_LITERAL and MIN_NORMAL <= abs(value) <= MAX_DOUBLE:
        return value
    return exact_float(literal, value)


def exact_float(literal: str, value: float) -> float:
    """:func:`float_from_literal` past its quick test: ``value`` is ``float(literal)``."""
    text = repr(value)
    if text == literal:  # the common case: written in its shortest form
        return value
    if math.isfinite(value) and literal_key(text) == literal_key(literal):
        return value
    return JsonFloat(literal, value)


def float_keeping_spelling(literal: str) -> float:
    """``parse_float`` in its literal-keeping mode (transcripts, which repair writes back):
    a plain float only when the literal is the double's shortest form."""
    value = float(literal)
    return value if repr(value) == literal else JsonFloat(literal, value)


__all__ = [
    "MAX_DOUBLE",
    "MIN_NORMAL",
    "SHORT_LITERAL",
    "ZERO",
    "JsonFloat",
    "NumberKey",
    "canonical",
    "exact_float",
    "float_from_literal",
    "float_keeping_spelling",
    "is_number",
    "literal_key",
    "number_key",
    "numbers_equal",
]

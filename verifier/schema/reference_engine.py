"""python-jsonschema, the reference engine, made to read patterns as JSON Schema says.

python-jsonschema matches ``pattern``, ``patternProperties`` (and through them
``additionalProperties`` and ``unevaluatedProperties``) with Python's ``re``: not the
ECMA-262 dialect JSON Schema names (``\\p{Letter}`` does not compile, ``\\d`` matches U+0661,
``$`` matches before a final newline), and backtracking without bound (``^(a+)+$`` on a
failing value of 30 characters runs for minutes). Its keyword functions look ``re`` up as a
module global, so the one place to change is that global: :func:`install` points it, in
those two modules only, at :mod:`verifier.schema.bounded_regex`, whose engine is the fast
engine's own. A search over its step budget raises
:class:`~verifier.schema.bounded_regex.RegexBudgetExceeded` out of the validation, which the caller
reports as a finding (it is never taken as a match or a non-match: inside ``not`` or
``oneOf`` either guess could pass a record).

The metaschema check uses the project's format policy (the ``regex`` format is an
ECMA-262 pattern) and reports every error, in an order fixed by the schema itself.
"""

from __future__ import annotations

from typing import Any

from verifier.json.parse import escape_token
from verifier.schema import bounded_regex

MAX_META_ERRORS = 20


class _EcmaRe:
    """What python-jsonschema's keywords call of ``re``: ``search(pattern, text)``."""

    @staticmethod
    def search(pattern: str, text: str) -> bool:
        return bounded_regex.compile(pattern).search(text)


_ECMA_RE = _EcmaRe()


def install() -> None:
    """Make python-jsonschema's pattern keywords use :mod:`verifier.schema.bounded_regex`.
    Idempotent: the patched attribute itself says whether it is done (no flag of our own)."""
    from jsonschema import _keywords, _utils

    for module in (_keywords, _utils):
        if not hasattr(module, "re"):  # pragma: no cover - a release that moved it
            raise RuntimeError(f"{module.__name__} no longer uses re: update reference_engine")
        if not isinstance(module.re, _EcmaRe):
            module.re = _ECMA_RE


def meta_problems(schema: Any) -> list[tuple[str, str]]:
    """Every way ``schema`` breaks the Draft 2020-12 metaschema, as (JSON pointer, message)
    sorted by pointer then message (at most :data:`MAX_META_ERRORS`, then a count); empty if
    it conforms. Never raises for the schema's sake."""
    from jsonschema import Draft202012Validator

    from verifier.schema.format_policy import format_checker

    install()
    meta = Draft202012Validator(Draft202012Validator.META_SCHEMA, format_checker=format_checker())
    try:
        found = sorted({(_pointer(e.absolute_path), e.message) for e in meta.iter_errors(schema)})
    except RecursionError:
        return [("", "it is nested too deeply for the metaschema check")]
    except bounded_regex.RegexBudgetExceeded as exc:  # pragma: no cover - metaschema patterns
        return [("", str(exc))]
    if len(found) > MAX_META_ERRORS:
        rest = len(found) - MAX_META_ERRORS
        found = [*found[:MAX_META_ERRORS], ("", f"{rest} further metaschema errors not shown")]
    return found


def _pointer(path: Any) -> str:
    return "".join("/" + escape_token(str(part)) for part in path)

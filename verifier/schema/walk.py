"""The subschemas of a Draft 2020-12 schema, each with the base URI it is read against.

Only schema positions are walked (the applicator keywords of the 2020-12 vocabularies, and
``$defs``): a ``"$ref"`` inside an ``enum`` or ``const`` value, or under an unknown keyword, is
data, not a reference. Each subschema is read in the scope of the nearest enclosing schema
resource: a subschema with its own ``$id`` (absolute, or relative such as ``folder/`` or
``child.json``) starts a new base URI, resolved against the enclosing one (RFC 3986 section
5.1, as JSON Schema 2020-12 core section 8.2.1 says); the walk derives it with the same
``referencing`` resolver the reference validator uses, so the two cannot differ.

The walk is iterative (no recursion, whatever the nesting), and reports how deep each
subschema is nested so the caller can refuse a schema nested beyond what a validator can
follow.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from verifier.json.parse import escape_token

# keyword -> how its value holds subschemas
_ONE = frozenset(
    {
        "additionalProperties",
        "contains",
        "contentSchema",
        "else",
        "if",
        "items",
        "not",
        "propertyNames",
        "then",
        "unevaluatedItems",
        "unevaluatedProperties",
    }
)
_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_MAP = frozenset({"$defs", "definitions", "dependentSchemas", "patternProperties", "properties"})


@dataclass(frozen=True, slots=True)
class Subschema:
    """One subschema (a JSON object) at ``pointer`` in its document, ``depth`` subschemas
    below the root, read against the base URI ``base`` (``None`` with ``error`` when its
    ``$id`` cannot be joined to the enclosing base URI)."""

    pointer: str
    depth: int
    node: dict[str, Any]
    base: str | None
    error: str | None = None


def subschemas(schema: dict[str, Any], base: str) -> Iterator[Subschema]:
    """Every subschema of ``schema`` (the root first), in document order; ``base`` is the
    root's base URI (its ``$id``)."""
    stack: list[tuple[str, int, Any, str | None]] = [("", 0, schema, base)]
    while stack:
        pointer, depth, node, parent = stack.pop()
        if not isinstance(node, dict):
            continue  # true/false schemas, or a malformed value the metaschema reports
        here, error = parent, None
        sid = node.get("$id")
        if parent is not None and isinstance(sid, str):
            try:
                here = join(parent, sid) if node is not schema else join(sid, sid)
            except ValueError as exc:  # urljoin: "Invalid IPv6 URL", and other bad URIs
                here, error = None, f"its $id {_short(sid)} is not a URI that resolves ({exc})"
        yield Subschema(pointer, depth, node, here, error)
        children: list[tuple[str, int, Any, str | None]] = []
        for key, value in node.items():
            at = f"{pointer}/{escape_token(key)}"
            if key in _ONE:
                children.append((at, depth + 1, value, here))
            elif key in _LIST and isinstance(value, list):
                children.extend((f"{at}/{i}", depth + 1, v, here) for i, v in enumerate(value))
            elif key in _MAP and isinstance(value, dict):
                children.extend(
                    (f"{at}/{escape_token(k)}", depth + 1, v, here) for k, v in value.items()
                )
        stack.extend(reversed(children))


def join(base: str, ref: str) -> str:
    """``ref`` resolved against ``base`` (RFC 3986 section 5.2, as ``referencing`` does);
    raises ValueError for a URI that cannot be parsed."""
    from urllib.parse import urljoin, urlsplit

    urlsplit(base)
    urlsplit(ref)
    return urljoin(base, ref)


def _short(text: str) -> str:
    return repr(text if len(text) <= 80 else text[:77] + "...")

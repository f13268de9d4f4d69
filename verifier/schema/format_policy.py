"""The one ``format`` policy both validation engines apply (docs/format-policy.md).

:data:`ASSERTED` maps each asserted format to its checker; every other format, defined by
JSON Schema 2020-12 or not, is an annotation only and never fails a record. Both engines are
given exactly these functions (python-jsonschema through a ``FormatChecker`` holding only
them, jsonschema-rs through ``formats=`` with its built-in checkers replaced), so they
cannot assert different sets or disagree on a value.

Every checker takes any JSON value (a non-string passes: ``format`` applies to strings),
returns a bool, and never raises.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from verifier.schema.bounded_regex import is_regex
from verifier.schema.rfc3339 import is_full_date, is_full_time, is_rfc3339

if TYPE_CHECKING:
    from jsonschema import FormatChecker

_UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\Z")
_IPV4 = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}\Z", re.ASCII)
_IPV6_CHARS = re.compile(r"[0-9A-Fa-f:.]+\Z", re.ASCII)
_JSON_POINTER = re.compile(r"(?:/(?:[^~/]|~[01])*)*\Z", re.DOTALL)


def is_ipv4(value: object) -> bool:
    """RFC 2673 section 3.2 dotted-quad: four ASCII decimal octets, no leading zeros
    (the standard library's ``ipaddress`` decides the octets)."""
    if not isinstance(value, str):
        return True
    if _IPV4.match(value) is None:
        return False
    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        return False
    return True


def is_ipv6(value: object) -> bool:
    """RFC 4291 section 2.2 text form (``ipaddress`` decides); no zone id (``%eth0``), which
    RFC 4291 addresses do not carry."""
    if not isinstance(value, str):
        return True
    if _IPV6_CHARS.match(value) is None:
        return False
    try:
        ipaddress.IPv6Address(value)
    except ValueError:
        return False
    return True


def is_uuid(value: object) -> bool:
    """RFC 9562 section 4 string form: 8-4-4-4-12 hexadecimal digits, either case."""
    if not isinstance(value, str):
        return True
    return _UUID.match(value) is not None


def is_json_pointer(value: object) -> bool:
    """RFC 6901: empty, or ``/``-prefixed tokens in which ``~`` is only ``~0`` or ``~1``."""
    if not isinstance(value, str):
        return True
    return _JSON_POINTER.match(value) is not None


ASSERTED: Mapping[str, Callable[[Any], bool]] = MappingProxyType(
    {
        "date-time": is_rfc3339,
        "date": is_full_date,
        "time": is_full_time,
        "ipv4": is_ipv4,
        "ipv6": is_ipv6,
        "uuid": is_uuid,
        "json-pointer": is_json_pointer,
        "regex": is_regex,
    }
)

# Formats JSON Schema 2020-12 defines (Validation, section 7.3) that are not asserted here:
# annotation only, because no checker the project can keep both strict and offline exists
# for them (email and IDN grammars, URI and IRI without a maintained RFC 3986/3987 parser,
# URI templates, ISO 8601 durations, relative JSON pointers, host names).
ANNOTATION_ONLY = (
    "duration",
    "email",
    "hostname",
    "idn-email",
    "idn-hostname",
    "iri",
    "iri-reference",
    "relative-json-pointer",
    "uri",
    "uri-reference",
    "uri-template",
)


def _annotation(value: object) -> bool:
    return True


def fast_formats() -> dict[str, Callable[[Any], bool]]:
    """The ``formats=`` for jsonschema-rs: the asserted checkers, and every format it would
    otherwise check by itself switched to annotation only."""
    return {**dict.fromkeys(ANNOTATION_ONLY, _annotation), **ASSERTED}


DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"


def may_assert_format(schema: Any, resources: Mapping[str, Any]) -> bool:
    """Whether validating against ``schema`` (a 2020-12 schema document, its ``$id``
    absolute) may reach a ``format`` keyword, following its references into ``resources``
    (each schema resource by its absolute URI). ``False`` is a proof: jsonschema-rs given no
    ``formats=`` and ``validate_formats=False`` then decides exactly as with them, and it
    validates the instance where it lies instead of converting the whole of it first (the
    33 MB spec at 100,000 records: a copy of about 55 MB, its peak). Anything this cannot
    follow for certain answers ``True``: another dialect, a dynamic reference, an embedded
    ``$id`` below the root, a reference that does not resolve here, an anchor (the whole
    resource is read instead). Every object of what is reached is read, not only the schema
    positions, so a ``format`` or a ``$ref`` under a keyword unknown here still counts."""
    if not isinstance(schema, dict) or schema.get("$schema") != DRAFT_2020_12:
        return True
    base = schema.get("$id")
    if not isinstance(base, str):
        return True
    from verifier.schema.walk import join

    todo: list[tuple[Any, str]] = [(schema, base)]
    seen: set[int] = set()  # every object and array read: each is read once in all
    while todo:
        node, where = todo.pop()
        stack = [node]
        while stack:
            item = stack.pop()
            if not isinstance(item, dict | list) or id(item) in seen:
                continue
            seen.add(id(item))
            if isinstance(item, list):
                stack.extend(item)
                continue
            if "format" in item or not _DYNAMIC.isdisjoint(item):
                return True
            if "$id" in item and item is not node:
                return True  # an embedded resource: its own base URI, not followed here
            ref = item.get("$ref")
            if ref is not None:
                target = _resolve(ref, where, resources, join)
                if target is None:
                    return True
                todo.append(target)
            stack.extend(item.values())
    return False


_DYNAMIC = frozenset({"$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor"})
_INDEX = re.compile(r"0|[1-9][0-9]*", re.ASCII)


def _resolve(
    ref: Any, base: str, resources: Mapping[str, Any], join: Callable[[str, str], str]
) -> tuple[Any, str] | None:
    """The node ``ref`` points at and its resource's URI, or ``None`` when not certain."""
    from urllib.parse import unquote

    if not isinstance(ref, str):
        return None
    try:
        uri = join(base, ref)
    except ValueError:
        return None
    document, _, fragment = uri.partition("#")
    node = resources.get(document)
    if node is None:
        return None
    if not fragment.startswith("/"):
        return node, document  # the resource itself, or an anchor in it: all of it is read
    for token in unquote(fragment)[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and _INDEX.fullmatch(token) and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
        if isinstance(node, dict) and "$id" in node:
            return None  # into an embedded resource
    return node, document


def format_checker() -> FormatChecker:
    """The ``FormatChecker`` for python-jsonschema: the asserted checkers and nothing else."""
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())
    for name, check in ASSERTED.items():
        checker.checks(name)(check)
    return checker

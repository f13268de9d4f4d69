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


def format_checker() -> FormatChecker:
    """The ``FormatChecker`` for python-jsonschema: the asserted checkers and nothing else."""
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())
    for name, check in ASSERTED.items():
        checker.checks(name)(check)
    return checker

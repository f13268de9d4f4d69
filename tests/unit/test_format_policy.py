"""One format policy (docs/format-policy.md), applied identically by both engines.

Per format: the fast engine and the reference engine agree on every generated value (a
differential test); where an independent oracle exists (the standard library's calendar and
``ipaddress``), the policy agrees with it on generated values; annotation-only formats never
fail a value in either engine. The official suite's cases for each asserted format are run
by tests/unit/test_schema_suite.py.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.assertions import KINDS, Context
from verifier.schema.bundle import Validators
from verifier.schema.format_policy import ANNOTATION_ONLY, ASSERTED
from verifier.schema.rfc3339 import instant, is_full_date, is_full_time, is_rfc3339
from verifier.values.records import Records

DRAFT = "https://json-schema.org/draft/2020-12/schema"
FAST = os.environ.get("VERIFIER_ENGINE") != "reference"


@cache
def engines(name: str) -> tuple[Any, Any]:
    sid = f"https://verifier.invalid/format/{name}.json"
    docs = {"schemas/f.json": {"$schema": DRAFT, "$id": sid, "format": name}}
    v = Validators(docs, {sid: "schemas/f.json"}, "schemas")
    fast = v.fast("schemas/f.json")
    if FAST:
        assert fast is not None
    return fast, v.reference("schemas/f.json")


DIGITS = st.sampled_from("0123456789") | st.sampled_from("١٩٦٣২০߀٠")
PIECES = st.lists(
    st.one_of(
        DIGITS,
        st.sampled_from(list("-:.TtZz+ /%[]abcdefABCDEF~\n")),
        st.sampled_from(["2026", "12", "31", "23", "59", "60", "00", "::", "255", "0x"]),
    ),
    max_size=30,
).map("".join)


def _samples(name: str) -> st.SearchStrategy[str]:
    """Values near the format's shape (so both verdicts occur), and arbitrary text."""
    near: dict[str, st.SearchStrategy[str]] = {
        "date-time": st.builds(
            lambda d, t: f"{d}T{t}",
            st.from_regex(r"\A[0-9\u0661]{4}-[0-9]{2}-[0-9]{2}\Z"),
            st.from_regex(
                r"\A[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})\Z"
            ),
        ),
        "date": st.from_regex(r"\A[0-9\u0661]{4}-[0-9]{2}-[0-9]{2}\Z"),
        "time": st.from_regex(
            r"\A[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?\Z"
        ),
        "ipv4": st.from_regex(r"\A[0-9২]{1,4}(\.[0-9]{1,4}){2,4}\Z"),
        "ipv6": st.from_regex(r"\A[0-9a-fA-F:.%]{2,45}\Z"),
        "uuid": st.from_regex(r"\A[0-9a-fA-Fg-]{30,40}\Z"),
        "json-pointer": st.from_regex(r"\A(/[a-z~0-3]{0,4}){0,4}\Z"),
        "regex": st.from_regex(r"\A[a-z\\()\[\]{}^$*+?|.0-9pPL]{0,12}\Z"),
    }
    return near[name] | PIECES | st.text(max_size=20)


@pytest.mark.parametrize("name", sorted(ASSERTED))
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_fast_and_reference_engines_agree(name: str, data: st.DataObject) -> None:
    fast, reference = engines(name)
    value = data.draw(_samples(name))
    verdict = reference.is_valid(value)
    assert verdict is ASSERTED[name](value)
    if fast is not None:
        assert fast.is_valid(value) is verdict, value


@pytest.mark.parametrize("name", [*ANNOTATION_ONLY, "no-such-format"])
def test_annotation_only_formats_never_fail_in_either_engine(name: str) -> None:
    fast, reference = engines(name)
    for value in ["", "\x00 not a valid anything", "::::", "a b c", "-1"]:
        assert reference.is_valid(value)
        if fast is not None:
            assert fast.is_valid(value), (name, value)


FIELDS = st.tuples(
    st.integers(0, 9999),
    st.integers(0, 13),
    st.integers(0, 32),
    st.integers(0, 24),
    st.integers(0, 60),
    st.integers(0, 61),
    st.sampled_from(["Z", "+00:00", "-08:00", "+05:30", "+23:59", "-00:01", "+24:00"]),
)


def _oracle(y: int, mo: int, d: int, h: int, mi: int, s: int, off: str) -> bool:
    """datetime's calendar and clock; a leap second where it lands on 23:59 UTC."""
    if s > 60 or (off != "Z" and (int(off[1:3]) > 23 or int(off[4:]) > 59)):
        return False
    try:
        dt.date(y if y else 2000, mo, d)  # year 0000 has 2000's calendar (400-year cycle)
        dt.time(h, mi, min(s, 59))
    except ValueError:
        return False
    if s == 60:
        offset = (
            0 if off == "Z" else (1 if off[0] == "+" else -1) * (int(off[1:3]) * 60 + int(off[4:]))
        )
        return (h * 60 + mi - offset) % 1440 == 23 * 60 + 59
    return True


@settings(max_examples=300, deadline=None)
@given(FIELDS)
def test_date_time_agrees_with_the_datetime_oracle(fields: tuple[Any, ...]) -> None:
    y, mo, d, h, mi, s, off = fields
    text = f"{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}{off}"
    assert is_rfc3339(text) is _oracle(*fields), text
    assert is_full_date(text[:10]) is _oracle(y, mo, d, 0, 0, 0, "Z")
    assert is_full_time(text[11:]) is _oracle(2000, 1, 1, h, mi, s, off)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_ipv4_agrees_with_ipaddress(n: int) -> None:
    text = str(ipaddress.IPv4Address(n))
    assert ASSERTED["ipv4"](text)
    padded = ".".join(p.zfill(3) for p in text.split("."))
    assert ASSERTED["ipv4"](padded) is (padded == text)  # leading zeros are refused


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**128 - 1))
def test_ipv6_agrees_with_ipaddress(n: int) -> None:
    address = ipaddress.IPv6Address(n)
    assert ASSERTED["ipv6"](str(address))
    assert ASSERTED["ipv6"](address.exploded)
    assert not ASSERTED["ipv6"](f"{address}%eth0")


@pytest.mark.parametrize(
    ("name", "value", "valid"),
    [
        ("date-time", "١٩٦٣-06-19T08:30:06Z", False),  # Arabic-Indic digits
        ("date-time", "1963-06-19T08:30:06Z", True),
        ("date-time", "1998-12-31T23:59:60Z", True),
        ("date-time", "1998-12-31T22:59:60Z", False),
        ("date-time", "1998-12-31T15:59:60-08:00", True),  # 23:59:60 UTC
        ("date-time", "1998-12-31T23:59:60+01:00", False),  # 22:59:60 UTC
        ("date-time", "1998-12-31T23:59:60.123Z", True),
        ("date-time", "1963-06-19T08:30:06Z\n", False),
        ("date", "1963-06-1৯", False),
        ("time", "08:30:06", False),  # RFC 3339 full-time needs its offset
        ("time", "23:59:60Z", True),
        ("time", "12:59:60Z", False),
        ("ipv4", "1.2.3.\u09e6", False),
        ("ipv6", "::1%eth0", False),
        ("regex", "^\\p{Letter}+$", True),
        ("regex", "(?<=a)b", True),
        ("regex", "\\Z", False),
        ("uuid", "2eb8aa08-AA98-11ea-B4AA-73B441D16380", True),
        ("uuid", "2eb8aa08aa9811eab4aa73b441d16380", False),
    ],
)
def test_named_values_in_both_engines(name: str, value: str, valid: bool) -> None:
    fast, reference = engines(name)
    assert reference.is_valid(value) is valid
    if fast is not None:
        assert fast.is_valid(value) is valid


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("1998-12-31T23:59:59.999Z", "1998-12-31T23:59:60Z"),
        ("1998-12-31T23:59:60Z", "1998-12-31T23:59:60.5Z"),
        ("1998-12-31T23:59:60.999999999Z", "1999-01-01T00:00:00Z"),
        ("1998-12-31T15:59:59-08:00", "1998-12-31T15:59:60-08:00"),
        ("1998-12-31T15:59:60-08:00", "1999-01-01T00:00:00Z"),
        ("2026-10-22T19:27:27.1234567Z", "2026-10-22T19:27:27.1234568Z"),
        ("0000-01-01T00:00:00Z", "0000-03-01T00:00:00Z"),
    ],
)
def test_instants_order_leap_seconds_and_long_fractions(earlier: str, later: str) -> None:
    a, b = instant(earlier), instant(later)
    assert a is not None and b is not None
    assert a < b


def test_the_same_instant_in_two_offsets_is_equal() -> None:
    assert instant("1998-12-31T15:59:60-08:00") == instant("1998-12-31T23:59:60Z")
    assert instant("2026-01-01T00:30:00+00:30") == instant("2026-01-01T00:00:00z")


@pytest.mark.parametrize(
    ("first", "second", "status"),
    [
        ("1998-12-31T23:59:59Z", "1998-12-31T23:59:60Z", "passed"),
        ("1998-12-31T23:59:60Z", "1999-01-01T00:00:00Z", "passed"),
        ("1999-01-01T00:00:00Z", "1998-12-31T15:59:60-08:00", "failed"),
        ("1998-12-31T15:59:60-08:00", "1998-12-31T23:59:60Z", "failed"),  # the same instant
    ],
)
def test_order_assertion_compares_leap_seconds(first: str, second: str, status: str) -> None:
    records = {"a.json": {"t0": first, "t1": second}}
    spec = {
        "kind": "order",
        "selects": [{"file": "a.json", "pointer": "/t0"}, {"file": "a.json", "pointer": "/t1"}],
    }
    outcome = KINDS["order"].evaluate(spec, Context(Records.of(records), set(records)))
    assert outcome.status.value == status, outcome.message

"""The plug-in registry every family builds on (verifier.registry): lazy, ordered, read-only."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from verifier.assertions import KINDS, AssertionKind
from verifier.authenticity.registry import FORMATS, detect
from verifier.registry import Plugin, Registry
from verifier.transcripts import SHAPES
from verifier.transcripts.interface import Shape


def test_members_in_order_and_imported_on_use() -> None:
    registry: Registry[object] = Registry(
        "demo", Plugin("b", "verifier.errors:UsageError"), Plugin("a", "verifier.registry:Plugin")
    )
    assert list(registry) == ["b", "a"]
    assert registry.choices("auto") == ("auto", "b", "a")
    assert registry.listing() == "b or a"
    assert registry["a"] is Plugin
    with pytest.raises(KeyError):
        registry["c"]


def test_a_name_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="twice"):
        Registry("demo", Plugin("a", "x:y"), Plugin("a", "x:z"))


def test_read_only() -> None:
    registry: Registry[object] = Registry("demo", Plugin("a", "verifier.registry:Plugin"))
    with pytest.raises(TypeError):
        registry["b"] = object()  # type: ignore[index]


def test_every_shape_is_a_shape_named_as_registered() -> None:
    assert len(SHAPES) == 6
    for name, shape in SHAPES.items():
        assert isinstance(shape, Shape)
        assert shape.name == name
        assert SHAPES[name] is shape  # one adapter per name, not a new one per lookup


def test_listing_the_shapes_imports_no_adapter() -> None:
    code = (
        "import sys; from verifier.commands.transcript import SHAPE_NAMES; "
        "print(SHAPE_NAMES); "
        "print(sorted(m for m in sys.modules if m.startswith('verifier.transcripts.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[0] == ", ".join(SHAPES)
    adapters = {"anthropic", "gemini", "openai_chat", "openai_responses", "pi", "pydantic_ai"}
    assert not {m.rsplit(".", 1)[1] for m in ast.literal_eval(out[1])} & adapters


#: the shape each signature format is told by (its whole check: tests/unit/test_authenticity_*)
SIGNATURE_SHAPES = {
    "sshsig": b"-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n",
    "minisign": b"untrusted comment: x\nRWQ=\ntrusted comment: y\nAA==\n",
    "openpgp": b"-----BEGIN PGP SIGNATURE-----\n\niQ==\n-----END PGP SIGNATURE-----\n",
}


def test_every_signature_format_is_named_as_registered_and_tells_its_own() -> None:
    assert list(SIGNATURE_SHAPES) == list(FORMATS)
    for name, fmt in FORMATS.items():
        assert name == fmt.NAME
        assert detect(SIGNATURE_SHAPES[name]) == name
        assert [n for n in FORMATS if FORMATS[n].detect(SIGNATURE_SHAPES[name])] == [name]
    assert detect(b"") is None


def test_every_assertion_kind_is_a_kind_named_as_registered() -> None:
    for name, kind in KINDS.items():
        assert isinstance(kind, AssertionKind)
        assert kind.name == name
        assert KINDS[name] is kind  # one instance per name, not a new one per lookup
    assert "count" in KINDS and "nope" not in KINDS
    assert KINDS.get("nope") is None


def test_looking_a_member_up_imports_only_that_member() -> None:
    code = (
        "import sys; from verifier.assertions import KINDS; "
        "assert 'nope' not in KINDS and 'count' in KINDS; "
        "print(sorted(m for m in sys.modules if m.startswith('verifier.assertions.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    kinds = {"acceptance", "count", "equals", "interrupted", "order", "same_value", "unchanged"}
    assert not {m.rsplit(".", 1)[1] for m in ast.literal_eval(out)} & kinds

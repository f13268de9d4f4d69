"""A fixed set of tamperings applied together to a copy of the bundled archive, for the check
formats' golden files and the cross-process determinism test: one of each stage's kinds of
damage, and an unlisted file whose name holds markup and the characters the machine formats
escape (``<``, ``&``, quotes, ``%``, ``,``, ``:``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import rewrite_manifest

E2 = "evidence/e2-hosted-original/runner-result.json"
E3_TRANSCRIPT = "evidence/e3-hosted-readback/transcript.json"
E6 = "evidence/e6-webhook-control/deliveries.json"
E7 = "evidence/e7-stripe-readback/payment-intents.json"
E8 = "evidence/e8-preflight/diagnostic.json"
MARKER = "not run: the turn was interrupted"
STRAY = "evidence/stray <b>&amp;\"' 100%, name: x.json"


def _edit_json(root: Path, name: str, change: Callable[[Any], None]) -> None:
    path = root / name
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _counter(data: Any) -> None:
    data["counters"]["stripeCreateRequests"] = 2  # assertion.failed


def _amount(data: Any) -> None:
    data["response"]["data"][0]["amount"] = "100"  # schema.invalid


def _marker(data: Any) -> None:
    data["messages"] = [m for m in data["messages"] if m.get("content") != MARKER]


def tamper(root: Path) -> Path:
    """Break the archive copy at ``root`` in every way listed here, always the same way."""
    # Content changes a forger covers by regenerating the manifest: later stages report them.
    _edit_json(root, E2, _counter)
    text = (root / E2).read_text(encoding="utf-8")
    duplicated = text.replace(
        '"scenario": "hosted",', '"scenario": "hosted",\n  "scenario": "hosted",', 1
    )
    assert duplicated != text
    (root / E2).write_text(duplicated, encoding="utf-8")  # record.duplicate-key
    _edit_json(root, E7, _amount)
    _edit_json(root, E3_TRANSCRIPT, _marker)  # assertion.failed (interruption marker)
    rewrite_manifest(root)
    # Then damage the manifest no longer covers: integrity reports it.
    data = bytearray((root / E6).read_bytes())
    data[100] ^= 0x01
    (root / E6).write_bytes(bytes(data))  # manifest.mismatch
    (root / E8).unlink()  # manifest.missing
    (root / STRAY).write_text('{"a": 1}\n', encoding="utf-8")  # manifest.unlisted
    with (root / "manifest.sha256").open("a", encoding="utf-8") as handle:
        handle.write("0" * 64 + "  ../outside.json\n")  # manifest.unsafe-path
    return root

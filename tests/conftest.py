"""Shared fixtures: the network is blocked for every test; archives are built or copied into
temporary folders, never changed in place."""

from __future__ import annotations

import hashlib
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from verifier.manifest import format_manifest

REPO = Path(__file__).resolve().parent.parent
BUNDLED_PARTS = ("evidence", "schemas", "manifest.sha256")


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a test tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    yield


def write_archive(root: Path, files: dict[str, bytes | str], manifest: bool = True) -> Path:
    """Write ``files`` under ``root`` and a manifest listing every one of them."""
    entries = []
    for name, data in files.items():
        raw = data.encode() if isinstance(data, str) else data
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)
        entries.append((name, hashlib.sha256(raw).hexdigest()))
    if manifest:
        (root / "manifest.sha256").write_bytes(format_manifest(entries))
    return root


def rewrite_manifest(root: Path) -> None:
    """Regenerate the manifest after a deliberate change (as a forger would)."""
    from verifier.writer import write_manifest

    write_manifest(root, None, None, True)


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """A copy of the bundled archive in a temporary folder."""
    dest = tmp_path / "archive"
    dest.mkdir()
    for part in BUNDLED_PARTS:
        src = REPO / part
        if src.is_dir():
            shutil.copytree(src, dest / part)
        else:
            shutil.copy2(src, dest / part)
    return dest

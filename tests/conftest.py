"""Shared fixtures: the network is blocked for every test; archives are built or copied into
temporary folders, never changed in place.

Outside oracles (coreutils, bagit-python, xmlschema, jsonschema-rs, git, pre-commit, mypy,
ruff): a test that needs one calls :func:`need_oracle`, :func:`require_tool` or
:func:`require_module`. On a developer's machine a missing oracle skips the test; under CI
(the ``CI`` environment variable set to anything but empty, ``0`` or ``false``) it fails,
because CI never fails on a skip and a comparison that did not run proves nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
import shutil
import socket
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

import pytest

from verifier.manifest import format_manifest

REPO = Path(__file__).resolve().parent.parent
BUNDLED_PARTS = ("evidence", "schemas", "manifest.sha256")
GOLDEN_ENV = "VERIFIER_UPDATE_GOLDEN"


def in_ci() -> bool:
    """True when the ``CI`` environment variable is set (and not empty, ``0`` or ``false``)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing_oracle(what: str) -> NoReturn:
    """Skip (on a developer's machine) or fail (under CI): ``what`` is not available."""
    if in_ci():
        pytest.fail(f"{what} (CI is set: an oracle test must run, not skip)", pytrace=False)
    pytest.skip(what, allow_module_level=True)


def need_oracle(available: bool, what: str) -> None:
    """Go on when ``available``; otherwise skip, or fail under CI, saying ``what`` is missing."""
    if not available:
        missing_oracle(what)


def require_tool(name: str, what: str | None = None) -> str:
    """The path of the program ``name`` on PATH (skip, or fail under CI, when it is absent)."""
    exe = shutil.which(name)
    if exe is None:
        missing_oracle(what or f"{name} is not on PATH")
    return exe


def require_module(name: str, what: str | None = None) -> ModuleType:
    """Import ``name`` (skip, or fail under CI, when it cannot be imported)."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        missing_oracle(what or f"{name} cannot be imported ({exc}); it is in the test extra")


def update_goldens() -> bool:
    """True when ``VERIFIER_UPDATE_GOLDEN=1`` asks the golden tests to rewrite their files.

    Under CI the request fails the test: a golden file written from the output it is then
    compared with proves nothing."""
    if os.environ.get(GOLDEN_ENV) != "1":
        return False
    if in_ci():
        pytest.fail(
            f"{GOLDEN_ENV}=1 rewrites the golden files; it is refused under CI", pytrace=False
        )
    return True


def check_golden(path: Path, actual: str) -> None:
    """``actual`` must equal the golden file ``path`` (rewritten first in update mode)."""
    if update_goldens():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(actual.encode("utf-8"))
    assert path.exists(), f"{path.name} has no golden file (run once with {GOLDEN_ENV}=1)"
    expected = path.read_bytes().decode("utf-8")
    assert expected == actual, f"{path.name} differs from its golden file"


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a test tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    yield


def _null_is_a_device() -> bool:
    try:
        return stat.S_ISCHR(os.lstat(os.devnull).st_mode)
    except OSError:
        return False


@pytest.fixture(autouse=True)
def _dev_null_stays_a_device() -> Iterator[None]:
    """No test (and no program a test runs) may replace /dev/null: as root a rename over it
    leaves a regular file there, and every git run after reads it as a config file. The test
    that did it fails here, by name, and the device is put back."""
    yield
    if os.name == "posix" and not _null_is_a_device():
        if os.geteuid() == 0:
            with contextlib.suppress(OSError):
                os.unlink(os.devnull)
                os.mknod(os.devnull, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
                os.chmod(os.devnull, 0o666)
        pytest.fail(f"this test replaced {os.devnull} with a regular file (put back)")


def write_archive(root: Path, files: Mapping[str, bytes | str], manifest: bool = True) -> Path:
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
    from verifier.authoring.manifest_file import write_manifest

    write_manifest(root, None, None, True)


def copy_bundled(dest: Path) -> Path:
    """Copy the bundled archive (evidence, schemas, manifest) into the new folder ``dest``."""
    dest.mkdir()
    for part in BUNDLED_PARTS:
        src = REPO / part
        if src.is_dir():
            shutil.copytree(src, dest / part)
        else:
            shutil.copy2(src, dest / part)
    return dest


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """A copy of the bundled archive in a temporary folder."""
    return copy_bundled(tmp_path / "archive")

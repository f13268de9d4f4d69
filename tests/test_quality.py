"""The project checks itself: mypy --strict and ruff over the package and the tests."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from tests.conftest import REPO, need_oracle


def tool(name: str) -> list[str]:
    need_oracle(
        importlib.util.find_spec(name) is not None,
        f"{name} is not installed (it is in the test extra)",
    )
    return [sys.executable, "-m", name]


def test_mypy_strict() -> None:
    proc = subprocess.run([*tool("mypy")], cwd=REPO, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("args", [("check",), ("format", "--check")])
def test_ruff(args: tuple[str, ...]) -> None:
    proc = subprocess.run(
        [*tool("ruff"), *args, "verifier", "tests"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr

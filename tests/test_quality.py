"""The project checks itself: mypy --strict and ruff over the package, the tests and the
benchmarks."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from tests.conftest import REPO, need_oracle

CHECKED = ("verifier", "tests", "benchmarks")


def tool(name: str) -> list[str]:
    need_oracle(
        importlib.util.find_spec(name) is not None,
        f"{name} is not installed (it is in the test extra)",
    )
    return [sys.executable, "-m", name]


@pytest.mark.slow  # the whole tree, strict: run `mypy` itself between edits
def test_mypy_strict() -> None:
    proc = subprocess.run([*tool("mypy")], cwd=REPO, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_is_configured_strict_over_everything() -> None:
    """``mypy`` with no arguments (as CI and the test above run it) covers all of CHECKED."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["strict"] is True
    assert set(config["files"]) == set(CHECKED)


@pytest.mark.parametrize("args", [("check",), ("format", "--check")])
def test_ruff(args: tuple[str, ...]) -> None:
    proc = subprocess.run(
        [*tool("ruff"), *args, *CHECKED],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr

"""The project checks itself: mypy --strict and ruff over the package, the tests and the
benchmarks; and no test asserts on the clock."""

from __future__ import annotations

import ast
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


CLOCKS = {"time", "monotonic", "perf_counter", "process_time", "monotonic_ns", "time_ns"}


def _reads_a_clock(node: ast.AST) -> bool:
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            func = call.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            owner = func.value if isinstance(func, ast.Attribute) else None
            if name in CLOCKS and isinstance(owner, ast.Name) and owner.id == "time":
                return True
    return False


def test_no_test_asserts_on_the_clock() -> None:
    """A loaded machine is slow, not wrong: no assertion in the tests reads a clock (a bound
    on the work, such as a fake program that records whether it ran, proves what a time
    limit only suggests; a hang is caught by a process timeout)."""
    found = []
    for path in sorted((REPO / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Assert) and _reads_a_clock(node):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert found == []

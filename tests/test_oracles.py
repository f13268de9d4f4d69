"""The oracle helpers in tests/conftest.py: a missing oracle skips on a developer's machine and
fails under CI; the golden-update mode is refused under CI."""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.outcomes import Failed, Skipped

from tests.conftest import (
    GOLDEN_ENV,
    check_golden,
    in_ci,
    need_oracle,
    require_module,
    require_tool,
)

ABSENT_TOOL = "verifier-no-such-tool-on-path"
ABSENT_MODULE = "verifier_no_such_module"


@pytest.mark.parametrize("value", ["1", "true", "TRUE", "yes", "anything"])
def test_ci_set(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CI", value)
    assert in_ci()


@pytest.mark.parametrize("value", ["", "0", "false", "False"])
def test_ci_unset(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CI", value)
    assert not in_ci()
    monkeypatch.delenv("CI")
    assert not in_ci()


def test_a_missing_oracle_skips_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(Skipped):
        need_oracle(False, "the oracle")
    with pytest.raises(Skipped):
        require_tool(ABSENT_TOOL)
    with pytest.raises(Skipped):
        require_module(ABSENT_MODULE)


def test_a_missing_oracle_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(Failed, match="the oracle"):
        need_oracle(False, "the oracle")
    with pytest.raises(Failed, match=ABSENT_TOOL):
        require_tool(ABSENT_TOOL)
    with pytest.raises(Failed, match=ABSENT_MODULE):
        require_module(ABSENT_MODULE)


def test_a_present_oracle_is_returned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    need_oracle(True, "present")
    assert require_module("json").__name__ == "json"
    assert Path(require_tool("sh")).name == "sh"


def test_golden_update_is_refused_under_ci(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    golden = tmp_path / "out.txt"
    golden.write_text("old\n", encoding="utf-8")
    monkeypatch.setenv(GOLDEN_ENV, "1")
    monkeypatch.setenv("CI", "1")
    with pytest.raises(Failed, match="refused under CI"):
        check_golden(golden, "new\n")
    assert golden.read_text(encoding="utf-8") == "old\n"  # not rewritten


def test_golden_update_rewrites_outside_ci(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    golden = tmp_path / "out.txt"
    golden.write_text("old\n", encoding="utf-8")
    monkeypatch.setenv(GOLDEN_ENV, "1")
    monkeypatch.delenv("CI", raising=False)
    check_golden(golden, "new\n")
    assert golden.read_text(encoding="utf-8") == "new\n"


def test_a_golden_that_differs_fails(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    golden = tmp_path / "out.txt"
    golden.write_text("old\n", encoding="utf-8")
    monkeypatch.delenv(GOLDEN_ENV, raising=False)
    with pytest.raises(AssertionError, match="differs"):
        check_golden(golden, "new\n")
    with pytest.raises(AssertionError, match="no golden file"):
        check_golden(tmp_path / "missing.txt", "new\n")

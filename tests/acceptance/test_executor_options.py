"""``--executor`` and ``--scheduler`` on the commands that take ``-j``: choices from the
executor registry, and every bad combination exit 2 with one line, raised before anything
is read (the ROOT given does not exist: had it been looked at, the error would say so)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from verifier.cli import main
from verifier.execute import EXECUTORS

COMMANDS = ("check", "coverage")


def usage_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("verify-evidence: error: ")
    return err


@pytest.mark.parametrize("command", COMMANDS)
def test_an_unknown_executor_names_the_choices(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = usage_error([command, str(tmp_path / "nowhere"), "--executor", "fibers"], capsys)
    assert "--executor must be one of auto, " + ", ".join(EXECUTORS) in err
    assert "nowhere" not in err


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("executor", [None, "auto", "processes", "threads", "inline"])
def test_a_scheduler_is_for_dask_only(
    command: str, executor: str | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [command, str(tmp_path / "nowhere"), "--scheduler", "tcp://127.0.0.1:8786"]
    err = usage_error([*args, *(["--executor", executor] if executor else [])], capsys)
    assert "--scheduler is an option of --executor dask" in err


@pytest.mark.parametrize("address", ["", "tcp://", "a b:1", "tcp://host:8786\x1b[2J", "host"])
def test_a_malformed_scheduler_address_is_refused(
    address: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = ["check", str(tmp_path / "nowhere"), "--executor", "dask", "--scheduler", address]
    err = usage_error(args, capsys)
    assert "--scheduler must be a Dask scheduler address" in err
    assert "\x1b" not in err  # quoted inert


def test_dask_not_installed_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "distributed" else real(name)
    )
    err = usage_error(["check", str(tmp_path / "nowhere"), "--executor", "dask"], capsys)
    assert 'pip install "verify-evidence[dask]"' in err


@pytest.mark.parametrize("executor", ["inline", "processes", "INLINE"])
def test_a_good_executor_runs_the_check(executor: str, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import REPO

    with pytest.raises(SystemExit) as exit_info:
        main(["check", str(REPO), "--quiet", "--executor", executor, "-j", "2"])
    assert exit_info.value.code == 0

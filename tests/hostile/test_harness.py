"""The harness itself: the untouched archive is safe in every source form it is checked in,
and the harness notices a write, a crash exit and a hang."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.archives import tar_tree, zip_tree
from tests.hostile.harness import Run, assert_safe, run_cli


def test_bundled_archive_is_safe_as_folder_zip_and_tar(archive: Path, tmp_path: Path) -> None:
    forms = [archive, zip_tree(archive, tmp_path / "a.zip"), tar_tree(archive, tmp_path / "a.tgz")]
    for form in forms:
        run = run_cli(["check", str(form), "--format", "json"], watch=[archive])
        assert_safe(run, rc=0)
        assert run.codes() == set()


def test_harness_notices_a_write(tmp_path: Path) -> None:
    run = run_cli(["init", str(tmp_path / "new")], watch=[tmp_path])
    assert run.written
    with pytest.raises(AssertionError, match="wrote outside"):
        assert_safe(run, rc=0)


def test_harness_notices_a_crash_and_a_hang() -> None:
    crash = Run(args=["x"], rc=3, stdout="", stderr="", peak_rss_mib=1, timed_out=False)
    with pytest.raises(AssertionError, match="crash"):
        assert_safe(crash)
    hang = Run(args=["x"], rc=-9, stdout="", stderr="", peak_rss_mib=1, timed_out=True)
    with pytest.raises(AssertionError, match="hang"):
        assert_safe(hang)

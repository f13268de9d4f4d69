"""Writes go only to the declared output (issue 11, "nothing written where it must not be"):
an output is written through a fresh temporary file created exclusively beside it, so a name
an archive planted there (a link to a file elsewhere) is never written through."""

from __future__ import annotations

import os
from pathlib import Path

from tests.hostile.harness import assert_safe, run_cli

MANIFEST = "manifest.sha256"


def test_manifest_write_never_writes_through_a_planted_temporary_name(
    archive: Path, tmp_path: Path
) -> None:
    victim_dir = tmp_path / "victim"
    victim_dir.mkdir()
    victim = victim_dir / "precious.txt"
    victim.write_bytes(b"precious\n")
    (archive / f"{MANIFEST}.tmp").symlink_to(victim)  # the name the writer used to open
    run = run_cli(["manifest", str(archive), "--write", "--scope", "evidence"], watch=[victim_dir])
    assert_safe(run, rc=0)
    assert victim.read_bytes() == b"precious\n"
    assert (archive / MANIFEST).is_file() and not (archive / MANIFEST).is_symlink()
    leftovers = sorted(p.name for p in archive.iterdir() if p.name.endswith(".tmp"))
    assert leftovers == [f"{MANIFEST}.tmp"], leftovers  # only the planted link, untouched
    assert os.readlink(archive / f"{MANIFEST}.tmp") == str(victim)


def test_manifest_refuses_an_existing_manifest_that_is_a_link(
    archive: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.sha256"
    outside.write_bytes((archive / MANIFEST).read_bytes())
    (archive / MANIFEST).unlink()
    (archive / MANIFEST).symlink_to(outside)
    run = run_cli(["manifest", str(archive)], watch=[archive, tmp_path])
    assert_safe(run, rc=2)
    assert "link or a special file" in run.stderr


def test_a_report_output_is_written_whole_with_the_usual_mode(
    archive: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out" / "report.json"
    out.parent.mkdir()
    run = run_cli(["check", str(archive), "--format", "json", "-o", str(out)], watch=[archive])
    assert_safe(run, rc=0)
    assert out.read_text(encoding="utf-8").startswith("{")
    assert sorted(p.name for p in out.parent.iterdir()) == ["report.json"]
    mask = os.umask(0o022)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~mask

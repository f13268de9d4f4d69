"""``audit -o FILE`` never writes into the folder it audits, nor over the archive it audits
(issue 11, item 6), whichever way a symbolic link leads there: through the output's path, the
source's path, or the output itself. Paths are compared resolved."""

from __future__ import annotations

from pathlib import Path

from tests.archives import zip_tree
from tests.hostile.harness import assert_safe, run_cli

REFUSED_INSIDE = "refusing to write the audit record inside the folder it audits"


def _refused(args: list[str], watch: list[Path], message: str = REFUSED_INSIDE) -> None:
    run = run_cli(["audit", *args], watch=watch)
    assert_safe(run, rc=2)
    assert message in run.stderr


def test_an_output_path_through_a_link_into_the_folder_is_refused(
    archive: Path, tmp_path: Path
) -> None:
    link = tmp_path / "into"
    link.symlink_to(archive, target_is_directory=True)
    _refused([str(archive), "-o", str(link / "audit.json")], [archive])


def test_a_source_path_through_a_link_is_refused(archive: Path, tmp_path: Path) -> None:
    link = tmp_path / "source"
    link.symlink_to(archive, target_is_directory=True)
    _refused([str(link), "-o", str(archive / "audit.json")], [archive])


def test_both_through_links_and_dot_dots_are_refused(archive: Path, tmp_path: Path) -> None:
    a = tmp_path / "a"
    b = tmp_path / "b"
    a.symlink_to(archive, target_is_directory=True)
    b.symlink_to(archive / "evidence", target_is_directory=True)
    _refused([str(a), "-o", str(b / ".." / "audit.json")], [archive])
    _refused([str(a), "-o", str(b / "new" / ".." / "audit.json")], [archive])


def test_an_output_that_is_a_link_into_the_folder_is_refused(archive: Path, tmp_path: Path) -> None:
    out = tmp_path / "audit.json"
    out.symlink_to(archive / "audit.json")
    _refused([str(archive), "-o", str(out)], [archive])


def test_the_audited_archive_file_is_never_overwritten(archive: Path, tmp_path: Path) -> None:
    packed = zip_tree(archive, tmp_path / "release.zip")
    link = tmp_path / "alias.zip"
    link.symlink_to(packed)
    over = "refusing to write the audit record over the archive it audits"
    _refused([str(packed), "-o", str(packed)], [tmp_path], over)
    _refused([str(link), "-o", str(packed)], [tmp_path], over)
    _refused([str(packed), "-o", str(link)], [tmp_path], over)


def test_an_output_outside_the_folder_is_written(archive: Path, tmp_path: Path) -> None:
    """The control: the same folder, reached through a link, audited into a file beside it."""
    link = tmp_path / "source"
    link.symlink_to(archive, target_is_directory=True)
    out = tmp_path / "records" / "audit.json"
    out.parent.mkdir()
    run = run_cli(["audit", str(link), "-o", str(out)], watch=[archive])
    assert_safe(run, rc=0)
    assert out.read_text(encoding="utf-8").startswith("{")

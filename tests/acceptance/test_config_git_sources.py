"""A configuration file found in the working directory is inside what is verified however a
git source is named (issue 34, class 8): the work tree's ``verify-evidence.toml`` read for
``check .git@HEAD`` would let the archive's own ``ignore`` hide its tampering. And an
archive's file may not choose how many processes the verifier starts (``jobs``,
``executor``): only the command line or the user's own configuration may."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.archives import git, git_repo
from tests.conftest import write_archive
from verifier.cli import main

RELAXING = 'ignore = ["manifest", "assertion.failed"]\n'


def run(args: list[str], cwd: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    old = os.getcwd()
    os.chdir(cwd)
    try:
        with pytest.raises(SystemExit) as exit_info:
            main(args)
    finally:
        os.chdir(old)
    _, err = capsys.readouterr()
    code = exit_info.value.code
    return (code if isinstance(code, int) else 0), err


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = write_archive(tmp_path / "repo", {"evidence/a.json": '{"a": 1}\n'})
    (root / "verify-evidence.toml").write_text(RELAXING, "utf-8")
    return git_repo(root)


def _refused(code: int, err: str) -> None:
    assert code == 2, err
    assert "inside the archive being verified and sets ignore" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "args",
    [
        [".git@HEAD"],
        [".git@main@{0}"],  # the source takes the first @ that names a folder
        ["--git", ".git", "--rev", "HEAD"],
        ["--git", ".git"],
        ["--git", "."],
        [".git", "--rev", "HEAD"],
        [".", "--rev", "HEAD"],
        [".@HEAD"],
        ["../repo/.git@HEAD"],
        ["{abs}/.git@HEAD"],
        ["--git", "{abs}/.git"],
        ["{link}@HEAD"],  # a symbolic link to the .git folder, outside the repository
        ["{link}", "--rev", "HEAD"],
    ],
)
@pytest.mark.parametrize("command", ["check", "table", "coverage", "audit"])
def test_every_name_of_a_git_source_keeps_its_work_tree_config_out(
    command: str, args: list[str], repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = repo.parent / "link-to-git"
    link.symlink_to(repo / ".git")
    given = [a.replace("{abs}", str(repo)).replace("{link}", str(link)) for a in args]
    _refused(*run([command, *given], repo, capsys))


def test_a_bare_repository_and_a_linked_work_tree(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    (bare / "verify-evidence.toml").write_text(RELAXING, "utf-8")
    _refused(*run(["check", ".@HEAD"], bare, capsys))
    _refused(*run(["check", "--git", str(bare)], bare, capsys))
    # a linked work tree of the repository: the main work tree's config is the repository's
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked))
    _refused(*run(["check", f"{linked}@HEAD"], repo, capsys))
    _refused(*run(["check", "--git", str(linked)], repo, capsys))
    (linked / "verify-evidence.toml").write_text(RELAXING, "utf-8")
    _refused(*run(["check", f"{repo}/.git@HEAD"], linked, capsys))


def test_a_config_outside_the_repository_still_applies(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "work"
    elsewhere.mkdir()
    (elsewhere / "verify-evidence.toml").write_text(RELAXING, "utf-8")
    code, err = run(["check", f"{repo}/.git@HEAD", "-q"], elsewhere, capsys)
    assert code in (0, 1) and "inside the archive" not in err
    # and one inside, named with --config, is the user's choice
    code, err = run(["check", ".git@HEAD", "-q", "--config", "verify-evidence.toml"], repo, capsys)
    assert code in (0, 1) and "inside the archive" not in err


@pytest.mark.parametrize("setting", ["jobs = 48", 'executor = "processes"', 'executor = "threads"'])
def test_an_archive_config_cannot_choose_the_processes(
    setting: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_archive(tmp_path / "a", {"evidence/a.json": '{"a": 1}\n'})
    (root / "verify-evidence.toml").write_text(setting + "\n", "utf-8")
    for command in ("check", "coverage"):
        code, err = run([command], root, capsys)
        assert code == 2, err
        key = setting.split(" ")[0]
        assert f"inside the archive being verified and sets {key}, which chooses" in err
    # the user's own file (outside the archive, or named) may
    code, err = run(["check", "-q", "--config", "verify-evidence.toml"], root, capsys)
    assert code in (0, 1), err


@pytest.mark.parametrize("executor", ["processes", "threads"])
def test_never_more_workers_than_files(executor: str, tmp_path: Path) -> None:
    from verifier.pipeline import Options, run

    files = {f"evidence/r{i}.json": f'{{"i": {i}}}\n' for i in range(5)}
    root = write_archive(tmp_path / "a", files)
    done = run(root, Options(workers=48, executor=executor))
    assert done.executor["executor"] == executor
    assert 1 <= done.executor["workers"] <= len(files) + 1  # the files and the manifest
    assert done.read_processes <= len(files) + 2


def test_a_bag_folder_and_its_payload_keep_their_config_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.hostile.test_bagit import write_bag

    bag = write_bag(tmp_path / "bag")
    for where in (bag, bag / "data"):
        (where / "verify-evidence.toml").write_text(RELAXING, "utf-8")
        _refused(*run(["check", str(bag)], where, capsys))
        _refused(*run(["check", os.path.relpath(bag, where)], where, capsys))
        (where / "verify-evidence.toml").unlink()


def test_a_zip_or_tarball_holds_no_folder_of_the_working_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A zip or tarball is one file: the folder it sits in is the user's, not the archive's
    (nothing inside it is ever read as configuration)."""
    from tests.hostile.archives_build import tar_of, zip_of

    (tmp_path / "verify-evidence.toml").write_text('ignore = ["manifest"]\n', "utf-8")
    for made in (zip_of(tmp_path / "a.zip", []), tar_of(tmp_path / "a.tar", [], 0)):
        code, err = run(["check", made.name, "-q"], tmp_path, capsys)
        assert code in (0, 1) and "inside the archive" not in err, err


def test_a_pyproject_table_in_the_work_tree_is_kept_out_too(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "verify-evidence.toml").unlink()
    (repo / "pyproject.toml").write_text(
        '[tool.verify-evidence]\nignore = ["manifest"]\njobs = 9\n', "utf-8"
    )
    code, err = run(["check", ".git@HEAD"], repo, capsys)
    assert code == 2 and "pyproject.toml is inside the archive" in err, err
    assert "sets ignore, which can make it pass; and jobs, which chooses" in err

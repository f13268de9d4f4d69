"""``verify-evidence check``: a golden file per format, for the bundled archive and for a copy
broken by the fixed tamperings of ``tests/tampered.py``.

After a deliberate change to a format, ``VERIFIER_UPDATE_GOLDEN=1`` rewrites the files (read
the diff before committing it); under CI that mode is refused (tests/conftest.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, check_golden, copy_bundled
from tests.tampered import tamper
from verifier.views.check import CHECK as RENDERERS

GOLDEN = REPO / "tests" / "golden" / "check"
FORMATS = {
    "text": "txt",
    "json": "json",
    "markdown": "md",
    "junit": "xml",
    "sarif": "sarif",
    "github": "github.txt",
    "jsonl": "jsonl",
    "in-toto": "intoto.json",
}


def check(root: Path, fmt: str) -> subprocess.CompletedProcess[str]:
    """The real CLI, run in the archive's folder (so no temporary path reaches the output)."""
    return subprocess.run(
        [sys.executable, "-m", "verifier", "check", ".", "--format", fmt],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )


def test_every_check_format_has_golden_files() -> None:
    assert set(FORMATS) == set(RENDERERS), "a check format without golden files (or gone)"


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_the_bundled_archive_matches_its_golden_file(archive: Path, fmt: str) -> None:
    proc = check(archive, fmt)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr == ""
    check_golden(GOLDEN / f"bundled.{FORMATS[fmt]}", proc.stdout)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_the_tampered_archive_matches_its_golden_file(archive: Path, fmt: str) -> None:
    proc = check(tamper(archive), fmt)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr == ""
    check_golden(GOLDEN / f"tampered.{FORMATS[fmt]}", proc.stdout)


STRAY_STOPS = re.compile(r"\.;|(?<![.'/])\.\.(?![.'/])")


def test_no_check_view_joins_sentences_with_stray_stops(archive: Path) -> None:
    """Where a view joins a message and what it adds (a count, a note, the blocked findings),
    no ``.;`` or ``..`` (issue 36: the GitHub summary read "not verified.; 2 finding(s)").
    Every check format and the rich view, on the bundled and the tampered archive."""
    import io

    from rich.console import Console

    from verifier import verify
    from verifier.views.check.rich_view import show
    from verifier.views.interface import RenderSettings

    bundled = verify(archive)
    tampered = verify(tamper(copy_bundled(archive.parent / "tampered")))
    assert tampered.findings and any(f.cause is not None for f in tampered.findings)
    for report in (bundled, tampered):
        out = io.StringIO()
        show(report, Console(file=out, width=200, force_terminal=False))
        outputs = {name: RENDERERS[name](report) for name in RENDERERS}
        outputs["rich"] = out.getvalue()
        outputs["text --all-blocked"] = RENDERERS["text"](report, RenderSettings(all_blocked=True))
        for name, text in outputs.items():
            bad = [line for line in text.splitlines() if STRAY_STOPS.search(line)]
            assert not bad, (name, bad[:3])

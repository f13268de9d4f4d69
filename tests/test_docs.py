"""The user guide: the generated finding codes page is what the code generates, every relative
link of the README and the guide leads to a file and heading that exist, and the site builds
with ``mkdocs build --strict`` (a broken link, a missing anchor, a page left out of the nav
fail it). A missing mkdocs skips on a developer's machine and fails under CI."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from tests.conftest import REPO, need_oracle, update_goldens
from tests.docs_pages import FINDING_CODES, finding_codes_page

PAGES = (REPO / "README.md", *sorted((REPO / "docs").glob("*.md")))
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
HEADING = re.compile(r"^#{1,6} +(.+?) *#*$", re.M)


def test_the_finding_codes_page_is_generated_from_the_codes() -> None:
    expected = finding_codes_page()
    if update_goldens():
        FINDING_CODES.write_text(expected, encoding="utf-8")
    assert FINDING_CODES.read_text(encoding="utf-8") == expected, (
        "docs/finding-codes.md differs from CODES: run python -m tests.docs_pages"
    )


def _plain(heading: str) -> str:
    heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    return heading.replace("`", "").replace("*", "")


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading (lower case; punctuation but ``-`` and ``_`` dropped;
    each space a ``-``)."""
    text = _plain(heading).strip().lower()
    return re.sub(r" ", "-", re.sub(r"[^\w\- ]", "", text))


def mkdocs_slug(heading: str) -> str:
    """The anchor Python-Markdown's toc extension gives a heading (as mkdocs builds it)."""
    text = unicodedata.normalize("NFKD", _plain(heading)).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(page: Path) -> tuple[set[str], set[str]]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    headings = HEADING.findall(text)
    return {github_slug(h) for h in headings}, {mkdocs_slug(h) for h in headings}


def links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)  # a link written in a code span is not a link
    return [m.group(1) for m in LINK.finditer(text)]


def test_the_pages_have_links() -> None:
    """The link pattern finds links: a check that looked at none would pass on any page."""
    assert any("docs/" in link for link in links(REPO / "README.md"))
    assert sum(len(links(page)) for page in PAGES) > 40


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(REPO)) for p in PAGES])
def test_every_relative_link_leads_to_a_file_and_heading(page: Path) -> None:
    broken = []
    for link in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", link):  # an absolute URL: not ours to check
            continue
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.is_file() or REPO not in target.parents:
            broken.append(f"{link}: no such file in the repository")
            continue
        if anchor:
            if target.suffix != ".md":
                broken.append(f"{link}: an anchor into a file that is not Markdown")
                continue
            on_github, in_site = anchors(target)
            # the README is read on the forge, the guide on both: an anchor must hold in each
            if anchor not in on_github or (page.parent.name == "docs" and anchor not in in_site):
                broken.append(f"{link}: no such heading")
    assert not broken, f"{page.relative_to(REPO)}: " + "; ".join(broken)


def test_the_site_builds_strict(tmp_path: Path) -> None:
    need_oracle(
        importlib.util.find_spec("mkdocs") is not None,
        "mkdocs is not installed (it is in the test and docs extras)",
    )
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "site" / "finding-codes.html").is_file()

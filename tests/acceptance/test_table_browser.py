"""The HTML outcome table looked at in a real browser: headless Chromium, at a desktop's width
(1280 px) and a phone's (390 px, emulated as a mobile device, so the page's viewport meta
counts). Each page gets a screenshot in the test's tmp folder, must not scroll sideways, must
lay out as it should at that width (rows as cards on the phone), and must leave nothing in the
console: no error, no warning, no Content-Security-Policy violation.

Chromium is Debian's ``chromium`` package (.ci/run installs it): missing, the tests skip on a
developer's machine and fail under CI. The browser is driven over the DevTools pipe by
tests/browser.py (standard library only); every wait there has a deadline.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser import Chromium, find_chromium
from tests.conftest import REPO, missing_oracle, rewrite_manifest

WIDTHS = {"desktop": (1280, 900, False), "phone": (390, 844, True)}
E1 = "evidence/e1-local-crash/runner-result.json"
LONG = "x" * 400  # one unbroken word, wider than any screen


def page(root: Path, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "verifier", "table", str(root), "--format", "html", *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "SOURCE_DATE_EPOCH": "1767225600"},
    )
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chromium]:
    program = find_chromium()
    if program is None:
        missing_oracle("chromium is not installed (Debian: apt-get install chromium)")
    with Chromium(program, tmp_path_factory.mktemp("chromium") / "profile") as chromium:
        yield chromium


def hostile_archive(root: Path) -> Path:
    """The bundled archive with archive text a browser must show inert and wrapped: an
    unbroken 400-character word and markup in a case's title, kind, a count's label and a
    limit, and a tampered count (so the page shows unverified cells and a failed verdict)."""
    cases_path = root / "evidence/cases.json"
    cases = json.loads(cases_path.read_text(encoding="utf-8"))
    first = cases["cases"][0]
    first["title"] = f'<script>alert(1)</script><img src=x onerror="alert(2)">{LONG}'
    first["kind"] = LONG
    first["counts"][0]["label"] = f"<style>*{{display:none}}</style>{LONG}"
    first["limits"] = [LONG, "</td></tr></table><b>bold</b>"]
    cases_path.write_text(json.dumps(cases, indent=2) + "\n", encoding="utf-8")
    result = json.loads((root / E1).read_text(encoding="utf-8"))
    result["counters"]["toolExecutions"] = 2
    (root / E1).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    rewrite_manifest(root)
    return root


def look(browser: Chromium, html: str, folder: Path, name: str, width_name: str) -> None:
    """Load ``html`` at one width, screenshot it, and check scroll, layout and console."""
    width, height, mobile = WIDTHS[width_name]
    path = folder / f"{name}.html"
    path.write_text(html, encoding="utf-8")
    browser.load(path.as_uri(), width, height, mobile)
    browser.screenshot(folder / f"{name}-{width_name}.png")
    shot = browser.screenshot(folder / f"{name}-{width_name}-full.png", full_page=True)
    assert shot.read_bytes().startswith(b"\x89PNG"), shot

    assert browser.evaluate("window.innerWidth") == width  # the viewport meta is honoured
    scroll = browser.evaluate("document.documentElement.scrollWidth")
    client = browser.evaluate("document.documentElement.clientWidth")
    assert scroll <= client, f"{name} scrolls sideways at {width} px: {scroll} > {client}"
    if mobile:  # not even a table scrolls inside itself: every element is on the screen
        widest = browser.evaluate(
            "Math.max(...[...document.body.querySelectorAll('*')]"
            ".map(e => e.getBoundingClientRect().right))"
        )
        assert widest <= client, f"{name}: an element reaches {widest} px of {client} px"

    stacked = browser.evaluate(
        "[...document.querySelectorAll('table.stack tbody tr')]"
        ".map(r => getComputedStyle(r).display)"
    )
    assert stacked, f"{name} has no stacked table"
    assert set(stacked) == {"block" if mobile else "table-row"}
    if mobile:  # every value of a card says which column it is
        labels = browser.evaluate(
            "[...document.querySelectorAll('table.stack tbody td:not(:first-child)')]"
            ".map(td => getComputedStyle(td, '::before').content)"
        )
        assert labels and all(label not in ("", "none", "normal") for label in labels)
    assert browser.console() == [], f"{name} at {width} px: {browser.console()}"
    # Nothing of the archive's markup became markup (the page escapes it; the CSP backs it).
    assert browser.evaluate("document.querySelectorAll('script, img, b').length") == 0


@pytest.mark.parametrize("width_name", WIDTHS)
def test_the_table_reads_at_each_width(browser: Chromium, tmp_path: Path, width_name: str) -> None:
    look(browser, page(REPO), tmp_path, "table", width_name)


@pytest.mark.parametrize("width_name", WIDTHS)
def test_one_case_reads_at_each_width(browser: Chromium, tmp_path: Path, width_name: str) -> None:
    look(browser, page(REPO, "--case", "hosted-stripe"), tmp_path, "case", width_name)


@pytest.mark.parametrize("width_name", WIDTHS)
def test_hostile_archive_text_stays_inert_and_on_screen(
    browser: Chromium, archive: Path, tmp_path: Path, width_name: str
) -> None:
    html = page(hostile_archive(archive))
    assert "VERIFICATION FAILED" in html and "unverified" in html
    look(browser, html, tmp_path, "hostile", width_name)
    title = browser.evaluate("document.querySelector('table.stack tbody td').textContent")
    assert title.startswith("<script>alert(1)</script>")  # shown as text, not run

"""Every example output shown in the README and the user guide is the code's own output.

An example is marked by an HTML comment naming the command, right before the block it shows::

    <!-- output: verify-evidence check -->
    ```console
    $ verify-evidence check
    ...what the command prints...
    ```

or, for output shown rendered (a Markdown table), closed by ``<!-- /output -->``. The command
runs (``python -m verifier``) in a temporary copy of the bundled archive, with plain text
(``NO_COLOR``, 100 columns) and ``SOURCE_DATE_EPOCH=0``; the block must equal its output,
what it writes on standard error after what it writes on standard output, and ``(exit N)`` as
its last line when the command exits non-zero. Only the version after ``verify-evidence`` is
normalised. ``| tamper: PATH`` after the command appends a line feed to PATH in the copy first
(a changed file, for an example of a failure); ``| crlf: PATH`` turns its LF line endings
into CRLF (a file hashed on a Windows checkout). The copy also holds
``tests/cases`` when the command names a file there. ``VERIFIER_UPDATE_GOLDEN=1`` rewrites
the blocks (refused under CI)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import BUNDLED_PARTS, REPO, update_goldens

PAGES = (REPO / "README.md", *sorted((REPO / "docs").glob("*.md")))
MARKER = re.compile(r"^<!-- output: (?P<spec>.+?) -->\n", re.M)
FENCED = re.compile(r"(?P<fence>```[a-z]*\n)(?P<body>.*?)```\n", re.S)
CLOSED = "<!-- /output -->\n"
VERSION = re.compile(r"(verify-evidence )\d+\.\d+\.\d+\S*?(?=[:\s])")


@dataclass(frozen=True)
class Example:
    page: Path
    command: str
    change: tuple[str, str] | None  # ("tamper" or "crlf", the path it changes)
    start: int  # where the shown output starts in the page's text
    end: int  # where it ends
    shown: str
    fenced: bool

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(REPO)}: {self.command}"


def examples(page: Path) -> list[Example]:
    text = page.read_text(encoding="utf-8")
    found = []
    for marker in MARKER.finditer(text):
        spec = marker.group("spec")
        command, _, directive = spec.partition(" | ")
        how, _, path = directive.partition(": ")
        assert how in ("", "tamper", "crlf"), f"{page.name}: unknown directive {directive!r}"
        at = marker.end()
        fenced = FENCED.match(text, at)
        if fenced:
            start, end = fenced.start("body"), fenced.end("body")
        else:
            close = text.index(CLOSED, at)
            start, end = at, close
        change = (how, path) if how else None
        found.append(Example(page, command, change, start, end, text[start:end], bool(fenced)))
    return found


ALL = [example for page in PAGES for example in examples(page)]


def run(example: Example, tmp_path: Path) -> str:
    work = tmp_path / "work"
    work.mkdir()
    for part in BUNDLED_PARTS:
        source = REPO / part
        if source.is_dir():
            shutil.copytree(source, work / part)
        else:
            shutil.copy2(source, work / part)
    if "tests/cases/" in example.command:
        shutil.copytree(REPO / "tests" / "cases", work / "tests" / "cases")
    if example.change:
        how, path = example.change
        changed = work / path
        data = changed.read_bytes()
        changed.write_bytes(data + b"\n" if how == "tamper" else data.replace(b"\n", b"\r\n"))
    args = shlex.split(example.command)
    assert args[0] == "verify-evidence", example.command
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    env |= {"NO_COLOR": "1", "COLUMNS": "100", "SOURCE_DATE_EPOCH": "0", "TERM": "dumb"}
    env["PYTHONPATH"] = str(REPO)
    proc = subprocess.run(
        [sys.executable, "-m", "verifier", *args[1:]],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert proc.returncode in (0, 1), proc.stderr
    out = proc.stdout + proc.stderr
    if example.fenced:
        out = f"$ {example.command}\n{out}"
    if proc.returncode:
        out += f"(exit {proc.returncode})\n"
    return out


def normal(text: str) -> str:
    return VERSION.sub(r"\1X", text)


def test_the_pages_have_examples() -> None:
    """The marker is found: a test that looked at nothing would pass on any page."""
    assert any(example.page.name == "README.md" for example in ALL)
    assert len(ALL) >= 8


@pytest.mark.parametrize("example", ALL, ids=[example.id for example in ALL])
def test_example_output_is_the_commands_own(example: Example, tmp_path: Path) -> None:
    actual = run(example, tmp_path)
    if update_goldens():
        text = example.page.read_text(encoding="utf-8")
        current = examples(example.page)
        mine = next(e for e in current if e.command == example.command and e.shown == example.shown)
        example.page.write_text(text[: mine.start] + actual + text[mine.end :], encoding="utf-8")
        return
    assert normal(example.shown) == normal(actual), (
        f"{example.id}: the shown output is stale (rerun with VERIFIER_UPDATE_GOLDEN=1)"
    )

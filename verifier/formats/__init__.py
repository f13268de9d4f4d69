"""Output formats of the report: a plug-in family. Each module has ``render(report) -> str``;
the registry feeds the CLI's ``--format`` choices and construction, and a test renders every
member on the bundled archive and checks it against its schema where one is published."""

from __future__ import annotations

from collections.abc import Callable

from verifier.formats import github, json_format, junit, markdown, sarif, text
from verifier.model import Report

Renderer = Callable[[Report], str]

FORMATS: dict[str, Renderer] = {
    "text": text.render,
    "json": json_format.render,
    "markdown": markdown.render,
    "junit": junit.render,
    "sarif": sarif.render,
    "github": github.render,
}


__all__ = ["FORMATS", "Renderer"]

"""Output formats: a plug-in family. Each module has ``render(report) -> str``; the registry
feeds the CLI's ``--format`` choices and construction, and a test renders every member."""

from __future__ import annotations

from collections.abc import Callable

from verifier.formats import json_format, text
from verifier.model import Report

Renderer = Callable[[Report], str]

FORMATS: dict[str, Renderer] = {
    "text": text.render,
    "json": json_format.render,
}

__all__ = ["FORMATS", "Renderer"]

"""The report as JSON (``verifier/schemas/report.schema.json``): sorted keys, two-space indent, LF.

:func:`render_parts` writes it a part at a time, its findings, assertions and files a few
thousand at a time (the CLI writes each part as it comes): a report of 100,000 records is
77 MB of text, which whole, beside the objects it was made from, took 470 MB at its peak."""

from __future__ import annotations

from collections.abc import Iterator

from verifier.report import Report
from verifier.views.clean import dumps_clean_parts
from verifier.views.interface import DEFAULT_SETTINGS, RenderSettings


def render(report: Report, settings: RenderSettings = DEFAULT_SETTINGS) -> str:
    return "".join(render_parts(report, settings))


def render_parts(report: Report, settings: RenderSettings = DEFAULT_SETTINGS) -> Iterator[str]:
    """:func:`render`'s text, in parts."""
    head, lists = report.to_dict_parts(settings.fail_on)
    yield from dumps_clean_parts(head, lists)
    yield "\n"

"""The check report's formats (``verify-evidence check --format``, and the text ``audit``
prints): one module per format, each with ``render(report: Report, settings: RenderSettings)
-> str`` (:class:`verifier.views.interface.RenderSettings`: ``--fail-on`` and the rest of how
the command asks for it, default the defaults); :data:`CHECK`
feeds the CLI's choices and construction, and a test renders every member on the bundled
archive and checks it against its schema where one is published. The rich terminal view
(:mod:`.rich_view`) is the ``auto`` choice on a terminal; only the CLI imports it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier.views.interface import Format, Registry

if TYPE_CHECKING:
    from verifier.report import Report

#: how many of the findings one cause blocks the text and rich views list under it, unless
#: the settings ask for every one (``check --all-blocked``); the rest are counted
BLOCKED_SHOWN = 20

CHECK: Registry[Report] = Registry(
    "check",
    Format("text", "verifier.views.check.text:render", ".txt"),
    Format(
        "json",
        "verifier.views.check.json_view:render",
        ".json",
        parts="verifier.views.check.json_view:render_parts",
    ),
    Format("markdown", "verifier.views.check.markdown:render", ".md"),
    Format(
        "junit",
        "verifier.views.check.junit:render",
        ".xml",
        parts="verifier.views.check.junit:render_parts",
    ),
    Format("sarif", "verifier.views.check.sarif:render", ".sarif"),
    Format("github", "verifier.views.check.github:render", ".txt"),
    Format(
        "jsonl",
        "verifier.views.check.jsonl:render",
        ".jsonl",
        parts="verifier.views.check.jsonl:render_parts",
    ),
    Format("in-toto", "verifier.views.check.intoto:render", ".intoto.json"),
)

__all__ = ["BLOCKED_SHOWN", "CHECK"]

"""The transcript report's formats (``verify-evidence transcript check --format``): one module
per format, each with ``render(report: TranscriptReport) -> str``; :data:`TRANSCRIPT` feeds
the CLI's choices and construction. The rich terminal view (:mod:`.rich_view`) is the
``auto`` choice on a terminal; only the CLI imports it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier.views.interface import Format, Registry

if TYPE_CHECKING:
    from verifier.transcripts.check import TranscriptReport

TRANSCRIPT: Registry[TranscriptReport] = Registry(
    "transcript",
    Format("text", "verifier.views.transcript.text_view:render", ".txt"),
    Format("json", "verifier.views.transcript.json_view:render", ".json"),
)

__all__ = ["TRANSCRIPT"]

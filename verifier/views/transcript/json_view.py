"""JSON of a :class:`~verifier.transcripts.check.TranscriptReport`
(``verifier/schemas/transcript-report.schema.json``): sorted keys, two-space indentation,
files in the order given."""

from __future__ import annotations

from verifier.transcripts.check import TranscriptReport
from verifier.views.clean import dumps_clean


def render(report: TranscriptReport) -> str:
    return dumps_clean(report.to_dict()) + "\n"

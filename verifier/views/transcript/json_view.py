"""JSON of a :class:`~verifier.transcripts.check.TranscriptReport`
(``schemas/transcript-report.schema.json``): sorted keys, two-space indentation, files in the
order given."""

from __future__ import annotations

from verifier.json.write import dumps_report
from verifier.transcripts.check import TranscriptReport
from verifier.views.clean import clean


def render(report: TranscriptReport) -> str:
    return dumps_report(clean(report.to_dict())) + "\n"

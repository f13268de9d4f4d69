"""The report as JSON (``schemas/report.schema.json``): sorted keys, two-space indent, LF."""

from __future__ import annotations

import orjson

from verifier.formats.clean import clean
from verifier.model import Report


def render(report: Report) -> str:
    data = orjson.dumps(clean(report.to_dict()), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    return data.decode("utf-8") + "\n"

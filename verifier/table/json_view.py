"""JSON (``schemas/table.schema.json``): every cell with its source file, pointer and digest."""

from __future__ import annotations

import orjson

from verifier.formats.clean import clean
from verifier.table.model import CaseRow, OutcomeTable


def _dump(data: object) -> str:
    return (
        orjson.dumps(clean(data), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode() + "\n"
    )


def render(table: OutcomeTable) -> str:
    return _dump(table.to_dict())


def render_case(table: OutcomeTable, row: CaseRow) -> str:
    data = table.to_dict()
    data["cases"] = [row.to_dict()]
    return _dump(data)

"""Archives for the coverage command's tests: a copy of the bundled archive with one more
record that no assertion reads (so some value is uncovered whatever the bundled spec
asserts), its keys and the spec's excuse for it optionally holding hostile text."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import copy_bundled, rewrite_manifest

FREE_ID = "https://verifier.invalid/schemas/free-record.schema.json"
EXTRA = "evidence/extra/free.json"
SPEC = "evidence/assertions.json"
# ANSI (clear screen, a title, colour), an OSC 8 link, HTML, Markdown emphasis, a link, a
# table cell separator, a code span and a newline.
HOSTILE = (
    "\x1b[2J\x1b]0;owned\x07\x1b]8;;https://x.invalid\x1b\\link\x1b]8;;\x1b\\\x1b[31m"
    "<img src=x onerror=alert(1)><!-- | **bold** [a](javascript:alert(1)) `code`\nforged"
)


def with_uncovered(dest: Path, hostile: bool = False) -> Path:
    """The bundled archive plus :data:`EXTRA`, a record nothing asserts; with ``hostile``
    its keys and values, and an 'unasserted' entry's reason, hold :data:`HOSTILE`."""
    root = copy_bundled(dest)
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": FREE_ID,
        "title": "A record no assertion reads",
        "type": "object",
        "required": ["$schema"],
        "properties": {"$schema": {"const": FREE_ID}},
    }
    (root / "schemas/free-record.schema.json").write_text(json.dumps(schema), encoding="utf-8")
    key = HOSTILE if hostile else "plain"
    record = {"$schema": FREE_ID, key: {"value": HOSTILE if hostile else "v"}, "other": 1}
    (root / EXTRA).parent.mkdir()
    (root / EXTRA).write_text(json.dumps(record), encoding="utf-8")
    if hostile:
        spec_path = root / SPEC
        spec = json.loads(spec_path.read_text(encoding="utf-8"))
        entry = {"file": EXTRA, "pointer": "/other", "reason": HOSTILE}
        spec["unasserted"] = [*spec.get("unasserted", []), entry]
        spec_path.write_text(json.dumps(spec, indent=2, ensure_ascii=False), encoding="utf-8")
    rewrite_manifest(root)
    return root

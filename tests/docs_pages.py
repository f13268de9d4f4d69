"""The user guide's generated pages: ``docs/finding-codes.md`` is made here from
``verifier.findings.CODES`` and ``SEVERITIES``, so the page cannot drift from the code.

``python -m tests.docs_pages`` rewrites it; ``tests/test_docs.py`` fails when it differs."""

from __future__ import annotations

import sys
from pathlib import Path

from verifier.findings import CODES, SEVERITIES

REPO = Path(__file__).resolve().parent.parent
FINDING_CODES = REPO / "docs" / "finding-codes.md"

INTRO = """\
Every finding carries a code, a severity, a path, a JSON pointer where it applies, a line
(and column) where it has one (see [CI and editors](ci.md#in-ci-and-in-editors)) and one
sentence. Codes are stable.

Severities are SARIF's levels, fixed per code (`verifier.findings.SEVERITIES`; a test checks every
code has one): `error`, `warning`, `note`. Only errors fail a run: `check`, `table`, `audit`,
`transcript check` and `transcript repair` exit 1 when a finding reaches `--fail-on`
(`error` by default; `--fail-on warning` adds warnings, `--fail-on note` any finding). A stage
with warnings or notes but no error is `passed`; its findings are still listed, and the JSON
report counts them per stage in `severities`. The JSON report's `ok` is true when no stage has
an error. Every format shows the severity: text and Markdown group or label findings by it,
the rich view has a column, SARIF sets `level`, GitHub writes `::error`, `::warning` or
`::notice`, and JUnit fails a test case only for errors (warnings and notes go to the case's
`<system-out>`).

**Blocked findings (cascade control).** A finding caused by an earlier one names it in
`cause` (its code, path, pointer and fingerprint): an assertion filed on, or reading, a file
whose digest failed, that is missing or refused, or that did not parse as a record, and a
catalogue cell selecting from such a file. It keeps its own code and counts as before (the
JSON report lists it, the stage still fails); the text and rich views show the cause once
with "N findings blocked by it" and list those findings under it, indented (the first 20;
`--all-blocked` lists every one), the Markdown view gives the count, GitHub annotates the
consequences after every independent finding and each names its cause, SARIF gives each a
`suppressions` entry and the cause as a related location, JUnit marks a case whose only
errors are blocked `<skipped>`. What it does not judge: a failure on a file whose digest
matched and that parsed is never marked, nor are a record's own parse, schema or transcript
findings ([report-v2.md](report-v2.md)).

The codes of the `coverage` stage are reported by `verify-evidence coverage` only.
"""

#: more than the one sentence ``CODES`` gives, for the codes that need it (keys must be codes)
DETAILS: dict[str, str] = {
    "manifest.mismatch": (
        "a listed file's digest (SHA-256, or a bag manifest's own algorithm) differs from"
        " the manifest"
    ),
    "manifest.malformed": ("a manifest line is not a valid checksum line (line number given)"),
    "manifest.unsafe-path": (
        "a listed name is absolute, has `..` or empty segments, a NUL, or goes through a "
        "symbolic link"
    ),
    "manifest.refused": (
        "the manifest is a symbolic link (or goes through one), a FIFO, device or socket,"
        " or over 256 MiB (and `--max-bytes`); it was not read, nothing was checked "
        "against it"
    ),
    "manifest.unreadable-folder": (
        "a folder in the manifest's scope could not be listed (permissions, a path longer"
        " than the system allows); files in it were not checked for being listed"
    ),
    "source.duplicate-member": (
        "an archive holds a name more than once, or as both a file and a folder; every copy refused"
    ),
    "source.too-large": (
        "over `--max-bytes`, `--max-ratio` or the entry limit (an archive bomb); not decompressed"
    ),
    "source.unreadable": ("the archive is truncated or corrupt; nothing after the damage was read"),
    "source.trailing-data": (
        "an archive holds data after its end (after a tar's end-of-archive marker or the "
        "last compressed stream)"
    ),
    "bag.malformed": (
        "a bag's `bagit.txt`, `bag-info.txt`, `data/` or payload manifest is missing or "
        "invalid, or a manifest's algorithm is unknown ([BagIt](bagit.md))"
    ),
    "bag.fetch-invalid": (
        "a line of a bag's `fetch.txt` is malformed, or names a path outside `data/` or "
        "the bag, or one no payload manifest lists"
    ),
    "bag.not-fetched": (
        "a listed payload file is absent and `fetch.txt` names it: not fetched (the "
        "verifier is offline), not checked"
    ),
    "record.invalid-json": (
        "not strict JSON: BOM, invalid UTF-8, NaN/Infinity, trailing data, syntax, "
        "nesting deeper than 256"
    ),
    "record.duplicate-key": ("a JSON object repeats a key (pointer to the object)"),
    "record.unrepresentable-number": (
        "a number is beyond the range of an IEEE 754 double (`1e400`) or not zero but "
        "rounds to zero (`1e-400`); valid JSON, so the record is still read, with numbers"
        " compared by their exact value ([Numbers](archive-format.md#numbers))"
    ),
    "record.no-schema": ('a record does not name its schema in `"$schema"`'),
    "schema.invalid": (
        "a record does not conform to its schema (one finding per error, with its pointer)"
    ),
    "schema.unresolved": (
        "a schema or `$ref` is not available in `schemas/`; no network request is made"
    ),
    "schema.bad-schema": (
        "a file in `schemas/` is not a valid Draft 2020-12 schema with an `$id` (every "
        "metaschema error, sorted by pointer; also a pattern that is not ECMA-262, an "
        "`$id` that is not a URI, subschemas nested more than 40 deep)"
    ),
    "schema.pattern-budget": (
        "a schema pattern that needs backtracking (backreference, lookaround) ran over "
        "its step budget on a value of the record: whether it matches is unknown, so the "
        "record is not passed"
    ),
    "assertion.error": (
        "an assertion could not be evaluated: a pointer resolves to nothing or is not an "
        "RFC 6901 pointer, a file is listed but missing, unreadable or unparsable, or not"
        " listed at all (the message says which, on that file's path), a parameter is "
        "malformed (at its place in the spec); never a pass"
    ),
    "assertion.spec-invalid": (
        "the assertion spec cannot be used at all (missing although listed, not JSON, no "
        "`assertions` array)"
    ),
    "assertion.no-spec": (
        "the archive holds records (the `.json` files under `evidence/`) but no assertion"
        " spec, so no claim across them was checked; add `evidence/assertions.json`, or "
        "run with `--stages integrity,validity` to check only those stages (an archive "
        "with no records, a bare manifest or a bag of other files, has nothing to check "
        "here and is not this)"
    ),
    "assertion.vacuous": (
        "an assertion holds only because there was nothing to check: a `count` of zero "
        "whose bounds do not state zero (`equals`/`max`/`min` of 0), an `unchanged` that "
        "compared no value, a value compared with itself (every selector naming one "
        "place), a spec with no assertion; never a pass"
    ),
    "assertion.internal-error": (
        "an assertion kind's own code raised: a bug in the verifier, not a fault of the "
        "archive or its spec; never a pass"
    ),
    "catalogue.unknown-assertion": (
        "a case catalogue cell or case names an assertion the spec does not have"
    ),
    "transcript.dangling-call": (
        "a tool call has no result inside its answer window (also `transcript check`)"
    ),
    "transcript.reused-answered-id": (
        "a tool call reuses the id of an earlier call already answered; the walk pairs by"
        " position, so nothing is ambiguous (real agent histories do this)"
    ),
    "transcript.unmarked-interruption": (
        "a result marked as an interruption record does not say `not run: the turn was interrupted`"
    ),
    "transcript.ambiguous-shape": (
        "a transcript's messages look like more than one message shape (also `transcript "
        "check`, exit 1); no shape is guessed"
    ),
    "transcript.abandoned-dangling-call": (
        "on an abandoned branch of a tree history (Pi, Claude Code: not the path the run "
        "continued on), a tool call has no result inside its answer window"
    ),
    "transcript.unresolved-reference": (
        "an Inspect log's `attachment://` (or `tc://`) reference resolves to nothing"
    ),
    "transcript.too-many-branches": (
        "a tree history (Pi, Claude Code) has more than 200 abandoned branches: the rest "
        "were counted, not checked (bounded work on a hostile file)"
    ),
    "transcript.duplicate-id": (
        "two entries of a history carry an id the format says is unique (Pi `id`, Claude "
        "Code `uuid`, an OpenHands event id, an ATIF `step_id`, an Inspect message id, a "
        "Responses item id, an Anthropic `tool_use` id): each is read as an entry of its "
        "own, none is dropped, and a link to that id goes to the nearest earlier one; or two "
        "runs of a result file claim the same task (an OpenHands `output.jsonl` "
        "`instance_id`, a tau-bench `task_id` and `trial`): both runs are checked, the "
        "later one carries the finding"
    ),
    "transcript.empty": (
        'no message was read from a transcript (a file such as `[]` or `{"messages": []}`, '
        "a run of a container such as an OpenHands `history` or a tau-bench `traj` that is "
        "`[]`, an archive's transcript record with no message): nothing in it was checked, "
        "whatever shape read it, so it is never a pass (also `transcript check`, exit 1)"
    ),
    "transcript.unreadable-member": (
        "a member of an Inspect `.eval` zip could not be read: refused by the zip safety "
        "rules, over the limits, damaged, or zstd-compressed without `zstandard` "
        "installed"
    ),
    "baseline.unmatched": (
        "a `--baseline` entry accepts a finding this run did not report: it was fixed or "
        "it changed (remove the entry, or rewrite the file with `--write-baseline`); "
        "reported in the integrity stage, as the baseline is an input of the run, not of "
        "a record"
    ),
    "baseline.no-digest": (
        "a `--baseline` entry accepts a finding about a file's bytes but records no "
        "SHA-256 of them (a baseline written before digests): it accepts nothing, so its "
        "finding counts again; check the file, then re-accept with `check --write-"
        "baseline`"
    ),
    "signature.not-exact-bytes": (
        "a signature that does not sign the manifest's exact bytes (an OpenPGP signature "
        "of a class other than 0x00, binary: text mode normalises line endings); re-sign "
        "as a binary document (`gpg --detach-sign` without `--textmode`)"
    ),
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def finding_codes_page() -> str:
    """The Markdown of ``docs/finding-codes.md``: every code, its stage, severity and meaning."""
    unknown = sorted(set(DETAILS) - set(CODES))
    if unknown:
        raise ValueError(f"DETAILS names codes that are not in CODES: {unknown}")
    out = [
        "# Finding codes",
        "",
        "<!-- Generated from verifier.findings.CODES by tests/docs_pages.py; do not edit. -->",
        "",
        INTRO.rstrip("\n"),
        "",
        "| code | stage | severity | meaning |",
        "|---|---|---|---|",
    ]
    for code, (stage, meaning) in CODES.items():
        severity = SEVERITIES[code].value
        out.append(f"| `{code}` | {stage.value} | {severity} | {_cell(meaning)} |")
    out += ["", "## Details", ""]
    for code in CODES:
        if code in DETAILS:
            out.append(f"- `{code}`: {DETAILS[code]}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    FINDING_CODES.write_text(finding_codes_page(), encoding="utf-8")
    sys.exit(0)

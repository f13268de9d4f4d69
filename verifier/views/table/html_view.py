"""One self-contained HTML page: inline style, no script, no external reference.

A Content-Security-Policy meta allows the page's own style sheet (by its SHA-256) and
nothing else. Below 600 px (a phone) each table of cases, cells and files stacks: a row
becomes a card and each value is labelled by its column's header (``data-label``, shown by
``::before``), so the page never scrolls sideways. Long unbroken archive text wraps; at a
desktop's width a table it still makes too wide scrolls inside itself, not the page.

It holds the verification status, what was verified (tool version, the source and its digest
or commit, the manifest and its digest, the time: ``SOURCE_DATE_EPOCH`` when set, and each
stage's verdict), the table, and for each case the evidence files behind it
(paths and SHA-256 digests) and where every value came from. Every string goes through
:func:`verifier.views.inert.html_text`: no tag, comment or entity of a record survives.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence

from verifier.table.build import CaseRow, OutcomeTable
from verifier.views.inert import html_text as escape
from verifier.views.table import TableView
from verifier.views.table.columns import HEADERS, described, row_values
from verifier.views.table.columns import groups as columns_groups

STYLE = """
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;font-size:14px;
line-height:1.45;margin:0;padding:1.5rem 2rem;color:#1f2328;background:#fff;max-width:92rem;
overflow-wrap:anywhere}
h1{font-size:1.6rem;margin:0 0 .5rem}h2{font-size:1.25rem;margin-top:2rem;
border-bottom:1px solid #d0d7de;padding-bottom:.3rem}h3{font-size:1.05rem}
table{border-collapse:collapse;margin:1rem 0;display:block;overflow-x:auto}
th,td{border:1px solid #d0d7de;padding:.4rem .6rem;vertical-align:top;text-align:left;
overflow-wrap:break-word}
th{background:#f6f8fa;font-weight:600}
tr:nth-child(even) td{background:#fbfcfd}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85em;
overflow-wrap:anywhere}
.ok{color:#1a7f37;font-weight:600}.bad{color:#cf222e;font-weight:bold}
.unverified td,.unverified{background:#ffebe9}
.verdict{padding:.6rem .9rem;border-radius:6px;border:1px solid;display:inline-block}
.verdict.ok{background:#dafbe1;border-color:#1a7f37}
.verdict.bad{background:#ffebe9;border-color:#cf222e}
table.meta th,table.meta td{border:none;background:none;padding:.15rem 1rem .15rem 0}
table.meta th{color:#59636e}
.stage-passed{color:#1a7f37}.stage-failed{color:#cf222e;font-weight:bold}
.stage-skipped,.stage-nothing-to-check{color:#9a6700}
@media (max-width:600px){
body{padding:1rem .75rem}
table.stack,table.stack tbody,table.stack tr,table.stack td{display:block}
table.stack{border:0;margin:.75rem 0}
table.stack thead{display:none}
table.stack tr{border:1px solid #d0d7de;border-radius:6px;margin:0 0 .75rem;overflow:hidden}
table.stack td{border:0;border-top:1px solid #eaeef2;padding:.35rem .7rem}
table.stack td:first-child{border-top:0;background:#f6f8fa;font-weight:600}
table.stack tr.unverified td{background:#ffebe9}
table.stack td:not(:first-child)::before{content:attr(data-label);display:block;
font-size:.75rem;font-weight:600;color:#59636e}
table.meta th,table.meta td{display:block;padding:0}
table.meta th{padding-top:.4rem;font-size:.75rem}
}
"""
STYLE_HASH = base64.b64encode(hashlib.sha256(STYLE.encode("utf-8")).digest()).decode("ascii")
CSP = f"default-src 'none'; style-src 'sha256-{STYLE_HASH}'; base-uri 'none'; form-action 'none'"


def _stacked(headers: Sequence[str], rows: Sequence[tuple[str, Sequence[str]]]) -> list[str]:
    """A table whose rows stack into labelled cards on a narrow screen: each ``(class, cells)``
    row's cells are HTML already escaped; each cell is labelled by its header."""
    out = [
        '<table class="stack"><thead><tr>'
        + "".join(f"<th>{escape(h)}</th>" for h in headers)
        + "</tr></thead><tbody>"
    ]
    for cls, cells in rows:
        tds = "".join(
            f'<td data-label="{escape(h)}">{cell}</td>'
            for h, cell in zip(headers, cells, strict=True)
        )
        out.append(f'<tr class="{escape(cls)}">{tds}</tr>' if cls else f"<tr>{tds}</tr>")
    out.append("</tbody></table>")
    return out


def _source(table: OutcomeTable) -> str:
    source = table.report.source or {}
    kind = str(source.get("kind", "unknown"))
    text = f"{kind} {source.get('location', '')}".strip()
    for key, label in (("sha256", "SHA-256"), ("commit", "commit"), ("rev", "rev")):
        if key in source:
            text += f", {label} {source[key]}"
    return text


def _meta(table: OutcomeTable) -> list[str]:
    """What was verified: tool, source and its digest, manifest and its digest, time, and
    the verdict of each stage."""
    report = table.report
    stages = ", ".join(
        f'<span class="stage-{escape(s.status.value)}">{escape(s.stage.value)} '
        f"{escape(s.status.value)}</span>"
        for s in report.stages
    )
    rows = [
        ("Tool", f"verify-evidence {table.tool_version}"),
        ("Source", _source(table)),
        ("Manifest", f"{report.manifest}, SHA-256 {report.manifest_sha256 or 'not read'}"),
        ("Time", table.generated_at or "not recorded"),
    ]
    out = ['<table class="meta">']
    out.extend(f"<tr><th>{escape(k)}</th><td><code>{escape(v)}</code></td></tr>" for k, v in rows)
    out.append(f"<tr><th>Stages</th><td>{stages}</td></tr>")
    out.append("</table>")
    return out


def _mark(text: str) -> str:
    return f"\u26a0 unverified: {text}"


def _cells_table(row: CaseRow) -> list[str]:
    rows: list[tuple[str, list[str]]] = []
    for name, cells in columns_groups(row):
        for cell in cells:
            by = ", ".join(f"{aid} ({status})" for aid, status in cell.assertions) or "none"
            value = escape(cell.shown())
            if not cell.verified:
                value += '<br><span class="bad">' + escape("; ".join(cell.reasons)) + "</span>"
            rows.append(
                (
                    "" if cell.verified else "unverified",
                    [
                        escape(name),
                        value,
                        f"<code>{escape(cell.path)}#{escape(cell.pointer)}</code>",
                        f"<code>{escape(cell.sha256 or 'none')}</code>",
                        escape(by),
                    ],
                )
            )
    return _stacked(("Group", "Value", "Source", "SHA-256", "Established by"), rows)


def _case_section(row: CaseRow) -> list[str]:
    out = [
        f'<section id="case-{escape(row.id)}">',
        f"<h3>{escape(row.title)} <small>({escape(row.id)}, {escape(row.kind)})</small>"
        + (
            f' <span class="bad">({escape(row.catalogue_note)})</span>'
            if row.catalogue_note
            else ""
        )
        + "</h3>",
    ]
    if not row.described:
        why = "; ".join(row.problems + row.accepted)
        out.append(f'<p class="bad">From {escape(row.catalogue)}: {escape(why)}</p>')
    out.extend(_cells_table(row))
    limits = described(row, "; ".join(row.limits) or "none stated")
    out.append("<p>Limits: " + escape(limits) + "</p>")
    out.append("<details><summary>Evidence files</summary>")
    files = [
        ("", [f"<code>{escape(p)}</code>", f"<code>{escape(d or 'none')}</code>"])
        for p, d in row.files
    ]
    out.extend(_stacked(("Path", "SHA-256"), files))
    out.append("</details>")
    out.append("<details><summary>Assertions covering the case</summary><ul>")
    out.extend(
        f"<li><code>{escape(aid)}</code>: {escape(status)}</li>" for aid, status in row.assertions
    )
    out.append("</ul></details></section>")
    return out


def _page(table: OutcomeTable, body: list[str]) -> str:
    cls = "ok" if table.ok else "bad"
    head = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{escape(CSP)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>Per-case outcome table</title>",
        f"<style>{STYLE}</style></head><body>",
        "<h1>Per-case outcome table</h1>",
        f'<p class="verdict {cls}">{escape(table.status_line())}</p>',
        *_meta(table),
    ]
    head.extend(f'<p class="bad">catalogue problem: {escape(p)}</p>' for p in table.problems)
    return "\n".join([*head, *body, "</body></html>"]) + "\n"


def render_table(table: OutcomeTable) -> str:
    rows: list[tuple[str, list[str]]] = []
    for row in table.cases:
        values = row_values(row, _mark)
        link = f'<a href="#case-{escape(row.id)}">{escape(values[0])}</a>'
        rows.append(("", [link, *(escape(v) for v in values[1:])]))
    body = _stacked(HEADERS, rows)
    body.append(
        "<p>Counts are per case and are not combined across cases. The original "
        "acceptance result and later readbacks are separate observations; neither "
        "replaces the other. A terminal status or a stored marker is not an external "
        "effect.</p>"
    )
    body.append("<h2>Evidence behind each row</h2>")
    for row in table.cases:
        body.extend(_case_section(row))
    return _page(table, body)


def render_case(table: OutcomeTable, row: CaseRow) -> str:
    return _page(table, _case_section(row))


def render(view: TableView) -> str:
    return view.pick(render_table, render_case)

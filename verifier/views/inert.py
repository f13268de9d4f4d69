"""Archive text made inert for each output format: the one place that decides how a string
an archive supplied (a file name, a record value, a message quoting either) is written.

Every string a report shows may come from an attacker. Each format gets one function here and
uses it for every such string; ``tests/hostile/test_output.py`` runs one corpus of hostile
strings through every format.

* :func:`visible` (text, rich, JUnit, HTML, Markdown, GitHub): characters that are not safe to
  show as they are become Python-style escapes (``\\n``, ``\\x1b``, ``\\u202e``, ``\\udcff``):
  C0 and C1 controls and DEL (a newline can never start a forged line, an escape sequence never
  reaches the terminal), Unicode format characters (bidi overrides and isolates, zero-width
  characters, the BOM), line and paragraph separators, noncharacters U+FFFE/U+FFFF, and lone
  surrogates (the undecodable bytes of a file name, kept by ``surrogateescape``). A backslash
  is kept as it is: escapes make lines and control sequences impossible to forge, and an
  already escaped name may read like an escape.
* :func:`xml_text` / :func:`xml_attr`: :func:`visible`, then XML escaping; the result holds
  only characters XML 1.0 allows.
* :func:`html_text`: :func:`visible`, then HTML escaping (no tag, comment or entity survives).
* :func:`markdown`: :func:`visible`, then ``&<>`` as entities and a backslash before every
  character with a meaning inside a Markdown line or a GFM table cell (`` ` ``, ``|``, ``*``,
  ``_``, ``[``, ``]``, ``~``, ``$``, ``\\``).
* :func:`csv_cell`: a cell that a spreadsheet would run as a formula (it starts with ``=``,
  ``+``, ``-``, ``@``, a tab or a carriage return; OWASP's CSV injection rules) gets a leading
  ``'``; a plain number such as ``-3`` or ``+1.5e3`` is left as it is, since no spreadsheet runs
  it. Other characters are kept: CSV quoting carries newlines exactly.
* :func:`github_data` / :func:`github_property`: :func:`visible`, then the workflow-command
  escapes (``%``, CR, LF; ``:`` and ``,`` too in properties).
* :func:`exact`: JSON and SARIF keep data exactly (JSON escaping is already inert); only lone
  surrogates, which UTF-8 cannot carry, become ``\\udcXX`` escapes.
"""

from __future__ import annotations

import re
from html import escape as _html_escape
from types import MappingProxyType

# C0 controls, DEL and C1 controls; the soft hyphen and other Unicode format characters (Cf:
# bidi marks, embeddings, overrides and isolates, zero-width characters, word joiner, invisible
# operators, BOM, interlinear annotation, tag characters); line and paragraph separators;
# surrogates; the noncharacters XML forbids.
_UNSAFE = re.compile(
    "["
    "\x00-\x1f\x7f-\x9f"
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f"
    "\ud800-\udfff"
    "\ufeff\ufff9-\ufffb\ufffe\uffff"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
    "]"
)

_NAMED = MappingProxyType({"\n": "\\n", "\r": "\\r", "\t": "\\t"})


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    point = ord(char)
    if point <= 0xFF:
        return f"\\x{point:02x}"
    if point <= 0xFFFF:
        return f"\\u{point:04x}"
    return f"\\U{point:08x}"


def visible(text: str) -> str:
    """``text`` with every unsafe character as a visible escape; one line, no control codes."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_escape, text)


def exact(text: str) -> str:
    """For JSON and SARIF: unchanged, except lone surrogates as ``\\udcXX`` (UTF-8 has none)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def xml_text(text: str) -> str:
    """XML character data."""
    return visible(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def xml_attr(text: str) -> str:
    """A double-quoted XML attribute value, quotes included."""
    return '"' + xml_text(text).replace('"', "&quot;") + '"'


def html_text(text: str) -> str:
    """HTML text or a quoted attribute value."""
    return _html_escape(visible(text), quote=True)


# Characters with a meaning inside CommonMark/GFM inline text or a table row (code spans,
# emphasis, links and images, strikethrough, GitHub's math, cell separators). Each may be
# backslash-escaped (CommonMark: any ASCII punctuation); ``&<>`` become entities instead.
# Characters that mean something only at the start of a line (``#``, ``-``, ``+``) are kept:
# archive text never starts a line of the Markdown views.
_MARKDOWN = MappingProxyType(
    {
        **{c: "\\" + c for c in "\\`*_[]|~$"},
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
    }
)
_MARKDOWN_CHARS = re.compile("[" + re.escape("".join(_MARKDOWN)) + "]")


def markdown(text: str) -> str:
    """Markdown inline text, safe in a table cell: no markup, no raw HTML, no line break."""
    return _MARKDOWN_CHARS.sub(lambda m: _MARKDOWN[m.group()], visible(text))


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def csv_cell(text: str) -> str:
    """A CSV cell no spreadsheet runs as a formula (OWASP CSV injection)."""
    text = exact(text)
    if text.startswith(_FORMULA_START) and _NUMBER.fullmatch(text) is None:
        return "'" + text
    return text


def github_data(text: str) -> str:
    """The message of a GitHub Actions workflow command."""
    return visible(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(text: str) -> str:
    """A property value of a GitHub Actions workflow command."""
    return github_data(text).replace(":", "%3A").replace(",", "%2C")

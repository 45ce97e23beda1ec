"""reStructuredText (`.rst`, Sphinx's and Python projects' documentation) → blocks, as plain text.

An RST file is plain text whose headings are underlined (and overlined), which the plain-text
parser reads (`indexer.parse.text`). What a reader never sees of it is its explicit markup: lines
that open with ".. " (a directive such as ".. include::" or ".. toctree::", a comment, a link
target ".. _install:", a substitution) and the options under a directive ("   :maxdepth: 2").
Those are dropped, and a directive's body (a note's or a warning's text) is kept, set flush as
its paragraphs. Left in, the markup was a document's first paragraph, and its title was lost.
"""

from __future__ import annotations

import re

from indexer.models import ParsedDocument
from indexer.parse.text import parse_text

_EXPLICIT = re.compile(r"^\.\.(\s|$)")  # ".. include:: x", ".. _target:", ".. a comment", ".."
_OPTION = re.compile(r"^\s+:[\w -]+:(\s|$)")  # a directive's option, "   :maxdepth: 2"
_OVERLINE = re.compile(r"^([=\-~^*#+])\1{2,}\s*$")  # "=====" over a title as well as under it


def parse_rst(source: str) -> ParsedDocument:
    lines = source.split("\n")
    out: list[str] = []
    in_markup = False
    for k, line in enumerate(lines):
        if _EXPLICIT.match(line):
            in_markup = True
            continue
        if in_markup and (not line.strip() or line[:1].isspace()):  # the directive's block: indented
            if not _OPTION.match(line):
                out.append(line.strip())  # its body (a blank line, a note's text), flush
            continue
        in_markup = False
        if _OVERLINE.match(line) and k + 2 < len(lines) and _OVERLINE.match(lines[k + 2]) and lines[k + 1].strip():
            continue  # an overline: the underline two lines on makes the heading
        out.append(line)
    return parse_text("\n".join(out))

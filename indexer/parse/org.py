"""Org-mode files (`.org`, Emacs's outlines and notes) → blocks, as Markdown.

An Org file is plain text whose headings are lines of stars (`* Part`, `** Section`) and whose
settings are `#+KEYWORD:` lines; the rest (paragraphs, `- ` lists, tables of `|` cells) is
written much as in Markdown. Its headings become ATX headings, its `#+TITLE:` the title, other
settings and `#+BEGIN_…`/`#+END_…` markers are dropped (a block's contents are kept), and the
result is read by the Markdown parser (`indexer.parse.markdown`).
"""

from __future__ import annotations

import re

from indexer.models import ParsedDocument
from indexer.parse.markdown import parse_markdown

_HEADING = re.compile(r"^(\*+)\s+(.*?)(\s+:[\w@#%:]+:)?\s*$")  # "** TODO Section :tag:"
_SETTING = re.compile(r"^\s*#\+(\w+)(?:\[[^\]]*\])?:?\s*(.*)$")
_BLOCK_MARK = re.compile(r"^\s*#\+(begin|end)_(\w+)", re.I)


def parse_org(source: str) -> ParsedDocument:
    title: str | None = None
    out: list[str] = []
    fence = False
    for line in source.split("\n"):
        if mark := _BLOCK_MARK.match(line):
            if mark.group(2).lower() in ("src", "example"):  # code stays code
                out.append("```")
                fence = mark.group(1).lower() == "begin"
            continue
        if fence:
            out.append(line)
            continue
        if setting := _SETTING.match(line):
            if setting.group(1).lower() == "title" and setting.group(2).strip():
                title = setting.group(2).strip()
            continue
        if heading := _HEADING.match(line):
            depth = min(len(heading.group(1)), 6)
            out.append(f"{'#' * depth} {heading.group(2)}")
            continue
        out.append(line)
    parsed = parse_markdown("\n".join(out))
    parsed.title = title or parsed.title
    return parsed

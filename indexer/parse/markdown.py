"""Markdown → blocks, with markdown-it-py (CommonMark + GFM tables).

Each top-level block becomes one `Block` holding its source text, so a table,
a list (with its nested items) or a fenced code block stays whole and keeps
its Markdown, which models read well. Headings are ATX or setext; YAML/TOML
front matter gives the title when it has one.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

from indexer.models import Block, ParsedDocument
from indexer.parse.hygiene import without_inline_pictures
from indexer.parse.numbering import is_cjk_heading

_md = MarkdownIt("commonmark").enable("table").enable("strikethrough")
# Blocks only: inline parsing of every table cell and paragraph is what made a 45 MB file take
# 2 GB; only headings need it, and they get it one at a time (`_inline_text`).
_blocks = MarkdownIt("commonmark").enable("table").enable("strikethrough").disable(["inline", "text_join"])

_FRONT_MATTER_RE = re.compile(r"\A(---|\+\+\+)[ \t]*\n(.*?\n)?\1[ \t]*(\n|\Z)", re.DOTALL)
_FM_TITLE_RE = re.compile(r"^title\s*[:=]\s*['\"]?(.+?)['\"]?\s*$", re.MULTILINE)
# `{ #anchor }` / `{#id .class}` attribute lists (mkdocs, pandoc) after a heading.
_HEADING_ATTRS_RE = re.compile(r"\s*\{\s*[#.][^}]*\}\s*$")
_HTML_COMMENT_RE = re.compile(r"\A\s*<!--.*?-->\s*\Z", re.DOTALL)
_TAG_RE = re.compile(r"<[^>]+>")
_IMAGE_ONLY_RE = re.compile(r"\A\s*(\[?!\[[^\]]*\]\([^)]*\)\]?(\([^)]*\))?\s*)+\Z")

_CONTAINERS = {
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "table_open": "table",
    "blockquote_open": "text",
}


def parse_markdown(source: str) -> ParsedDocument:
    source, title = _strip_front_matter(source)
    lines = source.split("\n")
    env: dict = {}  # link reference definitions, so a heading's `[text][ref]` reads as text
    tokens = _blocks.parse(source, env)
    blocks: list[Block] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "heading_open":
            text = _inline_text(tokens[i + 1], env)
            if text:
                blocks.append(Block("heading", text, level=int(tok.tag[1])))
            i = _skip_to_close(tokens, i)
        elif tok.type in _CONTAINERS:
            _add_paragraph(blocks, _CONTAINERS[tok.type], _source(lines, tok))
            i = _skip_to_close(tokens, i)
        elif tok.type == "paragraph_open":
            text = _source(lines, tok)
            if "\n" not in text and is_cjk_heading(text):  # "第一章 总则" on a line of its own: a heading
                blocks.append(Block("heading", text.strip(), level=1, inferred=True))
                i = _skip_to_close(tokens, i)
                continue
            kind = "figure" if _IMAGE_ONLY_RE.match(text) else "equation" if text.lstrip().startswith("$$") else "text"
            _add_paragraph(blocks, kind, text)
            i = _skip_to_close(tokens, i)
        elif tok.type in ("fence", "code_block"):
            _add_paragraph(blocks, "code", _source(lines, tok))
            i += 1
        elif tok.type == "html_block":
            _add_html(blocks, tok.content)
            i += 1
        else:  # hr and anything structural without text
            i += 1
    return ParsedDocument(blocks=blocks, title=title)


def clean_heading(text: str) -> str:
    """Heading text without attribute lists, emphasis markers or trailing colons."""
    text = _HEADING_ATTRS_RE.sub("", text)
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)
    return " ".join(text.split()).strip()


def _strip_front_matter(source: str) -> tuple[str, str | None]:
    match = _FRONT_MATTER_RE.match(source)
    if not match:
        return source, None
    title_match = _FM_TITLE_RE.search(match.group(2) or "")
    # Keep the line count so token maps still index the source lines.
    stripped = "\n" * match.group(0).count("\n") + source[match.end() :]
    return stripped, title_match.group(1).strip() if title_match else None


def _inline_text(inline: Token, env: dict | None = None) -> str:
    parts: list[str] = []
    children = _md.parseInline(inline.content, env if env is not None else {})[0].children if inline.content else []
    for child in children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)
    return clean_heading("".join(parts))


def _source(lines: list[str], tok: Token) -> str:
    start, end = tok.map or (0, 0)
    return "\n".join(lines[start:end]).strip("\n")


def _skip_to_close(tokens: list[Token], i: int) -> int:
    """Index after the token that closes `tokens[i]` (same nesting level)."""
    level = tokens[i].level
    j = i + 1
    while j < len(tokens) and not (tokens[j].nesting == -1 and tokens[j].level == level):
        j += 1
    return j + 1


def _add_paragraph(blocks: list[Block], kind: str, text: str) -> None:
    text = without_inline_pictures(text)
    # A block without a letter or digit ("///", "***", "---") carries nothing.
    if any(ch.isalnum() for ch in text):
        blocks.append(Block(kind, text))  # type: ignore[arg-type]


def _add_html(blocks: list[Block], html: str) -> None:
    if _HTML_COMMENT_RE.match(html):
        return
    lowered = html.lower()
    if "<table" in lowered:
        _add_paragraph(blocks, "table", html.strip())
    elif "<img" in lowered and not _TAG_RE.sub("", html).strip():
        _add_paragraph(blocks, "figure", html.strip())
    else:
        _add_paragraph(blocks, "text", " ".join(_TAG_RE.sub(" ", html).split()))

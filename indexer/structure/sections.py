"""Blocks → sections and paragraphs with coordinates `(sec_id, para_idx)`.

The rules (docs/design.md, "Data model"):

* `sec_id 0` is the root: the title and any text before the first heading.
  A document that opens with its only top-level heading uses it as the title.
* Section ids follow heading order; a section's `level` is its depth in the
  tree, so a jump from `#` to `###` nests one level, not two, and a heading
  after a deeper one attaches to the nearest shallower ancestor.
* When the source gives no usable levels (plain text, or every heading at the
  same level), numbering implies depth: `3.2.1 Setup` sits under `3.2`.
* Inferred headings that look like body text (runs of them with nothing in
  between, or so many that they outnumber the text) are demoted to text, so a
  TOC never explodes into hundreds of one-line sections.
* A form's questions set as text are one paragraph each, with their check boxes
  (`indexer.structure.forms`).
* Very long prose blocks are split at sentence boundaries: one 3,000-token
  "paragraph" from a text file without blank lines is useless as a search hit.
  A table too large to read at once becomes blocks of rows, its caption and header
  repeated in each. Lists and code are split only when giant (a dump of
  100,000 characters, cut between lines); figures never.
"""

from __future__ import annotations

import re
from dataclasses import replace

from indexer.models import Block, DocumentStructure, Paragraph, ParsedDocument, Section
from indexer.parse.blocks import as_text, looks_like_body_text, steps_as_lists, union
from indexer.parse.junk import is_junk
from indexer.parse.numbering import levels_from_numbering, numbering_depth
from indexer.structure.forms import keep_answers_apart
from indexer.structure.tables import split_lines, split_table
from indexer.titles.card import make_card
from indexer.titles.decide import name_document
from indexer.tokens import count_tokens

# Bump when parsing, naming or structuring changes what is stored for a file (its title, sections
# and paragraphs): every index is structured again on its next start (parses come from the cache,
# unchanged paragraphs keep their vectors). What each bump changed is in git's history of this line.
STRUCTURE_VERSION = "28"
MAX_TEXT_TOKENS = 350
MAX_TITLE_CHARS = 300  # a heading longer than this is cut in the map (the text is a paragraph's job)
TARGET_TEXT_TOKENS = 200
GIANT_CHARS = 100_000  # a list or code block longer than this is cut between lines (it is a dump, not a unit)
FRAGMENT_TOKENS = 8  # a text block shorter than this, on a page, is a fragment (a cell, a label, a value)

# After ". ! ?" and a space before a capital or digit; after "。！？" (no spaces in CJK text).
_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])|(?<=[。！？])")


def build(parsed: ParsedDocument, fallback_title: str) -> DocumentStructure:
    blocks = _clean_leaders(steps_as_lists(_demote_noise(parsed.blocks)))
    blocks = _split_long_text(keep_answers_apart(_merge_fragments(blocks)))
    headings = [b for b in blocks if b.kind == "heading"]
    ranks = _heading_ranks(headings)

    # The first block with words (a Markdown page may open with an anchor, `<a id="…"></a>`).
    lead = next((k for k, b in enumerate(blocks) if b.kind != "text" or _TAG_RE.sub("", b.text).strip()), 0)
    named = name_document(parsed, blocks, lead, _is_unique_top(ranks))
    title = _short_title(named.title or fallback_title)
    # The heading that prints the title is the document's root, not a section that holds it all.
    if named.heading_at is not None:
        # Which heading it is, for its rank to go with it (a web page's h1 may follow an h2).
        nth = sum(b.kind == "heading" for b in blocks[: named.heading_at])
        blocks = blocks[: named.heading_at] + blocks[named.heading_at + 1 :]
        ranks = ranks[:nth] + ranks[nth + 1 :]

    root = Section(sec_id=0, title=title, level=0, parent=None)
    sections = [root]
    paragraphs: list[Paragraph] = []
    stack: list[tuple[float, Section]] = [(float("-inf"), root)]
    current = root
    rank_iter = iter(ranks)
    for block in blocks:
        if block.kind == "heading":
            rank = next(rank_iter)
            while stack[-1][0] >= rank:
                stack.pop()
            parent = stack[-1][1]
            current = Section(
                sec_id=len(sections),
                title=_short_title(block.text.rstrip(": ")),
                level=parent.level + 1,
                parent=parent.sec_id,
            )
            parent.children.append(current.sec_id)
            sections.append(current)
            stack.append((rank, current))
            _widen_pages(current, block.page)
            continue
        n_tokens = count_tokens(block.text)
        page_end = block.last_page or block.page
        paragraphs.append(
            Paragraph(
                current.sec_id,
                current.n_paras,
                block.kind,
                block.text,
                block.page,
                n_tokens,
                block.bbox,
                page_end,
                block.picture,
                is_junk(block.text, block.kind),
            )
        )
        current.n_paras += 1
        current.n_tokens += n_tokens
        _widen_pages(current, block.page)
        _widen_pages(current, page_end)
    card = make_card(
        title, parsed.blocks, parsed.items, parsed.declared, parsed.format, parsed.n_pages, sections, paragraphs
    )
    return DocumentStructure(
        title=title,
        sections=sections,
        paragraphs=paragraphs,
        n_pages=parsed.n_pages,
        warnings=parsed.warnings,
        detail=card.date,
        named_by_file=named.title is None,
        kind=card.kind,
        issuer=card.issuer,
        about=card.about,
    )


_TAG_RE = re.compile(r"<[^>]*>")


def _short_title(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_TITLE_CHARS else text[: MAX_TITLE_CHARS - 1].rstrip() + "…"


def _heading_ranks(headings: list[Block]) -> list[float]:
    """A sortable rank per heading: smaller is shallower.

    Declared levels are trusted when they vary (Markdown, a PDF's outline); when every
    heading has the same level, or the headings were inferred, numbering decides; when
    numbering says nothing either (all one level), the font size does (PDFs).
    """
    declared_levels = {h.level for h in headings if not h.inferred}
    if len(declared_levels) > 1 and not any(h.inferred for h in headings):
        return [float(h.level or 1) for h in headings]
    levels = levels_from_numbering([h.text for h in headings])
    if len(set(levels)) == 1:
        return _levels_from_size(headings) or [float(level) for level in levels]
    return [float(level) for level in levels]


MAX_SIZE_LEVELS = 4
_SAME_SIZE = 0.08  # sizes closer than this (relative to the body text) are one level


def _levels_from_size(headings: list[Block]) -> list[float] | None:
    """Bigger type is shallower: distinct heading sizes, largest first, one level each (sizes
    within _SAME_SIZE of each other share a level; at most MAX_SIZE_LEVELS). None when most
    headings have no size or all have the same: then sizes say nothing."""
    sizes = [h.size for h in headings]
    known = sorted({s for s in sizes if s is not None}, reverse=True)
    if len(known) < 2 or sum(s is not None for s in sizes) < 0.8 * len(sizes):
        return None
    level_of: dict[float, int] = {}
    level = 1
    for previous, size in zip([known[0], *known], known, strict=False):  # each size after the one before it
        if previous - size >= _SAME_SIZE:
            level = min(level + 1, MAX_SIZE_LEVELS)
        level_of[size] = level
    if len(set(level_of.values())) < 2:
        return None
    deepest = max(level_of.values())
    return [float(level_of[s]) if s is not None else float(deepest) for s in sizes]


def _is_unique_top(ranks: list[float]) -> bool:
    return bool(ranks) and all(r > ranks[0] for r in ranks[1:])


def _demote_noise(blocks: list[Block]) -> list[Block]:
    """Turn inferred headings that behave like body text back into text."""

    def demote(i: int) -> None:
        out[i] = as_text(out[i])

    out = list(blocks)
    for i, block in enumerate(out):
        if block.kind == "heading" and block.inferred and looks_like_body_text(block.text):
            demote(i)
    inferred = [i for i, b in enumerate(out) if b.kind == "heading" and b.inferred]
    if len(inferred) > 10 and len(inferred) > 0.4 * len(out):  # more "headings" than text
        for i in inferred:
            if numbering_depth(out[i].text) is None:
                demote(i)
    run: list[int] = []  # long runs of unnumbered guessed headings are lines of a list
    for i, block in enumerate([*out, Block("text", "")]):
        if block.kind == "heading" and block.inferred and numbering_depth(block.text) is None:
            run.append(i)
            continue
        if len(run) >= 4:
            for j in run:
                demote(j)
        run = []
    return out


# Dot leaders ("Total assets ........ $ 1,234", also spaced ". . . ."): noise to a reader,
# one token per dot to the budget, and they crowd the embedding's window.
_LEADER_RE = re.compile(r"[ \t]*(?:\.[ \t]?){4,}")


def _clean_leaders(blocks: list[Block]) -> list[Block]:
    return [
        replace(b, text=_LEADER_RE.sub(" … ", b.text))
        if b.kind in ("text", "list", "table") and "...." in b.text.replace(" ", "")
        else b
        for b in blocks
    ]


def _merge_fragments(blocks: list[Block]) -> list[Block]:
    """Runs of very short text blocks on one page become one paragraph.

    A PDF parser cuts a table it does not recognise, or a label and its value,
    into one block per cell: alone, "Age" or "52" can neither be found nor read.
    Only paged sources: elsewhere a short paragraph was written that way.
    """
    out: list[Block] = []
    run: list[Block] = []

    def close() -> None:
        if len(run) >= 2:
            boxes = [b.bbox for b in run if b.bbox]
            bbox = union(boxes) if boxes else None
            out.append(Block("text", "\n".join(b.text for b in run), page=run[0].page, bbox=bbox))
        else:
            out.extend(run)
        run.clear()

    for block in blocks:
        fragment = block.kind == "text" and block.page is not None and count_tokens(block.text) < FRAGMENT_TOKENS
        if not fragment or (run and run[-1].page != block.page):
            close()
        if fragment:
            run.append(block)
        else:
            out.append(block)
    close()
    return out


def _split_long_text(blocks: list[Block]) -> list[Block]:
    """Long prose into pieces at sentences; a table too large to read at once into blocks of rows
    (`indexer.structure.tables`), each with the caption and header, so every row can be read and found."""
    out: list[Block] = []
    for block in blocks:
        if block.kind == "table":
            pieces = split_table(block.text)
            pieces = [q for p in pieces for q in (split_lines(p) if len(p) > GIANT_CHARS else [p])]  # a giant row
            out.extend(replace(block, text=piece) for piece in pieces)
        elif block.kind in ("list", "code", "equation") and len(block.text) > GIANT_CHARS:
            out.extend(replace(block, text=piece) for piece in split_lines(block.text))
        elif block.kind != "text" or count_tokens(block.text) <= MAX_TEXT_TOKENS:
            out.append(block)
        else:
            out.extend(replace(block, text=piece) for piece in split_prose(block.text))
    return out


def split_prose(text: str) -> list[str]:
    """Greedy sentence packing into pieces of about TARGET_TEXT_TOKENS."""
    sentences = _SENTENCE_SPLIT_RE.split(text)
    units: list[str] = []
    for sentence in sentences:  # a "sentence" longer than a piece is cut by words
        if count_tokens(sentence) <= MAX_TEXT_TOKENS:
            units.append(sentence)
            continue
        words = sentence.split()
        if len(words) < 4:  # no spaces to cut at (CJK, dot leaders): cut by characters
            step = max(1, int(len(sentence) * TARGET_TEXT_TOKENS / count_tokens(sentence)))
            units.extend(sentence[i : i + step] for i in range(0, len(sentence), step))
            continue
        step = max(1, int(len(words) * TARGET_TEXT_TOKENS / count_tokens(sentence)))
        units.extend(" ".join(words[i : i + step]) for i in range(0, len(words), step))
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for unit in units:
        n = count_tokens(unit)
        if current and size + n > TARGET_TEXT_TOKENS:
            pieces.append(_join(current))
            current, size = [], 0
        current.append(unit)
        size += n
    if current:
        pieces.append(_join(current))
    return pieces


def _join(units: list[str]) -> str:
    """Sentences back together: a space after Latin text, none after CJK or a character cut."""
    out = units[0]
    for unit in units[1:]:
        out += (
            "" if out.endswith(("。", "！", "？")) or (not out[-1:].isspace() and not unit[:1].isascii()) else " "
        ) + unit
    return out


def _widen_pages(section: Section, page: int | None) -> None:
    if page is None:
        return
    section.page_start = page if section.page_start is None else min(section.page_start, page)
    section.page_end = page if section.page_end is None else max(section.page_end, page)

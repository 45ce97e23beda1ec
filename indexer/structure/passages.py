"""Passages: the units of dense search (docs/design.md, "Data model").

Paragraphs are what the tools return and cite, but most are far shorter than the
embedding model's window (a filing's median paragraph is ~40 tokens; MiniLM reads 256
word pieces), so one vector per paragraph spends most of the indexing time on many
small vectors that each carry little meaning. A passage packs consecutive paragraphs of
one section up to about the window (never across a heading); every paragraph of a
passage points at the passage's vector (`paragraphs.vec_id`), so a dense hit on the
passage reaches its paragraphs (`indexer.search.hybrid`), while BM25 stays per paragraph.

Two kinds stand alone, described by what identifies them rather than by their first
256 word pieces: a table longer than the window (its caption or title, column heads,
row labels and units; the figures themselves say little to the model) and a figure (its
caption and the words read from it).

Packing depends only on what the store keeps of each paragraph (section, kind, text,
token count), so the catch-up lane and a repack after an upgrade rebuild the same
passages, and so the same vector ids, from the stored rows. Bump `PASSAGE_VERSION` when
the packing or the embedded text changes: it is part of the index signature.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from indexer.parse.blocks import UNCAPTIONED
from indexer.structure.tables import block_index, table_rows, without_tags
from indexer.tokens import clip_to_tokens, count_tokens, shorten

PASSAGE_VERSION = "2"  # bump when passages are packed otherwise: vectors are made again (history: git)
# Tokens of a passage, heading path included (the `count_tokens` estimate). MiniLM reads 256
# word pieces, a few more than estimated tokens in filings (`benchmarks.vectors.passages` measures
# how many passages the model reads whole).
WINDOW_TOKENS = 220
# The heading path read with each passage: the title and the nearest headings, each at most so many tokens.
CONTEXT_HEADINGS = 2
CONTEXT_TITLE_TOKENS = 14
# A table stored as blocks of rows gets vectors for its first blocks only: a dump of 80,000 rows
# would otherwise be 800 vectors that all say the same thing.
MAX_TABLE_BLOCKS = 8
# A text paragraph this short just before a long table is read as its title too.
TITLE_TOKENS = 40
# Labels of a described table's rows: at most this many tokens of them.
MAX_LABEL_TOKENS = 140

_NUMERIC_RE = re.compile(r"^[\s$€£¥%()\-–—.,:/*\d]*$")
_UNITS_RE = re.compile(
    r"\((?:[^()]{0,40}\b(?:in|amounts? in)\s+)?(?:thousands|millions|billions|percent|%)[^()]{0,60}\)"
    r"|\bin (?:thousands|millions|billions)\b[^|\n]{0,60}",
    re.I,
)


class Packable(Protocol):
    """What packing reads of a paragraph (`models.Paragraph`, `store.ParagraphRow`), read-only."""

    @property
    def sec_id(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def n_tokens(self) -> int: ...
    @property
    def junk(self) -> bool | int: ...


@dataclass
class Passage:
    members: list[int]  # positions of its paragraphs in the sequence packed
    text: str  # what the model embeds
    # Where what the model reads of each member (its text, a table's description) is in `text`
    # (character offsets), when there are several: each gets a vector of its own from the
    # passage's one pass (`Embedder.embed_passages`).
    spans: list[tuple[int, int]] = field(default_factory=list)


def pack(paragraphs: Sequence[Packable], paths: dict[int, list[str]], with_context: bool) -> list[Passage]:
    """Passages of a document's paragraphs, given in (sec_id, para_idx) order."""
    passages: list[Passage] = []
    run: list[int] = []  # packable paragraphs of one section, waiting to be cut into passages

    forms: dict[int, str] = {}  # what the model reads of each packed paragraph

    def flush() -> None:
        room = WINDOW_TOKENS - (
            count_tokens(context(paths.get(paragraphs[run[0]].sec_id, []))) if with_context and run else 0
        )
        for members in _balanced(run, [count_tokens(forms[i]) for i in run], room):
            body = "\n".join(forms[i] for i in members)
            text = _with_path(paths, paragraphs[members[0]].sec_id, body, with_context)
            spans: list[tuple[int, int]] = []
            start = len(text) - len(body)  # the body ends the text
            for i in members:
                spans.append((start, start + len(forms[i])))
                start += len(forms[i]) + 1
            passages.append(Passage(members, text, spans if len(members) > 1 else []))
        run.clear()

    for i, p in enumerate(paragraphs):
        if run and paragraphs[run[0]].sec_id != p.sec_id:
            flush()
        if p.junk:  # not language: no vector (`indexer.parse.junk`)
            continue
        if p.kind == "table" and (block := block_index(p.text)) is not None and block >= MAX_TABLE_BLOCKS:
            continue  # the rest of a giant table: found by its words, read by read_section
        if stands_alone(p):
            flush()
            before = paragraphs[i - 1] if i else None
            title = (  # a short line just before a table is usually its title ("Consolidated Balance Sheets")
                before.text + "\n"
                if p.kind == "table"
                and before is not None
                and before.sec_id == p.sec_id
                and before.kind == "text"
                and before.n_tokens <= TITLE_TOKENS
                else ""
            )
            passages.append(Passage([i], _with_path(paths, p.sec_id, title + describe(p), with_context)))
        else:
            forms[i] = describe(p) if p.kind == "table" else p.text
            run.append(i)
    flush()
    return passages


def vec_id(doc_id: int, embedded_text: str, spans: Sequence[tuple[int, int]] = ()) -> str:
    """A vector's id names its document, the text embedded and the spans given vectors of their
    own, so an unchanged passage keeps its vectors."""
    key = embedded_text + "".join(f"\x00{a}:{b}" for a, b in spans)
    return f"{doc_id}:{hashlib.sha1(key.encode('utf-8')).hexdigest()[:20]}"


def vector_ids(
    doc_id: int, paragraphs: Sequence[Packable], paths: dict[int, list[str]], with_context: bool
) -> tuple[list[str], dict[str, Passage]]:
    """Each paragraph's vector id (its passage's; "" for junk, which has none), and the passage
    to embed for each vector id."""
    ids = [""] * len(paragraphs)
    passages: dict[str, Passage] = {}
    for passage in pack(paragraphs, paths, with_context):
        vid = vec_id(doc_id, passage.text, passage.spans)
        passages[vid] = passage
        for i in passage.members:
            ids[i] = vid
    return ids, passages


def stands_alone(p: Packable) -> bool:
    """A figure with words, or a table too long for the window, is a passage of its own."""
    if p.kind == "figure":
        return p.text != UNCAPTIONED
    return p.kind == "table" and p.n_tokens > WINDOW_TOKENS


def describe(p: Packable) -> str:
    """What the model reads of a table, by what identifies it (caption, heads, row labels,
    units: its figures tell the model little and cost many word pieces), or of a figure."""
    if p.kind != "table":
        return p.text
    caption, rows = table_rows(p.text)
    if not rows:  # not a grid we can read: its opening words
        return clip_to_tokens(p.text, WINDOW_TOKENS)
    heads = [c for c in rows[0] if c]  # years are heads too
    labels: list[str] = []
    seen: set[str] = set()
    for row in rows[1:]:
        label = next((c for c in row if c and not _NUMERIC_RE.match(c)), "")
        if label and label.lower() not in seen:
            seen.add(label.lower())
            labels.append(label)
    units = sorted({m.group(0).strip() for m in _UNITS_RE.finditer(without_tags(p.text))})[:3]
    parts = [clip_to_tokens(caption, 60)] if caption else []
    if heads:
        parts.append("Columns: " + clip_to_tokens(" | ".join(heads), 40))
    if labels:
        parts.append("Rows: " + clip_to_tokens("; ".join(labels), MAX_LABEL_TOKENS))
    if units:
        parts.append("Units: " + "; ".join(units))
    return "\n".join(parts)


def embedded_text(path: list[str], body: str, with_context: bool) -> str:
    """What the model reads: the heading path gives a passage its topic ("Acme 10-K > … > Notes
    to Consolidated Financial Statements > Note 7. Goodwill: …")."""
    return f"{context(path)}: {body}" if with_context and path else body


def context(path: list[str]) -> str:
    """The document's title and the nearest headings, each kept short: a filing's full path
    ("ACME — Form 10-K, fiscal year … > PART II > ITEM 7. MANAGEMENT'S DISCUSSION AND …")
    is often half the model's window, and would be read again for every passage."""
    nearest = path[1:][-CONTEXT_HEADINGS:]
    skipped = ["…"] if len(path) > CONTEXT_HEADINGS + 1 else []
    return " > ".join(
        [shorten(path[0], CONTEXT_TITLE_TOKENS), *skipped, *(shorten(t, CONTEXT_TITLE_TOKENS) for t in nearest)]
    )


def _with_path(paths: dict[int, list[str]], sec_id: int, body: str, with_context: bool) -> str:
    return embedded_text(paths.get(sec_id, []), body, with_context)


def _balanced(members: list[int], sizes: list[int], room: int) -> list[list[int]]:
    """Consecutive groups of about equal size, each within `room` tokens where the paragraphs
    allow: a 200-token run becomes two passages of 100, not 180 and 20."""
    if not members:
        return []
    groups = max(1, -(-sum(sizes) // max(room, 1)))
    target = sum(sizes) / groups
    out: list[list[int]] = [[]]
    filled = before = 0
    for i, size in zip(members, sizes, strict=True):
        due = min(int((before + size / 2) // target), groups - 1)  # the group its middle falls in
        if out[-1] and (filled + size > room or len(out) - 1 < due):
            out.append([])
            filled = 0
        out[-1].append(i)
        filled += size
        before += size
    return out

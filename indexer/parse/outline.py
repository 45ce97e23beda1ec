"""The PDF outline (bookmarks): where a PDF has one, it is the map, the author's own table of contents.

Every entry becomes a section at its depth, on its page: the line of its target page (or the
next: bookmarks often point at the end of the page before) whose words are the entry's title
becomes its heading, whether flash marked it a heading, left it as a line of text, or ran it
into the paragraph below; an entry whose title is on no such line is set at the top of its
page. The entries are placed in the outline's order.

The headings the outline does not list sit one level below the entry before them, unless
they read like text (a sentence, a numbered step, an index's letter) or are back matter
(References, Appendix …), which stands at the top; before the first entry they are a cover's
lines. An outline that does not describe its pages (fewer than a quarter of its titles on them:
another document's bookmarks, a template's) or is too long to be a table of contents is set
aside with a warning, and the headings as found make the map.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

from indexer.models import Block
from indexer.parse.blocks import as_text, looks_like_body_text
from indexer.parse.numbering import KEYWORD_SCHEMES, is_back_matter, keyword_number, numbering, without_keyword_number

MAX_ENTRIES = 2_000  # more is a generated index of every paragraph, not a table of contents
MATCHED_SHARE = 0.25  # at least this share of the entries must be found on their pages by title
RUN_IN_CHARS = 8  # a title this long (letters and digits) may open the paragraph it ran into
MAX_TITLE_CHARS = 300  # a line longer than this is no title
SIMILAR = 0.8  # a line whose words are mostly an entry's, on its page, is its heading in other words
LIST_RUN = 3  # this many headings the outline does not list, one after another with no text, are a list

# Leading numbering an outline and its heading may write differently ("3.2", "IV.", "A)", "(b)").
_NUMBERING = re.compile(r"^\s*(?:\(?(?:(?:\d+|[a-z])(?:\.\d+)*[.)]?|[ivxlcdm]{1,6}[.)])(?:\s+|$))+", re.I)
_NOT_WORD = re.compile(r"[\W_]+")


@dataclass
class OutlineEntry:
    title: str
    level: int  # 1 = top
    page: int | None = None  # 1-based


@dataclass
class _Placed:
    block: Block
    entry: OutlineEntry | None  # None: a heading the outline does not list
    matched: bool = False  # found by its title (not set at the top of its page)


@functools.lru_cache(maxsize=16_384)  # each line is compared with the entries of its pages
def key(title: str) -> str:
    """A title as an outline and a page both write it: lower case, no leading numbering, only
    letters and digits ("CRITICALACCOUNTING POLICIES" is "Critical Accounting Policies")."""
    return _NOT_WORD.sub("", _NUMBERING.sub("", title.strip()).lower())


def usable_outline(entries: list[OutlineEntry], n_pages: int | None) -> tuple[list[OutlineEntry], str | None]:
    """The entries a map can follow (titles tidied, pages past the document dropped, each level
    at most one below the entry before), or none and why."""
    if len(entries) > MAX_ENTRIES:
        return [], (
            f"the PDF's outline has {len(entries):,} entries, too many for a table of contents "
            f"(over {MAX_ENTRIES:,}); headings as found are used"
        )
    kept: list[OutlineEntry] = []
    for entry in entries:
        title = " ".join(entry.title.split())
        if not key(title):
            continue
        page = entry.page if entry.page is not None and 1 <= entry.page <= (n_pages or entry.page) else None
        level = max(1, min(entry.level, kept[-1].level + 1 if kept else 1))
        kept.append(OutlineEntry(title, level, page))
    return kept, None


def apply_outline(blocks: list[Block], outline: list[OutlineEntry], warnings: list[str]) -> list[Block]:
    """The blocks with the outline's entries as their headings (see the module's docstring);
    the blocks unchanged, and a warning, when the outline does not describe them."""
    placed = _place(_parents_first(blocks, outline), outline)
    matched = sum(p.matched for p in placed)
    # Titles to look for: one per bookmark however often it repeats, on pages with lines of text (a
    # scanned page's words are in its picture: its bookmarks are set at its top unchecked).
    lined = {b.page for b in blocks if b.kind in ("heading", "text", "list", "table")}
    checkable = len({(key(e.title), e.page) for e in outline if e.page is None or e.page in lined})
    if matched < MATCHED_SHARE * checkable:
        warnings.append(
            f"the PDF's outline does not match its pages ({matched} of {checkable} titles found); "
            "headings as found are used"
        )
        return blocks
    depths = _depths(outline, placed)
    return list(_levelled(placed, depths, _usual_levels(placed, depths)))


def _parents_first(blocks: list[Block], outline: list[OutlineEntry]) -> list[Block]:
    """A chapter's heading read after its first sections on the chapter's first page (a title set
    apart, "INSTALLATION" under "TWO", that flash reads last) is put back before them."""
    out = list(blocks)
    at_of: dict[str, list[int]] = {}
    for at, block in enumerate(out):
        if block.kind in ("heading", "text") and len(block.text) <= MAX_TITLE_CHARS:
            at_of.setdefault(key(block.text), []).append(at)
    order = [float(at) for at in range(len(out))]  # where each block goes: a chapter's heading moves up
    for k, entry in enumerate(outline):
        if entry.page is None:
            continue
        mine = [at for at in at_of.get(key(entry.title), []) if out[at].page in (entry.page, entry.page + 1)]
        if not mine:
            continue
        here = mine[0]
        children: list[int] = []
        for child in outline[k + 1 :]:
            if child.level <= entry.level or (child.page or 0) > entry.page + 1:
                break
            children.extend(at for at in at_of.get(key(child.title), []) if out[at].page == out[here].page)
        before = [at for at in children if at < here]
        if before:
            order[here] = min(before) - 0.5
    return [block for _, block in sorted(zip(order, out, strict=True), key=lambda pair: pair[0])]


def _place(blocks: list[Block], outline: list[OutlineEntry]) -> list[_Placed]:
    """Blocks in reading order with each entry's heading among them, found or set at its page's top."""
    out: list[_Placed] = []
    cursor = 0
    placed_keys: set[tuple[str, int | None]] = set()
    for entry in outline:
        wanted = key(entry.title)
        found = _find(blocks, cursor, entry, wanted)
        if found is not None:
            at, heading, rest = found
            out.extend(_Placed(b, None) for b in blocks[cursor:at])
            out.append(_Placed(heading, entry, matched=True))
            if rest is not None:
                out.append(_Placed(rest, None))
            cursor = at + 1
        elif entry.page is not None and (wanted, entry.page) not in placed_keys:  # a repeated bookmark: once
            top = cursor
            while top < len(blocks) and (blocks[top].page or 0) < entry.page:
                top += 1
            out.extend(_Placed(b, None) for b in blocks[cursor:top])
            out.append(_Placed(Block("heading", entry.title, level=entry.level, page=entry.page), entry))
            cursor = top
        else:
            continue
        placed_keys.add((wanted, entry.page))
    out.extend(_Placed(b, None) for b in blocks[cursor:])
    return out


def _find(blocks: list[Block], start: int, entry: OutlineEntry, wanted: str) -> tuple[int, Block, Block | None] | None:
    """Where the entry's title is, from `start`, on its page or the next (an entry without a page:
    on the page reading has reached, or the next): the heading block, and the text that followed
    it in the same block. Its own page first, and there a heading before a line of text (a running
    header that repeats the chapter's title above it)."""
    first = entry.page if entry.page is not None else (blocks[start].page if start < len(blocks) else None)
    found: list[tuple[int, int, int, Block, Block | None]] = []  # (page after the first, text?, at, heading, rest)
    for at in range(start, len(blocks)):
        block = blocks[at]
        page = block.page or 0
        if first is not None and page < first:
            continue
        if first is not None and page > first + 1:
            break
        after = page - (first or page)
        if block.kind == "heading" and key(block.text) == wanted:
            found.append((after, 0, at, replace(block, text=_as_printed(block.text)), None))
        elif block.kind == "heading" and _shortened(block.text, entry, wanted):  # the outline's title is the fuller one
            found.append((after, 0, at, replace(block, text=entry.title), None))
        elif block.kind == "text" and (split := _opening(block.text, wanted)) is not None:
            heading = Block("heading", split[0], page=block.page, bbox=block.bbox)
            found.append((after, 1, at, heading, replace(block, text=split[1]) if split[1] else None))
        elif block.kind in ("heading", "text") and page == first and _similar(block.text, entry.title):
            found.append((after, 2, at, Block("heading", entry.title, page=block.page, bbox=block.bbox), None))
    if not found:
        return None
    _, _, at, best, rest = min(found, key=lambda f: f[:3])
    return at, replace(best, level=entry.level, inferred=False), rest


def _opening(text: str, wanted: str) -> tuple[str, str] | None:
    """(the title as printed, the text after it) when a text block is the title, opens with it
    on its first line, or runs into it (a title of RUN_IN_CHARS or more); None otherwise."""
    first, _, more = text.partition("\n")
    if key(first) == wanted:
        return first.strip(), more.strip()
    if len(wanted) < RUN_IN_CHARS or not key(text).startswith(wanted):
        return None
    seen = _NUMBERING.match(text)
    end = seen.end() if seen else 0
    got = ""
    while end < len(text) and got != wanted:  # walk the printed text until its letters spell the title
        got += _NOT_WORD.sub("", text[end].lower())
        end += 1
    if got != wanted:
        return None
    return text[:end].strip(), text[end:].lstrip(" .:–—-").strip()


def _shortened(heading: str, entry: OutlineEntry, wanted: str) -> bool:
    """A heading that is the start of the entry's title: cut at a line break, or its keyword
    number alone ("ITEM 6." where the outline says "Item 6. Selected Financial Data")."""
    got = key(heading)
    if not got or got == wanted or not wanted.startswith(got):
        return False
    if len(got) >= max(RUN_IN_CHARS, len(wanted) / 2):
        return True
    alone = keyword_number(heading, alone=True)
    return alone is not None and alone == keyword_number(entry.title)


def _similar(line: str, title: str) -> bool:
    """A line on the entry's page that says what the entry says in other words: most of the words
    of the shorter in the longer, and at least half the entry's ("A-1 - Condensed Consolidated
    Statement of Income" for "Condensed Consolidated Statement of Income (in millions)")."""
    if len(line) > MAX_TITLE_CHARS:
        return False
    said, wanted = _words(line), _words(title)
    common = len(said & wanted)
    if len(said) > 2 * len(wanted) + 2:  # a sentence that mentions the title
        return False
    return common >= 2 and common >= SIMILAR * min(len(said), len(wanted)) and common >= len(wanted) / 2


@functools.lru_cache(maxsize=4_096)
def _words(text: str) -> frozenset[str]:
    """Its words of three letters or more, a plural's "s" dropped."""
    return frozenset(w[:-1] if w.endswith("s") and len(w) > 3 else w for w in re.findall(r"[^\W\d_]{3,}", text.lower()))


def _as_printed(text: str) -> str:
    return " ".join(text.split())


def _depths(outline: list[OutlineEntry], placed: list[_Placed]) -> dict[int, int]:
    """Each placed entry's level among the placed ones (by id): an entry that could not be placed
    (no page, its title nowhere: a merged file's name) leaves its children one level up, not orphaned."""
    here = {id(p.entry) for p in placed if p.entry is not None}
    depths: dict[int, int] = {}
    above: list[tuple[int, bool]] = []  # the open ancestors: (level, placed)
    for entry in outline:
        while above and above[-1][0] >= entry.level:
            above.pop()
        if id(entry) in here:
            depths[id(entry)] = 1 + sum(placed for _, placed in above)
        above.append((entry.level, id(entry) in here))
    return depths


def _usual_levels(placed: list[_Placed], depths: dict[int, int]) -> dict[str, int]:
    """The level most of a keyword scheme's entries have ("Item 7." under its part): one bookmark
    filed deeper (an Item under the last note) is the outline's slip, not the document's shape."""
    levels: dict[str, Counter[int]] = {}
    for p in placed:
        if p.entry is not None and (scheme := _keyword_scheme(p.entry.title)) is not None:
            levels.setdefault(scheme, Counter())[depths[id(p.entry)]] += 1
    return {scheme: counts.most_common(1)[0][0] for scheme, counts in levels.items()}


def _levelled(placed: list[_Placed], depths: dict[int, int], usual: dict[str, int]) -> Iterable[Block]:
    """Entries at their outline level; the headings it does not list below the entry before them
    (beside the last entry of their keyword scheme: "ITEM 6." where the outline says "Item 6.
    [Reserved]"), at the top when they are back matter, or text when they read like text, precede
    the first entry, repeat the entry's title on its next page, or stand in a run of LIST_RUN
    with nothing between them (a figure's numbered labels, a list's items)."""
    listing = _runs(placed)
    last: OutlineEntry | None = None
    last_level = 0
    scheme_level: dict[str, int] = {}  # keyword scheme → level of its last entry
    for i, p in enumerate(placed):
        block = p.block
        scheme = _keyword_scheme(block.text) if block.kind == "heading" else None
        if p.entry is not None:
            depth = depths[id(p.entry)]
            last, last_level = p.entry, usual.get(scheme, depth) if scheme else depth
            if scheme:
                scheme_level[scheme] = last_level
            yield replace(block, level=last_level, inferred=False)
        elif block.kind != "heading":
            yield block
        elif last is None or i in listing or looks_like_body_text(block.text) or _repeats(block.text, last.title):
            yield as_text(block)
        elif scheme in scheme_level:
            last_level = scheme_level[scheme]
            yield replace(block, level=last_level, inferred=False)
        elif is_back_matter(block.text):
            yield replace(block, level=1, inferred=False)
        else:
            yield replace(block, level=last_level + 1, inferred=False)


def _repeats(heading: str, title: str) -> bool:
    """The heading says the entry's title again (on its next page, or without its keyword number:
    "Selected Financial Data" under "Item 6. Selected Financial Data")."""
    said = key(heading)
    return said in (key(title), key(without_keyword_number(title)))


def _runs(placed: list[_Placed]) -> set[int]:
    """Positions of unlisted headings that follow one another, LIST_RUN or more, with nothing between."""
    found: set[int] = set()
    run: list[int] = []
    for i, p in enumerate([*placed, _Placed(Block("text", ""), None)]):
        if p.entry is None and p.block.kind == "heading":
            run.append(i)
            continue
        if len(run) >= LIST_RUN:
            found.update(run)
        run = []
    return found


def _keyword_scheme(title: str) -> str | None:
    found = numbering(title)
    return found.scheme if found is not None and found.scheme in KEYWORD_SCHEMES and found.depth == 1 else None

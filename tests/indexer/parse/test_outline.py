"""A PDF's bookmark outline as its map: content lists as MinerU's flash tier gives them (every
heading level 2, lines with boxes), through the layout repair and the structure builder."""

from __future__ import annotations

import time

from indexer.models import DocumentStructure
from indexer.parse.layout import blocks_from_content_list
from indexer.parse.outline import MAX_ENTRIES, OutlineEntry, key
from indexer.structure.sections import build

BODY = "The device keeps its settings when it is switched off and restores them at the next start."


def line(page: int, y: int, text: str, level: int | None = None, kind: str = "text") -> dict:
    item = {"type": kind, "text": text, "page_idx": page, "bbox": [60, y, 600, y + 12]}
    if level:
        item["text_level"] = level
    return item


def parsed(items: list[dict], n_pages: int, outline: list[OutlineEntry] | None) -> tuple[DocumentStructure, list[str]]:
    blocks = blocks_from_content_list(items, n_pages, paged=True, heading_levels_reliable=False, outline=outline)
    return build(blocks, fallback_title="manual"), blocks.warnings


def tree(s: DocumentStructure) -> list[tuple[int, str, int | None]]:
    return [(sec.level, sec.title, sec.page_start) for sec in s.sections[1:]]


def manual() -> list[dict]:
    """A camera manual as flash reads it: a cover, a contents page, a chapter heading it found, a
    sub-heading it left as text, one whose title ran into its paragraph, one it never saw (its
    page's top line was taken for a running header), an early sub-heading it marked, numbered
    steps it took for headings, and an index whose letters it took for headings."""
    return [
        line(0, 100, "Pixel One Camera", level=1),
        line(0, 300, "User Manual"),
        line(1, 60, "Contents", level=2),
        line(1, 90, "Getting started 3"),
        line(1, 110, "Taking pictures 4"),
        line(2, 60, "Getting started", level=2),
        line(2, 90, "Model X100 lens", level=2),  # an early sub-heading the outline does not list
        line(2, 120, BODY),
        line(2, 200, "Charging the battery"),  # a heading flash left as text
        line(2, 230, BODY),
        line(3, 60, "Taking pictures", level=2),
        line(3, 90, "1 Press the shutter button halfway.", level=2),
        line(3, 120, "2 Press it fully to take the picture.", level=2),
        line(3, 200, "Night mode Hold the camera still for two seconds while the shutter stays open."),
        line(4, 100, BODY),  # "Playback" was on this page's top line, read as a running header
        line(5, 60, "Index", level=2),
        line(5, 90, "C", level=2),
        line(5, 110, "charging, 3"),
        line(5, 130, "B", level=2),
        line(5, 150, "battery, 3"),
    ]


MANUAL_OUTLINE = [
    OutlineEntry("Getting started", 1, 3),
    OutlineEntry("Charging the battery", 2, 3),
    OutlineEntry("Taking pictures", 1, 4),
    OutlineEntry("Night mode", 2, 4),
    OutlineEntry("Playback", 1, 5),
    OutlineEntry("Index", 1, 6),
]


def test_every_bookmark_is_a_section_at_its_depth_on_its_page() -> None:
    s, warnings = parsed(manual(), 6, MANUAL_OUTLINE)
    assert tree(s) == [
        (1, "Getting started", 3),
        (2, "Model X100 lens", 3),  # not listed: below the entry before it, never holding the manual
        (2, "Charging the battery", 3),
        (1, "Taking pictures", 4),
        (2, "Night mode", 4),
        (1, "Playback", 5),  # found on no line of its page: set at the page's top
        (1, "Index", 6),
    ], warnings
    texts = [p.text for p in s.paragraphs]
    assert "Hold the camera still for two seconds while the shutter stays open." in texts, "the title ran in"
    steps = "1 Press the shutter button halfway.\n2 Press it fully to take the picture."
    assert (steps, "list") in [(p.text, p.kind) for p in s.paragraphs], "numbered steps are one list, not sections"
    lines = [text_line for text in texts for text_line in text.splitlines()]
    assert "C" in lines and "B" in lines, "an index's letters are text"
    assert "Contents" in lines, "the contents page before the first entry is the cover's text"
    assert not warnings


def test_without_the_outline_steps_and_an_index_s_letters_are_still_no_sections() -> None:
    s, _ = parsed(manual(), 6, None)
    titles = [title for _, title, _ in tree(s)]
    assert "1 Press the shutter button halfway." not in titles and "C" not in titles and "B" not in titles, titles
    assert "Taking pictures" in titles and "Getting started" in titles


def test_back_matter_the_outline_does_not_list_stands_at_the_top() -> None:
    items = [
        line(0, 60, "1 Introduction", level=2),
        line(0, 90, BODY),
        line(1, 60, "2 Conclusion", level=2),
        line(1, 90, BODY),
        line(1, 300, "Limitations", level=2),
        line(1, 330, BODY),
        line(2, 60, "References", level=2),
        line(2, 90, "[1] A. Author. A paper. 2020."),
        line(3, 60, "A.1 Proofs", level=2),
        line(3, 90, BODY),
    ]
    outline = [OutlineEntry("Introduction", 1, 1), OutlineEntry("Conclusion", 1, 2), OutlineEntry("Proofs", 1, 4)]
    s, _ = parsed(items, 4, outline)
    assert tree(s) == [
        (1, "1 Introduction", 1),
        (1, "2 Conclusion", 2),
        (2, "Limitations", 2),
        (1, "References", 3),  # closes the conclusion
        (1, "A.1 Proofs", 4),
    ]


def test_an_outline_that_does_not_describe_its_pages_is_set_aside_with_a_warning() -> None:
    """Another document's bookmarks (a template's): most titles are on no page, so the headings
    as found make the map, and the document says why."""
    items = manual()
    foreign = [OutlineEntry(f"Chapter {n} of something else", 1, n) for n in range(1, 7)]
    s, warnings = parsed(items, 6, foreign)
    assert tree(s) == tree(parsed(items, 6, None)[0])
    assert warnings == ["the PDF's outline does not match its pages (0 of 6 titles found); headings as found are used"]


def test_a_bad_outline_never_fails_or_slows_a_document() -> None:
    items = manual()
    plain = tree(parsed(items, 6, None)[0])
    past_the_end = [*MANUAL_OUTLINE[:4], OutlineEntry("Playback", 1, 999), OutlineEntry("Index", 1, None)]
    s, _ = parsed(items, 6, past_the_end)
    assert ("Playback" in [t for _, t, _ in tree(s)]) is False, "a page past the end places nothing at a guess"
    assert (1, "Index", 6) in tree(s), "an entry without a page is found by its title"

    repeated = [entry for entry in MANUAL_OUTLINE for _ in range(3)]
    s, _ = parsed(items, 6, repeated)
    assert [t for _, t, _ in tree(s)].count("Playback") == 1, "a repeated bookmark is set once"

    flood = [OutlineEntry(f"Entry {n}", 1 + n % 3, 1 + n % 6) for n in range(10_000)]
    started = time.perf_counter()
    s, warnings = parsed(items, 6, flood)
    assert time.perf_counter() - started < 5, "ten thousand entries are refused, not matched one by one"
    assert tree(s) == plain
    too_many = f"the PDF's outline has 10,000 entries, too many for a table of contents (over {MAX_ENTRIES:,})"
    assert warnings == [f"{too_many}; headings as found are used"]


def test_titles_compare_without_numbering_case_or_spacing() -> None:
    assert key("CRITICALACCOUNTING POLICIES") == key("Critical Accounting Policies")
    assert key("A.1 Person Selection") == key("Person Selection") == key("(b) Person selection")
    assert key("Item 7A. Market Risk") != key("Item 7. Market Risk"), "a keyword's number is part of the title"


def test_a_scanned_document_s_bookmarks_are_its_sections() -> None:
    """Pages without lines of text (a scan, its words read from pictures) cannot show a title:
    their bookmarks are set at the pages' tops, unchecked, rather than the outline set aside."""
    items = [{"type": "image", "text": f"Page {n} {BODY}", "page_idx": n, "bbox": [0, 0, 1000, 990]} for n in range(3)]
    outline = [OutlineEntry("front cover", 1, 1), OutlineEntry("using your refrigerator", 1, 2)]
    s, warnings = parsed(items, 3, [*outline, OutlineEntry("setting the controls", 2, 3)])
    assert tree(s) == [(1, "front cover", 1), (1, "using your refrigerator", 2), (2, "setting the controls", 3)]
    assert not warnings


def test_an_entry_named_in_other_words_on_its_page_is_that_heading() -> None:
    """An earnings release's bookmarks label its exhibits ("A-1 - Condensed Consolidated Statement
    of Income") where the page prints the statement's own title: the page's heading is the entry."""
    items = [
        line(0, 60, "Results for the quarter", level=2),
        line(0, 90, BODY),
        line(1, 60, "Condensed Consolidated Statement of Income (in millions, unaudited)", level=2),
        line(1, 90, BODY),
    ]
    outline = [
        OutlineEntry("Results for the quarter", 1, 1),
        OutlineEntry("A-1 - Condensed Consolidated Statement of Income", 1, 2),
    ]
    s, _ = parsed(items, 2, outline)
    assert tree(s) == [(1, "Results for the quarter", 1), (1, "A-1 - Condensed Consolidated Statement of Income", 2)]
    assert [p.text for p in s.paragraphs] == [BODY, BODY], "no heading left over, no text lost"


def test_a_chapter_heading_read_after_its_first_section_is_put_back_before_it() -> None:
    """A chapter's title set apart on its first page ("TWO" over "INSTALLATION", flush right) that
    flash reads after the page's first section: the outline says which holds which."""
    items = [
        line(0, 60, "Prerequisites", level=2),
        line(0, 90, BODY),
        line(1, 300, "2.1 Prepare environment", level=2),
        line(1, 330, BODY),
        line(1, 140, "TWO", level=2),
        line(1, 210, "INSTALLATION"),
        line(1, 600, "2.2 Install the package", level=2),
        line(1, 630, BODY),
    ]
    outline = [
        OutlineEntry("Prerequisites", 1, 1),
        OutlineEntry("Installation", 1, 2),
        OutlineEntry("Prepare environment", 2, 2),
        OutlineEntry("Install the package", 2, 2),
    ]
    s, _ = parsed(items, 2, outline)
    assert tree(s) == [
        (1, "Prerequisites", 1),
        (1, "INSTALLATION", 2),
        (2, "2.1 Prepare environment", 2),
        (2, "2.2 Install the package", 2),
    ]

"""Headings as a reader sees them when a PDF has no outline: content lists as MinerU's flash
tier gives them, through the layout repair and the structure builder."""

from __future__ import annotations

from indexer.models import DocumentStructure
from indexer.parse.layout import blocks_from_content_list
from indexer.structure.sections import build

BODY = "Fill the tank with fresh water and place it back until it clicks into its holder."


def line(
    page: int, y: int, text: str, level: int | None = None, x: tuple[int, int] = (100, 600), **more: object
) -> dict:
    item = {"type": "text", "text": text, "page_idx": page, "bbox": [x[0], y, x[1], y + 14], **more}
    if level:
        item["text_level"] = level
    return item


def tree(items: list[dict], n_pages: int) -> list[tuple[int, str]]:
    """The sections under the document's title (a first line set as a heading, which is the title)."""
    items = [line(0, 20, "Owner's Guide", level=1), *items]
    parsed = blocks_from_content_list(items, n_pages, paged=True, heading_levels_reliable=False)
    return [(s.level, s.title) for s in build(parsed, fallback_title="guide").sections[1:]]


def test_a_heading_and_its_first_sub_heading_on_one_line_are_two() -> None:
    items = [
        line(0, 100, "3.2 Power supply", level=2),
        line(0, 130, BODY),
        line(0, 300, "**3.3 Milk or milk foam (optional) 3.3.1 Connect up the milk**"),
        line(0, 330, BODY),
        line(1, 100, "3.3.2 Milk foam dispensing", level=2),
        line(1, 130, BODY),
    ]
    assert tree(items, 2) == [
        (1, "3.2 Power supply"),
        (1, "3.3 Milk or milk foam (optional)"),
        (2, "3.3.1 Connect up the milk"),
        (2, "3.3.2 Milk foam dispensing"),
    ]


def test_a_chapter_s_list_of_its_sections_run_together_is_no_heading() -> None:
    items = [
        line(0, 100, "2 Workout monitoring", level=2),
        line(0, 200, "2.1 Starting a workout 2.2 Using Smart companion 2.3 Syncing your data", level=2),
        line(0, 300, "2.1 Starting a workout", level=2),
        line(0, 330, BODY),
    ]
    assert tree(items, 1) == [(1, "2 Workout monitoring"), (2, "2.1 Starting a workout")]


def test_a_keyword_number_alone_takes_its_title_from_the_line_below() -> None:
    items = [
        line(0, 100, "PART I", level=2),
        line(0, 130, "ITEM 1.", level=2),
        line(0, 150, "Business"),
        line(0, 180, "We are a global security and aerospace company. " + BODY),
        line(1, 100, "ITEM 1A.", level=2),
        line(1, 130, "Risk Factors"),
        line(1, 160, BODY),
    ]
    assert tree(items, 2) == [(1, "PART I"), (2, "ITEM 1. Business"), (2, "ITEM 1A. Risk Factors")]


def test_a_chapter_title_that_is_also_its_running_header_stays_a_heading_on_its_first_page() -> None:
    """Each page of a chapter carries its title at the top; on the chapter's first page the title
    is also set large within the page, and there it is the chapter's heading."""
    items = []
    for page in range(6):
        chapter = "1 Getting Started" if page < 3 else "2 Daily Use"
        items.append({**line(page, 30, chapter, x=(700, 900)), "type": "header"})
        if page in (0, 3):
            items.append(line(page, 150, chapter, level=2))
        items.append(line(page, 300, BODY))
    assert tree(items, 6) == [(1, "1 Getting Started"), (1, "2 Daily Use")]


def test_a_chapter_title_set_large_and_flush_right_is_no_column_title() -> None:
    """Sphinx sets "CHAPTER / ONE / PREREQUISITES" flush right over the text: not a table's column head."""
    items = [
        line(0, 100, "Getting started with the tool", level=1, font_size=20.0),
        line(0, 200, BODY, font_size=10.0),
        line(1, 116, "CHAPTER", x=(803, 883), font_size=10.0),
        line(1, 142, "ONE", level=2, x=(831, 883), font_size=14.5),
        line(1, 211, "PREREQUISITES", level=2, x=(692, 883), font_size=14.5),
        line(1, 290, BODY * 3, x=(116, 884), font_size=10.0),
    ]
    titles = [title for _, title in tree(items, 2)]
    assert "PREREQUISITES" in titles and "ONE" not in titles, titles


def test_a_chapter_s_title_without_its_number_stands_above_its_numbered_sections() -> None:
    """Sphinx's PDFs: "CHAPTER" / "TWO" / "INSTALLATION" set flush right above "2.1 …", read after
    the page's first section; a later chapter's title after "2.6 …" is no sub-section of it."""
    wide, big, body = (116, 884), {"font_size": 14.5}, {"font_size": 10.0}
    items = [
        line(1, 116, "CHAPTER", level=2, x=(803, 883), **big),
        line(1, 291, "2.1 Prepare environment", level=2, x=(117, 397), **big),
        line(1, 333, BODY, x=(138, 487), **body),
        line(1, 142, "TWO", level=2, x=(826, 883), **big),
        line(1, 211, "INSTALLATION", level=2, x=(714, 883), **big),
        line(1, 404, BODY * 2, x=wide, **body),
        line(1, 701, "2.2 Install the package", level=2, x=(117, 382), **big),
        line(1, 742, BODY * 2, x=wide, **body),
        line(2, 211, "VERIFICATION", level=2, x=(700, 883), **big),
        line(2, 300, BODY * 2, x=wide, **body),
        line(3, 211, "MODEL ZOO", level=2, x=(700, 883), **big),
        line(3, 291, "4.1 Mirror sites", level=2, x=(117, 397), **big),
        line(3, 330, BODY * 2, x=wide, **body),
    ]
    assert tree(items, 4) == [
        (1, "INSTALLATION"),
        (2, "2.1 Prepare environment"),
        (2, "2.2 Install the package"),
        (1, "VERIFICATION"),
        (1, "MODEL ZOO"),
        (2, "4.1 Mirror sites"),
    ]


def test_a_two_column_page_s_right_column_title_keeps_its_place() -> None:
    left, right = (60, 480), (520, 940)
    items = [
        line(0, 100, "1 Method", level=2, x=left),
        line(0, 130, BODY, x=left),
        line(0, 400, "1.1 Data", level=2, x=left),
        line(0, 430, BODY, x=left),
        line(0, 110, "1.2 Training", level=2, x=right),  # higher on the page, read after the left column
        line(0, 140, BODY, x=right),
    ]
    assert tree(items, 1) == [(1, "1 Method"), (2, "1.1 Data"), (2, "1.2 Training")]


def test_a_heading_that_is_the_first_line_of_its_paragraph_is_text() -> None:
    """flash takes a note's first line for a heading ("Note 2 to paragraph (i): The MEL" over
    "provisions specified …"); it is the paragraph's, and nothing after it nests under it."""
    items = [
        line(0, 100, "(i) Minimum Equipment List Provisions", level=2),
        line(0, 130, BODY),
        line(0, 200, "Note 2 to paragraph (i): The MEL", level=2, x=(120, 400)),
        {
            **line(0, 215, "provisions specified in figure 10 correspond to the master list items. " + BODY),
            "bbox": [100, 215, 600, 260],
        },
        line(0, 300, "Examining the Docket", level=2),
        line(0, 330, BODY),
    ]
    parsed = blocks_from_content_list(items, 1, paged=True, heading_levels_reliable=False)
    texts = [b.text for b in parsed.blocks if b.kind == "text"]
    assert any(t.startswith("Note 2 to paragraph (i): The MEL provisions specified in figure 10") for t in texts)
    assert all(b.text != "Note 2 to paragraph (i): The MEL" for b in parsed.blocks if b.kind == "heading")


def test_a_second_notice_in_the_same_file_is_not_nested_in_the_first() -> None:
    """The opening headings met again (a Federal Register page's second notice) start over at the top,
    however deep the first notice's numbered parts went."""
    items = [
        line(0, 100, "RIN 2120-AA64", level=2),
        line(0, 130, BODY),
        line(0, 200, "Examining the AD Docket", level=2),
        line(0, 230, BODY),
        line(1, 100, "PART 39 - AIRWORTHINESS DIRECTIVES", level=2),
        line(1, 130, BODY),
        line(1, 200, "Note 2 to paragraph (i)", level=2),
        line(1, 230, BODY),
        line(2, 100, "RIN 2120-AA64", level=2),
        line(2, 130, BODY),
        line(2, 200, "Airworthiness Directives; Pilatus Aircraft Ltd. Airplanes", level=2),
        line(2, 230, BODY),
        line(2, 300, "Examining the AD Docket", level=2),
        line(2, 330, BODY),
    ]
    assert tree(items, 3) == [
        (1, "RIN 2120-AA64"),
        (1, "Examining the AD Docket"),
        (1, "PART 39 - AIRWORTHINESS DIRECTIVES"),
        (2, "Note 2 to paragraph (i)"),
        (1, "RIN 2120-AA64"),
        (1, "Airworthiness Directives; Pilatus Aircraft Ltd. Airplanes"),
        (1, "Examining the AD Docket"),
    ]


def test_the_federal_register_s_note_is_text_and_its_second_notice_at_the_top(
    federal_register: DocumentStructure,
) -> None:
    """pdfplumber's federal-register-2020-17221.pdf: "Note 2 to paragraph (i): The MEL" was a heading
    over its paragraph, and the second notice (from "RIN 2120–AA64" again) was nested under it."""
    texts = [p.text for p in federal_register.paragraphs]
    assert any(t.startswith("Note 2 to paragraph (i): The MEL provisions specified in figure 10") for t in texts)
    assert "Note 2 to paragraph (i): The MEL" not in [s.title for s in federal_register.sections]
    second = [s for s in federal_register.sections if s.title == "RIN 2120–AA64"][1]
    assert second.level == 1
    pilatus = next(s for s in federal_register.sections if s.title.endswith("Pilatus Aircraft Ltd. Airplanes"))
    assert pilatus.level == 1

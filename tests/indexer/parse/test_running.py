"""Page-edge items flash misplaces: a `page_footnote` with its column's text below it is text, in its place."""

from __future__ import annotations

from indexer.models import DocumentStructure
from indexer.parse.layout import blocks_from_content_list

BODY = "The FAA invites you to send any written relevant data, views, or arguments about this proposed rule."


def item(kind: str, y: int, text: str, x: tuple[int, int] = (74, 340), **more: object) -> dict:
    return {"type": kind, "text": text, "page_idx": 0, "bbox": [x[0], y, x[1], y + 30], **more}


def test_a_footnote_with_text_below_it_in_its_column_is_read_in_its_place() -> None:
    items = [
        item("text", 100, "Issued on August 3, 2020. " + BODY),
        item("text", 150, "14 CFR Part 39", text_level=2),
        item("text", 200, "AGENCY: Federal Aviation Administration (FAA), Department of Transportation. " + BODY),
        item("text", 100, BODY, x=(363, 637)),
        item("text", 300, BODY, x=(363, 637)),
        item("page_footnote", 120, "DEPARTMENT OF TRANSPORTATION Federal Aviation Administration", x=(74, 341)),
        item("page_footnote", 900, "1 A real footnote at the foot of the column, nothing below it.", x=(363, 637)),
    ]
    parsed = blocks_from_content_list(items, 1, paged=True, heading_levels_reliable=False)
    texts = [b.text for b in parsed.blocks]
    assert texts.index("DEPARTMENT OF TRANSPORTATION Federal Aviation Administration") < texts.index("14 CFR Part 39")
    assert texts[-1] == "1 A real footnote at the foot of the column, nothing below it."


def test_the_federal_register_s_agency_lines_are_read_where_they_stand(federal_register: DocumentStructure) -> None:
    """pdfplumber's federal-register-2020-17221.pdf: the second notice's "DEPARTMENT OF TRANSPORTATION
    Federal Aviation Administration", set small above it, was read as a footnote at the end of its page."""
    texts = [p.text for p in federal_register.paragraphs]
    agency = [k for k, t in enumerate(texts) if t == "DEPARTMENT OF TRANSPORTATION Federal Aviation Administration"]
    examine = [k for k, t in enumerate(texts) if t.startswith("You may examine the AD docket on the internet")]
    assert len(agency) == 2 and agency[1] < examine[1]

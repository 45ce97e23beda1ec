"""The exact text each tool returns to the model (and the CLI prints), from answers built by hand."""

from __future__ import annotations

from indexer.models import (
    DocumentInfo,
    FailedDocument,
    ParagraphText,
    RetrievedParagraph,
    RetrieveResult,
    SectionInfo,
    SectionText,
    Toc,
)
from indexer.parse.formats import SUPPORTED_EXTENSIONS
from server.render import render_retrieve, render_section, render_toc

REPORT = "Northwind Traders Annual Report 2024"


def report_info() -> DocumentInfo:
    """A PDF with pages; two branches folded (`hidden`), one section on a single page, one without an end page."""
    return DocumentInfo(
        doc_id=3,
        path="reports/annual-2024.pdf",
        title=REPORT,
        status="ready",
        version=2,
        n_pages=48,
        n_sections=9,
        n_paras=212,
        n_tokens=30512,
        sections=[
            SectionInfo(
                sec_id=0,
                title=REPORT,
                level=0,
                parent=None,
                children=[1, 4],
                n_paras=3,
                n_tokens=120,
                page_start=1,
                page_end=2,
            ),
            SectionInfo(
                sec_id=1,
                title="1 Results",
                level=1,
                parent=0,
                children=[2],
                n_paras=2,
                n_tokens=310,
                page_start=3,
                page_end=20,
                hidden=1,
            ),
            SectionInfo(
                sec_id=2,
                title="1.1 Revenue by region",
                level=2,
                parent=1,
                children=[],
                n_paras=40,
                n_tokens=2950,
                page_start=4,
                page_end=4,
                hidden=3,
            ),
            SectionInfo(
                sec_id=4, title="2 Outlook", level=1, parent=0, children=[], n_paras=10, n_tokens=800, page_start=21
            ),
        ],
    )


def notes_info() -> DocumentInfo:
    """A Markdown file: no pages, one section."""
    return DocumentInfo(
        doc_id=5,
        path="notes/otters.md",
        title="Otters",
        status="ready",
        version=1,
        n_sections=1,
        n_paras=2,
        n_tokens=40,
        sections=[SectionInfo(sec_id=0, title="Otters", level=0, parent=None, children=[], n_paras=2, n_tokens=40)],
    )


# --- get_toc -------------------------------------------------------------------------

TOC = """\
(3) reports/annual-2024.pdf — Northwind Traders Annual Report 2024 | 48 pages | 9 sections, 212 paragraphs, 30,512 tokens | v2
  [0] (opening text) | 120 tokens | p.1–2
    [1] 1 Results | 310 tokens | p.3–20 | +1 section: get_toc(doc_id=3, sec_id=1)
      [2] 1.1 Revenue by region | 2950 tokens | p.4 | +3 sections: get_toc(doc_id=3, sec_id=2)
    [4] 2 Outlook | 800 tokens | p.21
(5) notes/otters.md — Otters | 1 section, 2 paragraphs, 40 tokens | v1 | read_section(doc_id=5, sec_id=0) reads it
Still indexing (2): inbox/scan-001.pdf, inbox/scan-002.pdf
Failed: (7) broken.pdf — not a readable PDF (Failed to load document (PDFium: Data format error).)
Note: Sections marked +N hide that many sub-sections: get_toc(doc_id, sec_id) opens one."""


def test_toc_documents_sections_pending_failed_and_note() -> None:
    toc = Toc(
        documents=[report_info(), notes_info()],
        pending=["inbox/scan-001.pdf", "inbox/scan-002.pdf"],
        failed=[
            FailedDocument(
                doc_id=7,
                path="broken.pdf",
                reason="not a readable PDF (Failed to load document (PDFium: Data format error).)",
            )
        ],
        truncated=True,
        hint="Sections marked +N hide that many sub-sections: get_toc(doc_id, sec_id) opens one.",
    )
    assert render_toc(toc) == TOC


def test_the_map_of_a_folder_names_sections_without_sizes_and_counts_the_rest() -> None:
    """The first call: a document's line (pages, or tokens without them), its sections as
    `[sec_id] title +N` indented by depth, the root's count of top-level sections not listed."""
    report, notes = report_info(), notes_info()
    report.sections[0].hidden = 2  # two top-level sections (and what is under them) not listed
    report.semantic = False
    notes.warnings = ["1 page without a text layer not read: OCR unavailable"]
    toc = Toc(documents=[report, notes], brief=True, hint="get_toc(doc_id=D) shows a document's sections.")
    assert render_toc(toc) == (
        f"(3) reports/annual-2024.pdf — {REPORT} | 48 pages | vectors pending\n"
        "  [1] 1 Results +1\n"
        "    [2] 1.1 Revenue by region +3\n"
        "  [4] 2 Outlook\n"
        "  +2 more sections\n"
        "(5) notes/otters.md — Otters | 40 tokens | read_section(doc_id=5, sec_id=0) reads it\n"
        "  Warnings: 1 page without a text layer not read: OCR unavailable\n"
        "Note: get_toc(doc_id=D) shows a document's sections."
    )
    report.sections = report.sections[:1]  # folded to its line
    report.sections[0].hidden = 8
    assert render_toc(Toc(documents=[report], brief=True)) == (
        f"(3) reports/annual-2024.pdf — {REPORT} | 48 pages | vectors pending | +8 sections"
    )
    report.n_warnings = 2
    assert render_toc(Toc(documents=[report], compact=True)).endswith(" | 2 warning(s) | +8 sections")
    notes.title, notes.warnings = "otters (file name)", []  # only the file's name: the path says it already
    assert render_toc(Toc(documents=[notes], brief=True)).startswith("(5) notes/otters.md | 40 tokens | ")


def test_toc_root_keeps_a_title_of_its_own() -> None:
    """Only a root that repeats the document's title is shown as the text before the first heading."""
    doc = notes_info()
    doc.sections[0].title = "Field notes, spring"
    doc.sections.append(SectionInfo(sec_id=1, title="Rivers", level=1, parent=0, children=[], n_paras=1, n_tokens=9))
    assert render_toc(Toc(documents=[doc])).splitlines()[1] == "  [0] Field notes, spring | 40 tokens"
    doc.sections.pop()
    doc.sections[0].sec_id = 6  # a sub-tree answer whose first section has the document's title
    doc.sections[0].title = "Otters"
    assert render_toc(Toc(documents=[doc])).splitlines()[1] == "  [6] Otters | 40 tokens"


def test_toc_of_an_empty_folder_says_what_would_be_indexed() -> None:
    expected = f"No documents in the folder yet (supported: {', '.join(sorted(SUPPORTED_EXTENSIONS))})."
    assert render_toc(Toc(documents=[])) == expected
    assert ".pdf" in expected and ".md" in expected


def test_toc_with_only_pending_or_failed_files() -> None:
    assert render_toc(Toc(documents=[], pending=["big.pdf"])) == "Still indexing (1): big.pdf"
    failed = Toc(documents=[], failed=[FailedDocument(doc_id=1, path="bad.md", reason="binary content in a text file")])
    assert render_toc(failed) == "Failed: (1) bad.md — binary content in a text file"


def test_toc_cut_to_its_budget_shows_only_the_note() -> None:
    toc = Toc(documents=[], truncated=True, hint="Listed 0 of 4 documents to stay within the token budget.")
    assert render_toc(toc) == "Note: Listed 0 of 4 documents to stay within the token budget."


# --- retrieve ------------------------------------------------------------------------

PATH = [REPORT, "Part I", "1 Results", "1.1 Revenue by region"]

RETRIEVE = """\
2 hit(s) for "revenue by region 2024" — (doc_id, sec_id, para_idx):

  neighbour (3, 2, 4) v2 | p.4 | … > Part I > 1 Results > 1.1 Revenue by region
Revenue by region is shown in the table below.

#1 score=0.03279 (3, 2, 5) v2 | p.4–5 table | same section
Region | 2023 | 2024
Region 01 | 101 | 121
Region 02 | 102 | 122

#2 score=0.01613 (5, 0, 1) v1 | Otters
Otters hold hands while they sleep […cut: 1,204 tokens in all; read_section(doc_id=5, sec_id=0, start_para=1, end_para=1) shows more]

Note: 1 long paragraph(s) cut to share the token budget; each says how to read it."""


def test_retrieve_hits_neighbours_a_clipped_paragraph_and_a_note() -> None:
    result = RetrieveResult(
        query="revenue by region 2024",
        results=[
            RetrievedParagraph(
                doc_id=3,
                sec_id=2,
                para_idx=4,
                text="Revenue by region is shown in the table below.",
                kind="text",
                page=4,
                section_path=PATH,
                is_hit=False,
                doc_version=2,
            ),
            RetrievedParagraph(
                doc_id=3,
                sec_id=2,
                para_idx=5,
                text="Region | 2023 | 2024\nRegion 01 | 101 | 121\nRegion 02 | 102 | 122",
                kind="table",
                page=4,
                page_end=5,
                bbox=[80, 120, 920, 980],
                section_path=PATH,
                score=0.03279,
                rank=1,
                is_hit=True,
                doc_version=2,
            ),
            RetrievedParagraph(
                doc_id=5,
                sec_id=0,
                para_idx=1,
                text="Otters hold hands while they sleep […cut: 1,204 tokens in all; "
                "read_section(doc_id=5, sec_id=0, start_para=1, end_para=1) shows more]",
                kind="text",
                section_path=["Otters"],
                score=0.01613,
                rank=2,
                is_hit=True,
                doc_version=1,
                clipped=True,
            ),
        ],
        hint="1 long paragraph(s) cut to share the token budget; each says how to read it.",
    )
    assert render_retrieve(result) == RETRIEVE


def test_retrieve_with_nothing_found() -> None:
    result = RetrieveResult(
        query="zebra",
        results=[],
        hint="No paragraph matched. Rephrase with words the document would use, or browse get_toc.",
    )
    assert render_retrieve(result) == (
        'No hits for "zebra".\n'
        "\n"
        "Note: No paragraph matched. Rephrase with words the document would use, or browse get_toc."
    )


def test_retrieve_shows_the_nearest_three_headings_each_shortened() -> None:
    long_title = (
        "Management's discussion and analysis of financial condition and results of operations "
        "for the year ended December 31, 2024, compared with the year ended December 31, 2023"
    )
    hit = RetrievedParagraph(
        doc_id=1,
        sec_id=9,
        para_idx=0,
        text="Net sales rose.",
        kind="text",
        section_path=["Form 10-K", "Part II", "Item 7", long_title],
        score=0.5,
        rank=1,
        is_hit=True,
        doc_version=1,
    )
    assert render_retrieve(RetrieveResult(query="net sales", results=[hit])) == (
        '1 hit(s) for "net sales" — (doc_id, sec_id, para_idx):\n'
        "\n"
        "#1 score=0.5 (1, 9, 0) v1 | … > Part II > Item 7 > Management's discussion and analysis of financial "
        "condition and results of operations for the year…\n"
        "Net sales rose."
    )


def test_a_path_names_its_document_once_and_never_by_a_title_cut_short() -> None:
    """The first hit from a document, in a search over several, names it in place of the path's
    root; the others stand "…" for the root even when the path is short, since a title cut short
    ("… fiscal year ended December 31…") may read like a sibling filing's."""
    title = "Initech Holdings — Form 10-K, fiscal year ended December 31, 2031"
    first = RetrievedParagraph(
        doc_id=4,
        sec_id=3,
        para_idx=0,
        text="Revenue rose.",
        kind="text",
        section_path=[title, "Part II", "Item 6"],
        document=title,
        score=0.5,
        rank=1,
        is_hit=True,
        doc_version=1,
    )
    later = first.model_copy(update={"sec_id": 5, "document": None, "rank": 2, "section_path": [title, "Item 7"]})
    opening = first.model_copy(update={"sec_id": 0, "document": None, "rank": 3, "section_path": ["Otters"]})
    shown = render_retrieve(RetrieveResult(query="revenue", results=[first, later, opening]))
    assert f"v1 | {title} > Part II > Item 6\n" in shown
    assert "v1 | … > Item 7\n" in shown
    assert "v1 | Otters\n" in shown, "a paragraph before the first heading: the root is all there is"


# --- read_section --------------------------------------------------------------------

SECTION = """\
(3) [2] 1.1 Revenue by region | level 2 | paragraphs 0–2 of 0–39 | v2

[0] p.4
Revenue grew in every region.

[1] p.4–5 table
Region | 2023 | 2024
Region 01 | 101 | 121

[2] p.5 figure
Figure 1: Revenue by quarter.

Note: Section continues: paragraphs 3–39 remain (start_para=3)."""


def test_section_read_in_part_says_where_to_continue() -> None:
    section = SectionText(
        doc_id=3,
        sec_id=2,
        version=2,
        title="1.1 Revenue by region",
        level=2,
        n_paras=40,
        start_para=0,
        end_para=2,
        paragraphs=[
            ParagraphText(para_idx=0, text="Revenue grew in every region.", kind="text", page=4),
            ParagraphText(
                para_idx=1, text="Region | 2023 | 2024\nRegion 01 | 101 | 121", kind="table", page=4, page_end=5
            ),
            ParagraphText(para_idx=2, text="Figure 1: Revenue by quarter.", kind="figure", page=5, page_end=5),
        ],
        next_start_para=3,
        hint="Section continues: paragraphs 3–39 remain (start_para=3).",
    )
    assert render_section(section) == SECTION


def test_section_read_to_its_end_says_so() -> None:
    section = SectionText(
        doc_id=5,
        sec_id=0,
        version=1,
        title="Otters",
        level=0,
        n_paras=2,
        start_para=1,
        end_para=1,
        paragraphs=[ParagraphText(para_idx=1, text="- they sleep afloat\n- they hold hands", kind="list")],
        next_start_para=None,
    )
    assert render_section(section) == (
        "(5) [0] Otters | level 0 | paragraphs 1–1 of 0–1 | v1\n"
        "\n"
        "[1] list\n"
        "- they sleep afloat\n"
        "- they hold hands\n"
        "\n"
        "(end of section)"
    )


def test_section_without_text_points_to_its_sub_sections() -> None:
    section = SectionText(
        doc_id=3,
        sec_id=1,
        version=2,
        title="1 Results",
        level=1,
        n_paras=0,
        start_para=0,
        end_para=-1,
        paragraphs=[],
        next_start_para=None,
        hint="Section 1 has no text of its own; its sub-sections are [2, 3]: read_section(doc_id=3, sec_id=N) for each.",
    )
    assert render_section(section) == (
        "(3) [1] 1 Results | level 1 | no paragraphs | v2\n"
        "\n"
        "Note: Section 1 has no text of its own; its sub-sections are [2, 3]: read_section(doc_id=3, sec_id=N) for each."
    )


def test_an_empty_root_is_not_listed_and_a_read_to_the_end_says_so_beside_a_note() -> None:
    doc = notes_info()
    doc.sections[0].n_tokens = 0
    lines = render_toc(Toc(documents=[doc])).splitlines()
    assert len(lines) == 1 and lines[0].startswith("(5) notes/otters.md — Otters"), "its line would say nothing"
    doc.sections[0].hidden = 4
    lines = render_toc(Toc(documents=[doc])).splitlines()
    assert len(lines) == 1 and lines[0].endswith(" | get_toc(doc_id=5) opens it"), "its line says what opens the rest"
    section = SectionText(
        doc_id=5,
        sec_id=0,
        version=2,
        title="Otters",
        level=0,
        n_paras=1,
        start_para=0,
        end_para=0,
        paragraphs=[ParagraphText(para_idx=0, text="Otters hold hands.", kind="text")],
        next_start_para=None,
        hint="Document 5 changed since version 1 (now version 2); coordinates from earlier answers may have shifted.",
    )
    assert render_section(section).endswith(
        "\n\n(end of section)\n\nNote: Document 5 changed since version 1 "
        "(now version 2); coordinates from earlier answers may have shifted."
    )

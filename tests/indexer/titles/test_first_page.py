"""Document titles: a filing's cover page names it, any other PDF the title set on its first
page; metadata placeholders and boilerplate lines do not."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from indexer.library import Library
from indexer.models import Block
from indexer.titles.decide import stated_title, with_code, without_particulars
from indexer.titles.filings import cover_title, is_filing, stated_detail
from indexer.titles.first_page import _title_field, first_page_title, with_trade_number
from indexer.titles.lines import is_banner, is_boilerplate, names_institution
from indexer.titles.stated import citation_title, cover_text, metadata_agrees, metadata_title_ok, without_identifier
from indexer.titles.words import mend

COVER = """UNITED STATES
SECURITIES AND EXCHANGE COMMISSION
Washington, D.C. 20549
_____________________
FORM 10-Q
QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the quarterly period ended June 30, 2031
Commission File Number: 1-0000
NORTHWIND TRADERS, INC.
(Exact name of registrant as specified in its charter)
Delaware"""


def test_a_filing_is_named_by_its_cover_page() -> None:
    blocks = [Block("table", COVER, page=1), Block("text", "Portions of the Proxy Statement …", page=1)]
    assert cover_title(blocks) == "NORTHWIND TRADERS, INC. — Form 10-Q, quarter ended June 30, 2031"


def test_the_registrant_on_the_same_line_and_a_current_report_date() -> None:
    text = (
        "FORM 8-K\nCURRENT REPORT\nDate of Report (Date of earliest event reported): May 19, 2031\n"
        "Contoso Foods Corp. (Exact name of registrant as specified in its charter)"
    )
    assert cover_title([Block("text", text, page=1)]) == "Contoso Foods Corp. — Form 8-K, May 19, 2031"


def test_a_small_business_cover_saved_as_a_web_page_whose_form_banner_is_lost() -> None:
    """No "FORM 10-K" line of its own (an HTML filing's banner is a picture): the report says what it
    is ("ANNUAL REPORT ON FORM 10-K FOR …"), and a small business's cover names its "issuer"."""
    lines = [
        "Commission file number: 000-00000",
        "Northwind Gaming, Inc.",
        "(Exact name of small business issuer as specified in its charter)",
        "Indicate by check mark if the registrant is a well-known seasoned issuer. Yes ☐ No ☑",
        "NORTHWIND GAMING, INC.",
        "ANNUAL REPORT ON FORM 10-K FOR THE YEAR ENDED DECEMBER 31, 2031",
        "TABLE OF CONTENTS",
    ]
    blocks = [Block("text", line) for line in lines]  # a web page: blocks without pages
    assert cover_title(blocks) == "Northwind Gaming, Inc. — Form 10-K, year ended December 31, 2031"
    cited = "The risks are described in our Annual Report on Form 10-K for the year ended December 31, 2031."
    assert cover_title([Block("text", cited, page=1)]) is None  # a release citing the report is no filing


def test_no_cover_page_no_title() -> None:
    assert cover_title([Block("text", "Form 10-K filings are discussed on page 40.", page=1)]) is None
    assert cover_title([Block("text", COVER, page=5)]) is None  # not on the first pages


def test_metadata_placeholders_are_not_titles() -> None:
    assert not metadata_title_ok("0000004962-23-000006")
    assert not metadata_title_ok("Document")
    assert not metadata_title_ok("Microsoft Word - F20_10K_VFinal_07.01.2020")
    assert metadata_title_ok("Attention Is All You Need")
    assert not metadata_title_ok("PowerPoint Presentation")
    assert not metadata_title_ok("report_final_v2.docx")
    assert not metadata_title_ok("Q1 2031 8-K - Exhibit 99.1")  # a filing system's label
    assert not metadata_title_ok("UNITED STATES SECURITIES AND EXCHANGE COMMISSION")


def test_a_metadata_title_filed_under_a_report_number_agrees_with_a_cover_drawn_as_a_picture() -> None:
    metadata = "GAO-31-106826, Seabirds: Launching and Implementing the National Seabird Strategy"
    cover = [
        {
            "type": "image",
            "page_idx": 0,
            "bbox": [0, 26, 972, 978],
            "text_layer": "June 2031\nSeabirds: Launching\nand Implementing the National\nSeabird Strategy",
        },
        {
            "type": "text",
            "page_idx": 0,
            "bbox": [41, 207, 479, 240],
            "text": "**Threats Highlight the Need for Seabird Counts**",
        },
    ]
    blocks = [Block("text", "Threats Highlight the Need for Seabird Counts", page=1)]
    assert stated_title(blocks, cover, metadata, paged=True) == (
        "Seabirds: Launching and Implementing the National Seabird Strategy"
    )
    assert without_identifier("COVID-19, A Review of Herons") == "COVID-19, A Review of Herons", "a name, not a number"
    assert without_identifier("FY 2031, Budget in Brief") == "FY 2031, Budget in Brief", "a year, not a number"


def test_a_cover_without_the_caption_is_named_by_the_line_ending_in_a_legal_form() -> None:
    text = (
        "UNITED STATES\nSECURITIES AND EXCHANGE COMMISSION\nFORM 10-K\n"
        "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934\n"
        "For the Fiscal Year Ended June 30 , 2031\nCommission File Number 001-00000\n"
        "CONTOSO CORPORATION\nWASHINGTON\n(STATE OF INCORPORATION)"
    )
    assert (
        cover_title([Block("text", text, page=1)]) == "CONTOSO CORPORATION — Form 10-K, fiscal year ended June 30, 2031"
    )


def test_a_cover_in_table_cells_and_a_transition_line_that_is_not_a_name() -> None:
    cells = (
        "<table><tr><td>FORM</td><td>10-Q</td></tr><tr><td>(Mark One)</td><td>QUARTERLY REPORT PURSUANT TO SECTION 13</td></tr>"
        "<tr><td>For the quarterly period ended</td><td>March 31, 2031</td></tr>"
        "<tr><td>For the transition period from</td><td>TO</td></tr>"
        "<tr><td>(Exact name of registrant as specified in its charter)</td></tr></table>"
    )
    blocks = [Block("table", cells, page=1), Block("text", "FABRIKAM, INC. AND SUBSIDIARIES", page=2)]
    assert cover_title(blocks) == "FABRIKAM, INC. — Form 10-Q, quarter ended March 31, 2031"


def test_a_cover_whose_name_is_a_logo_is_named_by_the_reports_definitions() -> None:
    cover = "FORM 10-K\nFor the fiscal year ended December 31, 2031\n(Exact name of Registrant as specified in its charter)\nDelaware"
    text = 'In this report, the terms "The Tailspin Toys Company," "Company," "we," "us" and "our" mean The Tailspin Toys Company.'
    blocks = [Block("text", cover, page=1), Block("text", text, page=4)]
    assert cover_title(blocks) == "The Tailspin Toys Company — Form 10-K, fiscal year ended December 31, 2031"
    text = 'Fabrikam was founded in 1961 under the laws of the State of Oregon. Fabrikam, Inc. (the "Company") designs shoes.'
    blocks = [Block("text", cover, page=1), Block("text", text, page=3)]
    assert cover_title(blocks) == "Fabrikam, Inc. — Form 10-K, fiscal year ended December 31, 2031"
    text = (
        'As used in this Annual Report, the terms "we," "us," "Fabrikam" and the "Company" refer to '
        "Fabrikam, Inc. and its predecessors, subsidiaries and affiliates, collectively, unless the context says otherwise."
    )
    blocks = [Block("text", cover, page=1), Block("text", text, page=3)]
    assert cover_title(blocks) == "Fabrikam, Inc. — Form 10-K, fiscal year ended December 31, 2031"


def test_a_release_that_mentions_a_form_in_a_footnote_is_no_filing() -> None:
    blocks = [
        Block("heading", "Contoso Reports Third-Quarter 2031 Results", page=1),
        Block("text", "1 See our Quarterly Report on Form 10-Q for the definitions of non-GAAP measures.", page=1),
    ]
    assert not is_filing(blocks) and cover_title(blocks) is None


def test_banners_are_never_titles() -> None:
    for banner in (
        "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
        "Table of Contents",
        "FOR IMMEDIATE RELEASE",
        "**CONTENTS**",
        "Exhibit 99.1",
        "FORM 10-K",
        "Press Release",
    ):
        assert is_banner(banner), banner
    for title in ("Families Keep in Touch", "Release Notes for Version 2", "Contents of the Soil"):
        assert not is_banner(title), title


def test_a_report_is_named_by_the_citation_it_asks_for() -> None:
    blocks = [
        Block("text", "FOR RELEASE MARCH 4, 2031", page=1),
        Block(
            "text",
            'RECOMMENDED CITATION: Northwind Research Center, March 2031, "Families Keep in Touch Across '
            'Long Distances"',
            page=1,
        ),
    ]
    assert citation_title(blocks) == "Families Keep in Touch Across Long Distances"
    assert citation_title([Block("text", 'Please cite "x".', page=1)]) is None  # one word is no title
    assert citation_title([Block("text", blocks[1].text, page=9)]) is None  # not on the first pages


def test_an_institution_alone_names_the_issuer_not_the_document() -> None:
    assert names_institution("University of Massachusetts, Amherst")
    assert names_institution("Department of Chemistry")
    assert not names_institution("Department of Health Strategic Plan 2031–2033")
    assert not names_institution("Introduction to College Writing")
    assert names_institution("Stanford University School of Medicine")  # (the school heads it)
    assert names_institution("UNIVERSITYOF MASSACHUSETTS") and names_institution("Centre de recherche")
    assert not names_institution("Government-University Identity Management Opportunities")  # qualifies
    assert names_institution("Research Center & Library") and names_institution("HARVARD UNIVERSITY PRESS")
    assert names_institution("Department\t") and names_institution("University\u00a0")  # (whitespace after it)


def test_the_period_date_or_version_a_document_states() -> None:
    quarter = Block("text", "FORM 10-Q\nFor the quarterly period ended March 31, 2031", page=1)
    assert stated_detail([quarter]) == "quarter ended March 31, 2031"
    release = [Block("heading", "Families Keep in Touch", page=1), Block("text", "FOR RELEASE MARCH 4, 2031", page=1)]
    assert stated_detail(release) == "MARCH 4, 2031"
    manual = [Block("heading", "Espresso Machine Manual"), Block("text", "Version 1.2")]
    assert stated_detail(manual) == "version 1.2"
    assert stated_detail([Block("text", "Water the roses in the evening.")]) is None
    dateline = Block("text", "**PURCHASE, N.Y. - April 25, 2031** - Contoso, Inc. today reported results.", page=1)
    assert stated_detail([Block("heading", "Contoso Reports Results", page=1), dateline]) == "April 25, 2031"


def _line(page: int, top: int, text: str, size: float, level: int | None = None) -> dict:
    height = int(size * 1.4)
    return {
        "type": "text",
        "page_idx": page,
        "bbox": [100, top, 900, top + height],
        "text": text,
        "font_size": size,
        **({"text_level": level} if level else {}),
    }


def test_a_releases_headline_is_its_title_however_its_headings_are_set() -> None:
    body = "Contoso today reported results for the third quarter of 2031, with sales up in every region it serves."
    items = [
        _line(0, 40, "FOR IMMEDIATE RELEASE", 9),
        _line(0, 80, "Contoso Reports Third-Quarter 2031 Results;", 14),
        _line(0, 100, "Raises Full-Year Outlook", 14),
        _line(0, 130, "Reported Third-Quarter Results", 12),
        *[_line(0, 160 + 20 * k, body, 11) for k in range(4)],
        _line(1, 40, "Outlook for the Year", 14, level=1),  # set like the headline
        _line(1, 80, body, 11),
    ]
    assert first_page_title(items) == "Contoso Reports Third-Quarter 2031 Results; Raises Full-Year Outlook"
    chapter = [_line(0, 40, "Getting Started", 14, level=1), *items[4:]]  # a chapter's title: set like the next
    assert first_page_title(chapter) is None


def test_a_cover_names_its_title_below_a_picture_but_not_a_brand_word() -> None:
    cover = [_line(0, 720, "Division of Quality Assurance Strategic Plan 2031–2033", 24), _line(0, 900, "CONTOSO", 30)]
    assert first_page_title(cover) == "Division of Quality Assurance Strategic Plan 2031–2033"
    contents = [_line(0, 40, "Contents", 20), _line(0, 90, "Programmes for Scholars", 18)]
    assert first_page_title(contents) is None


def _first_page(path: Path, lines: list[tuple[str, int]], body: str) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    for text, size in lines:
        pdf.set_font("Helvetica", style="B" if size > 14 else "", size=size)
        pdf.multi_cell(0, size * 0.6, text)
        pdf.ln(4)
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, body)
    pdf.output(str(path))


@pytest.mark.slow
def test_a_pdf_is_titled_by_the_largest_type_on_its_first_page_not_its_file_name(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    body = "Survey respondents described how they keep in touch with family across long distances. " * 8
    _first_page(
        folder / "5f0c2a9e41d8b7c3a6e2f1d0c9b8a7e6.pdf",
        [
            ("FOR RELEASE MARCH 4, 2031", 9),
            ("Families Keep in Touch", 28),
            ("Across Long Distances", 28),
            ("BY Ada Lovelace and Alan Turing", 11),
            ("www.example.org", 9),
        ],
        body,
    )
    _first_page(folder / "notes_2031.pdf", [], body)  # nothing set as a title: the file name stays
    lib = open_library(folder)
    lib.reconcile()
    titles = {d.path: d.title for d in lib.toc().documents}
    assert titles == {
        "5f0c2a9e41d8b7c3a6e2f1d0c9b8a7e6.pdf": "Families Keep in Touch Across Long Distances",
        "notes_2031.pdf": "notes 2031 (file name)",  # the map says where the title came from
    }


def _slide_without_a_title(path: Path) -> None:
    """One slide on the blank layout: a callout, then the chart's name set in bold on two lines."""
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[6])  # blank: no title placeholder
    callout = slide.shapes.add_textbox(Inches(1), Inches(1), Inches(4), Inches(1)).text_frame
    callout.text = "Ferry spending out the door has dropped 36% since 2027."
    named = slide.shapes.add_textbox(Inches(1), Inches(5), Inches(8), Inches(1)).text_frame
    for k, line in enumerate(["Regional Ferry Subcontract Budgets (out the door);", "2027-2030 Actuals"]):
        paragraph = named.paragraphs[0] if k == 0 else named.add_paragraph()
        run = paragraph.add_run()
        run.text, run.font.bold = line, True
    deck.save(str(path))


def _announcement_laid_out_in_a_table(path: Path) -> None:
    """A job announcement saved from a web page: its fields, then the position in bold, in a table."""
    import docx

    document = docx.Document()
    table = document.add_table(rows=4, cols=1)
    for row, (label, value) in enumerate([("Department:", "Department of Harbours"), ("Agency:", "Tide Office")]):
        paragraph = table.cell(row, 0).paragraphs[0]
        paragraph.add_run(label).bold = True
        paragraph.add_run(f" {value}").bold = True
    table.cell(2, 0).paragraphs[0].add_run("Harbour Pilot (Night Shift)").bold = True
    table.cell(3, 0).text = "Pilots guide ships into the harbour at night and keep the tide log."
    document.save(str(path))


def _word(path: Path, *parts: tuple[str, str], title: str = "") -> None:
    """A Word file of `parts`, each (style, text): "" a plain paragraph, "bold" one set in bold,
    "title" Word's Title style, "h1" its Heading 1; `title` its properties' title."""
    import docx

    document = docx.Document()
    document.core_properties.title = title
    for style, text in parts:
        if style in ("title", "h1"):
            document.add_heading(text, level=0 if style == "title" else 1)
        elif style == "bold":
            document.add_paragraph().add_run(text).bold = True
        else:
            document.add_paragraph(text)
    document.save(str(path))


@pytest.mark.slow
def test_an_office_file_without_a_title_style_is_titled_by_its_bold_line(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    _slide_without_a_title(folder / "deck-428996.pptx")
    _announcement_laid_out_in_a_table(folder / "017097.docx")
    # the title Word styles, under a few plain words (a kicker)
    _word(
        folder / "rowing.docx",
        ("", "Harbour notes"),
        ("title", "Rowing Past the Breakwater"),
        ("h1", "Before you set out"),
        ("", "Check the tide tables and tell the harbour office your route."),
        ("h1", "Coming back"),
        ("", "Keep the green light to starboard as you pass the breakwater."),
    )
    # a plain line naming the report over Word's Heading 1 "Introduction": the line is the title
    _word(
        folder / "report.docx",
        ("", "Annual Harbour Report"),
        ("h1", "Introduction"),
        ("", "The harbour handled more ferries this year than in any year before."),
    )
    # opening text that names no title, bold lines that label sections
    _word(
        folder / "syllabus-0412.docx",
        ("", "Instructor: Ada Lovelace, office hours Tuesdays 2-4pm"),
        ("bold", "Course Description"),
        ("", "Students learn to read tide tables and plan a crossing."),
    )
    # properties that run two words together that the page prints apart
    _word(
        folder / "guide.docx",
        ("", "CONTOSO Lens20 Camera User Guide"),
        ("", "This guide explains when the ferry leaves and what to do when it is late. " * 3),
        ("h1", "Getting aboard"),
        ("", "Buy a ticket at the harbour office before you board. " * 3),
        ("h1", "Safety"),
        ("", "Keep to the marked decks while the ferry is under way. " * 3),
        title="CONTOSOLens20 Camera User Guide",
    )
    lib = open_library(folder)
    lib.reconcile()
    titles = {d.path: d.title for d in lib.toc().documents}
    assert titles == {
        "deck-428996.pptx": "Regional Ferry Subcontract Budgets (out the door); 2027-2030 Actuals",
        "017097.docx": "Harbour Pilot (Night Shift)",  # its fields ("Department: …") are no title
        "rowing.docx": "Rowing Past the Breakwater",  # the styled title, not the kicker above it
        "report.docx": "Annual Harbour Report",  # Heading 1 opens the text: no kicker above it
        "syllabus-0412.docx": "syllabus-0412 (file name)",  # a bold section label is no title
        "guide.docx": "CONTOSO Lens20 Camera User Guide",  # the properties' title, spaced as printed
    }


def _worksheet_under_a_banner(path: Path, work: Path) -> None:
    """A worksheet whose title is drawn in the picture across its top, its questions with blanks."""
    from fpdf import FPDF
    from PIL import Image, ImageDraw, ImageFont

    banner = Image.new("RGB", (1800, 220), (20, 60, 120))
    ImageDraw.Draw(banner).text(
        (60, 60), "THE SEVEN HARBOUR LIGHTS", fill=(255, 255, 255), font=ImageFont.load_default(size=80)
    )
    banner.save(work / "banner.png")
    pdf = FPDF()
    pdf.add_page()
    pdf.image(str(work / "banner.png"), x=5, y=8, w=200)
    pdf.set_y(45)
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "Each light on the harbour wall tells a pilot where the channel runs. " * 6)
    pdf.ln(4)
    pdf.multi_cell(0, 6, "Which light marks the northern breakwater? ________________________")
    pdf.output(str(path))


@pytest.mark.slow
def test_a_title_drawn_in_a_banner_beats_the_file_name_and_a_question_is_no_title(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    _worksheet_under_a_banner(folder / "worksheet_0412.pdf", tmp_path)
    lib = open_library(folder)
    lib.reconcile()
    [document] = lib.toc().documents
    assert document.title.startswith("The Seven Harbour Lights")  # read from the picture, cased as a reader writes


@pytest.mark.slow
def test_a_title_typed_into_the_properties_keeps_its_hyphen_and_capitals(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    from fpdf import FPDF

    title = "TIDE: An R Package for Modeling Multi-way Harbour Measurements"
    pdf = FPDF()
    pdf.set_title(title)
    pdf.add_page()
    pdf.set_font("Helvetica", style="B", size=20)
    pdf.multi_cell(0, 10, title)
    pdf.ln(4)
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "We present TIDE, an R package for modeling multiway harbour measurements. " * 8)
    pdf.output(str(folder / "v18i03.pdf"))
    lib = open_library(folder)
    lib.reconcile()
    assert [d.title for d in lib.toc().documents] == [title]  # not "… an R package for modeling multiway …"


@pytest.mark.slow
def test_a_form_known_by_its_number_takes_the_name_its_properties_and_page_give_it(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_title("Form 7711 (Rev. 3-2031)")
    pdf.set_subject("Request for Harbour Berth Assignment")
    pdf.add_page()
    pdf.set_font("Helvetica", size=8)
    pdf.cell(0, 5, "Department of Harbours - Tide Office", align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", style="B", size=11)
    pdf.cell(60, 6, "Form 7711")
    pdf.cell(0, 6, "Request for Harbour", align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=8)
    pdf.cell(60, 6, "(Rev. 3-2031)")
    pdf.set_font("Helvetica", style="B", size=11)
    pdf.cell(0, 6, "Berth Assignment", align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=9)
    for field in ("Name and address of vessel owner", "Date", "Berth requested", "Length overall (m)"):
        pdf.cell(0, 10, field, border=1, new_x="LMARGIN", new_y="NEXT")
    pdf.multi_cell(0, 5, "The harbour office assigns berths in the order requests arrive. " * 4)
    pdf.output(str(folder / "f7711.pdf"))
    lib = open_library(folder)
    lib.reconcile()
    assert [d.title for d in lib.toc().documents] == ["Form 7711 (Rev. 3-2031) — Request for Harbour Berth Assignment"]


# --- every kind of document (issue 38): covers, reports, papers, guides, datasheets ------------


def test_a_plan_is_not_titled_by_the_governor_on_its_cover_and_names_its_agency() -> None:
    cover = [
        _line(0, 100, "Department of Health", 16),
        _line(0, 200, "Strategic Plan 2031–2033", 30),
        _line(0, 600, "Jane Q. Roe", 34),  # set larger than the title
        _line(0, 660, "Governor", 14),
    ]
    assert first_page_title(cover) == "Department of Health — Strategic Plan 2031–2033"
    signed = [*cover[:2], _line(0, 600, "Jane Q. Roe, Governor", 34)]
    assert first_page_title(signed) == "Department of Health — Strategic Plan 2031–2033"


def test_a_covers_theme_comes_with_the_line_that_says_what_the_document_is() -> None:
    """An annual report's cover sets its theme largest ("We Care"); the line that names the report
    and its year says what the document is, and comes with it."""
    cover = [
        _line(0, 30, "Corporate Overview", 10),
        _line(0, 156, "Integrated Annual Report 2031-32", 14),
        _line(0, 737, "We Care", 60),
        _line(0, 862, "For an inclusive ecosystem For digital transformation", 10),
    ]
    assert first_page_title(cover) == "We Care — Integrated Annual Report 2031-32"
    assert first_page_title([*cover[:2], _line(0, 737, "Sustainability Report", 60)]) == "Sustainability Report"
    footer = [cover[0], _line(0, 156, "Review date: March 2031", 14), *cover[2:]]
    assert first_page_title(footer) == "We Care", "a field's date is no line of what the document is"


def test_a_contact_line_is_never_a_title_and_the_citation_names_the_report() -> None:
    cover = [
        _line(0, 60, "FOR MEDIA OR OTHER INQUIRIES:", 10),
        _line(0, 90, "Jane Roe, Director, Global Attitudes Research", 16),
        _line(0, 120, "+1 202 555 0100", 12),
    ]
    assert first_page_title(cover) is None
    blocks = [
        Block("text", "FOR MEDIA OR OTHER INQUIRIES:\nJane Roe, Director, Global Attitudes Research", page=1),
        Block("text", 'RECOMMENDED CITATION: Northwind Research Center, 2031, "Neighbours in a Changing City"', page=1),
    ]
    assert stated_title(blocks, cover, "", paged=True) == "Neighbours in a Changing City"


def test_a_metadata_title_is_shown_only_when_the_cover_agrees() -> None:
    cover = [
        Block("text", COVER, page=1),
        Block(
            "text",
            "Portions of the registrant's Proxy Statement for its 2031 "
            "Annual Meeting of Stockholders are incorporated by reference.",
            page=1,
        ),
    ]
    lines = cover_text(cover, [])
    assert not metadata_agrees("Northwind Traders 2031 Proxy Statement", lines)  # the cover says Form 10-Q
    assert metadata_agrees("Northwind Traders Quarterly Report", ["NORTHWIND TRADERS, INC.", "QUARTERLY REPORT"])
    assert not metadata_agrees("The Limes NewApproachComprehensive Report (AdultSocialCare Apr 2031)", ["The Limes"])
    # a form's cover without a registrant's name: not the proxy statement its metadata names
    no_name = [
        Block(
            "text",
            "FORM 10-K\nFor the fiscal year ended December 31, 2031\nProxy Statement portions incorporated by reference into Part III of this Annual Report",
            page=1,
        )
    ]
    assert stated_title(no_name, [], "Fabrikam 2031 Proxy Statement", paged=True) is None
    # a website's name and a file system's are no titles
    assert not metadata_title_ok("www.alldatasheets.example.com")
    assert not metadata_title_ok("Campaign_038_Introducing_AC_Whitepaper_v5e")


def test_page_ones_title_holding_the_metadata_titles_words_is_shown_as_printed() -> None:
    """A form's metadata names its template ("Public Notification of a Child Death …"); the title
    page 1 prints holds those words in its own ("90-Day Summary Report for Child Death …") and is
    the one a reader knows it by. A page-1 line that does not hold them leaves the metadata's."""
    printed = "90-Day Summary Report for Child Death, Serious Injury or Egregious Incident"
    form = "Reports submitted to the Division that do not include all of the required information are returned to the agency."
    items = [_line(0, 29, printed, 14, 2), {**_line(0, 60, form, 9), "bbox": [39, 60, 962, 101]}]
    blocks = [Block("heading", printed, page=1), Block("text", form, page=1)]
    metadata = "Public Notification of a Child Death, Serious Injury or Egregious Incident"
    assert stated_title(blocks, items, metadata, paged=True) == printed
    other = [_line(0, 29, "Incident Review Board", 14, 2), items[1]]
    assert (
        stated_title([*blocks, Block("text", "Public notification.", page=1)], other, metadata, paged=True) == metadata
    )
    short = [_line(0, 29, "Residual Learning for Image Recognition", 14, 2), items[1]]
    paper = "Deep Residual Learning for Image Recognition"
    assert stated_title([Block("text", paper, page=1)], short, paper, paged=True) == paper, "page 1's cut short"


def test_a_metadata_title_comes_with_the_release_its_pages_print_after_it() -> None:
    """A manual's metadata names the product's guide; the header on its pages, the release."""
    header = {**_line(0, 33, "Interface Configuration Guide Release 23.7.R1", 7), "type": "header"}
    text = "A port placed in loopback mode for cross-connect use supports only hybrid mode of operation."
    blocks = [Block("text", text, page=1)]
    example = _line(0, 135, "**Example: Multiple cross-connects on one port (classic CLI)**", 9)
    folio = {**_line(0, 33, "93", 7), "bbox": [940, 33, 950, 41]}  # set small beside it: a running header
    items = [{**header, "bbox": [49, 33, 300, 41]}, folio, example, _line(0, 160, text, 9)]
    title = stated_title(blocks, items, "Interface Configuration Guide", paged=True)
    assert title == "Interface Configuration Guide Release 23.7.R1"
    cited = [Block("text", "See the Interface Configuration Guide Release 23.7.R1 for the commands.", page=1)]
    title = stated_title(cited, [_line(0, 135, text, 9)], "Interface Configuration Guide", paged=True)
    assert title == "Interface Configuration Guide"  # a line that cites it is no line of the title


def test_a_release_without_metadata_is_titled_by_its_headline() -> None:
    body = "Contoso today reported results for the fourth quarter of 2031, with sales up in every region it serves."
    items = [
        _line(0, 40, "News Release", 10),
        _line(0, 80, "CONTOSO REPORTS FOURTH QUARTER AND FULL YEAR 2031 RESULTS", 16),
        *[_line(0, 120 + 20 * k, body, 11) for k in range(4)],
    ]
    blocks = [Block("text", "News Release", page=1), Block("text", body, page=1)]
    title = stated_title(blocks, items, "", paged=True)
    assert title == "CONTOSO REPORTS FOURTH QUARTER AND FULL YEAR 2031 RESULTS"
    assert mend(title, "Contoso today reported results.") == "Contoso Reports Fourth Quarter and Full Year 2031 Results"


def test_capitals_line_break_hyphens_and_run_together_words_are_mended_as_the_text_prints_them() -> None:
    text = (
        "We study skill composition via abstraction. The HUAWEI Mate 20 Pro User Guide explains the phone; "
        "MGM Resorts International reported results. NASA and the LLMs were consulted."
    )
    assert mend("SKILL COMPOSITION VIA AB-STRACTION", text) == "Skill Composition via Abstraction"
    assert mend("SKILL COMPOSITION VIA AB- STRACTION", text) == "Skill Composition via Abstraction"
    assert mend("HUAWEIMate20Pro User Guide", text) == "HUAWEI Mate 20 Pro User Guide"
    assert mend("Huawei mate 20pro user guide", text) == "HUAWEI Mate 20 Pro User Guide"
    assert mend("MGM | R | ESORTS I NTERNATIONAL — Form 10-K", text) == "MGM Resorts International — Form 10-K"
    assert mend("NASA AND THE LLMS", text) == "NASA and the LLMs"  # acronyms as the text writes them
    assert mend("HONOR Watch GS Pro OnlineHelp （01,en）", text) == "HONOR Watch GS Pro OnlineHelp"  # a code dropped
    assert mend("Re-Thinking Data", "re-thinking is hard") == "Re-Thinking Data"  # a real hyphen stays
    assert mend("C o u r s e I n f o r m a t i o n", "") == "Course Information"
    assert (
        mend("ZOO213:IntermediateSeabirdCountingforFieldandLab", "")
        == "ZOO213: Intermediate Seabird Counting for Field and Lab"
    )
    assert mend("OnlineHelp for Herons", "") == "OnlineHelp for Herons", "a word in mixed case is printed so"
    assert mend("Roe v. Northwind Driver'sServices,Inc. — Opinion", "") == (
        "Roe v. Northwind Driver's Services, Inc. — Opinion"
    ), "OCR lost the spaces after a possessive and a comma"
    assert mend("McDonald's Restaurants, 1,000 Stores", "") == "McDonald's Restaurants, 1,000 Stores"
    spaced = "We use seabird data every week; seabird data is messy."
    assert mend("Course Syllabus: SeabirdData CountingI", spaced) == "Course Syllabus: Seabird Data Counting I", (
        "spaced as the text spaces it, capitalised as the title is, a part's numeral apart"
    )


def test_a_title_carried_onto_later_pages_with_its_code_is_still_page_ones_title() -> None:
    def unsized(page: int, top: int, text: str, kind: str = "text") -> dict:
        return {"type": kind, "page_idx": page, "bbox": [374, top, 626, top + 17], "text": text, "font_size": 1.0}

    body = "This course teaches how seabirds are counted on cliffs and in burrows, by day and by night. " * 3
    first = [unsized(0, 45, "**Seabird Field Methods**"), unsized(0, 63, "ZOO 6651")]
    first += [unsized(0, 79, "**Location:** Online"), {**unsized(0, 324, body), "bbox": [59, 324, 932, 422]}]
    later = [
        item
        for page in range(1, 5)
        for item in (
            unsized(page, 45, "Seabird Field Methods ZOO 6651"),
            {**unsized(page, 200, body), "bbox": [59, 200, 932, 300]},
        )
    ]
    assert first_page_title(first + later) == "Seabird Field Methods"


def test_a_header_every_page_repeats_names_a_first_page_that_prints_nothing_else() -> None:
    def header(page: int, top: int, text: str) -> dict:
        return {"type": "header", "page_idx": page, "bbox": [284, top, 718, top + 20], "text": text, "font_size": 1.0}

    body = "Students will use analytics to study the issues affecting seabird colonies, by day and by night. " * 3
    pages = [
        item
        for page in range(4)
        for item in (
            header(page, 47, "Course Syllabus: Seabird Data Analytics"),
            header(page, 81, "Zoology 461-01 – Spring 2031"),
            {
                "type": "table",
                "page_idx": page,
                "bbox": [56, 127, 914, 370],
                "table_body": "<table><tr><td>Instructor</td></tr></table>",
            },
            {
                "type": "text",
                "page_idx": page,
                "bbox": [59, 400, 932, 600],
                "text": body if page else "Table of contents",
            },
        )
    ]
    assert first_page_title(pages) == "Course Syllabus: Seabird Data Analytics"
    notice = [{**i, "text": "Northwind Proprietary and Confidential"} if i["bbox"][1] == 47 else i for i in pages]
    assert first_page_title(notice) != "Northwind Proprietary and Confidential", "a notice of the copy is no title"


def test_a_word_atop_gives_way_to_the_top_level_heading_not_a_wider_bold_line() -> None:
    def boxed(box: list[int], text: str, level: int | None = None) -> dict:  # sizes unknown: boxes say them
        return {"type": "text", "page_idx": 0, "bbox": box, "text": text, "font_size": 1.0, "text_level": level}

    page = [
        boxed([557, 48, 776, 84], "SYLLABUS"),
        boxed([366, 102, 693, 135], "Introduction to Auk", level=1),
        boxed([284, 158, 728, 186], "**AUK 585 & TERNS 585 &**"),
        boxed([253, 199, 744, 227], "BIO 697B & ECO 697B (4 credits)", level=2),
        boxed([118, 543, 877, 742], "This class serves as an introduction to counting seabirds on cliffs. " * 11),
    ]
    assert first_page_title(page) == "Introduction to Auk"


def test_a_cover_that_names_only_a_kind_of_document_takes_its_subject() -> None:
    cover = [
        _line(0, 160, "User Manual", 28, level=1),
        _line(0, 820, "Coffee machine", 14),
        _line(0, 860, "English", 9),
        _line(0, 950, "Series 1900 33 2675 8010 12.2031", 8),
    ]
    assert first_page_title(cover) == "Coffee machine User Manual"
    # a cover that is a picture: the words it carries
    strips = [
        {"type": "image", "page_idx": 0, "bbox": [0, 200, 997, 236], "text_layer": "NO-FROST REFRIGERATOR-FREEZER"},
        {"type": "image", "page_idx": 0, "bbox": [0, 945, 997, 979], "text_layer": "Use And Care Guide"},
    ]
    assert first_page_title(strips) == "NO-FROST REFRIGERATOR-FREEZER Use And Care Guide"
    coded = [  # a kind and a code are no subject
        _line(0, 103, "Syllabus for ZOOLOGY 466", 14.5, level=1),
        _line(0, 127, "Seabird Field Methods", 12),
        _line(0, 238, "Instructor office hours: to be announced, in the lab and online.", 10),
    ]
    assert first_page_title(coded) == "Seabird Field Methods Syllabus for ZOOLOGY 466"


def test_a_word_processors_page_without_type_sizes_is_titled_by_its_opening_line() -> None:
    def unsized(top: int, text: str, kind: str = "text") -> dict:
        return {"type": kind, "page_idx": 0, "bbox": [150, top, 850, top + 16], "text": text, "font_size": 1.0}

    body = "Understanding the budget process is important for anyone who works with a public agency. " * 3
    page = [
        unsized(60, "University of Northwind, Department of Economics"),
        unsized(80, "Federal Budgeting Process – Spring 2031"),
        unsized(100, "Tuesday 6:00 – 8:00 pm, Office Hours: by appointment"),
        {**unsized(140, body), "bbox": [150, 140, 850, 420]},  # a paragraph: its box says little of its type
    ]
    assert first_page_title(page) == "Federal Budgeting Process – Spring 2031"
    form = [unsized(60, "**Course Title:** NWU 4670: Digital Communication **Author:** Prof. Roe"), *page[3:]]
    assert first_page_title(form) == "NWU 4670: Digital Communication"
    bold = [  # a title in bold body type ending as a sentence does; a label in bold, its box short and so "large"
        {
            **unsized(64, "**Biology 582: From Seabirds to Diversity: The basis for change.**"),
            "bbox": [59, 64, 863, 83],
        },
        {**unsized(137, "**Course zoom links:**"), "bbox": [59, 137, 246, 157]},
        unsized(166, "Instructor: <PROF_FULL_NAME> Remote office hours: By appointment"),
        {**unsized(240, body), "bbox": [59, 240, 916, 436]},
    ]
    assert first_page_title(bold) == "Biology 582: From Seabirds to Diversity: The basis for change"
    run_on = "ZOO 490Z: Seabird Field Methods (3 credits) Fall 2031 :: T/Th 11:30-12:45pm :: Lab room 138 Head: <PROF>"
    page = [
        unsized(90, run_on),
        unsized(194, "TA: <TA_FULL_NAME> Email: <TA_EMAIL>"),
        {**unsized(398, body), "bbox": [118, 398, 879, 619]},
    ]
    assert first_page_title(page) == "ZOO 490Z: Seabird Field Methods", "a run-on first line: its opening phrase"
    section = [
        {**unsized(46, "ZOO 4501-001: Seabirds in the Internet Age, Fall 2031", "header"), "bbox": [65, 46, 533, 62]},
        {
            **unsized(107, "Instructor: <PROF_FIRST_NAME> <PROF_LAST_NAME> TA: <TA_FIRST_NAME>"),
            "bbox": [114, 107, 602, 235],
        },
        {**unsized(325, "**Course Description**"), "bbox": [65, 325, 243, 341]},
        {**unsized(356, body), "bbox": [65, 356, 911, 425]},
    ]
    assert first_page_title(section) == "ZOO 4501-001: Seabirds in the Internet Age, Fall 2031", (
        "a section's heading is not"
    )


def test_a_page_whose_type_sets_no_line_apart_is_titled_by_its_opening_line_not_a_running_header() -> None:
    """Type sizes known and alike (a scan whose lines OCR measured alike): the opening line stands in
    for the typography, as where sizes are unknown; not a header set beside the page's number, nor a
    company's name alone."""
    body = "Your Directors have pleasure in submitting their report and accounts for the year. " * 3
    page = [
        _line(0, 76, "DIRECTORS' REPORT & MANAGEMENT DISCUSSION AND ANALYSIS", 8.5),
        {**_line(0, 118, body, 9), "bbox": [100, 118, 900, 300]},
    ]
    assert first_page_title(page) == "DIRECTORS' REPORT & MANAGEMENT DISCUSSION AND ANALYSIS"
    header = [
        {**_line(0, 118, "Northwind: A Toolkit for Reading", 9), "bbox": [387, 118, 731, 129]},
        {**_line(0, 118, "5", 9), "bbox": [778, 118, 785, 128]},
        *page[1:],
    ]
    assert first_page_title(header) is None
    company = [_line(0, 76, "Northwind Traders Pvt Ltd", 9), *page[1:]]
    assert first_page_title(company) is None


def test_a_bold_line_in_small_letters_is_lettering_not_a_sentences_tail() -> None:
    """A designer's heading set in bold and small letters ("eastern mediterranean") over a page of
    text in one size is its title; a line in small letters not set apart runs on from another."""
    body = "We are investing to grow in the region, offshore, with natural gas production rising each year. " * 2
    page = [_line(0, 80, "**eastern mediterranean**", 9), {**_line(0, 130, body, 9), "bbox": [100, 130, 900, 190]}]
    assert first_page_title(page) == "eastern mediterranean"
    assert first_page_title([_line(0, 80, "eastern mediterranean", 9), *page[1:]]) is None


def test_pages_that_open_with_a_numbered_heading_in_their_largest_type_are_titled_by_it() -> None:
    """Pages taken out of a longer work open at a numbered section: its heading, without the number,
    is what they are about; a short one ("1 Introduction") is a chapter, not a title."""
    key = "Key FY = Financial Year ending March 31 RPK = revenue passenger kilometers"
    page = [_line(0, 80, "1.1 Contoso Group International Passenger Traffic Data", 15.5), _line(0, 680, key, 11.5, 2)]
    assert first_page_title(page) == "Contoso Group International Passenger Traffic Data"
    assert first_page_title([_line(0, 80, "1 Introduction", 15.5), page[1]]) != "Introduction"
    listed = [_line(0, 80, "10 Ways to Reduce Energy Use", 15.5), page[1]]
    assert first_page_title(listed) != "Ways to Reduce Energy Use", "a number that is no section's stays"


def test_a_code_and_its_term_over_the_particulars_give_way_to_the_name_set_in_bold_under_them() -> None:
    """A word processor's syllabus: "ZOO 204 Fall 2031" atop its schedule and room, the course's
    name set in bold under them; a field's label in bold ("Course Chair:") is no name."""
    body = "Organized around the history of seabird counts, this class reads the field notes of three islands. " * 3
    page = [
        {**_line(0, 86, "ZOO 204 Fall 2031", 9), "bbox": [104, 86, 185, 128]},
        {**_line(0, 128, "TTh 11:30 a.m. - 12:45 p.m.", 9), "bbox": [104, 128, 349, 149]},
        {**_line(0, 148, "W201 South College", 9), "bbox": [104, 148, 289, 169]},
        {**_line(0, 188, "**Seabirds of the North Atlantic**", 9), "bbox": [290, 188, 710, 206]},
        {**_line(0, 527, body, 9), "bbox": [106, 527, 892, 690]},
    ]
    page = [{**line, "font_size": 1.0} for line in page]  # a word processor's PDF: sizes unknown
    assert first_page_title(page) == "ZOO 204: Seabirds of the North Atlantic"
    labelled = [*page[:3], {**page[3], "text": "**Course Chair:**"}, page[4]]
    assert first_page_title(labelled) == "ZOO 204 Fall 2031"
    section = [*page[:3], {**page[3], "text": "**Learning Objectives**", "bbox": [104, 188, 300, 206]}, page[4]]
    assert first_page_title(section) == "ZOO 204 Fall 2031", "a section's heading at the margin is no name"


def test_an_opening_greeting_names_the_document() -> None:
    """A greeting, "Welcome to ZOO 568 2031 FALL!", atop a page in one type or opening a text, names the course;
    a greeting that names nothing with a capital ("Welcome to your new phone.") names no title."""
    from indexer.titles.first_page import opening_line_title

    body = "Students will learn how field counts adapt to the colony and how the census is run each spring. " * 2
    page = [
        {**_line(0, 110, "**Welcome to ZOO 568 2031 FALL!**", 1.0), "bbox": [118, 110, 674, 143]},
        {**_line(0, 193, "The reading for this year will be posted", 1.0, 1), "bbox": [146, 193, 816, 227]},
        {**_line(0, 326, body, 1.0), "bbox": [146, 326, 848, 396]},
    ]
    assert first_page_title(page) == "ZOO 568 2031 FALL"
    assert opening_line_title("Welcome to ZOO 568 2031 FALL! The reading for this year will be posted.") == (
        "ZOO 568 2031 FALL"
    )
    assert (
        opening_line_title("Welcome to the Contoso Field Handbook. It says how we count.") == "Contoso Field Handbook"
    )
    assert opening_line_title("Welcome to your new phone. It rings.") is None
    assert opening_line_title("Welcome Guide for New Employees") == "Welcome Guide for New Employees"
    assert opening_line_title("Welcome to the Graduate Handbook") == "Graduate Handbook"


def test_a_byline_measured_as_large_as_the_title_gives_way_to_the_title_over_it() -> None:
    """A scan's lines measured by their ink: the byline (its marks and a mail icon read as "()")
    comes out as large as the title on two lines over it; the title block's first line is the title."""
    abstract = "Abstract. Recent advances in seabird counting have been driven by deep learning models. " * 3
    page = [
        {
            **_line(0, 143, "SeabirdParser:A Unified Toolkit for Counting Based Colony Image Analysis", 13),
            "bbox": [253, 143, 750, 188],
        },
        {**_line(0, 212, "Jane Roe² (), Ann Lee², Mary Poe, Carl Doe", 15), "bbox": [217, 212, 791, 232]},
        {**_line(0, 426, abstract, 13), "bbox": [261, 426, 743, 527]},
    ]
    assert first_page_title(page) == "SeabirdParser:A Unified Toolkit for Counting Based Colony Image Analysis"
    assert mend(first_page_title(page) or "", abstract).startswith("SeabirdParser: A Unified"), "a colon's space"
    report = [{**page[0], "text": "Seabird Census Results"}, {**page[1], "text": "WARN Report*"}, page[2]]
    assert first_page_title(report) == "WARN Report*", "a report's name with its footnote's mark is no byline"
    topic = [
        {**_line(0, 143, "Course Notes Week One", 13), "bbox": [253, 143, 750, 165]},
        {**_line(0, 190, "Machine Learning and Data Science", 18), "bbox": [217, 190, 791, 215]},
        page[2],
    ]
    assert first_page_title(topic) == "Machine Learning and Data Science", "two phrases joined by 'and': a topic"


def test_a_papers_title_on_page_1_is_its_title_not_a_section_that_holds_the_paper() -> None:
    from indexer.models import ParsedDocument
    from indexer.structure.sections import build

    body = "We study skill composition via abstraction in agents that plan over learned options. " * 3
    blocks = [
        Block("text", "Published as a conference paper at ICLR 2031", page=1),
        Block("heading", "SKILL COMPOSITION VIA AB- STRACTION", level=1, page=1, size=1.6),
        Block("text", "Ada Lovelace, Alan Turing", page=1),
        Block("heading", "Abstract", level=1, page=1, size=1.2),
        Block("text", body, page=1),
        Block("heading", "1 Introduction", level=1, page=1, size=1.2),
        Block("text", body, page=2),
        Block("heading", "2 Method", level=1, page=3, size=1.2),
        Block("text", body, page=3),
    ]
    parsed = ParsedDocument(blocks=blocks, title="SKILL COMPOSITION VIA AB-STRACTION", n_pages=3)
    structure = build(parsed, fallback_title="f1f5242528411b26")
    assert structure.title == "Skill Composition via Abstraction" and not structure.named_by_file
    assert [(s.level, s.title) for s in structure.sections[1:]] == [
        (1, "Abstract"),
        (1, "1 Introduction"),
        (1, "2 Method"),
    ]
    assert (
        structure.paragraphs[0].text == "Published as a conference paper at ICLR 2031"
    )  # the root holds the front matter


def test_an_opening_line_that_names_only_a_kind_takes_the_next_and_an_institution_gives_way() -> None:
    from indexer.parse.markdown import parse_markdown
    from indexer.structure.sections import build

    course = "# Syllabus\n\n## Biology 544, Ornithology, Spring 2031\n\nBirds, their songs and their flight.\n"
    assert build(parse_markdown(course), fallback_title="x").title == "Biology 544, Ornithology, Spring 2031 Syllabus"
    issued = "# Northwind University\n\n# Teaching Mathematics in Elementary School 2\n\nFractions and place value.\n"
    assert build(parse_markdown(issued), fallback_title="x").title == "Teaching Mathematics in Elementary School 2"


def test_a_page_that_is_one_picture_is_titled_by_the_lines_read_from_it() -> None:
    def picture(text: str, key: str = "content") -> list[dict]:
        return [{"type": "image", "page_idx": 0, "bbox": [0, 0, 1000, 1000], key: text}]

    brochure = "EMBARK ON\nYOUR JOURNEY WITH\nNORTHWIND BUSINESS SCHOOL\nBACHELOR OF BUSINESS ADMINISTRATION\nBe BOLD"
    assert first_page_title(picture(brochure)) == "NORTHWIND BUSINESS SCHOOL — BACHELOR OF BUSINESS ADMINISTRATION"
    scan = (
        "BRECCIA -GASHES. 165\nON THE BRECCIA -GASHES OF THE DURHAM COAST AND\nSOME RECENT EARTH-SHAKES AT SUNDERLAND.\n"
        "By G. A. LEBOUR, M.A., F.G.S.,\nTHE town of Sunderland is built upon the Permian Magnesian Limestone."
    )
    title = first_page_title(picture(scan, "text_layer"))
    assert title == "ON THE BRECCIA-GASHES OF THE DURHAM COAST AND SOME RECENT EARTH-SHAKES AT SUNDERLAND"
    assert mend(title, "breccia-gashes of the coast; earth-shakes") == (
        "On the Breccia-Gashes of the Durham Coast and Some Recent Earth-Shakes at Sunderland"
    )
    assert first_page_title(picture("Undergraduate\nProspectus")) == "Undergraduate Prospectus"


def test_a_page_that_opens_with_a_table_is_titled_by_its_caption_or_its_one_cell_rows() -> None:
    def page(table: dict) -> list[dict]:
        notes = [
            {"type": "text", "page_idx": 0, "bbox": [80, 813, 101, 823], "text": "**NOTES:**"},
            {
                "type": "text",
                "page_idx": 0,
                "bbox": [120, 824, 846, 859],
                "text": "Some states may reflect lower "
                "than expected numbers of checks, as checks made for permits are counted where they were issued.",
            },
            {"type": "text", "page_idx": 0, "bbox": [482, 957, 518, 967], "text": "Page 1 of 205"},
        ]
        return [{"type": "table", "page_idx": 0, "bbox": [33, 39, 968, 789], **table}, *notes]

    laid_out = (  # a table set as text, as a statistics release prints it
        "Firearm Background Checks\n                        November - 2031\n"
        " State / Territory      Permit    Handgun   Long Gun\n Alabama      22,143     8,001     4,590"
    )
    assert first_page_title(page({"table_body": laid_out})) == "Firearm Background Checks — November - 2031"
    html = (
        "<table><tr><td colspan='3'>Northwind Price List</td></tr><tr><th>Item</th><th>Unit</th><th>Price</th></tr>"
        "<tr><td>Bolt</td><td>box</td><td>4.00</td></tr></table>"
    )
    assert first_page_title(page({"table_body": html})) == "Northwind Price List"
    captioned = {"table_body": html, "table_caption": ["Table 1: Regional Sales by Quarter"]}
    assert first_page_title(page(captioned)) == "Table 1: Regional Sales by Quarter"
    columns_first = "<table><tr><th>Item</th><th>Price</th></tr><tr><td>Bolt</td><td>4.00</td></tr></table>"
    assert first_page_title(page({"table_body": columns_first})) is None
    headings_as_one = (  # the columns' headings read as one cell: "COMUNI" over each column
        "<table><tr><td colspan='5'>COMUNI COMUNI COMUNI AL COMUNI</td></tr>"
        "<tr><td>Abruzzo</td><td>305</td><td>4</td><td>12</td><td>40</td></tr></table>"
    )
    assert first_page_title(page({"table_body": headings_as_one})) is None
    banner = "<table><tr><td colspan='3'>Statement of Assets and Liabilities and Changes in Net Assets and Fund Balances</td></tr>"
    with_ands = banner + "<tr><th>Item</th><th>2031</th><th>2030</th></tr></table>"
    assert first_page_title(page({"table_body": with_ands})) == (
        "Statement of Assets and Liabilities and Changes in Net Assets and Fund Balances"
    ), "a title may repeat its function words"


def test_a_bold_field_is_no_title_and_a_code_beside_the_title_is_kept_with_it() -> None:
    def line(y: int, text: str) -> dict:
        return {"type": "text", "page_idx": 0, "bbox": [374, y, 626, y + 17], "text": text}

    body = {"type": "text", "page_idx": 0, "bbox": [59, 324, 932, 422], "text": "Week 1: counting burrows. " * 8}
    fields = [line(45, "**Location:** Online"), line(63, "**Academic Term:** Spring 2031"), body]
    assert first_page_title(fields) is None, "a field is no title"
    assert with_code("Seabird Field Methods", ["Seabird Field Methods", "ZOO 6651", "Location: Online"]) == (
        "ZOO 6651: Seabird Field Methods"
    )


def test_a_code_comes_with_its_title_without_its_section_or_its_schedule() -> None:
    assert with_code(
        "ZOO 790 – Section 009 (3 credits, CRN = 21233)",
        ["ZOO 790 – Section 009 (3 credits, CRN = 21233)", "Seabird Field Methods"],
    ) == ("ZOO 790: Seabird Field Methods"), "the section of a course is which group, not what it is"
    schedule = "ZOOLOGY 371-01 (#58038) M & W: 11:15 – 12:05, ISOM 106"
    assert with_code("Seabird Field Methods", ["SCHOOL OF BIRDS", "Seabird Field Methods", schedule]) == (
        "ZOOLOGY 371-01: Seabird Field Methods"
    ), "a code's line of particulars"
    assert with_code("Seabird Field Methods", ["Seabird Field Methods", "ZOO 371 is taught in the spring"]) == (
        "Seabird Field Methods"
    ), "a sentence that names a code"
    assert with_code("ZOO 790", ["ZOO 790 (3 credits, CRN = 21233)", "Seabirds: A 21st Century Perspective"]) == (
        "ZOO 790: Seabirds: A 21st Century Perspective"
    ), "an ordinal is no code"
    assert with_code(
        "Seabird Field Methods", ["Zoology 151", "Fall 2031", "Seabird Field Methods", "Course Description"]
    ) == ("Zoology 151: Seabird Field Methods"), "a term between the code and the title"
    assert (
        with_code("Seabird Field Methods", ["Seite 1092", "GMBl", "Seabird Field Methods"]) == "Seabird Field Methods"
    )
    assert with_code("Employee Handbook", ["Revision 12", "Employee Handbook"]) == "Employee Handbook", "a version"
    assert (
        with_code("Annual Report", ["Annual Report", "Form 10-K For The Fiscal Year Ended June 30"]) == "Annual Report"
    )
    assert without_particulars("Title 47 Section 230 Reform Proposals") == "Title 47 Section 230 Reform Proposals"
    assert without_particulars("Section 230 of the Communications Act") == "Section 230 of the Communications Act"
    assert without_particulars("The Flipped Classroom for Beginners") == "The Flipped Classroom for Beginners"
    stamped = "Motion for Class Certification — Case 3:31-cv-05711-EMC, Document 74-3, page 8"
    assert without_particulars(stamped) == stamped, "a court's case number is no time of day"
    assert without_particulars("Seabird Field Methods MWF 11:15-12:05") == "Seabird Field Methods"
    assert without_particulars("Seabird Field Methods MWF 9:30-Noon") == "Seabird Field Methods"


def test_a_letters_greeting_and_close_are_no_title() -> None:
    for line in ("To Whom it May Concern:", "Best Regards, Mallori", "Dear Committee Members", "Sincerely, Ann Lee"):
        assert is_boilerplate(line), line


def test_who_teaches_is_no_title_however_large_its_box() -> None:
    """A course's page of unknown type sizes: the professor's line wraps onto two lines (a box that
    looks set larger), the course's name stands first."""
    assert is_boilerplate("Professor &lt;PROF_NAME&gt; Management Department • University of Contoso")
    page = [
        {**_line(0, 91, "Management 462: Seabird Entrepreneurship", 1.0), "bbox": [314, 91, 686, 108]},
        {
            **_line(0, 109, "Professor &lt;PROF_NAME&gt; Management Department • University of Contoso", 1.0),
            "bbox": [219, 109, 781, 160],
        },
        {
            **_line(0, 388, "Seabird entrepreneurship uses the skills of business to count birds. " * 3, 1.0),
            "bbox": [118, 388, 869, 492],
        },
    ]
    assert first_page_title(page) == "Management 462: Seabird Entrepreneurship"


def test_a_run_on_opening_line_is_cut_before_its_aside_and_its_times() -> None:
    from indexer.titles.first_page import opening_line_title

    run_on = "ZOOLOGY 130 (GEN ED BS 4 credits) ZOOLOGY FOR EVERYONE SYLLABUS Spring 2031 MWF 10:10-11 Small changes"
    assert opening_line_title(run_on) == "ZOOLOGY 130 ZOOLOGY FOR EVERYONE SYLLABUS Spring 2031"
    joined = "Zoology 582: From Eggs to Diversity: The basis for change. * Note – This syllabus is subject to change!"
    assert opening_line_title(joined) == "Zoology 582: From Eggs to Diversity: The basis for change", (
        "to its first sentence's end"
    )
    prose = (
        "We're investing to grow in the North Atlantic, offshore Iceland and Norway. Seabird counts rose by a third."
    )
    assert opening_line_title(prose) is None, "a first sentence of text is no title"
    assert opening_line_title("In 2031 the colony grew by a third across all cliffs. Next year we count again.") is None
    assert (
        opening_line_title("Seabird Counts. Spring 2031 Tuesdays 10:30 in the lab", sentences=False)
        == "Seabird Counts. Spring 2031"
    )
    dated = "Jahresabschluss zum Geschäftsjahr vom 01.01.2031 bis zum 31.12.2031"
    assert opening_line_title(dated) == dated, "a date is no time of day"
    roomed = (
        "ZOOL 790 (3 credits, CRN = 21233) The Seabird Colony: A 21st Century Census Fall 2031 "
        "Classroom: Hall 615 Schedule: Tuesday & Thursday 4:05 – 5:20 PM Instructor: Dr. <PROF_NAME>"
    )
    assert opening_line_title(roomed) == "ZOOL 790 The Seabird Colony: A 21st Century Census Fall 2031"
    two = "ZOO 500K: Field Teaching Section N-9 (Islands) ZOO 500U: Field Teaching Special Sites 5-12 (Coasts)"
    assert opening_line_title(two) == two, "two courses on one line the title holds whole"
    run_on = f"{two} Course Syllabus Spring 2031 Online via Zoom INSTRUCTOR INFORMATION <NAME>, Ph.D."
    assert opening_line_title(run_on) == "ZOO 500K: Field Teaching Section N-9 (Islands)", "too long: the first's"


def test_a_subtitle_set_between_the_title_and_the_text_joins_the_title() -> None:
    def line(box: list[int], text: str, **more: object) -> dict:
        return {"type": "text", "page_idx": 0, "bbox": box, "text": text, **more}

    body = "This is the second of two courses that lay the foundations for research on how people learn. " * 2
    page = [
        line([283, 47, 757, 89], "Seabird Ecology"),
        line([282, 95, 855, 128], "Introduction to Colony Studies II", text_level=1),
        line([284, 214, 948, 243], "Instructor: Jane Roe, Room 1086"),
        line([94, 340, 940, 400], body),
        line([94, 430, 940, 490], body),
    ]
    assert first_page_title(page) == "Seabird Ecology: Introduction to Colony Studies II"
    byline = [*page[:1], line([282, 95, 700, 120], "Jane Roe and John Doe"), *page[3:]]
    assert first_page_title(byline) == "Seabird Ecology"


def test_a_rotated_tables_title_read_letters_at_a_time_and_a_printouts_banner_row() -> None:
    def only(table: dict) -> list[dict]:
        return [{"type": "table", "page_idx": 0, "bbox": [36, 22, 964, 955], **table}]

    # a rotated page: its title read a few letters to a row, then the table's columns
    fragments = ["Se", "abi", "rd", "Co", "un", "ts", "Nov", "em", "ber", "-", "2031"]
    rotated = (
        "\n".join(f"{' ' * 40}{row}" for row in fragments) + "\nState      Permit      Handgun\nIowa      12      7"
    )
    assert first_page_title(only({"table_body": rotated})) == "Seabird Counts November - 2031"
    # a page that is one table (a printout), its banner row run on: the title between the run's particulars
    banner = (
        "<table><tr><td colspan='3'>Bulletin RUN 12/3/2031 11:57:01 AM NORTHWIND COUNTY CLERK PRECINCT BULLETINS "
        "PAGE 1 JOB 0014 GENERAL ELECTION TO BE HELD 11/04/31</td></tr><tr><td>GOVERNOR</td><td>A 247</td>"
        "<td>B 69</td></tr></table>"
    )
    assert first_page_title(only({"table_body": banner})) == "NORTHWIND COUNTY CLERK PRECINCT BULLETINS"
    short_rows = "<table><tr><td>Item</td></tr><tr><td>Bolt</td></tr><tr><td>Nut</td></tr><tr><td>Cap</td></tr></table>"
    assert first_page_title(only({"table_body": short_rows})) is None, "a column of short cells is no title"


def test_a_word_in_capitals_is_an_acronym_only_where_the_text_sets_it_apart_from_capitals() -> None:
    assert mend("NORTHWIND COUNTY CLERK BULLETINS", "NORTHWIND COUNTY CLERK BULLETINS\nRUN 12/3") == (
        "Northwind County Clerk Bulletins"
    ), "a printout's capitals say nothing of how its words are cased"
    assert mend("NASA FIELD REPORT", "The field report NASA filed in May.") == "NASA Field Report"
    assert mend("ISU ICE DANCE", "ISU ICE DANCE") == "ISU ICE Dance", "a word of three letters stays an acronym"


def test_an_institutions_own_name_a_professor_in_a_title_and_acronyms_beside_acronyms_are_kept() -> None:
    from indexer.titles.first_page import opening_line_title
    from indexer.titles.lines import past_institution

    assert past_institution("UNIVERSITYOF NORTHWIND COASTAL SCHOOL OF ZOOLOGY SEABIRD FIELD METHODS") == (
        "SEABIRD FIELD METHODS"
    ), "a university, then its school: the title after them"
    for name in (
        "UNIVERSITY OF CALIFORNIA SAN DIEGO",  # one institution: where its name ends is not said
        "DEPARTMENT OF COMPUTER SCIENCE AND ENGINEERING",
        "HISTORY OF THE UNIVERSITY OF CHICAGO FROM ITS FOUNDING",
    ):
        assert past_institution(name) is None, name
    honour = "A Festschrift in Honour of Prof. Jane Roe"
    assert with_code(honour, [honour, "Essays by her students"]) == honour, "'Prof.' in a title is the title's"
    assert opening_line_title("Essays in Honor of Prof. Jane Roe on Her Retirement") == (
        "Essays in Honor of Prof. Jane Roe on Her Retirement"
    )
    assert mend("NIST SP 800-53 REVISION", "NIST SP 800-53 Revision 5 lists the controls.") == "NIST SP 800-53 Revision"
    assert (
        mend("FEMA HAZUS USER GUIDE", "FEMA HAZUS USER GUIDE\nFEMA HAZUS estimates losses.") == "FEMA HAZUS User Guide"
    )


def test_a_table_alone_on_page_one_gives_way_to_page_twos_title_and_a_banner_row_needs_a_printouts_marks() -> None:
    def table(page: int, body: str) -> dict:
        return {"type": "table", "page_idx": page, "bbox": [36, 22, 964, 400], "table_body": body}

    history = "<table><tr><td colspan='2'>Document Revision History</td></tr><tr><td>1.0</td><td>2031</td></tr></table>"
    guide = _line(1, 80, "Northwind Widget Installation Guide", 24)
    body = _line(1, 300, "This guide shows how to install the widget on a wall or a desk, step by step.", 10)
    assert first_page_title([table(0, history), guide, body]) == "Northwind Widget Installation Guide"
    assert first_page_title([table(0, history)]) == "Document Revision History", "with nothing after it"
    printout = "<table><tr><td>RUN 12/3/2031 11:57:01 AM NORTHWIND INVENTORY STATUS REPORT PAGE 1</td></tr></table>"
    assert first_page_title([table(0, printout)]) == "NORTHWIND INVENTORY STATUS REPORT"
    form = "<table><tr><td>Please return this form to the Registrar by 15 March 2031 with a copy</td></tr></table>"
    assert first_page_title([table(0, form)]) != "Please return this form to the Registrar by"


def test_a_function_word_in_capitals_is_no_acronym() -> None:
    assert (
        mend("THE SEABIRD GOLDRUSH IN INDIA", "THE SEABIRD GOLDRUSH IN INDIA\nRUN 1") == "The Seabird Goldrush in India"
    )
    assert mend("THE MGM STORY", "How MGM grew from one hotel.") == "The MGM Story"


def test_a_chapter_taken_out_of_a_report_is_titled_by_its_heading_over_two_lines_without_its_label() -> None:
    body = "The overview is structured around twelve tables drawn from the studies that came before it. " * 3
    page = [
        _line(0, 76, "CHAPTER 6 – AN OVERVIEW OF MARKET STRUCTURE BASED", 9),
        _line(0, 96, "UPON EXISTING SOURCES", 9),
        {**_line(0, 140, body, 9), "bbox": [100, 140, 900, 300]},
    ]
    assert first_page_title(page) == "AN OVERVIEW OF MARKET STRUCTURE BASED UPON EXISTING SOURCES"
    numbered = [_line(0, 76, "6 Market structure", 9), *page[2:]]
    assert first_page_title(numbered) is None, "a chapter's number alone is no label to take off"


def test_a_tables_caption_keeps_its_number_and_year_but_not_its_headnote() -> None:
    table = {
        "type": "table",
        "page_idx": 0,
        "bbox": [80, 100, 900, 480],
        "table_caption": [
            "Table 324. Arrests by Sex and Age: 2031 [In thousands. For year ending December 31. See text]"
        ],
        "table_body": "<table><tr><th>Offense</th><th>Total</th></tr><tr><td>Theft</td><td>12</td></tr></table>",
    }
    assert first_page_title([table]) == "Table 324. Arrests by Sex and Age: 2031"


def test_officials_named_with_their_roles_are_no_title() -> None:
    from indexer.titles.lines import reads_as_title

    assert not reads_as_title("Ann de Vries Mayor Bo P. O'Hara Police Commissioner")
    assert not reads_as_title("Jane Roe, Director")
    assert reads_as_title("Report of the Mayor on the Police")


def test_a_bulletins_title_field_states_its_title() -> None:
    def cell(left: int, top: int, right: int, text: str, size: float) -> dict:
        return {**_line(0, top, text, size), "bbox": [left, top, right, top + 15]}

    bulletin = [
        cell(660, 10, 950, "SERVICE", 29.5),
        cell(930, 240, 970, "E S S 0 R Y", 25),  # a word set down the margin, read letter by letter
        cell(50, 131, 110, "TITLE:", 7.5),
        cell(325, 132, 600, "Oversize Tire Accessory Kit", 10),
        cell(50, 190, 200, "MODELS AFFECTED:", 7.5),
        cell(325, 192, 570, "All Model AA-1 and AA-1A", 9),
    ]
    assert first_page_title(bulletin) == "Oversize Tire Accessory Kit"
    signer = [cell(50, 131, 110, "Title:", 9), cell(325, 132, 600, "Director", 9)]
    assert _title_field(signer) is None, "a signer's job title is no document's"


def test_of_lines_set_nearly_alike_the_one_that_names_a_kind_of_document_is_the_title() -> None:
    page = [
        {
            **_line(0, 113, "2031 Better Varieties Harvest Report for Northland Central", 9.5),
            "bbox": [106, 113, 627, 126],
        },
        {**_line(0, 114, "ALL SEASON TEST", 9, level=1), "bbox": [772, 114, 908, 124]},
        {**_line(0, 150, "Soil: clay loam, well drained, non-irrigated", 6), "bbox": [106, 150, 500, 158]},
    ]
    assert first_page_title(page) == "2031 Better Varieties Harvest Report for Northland Central"


def test_a_form_named_by_its_number_gets_the_name_its_page_prints() -> None:
    cover = [
        _line(0, 47, "U.S. Nonresident Heron Tax Return", 14, level=1),
        _line(0, 63, "Form", 6),
        _line(0, 46, "**1040HR**", 9),
        _line(0, 63, "**2031**", 9),
        _line(0, 74, "Department of the Treasury", 6),
        _line(0, 300, "Filing status and exemptions for individuals: check only one box below. " * 3, 7),
    ]
    blocks = [Block("text", "U.S. Nonresident Heron Tax Return", page=1)]
    assert stated_title(blocks, cover, "2031 Form 1040HR", paged=True) == (
        "2031 Form 1040HR — U.S. Nonresident Heron Tax Return"
    )
    report = [_line(0, 47, "Heron Counts 2031", 14, level=1), *cover[1:]]
    assert stated_title(blocks, report, "Heron Counts 2031", paged=True) == "Heron Counts 2031", "a name, not a number"


def test_a_word_under_the_table_that_opens_a_page_is_a_label_the_tables_heading_the_title() -> None:
    profile = "<table><tr><td>Heron Audit Profile</td><td></td></tr><tr><td>Country</td><td>Northland</td></tr></table>"
    page = [
        {"type": "table", "page_idx": 0, "bbox": [30, 188, 340, 321], "table_body": profile},
        {**_line(0, 333, "**Remediation**", 9), "bbox": [734, 333, 770, 344]},
        {**_line(0, 333, "**Findings**", 9), "bbox": [330, 333, 355, 344]},
    ]
    assert first_page_title(page) == "Heron Audit Profile"


def test_a_page_that_is_a_picture_of_text_is_titled_by_its_opening_lines_not_an_affiliation() -> None:
    scan = (
        "272\nExact Solutions for the General\nFifth-order Heron Models\nNotes\nAnn Lee and Bo Kim\n"
        "Department of Physics, Northland University,\nHeronville, Northland 712-702"
    )
    page = [{"type": "image", "page_idx": 0, "bbox": [0, 0, 1000, 1000], "text_layer": scan}]
    assert first_page_title(page) == "Exact Solutions for the General Fifth-order Heron Models"
    cover = "EMBARK ON\nYOUR JOURNEY WITH\nNORTHLAND BUSINESS SCHOOL\nBACHELOR OF BUSINESS ADMINISTRATION"
    page = [{"type": "image", "page_idx": 0, "bbox": [0, 0, 1000, 1000], "text_layer": cover}]
    assert first_page_title(page) == "NORTHLAND BUSINESS SCHOOL — BACHELOR OF BUSINESS ADMINISTRATION", "an issuer atop"
    table = "NORTHLAND\nSCHOOLING STATUS\nChildren currently attending school (%)\nPerson Male Female"
    page = [{"type": "image", "page_idx": 0, "bbox": [0, 0, 1000, 1000], "text_layer": table}]
    assert first_page_title(page) == "SCHOOLING STATUS", "a school named in a sentence is no issuer"


def test_a_page_drawn_as_a_picture_of_text_over_a_footer_is_titled_by_the_pictures_words() -> None:
    drawn = "Generalized Heron Decision\nRecords: Capturing the Essence of Decisions\nAnn Lee and Bo Kim\n" + (
        "Abstract. Records of decisions made while building software are kept in many forms. " * 4
    )
    page = [
        {"type": "image", "page_idx": 0, "bbox": [249, 139, 783, 791], "text_layer": drawn},
        {**_line(0, 864, "A. Roe (Ed.): 11th Heron Workshop, Northland, 2031", 7), "bbox": [264, 864, 766, 888]},
    ]
    assert first_page_title(page) == "Generalized Heron Decision Records: Capturing the Essence of Decisions"


def test_a_postal_address_under_a_name_is_no_subtitle_and_no_title() -> None:
    from indexer.titles.lines import names_address, reads_as_title

    addresses = (
        "2955Exchange Place Blvd,Suite 103 Heronburg,OH45342",
        "123 Main Street, Northland, WA 98052",
        "One Heron Square South, Anchor Road, Northtown, BS1 5HL",  # a street by its name, a British postcode
        "Ottawa, Ontario K1A 0B6, 24 Sussex Drive",
    )
    for address in addresses:
        assert names_address(address) and not reads_as_title(address), address
    titles = (
        "Route 66 Road Trip Guide",
        "The 7 Habits of Highly Effective People",
        "NIST SP 800-53 Rev. 5",
        "Main Street, Revisited",
        "The M25 Motorway Review: Junction 10 to 16 Upgrade",
    )
    for title in titles:
        assert not names_address(title), title
    letterhead = [
        _line(0, 19, "Integrative Heron Performance", 19.5),
        _line(0, 45, "2955 Exchange Place Blvd, Suite 103 Heronburg, OH 45342", 13.5),
        _line(0, 82, "Telephone: 937-433-0909", 8.5),
    ]
    assert first_page_title(letterhead) == "Integrative Heron Performance"


def test_a_record_of_a_day_is_no_line_of_what_the_document_is() -> None:
    cover = [
        _line(0, 37, "NORTHLAND GENERAL HOSPITAL", 10),
        _line(0, 229, "PATIENT INFORMATION Ann Lee March 15, 1978 PAT-3847-2031", 5.5),
        _line(0, 300, "Blood Pressure 142/88", 5),
    ]
    assert "PATIENT" not in (first_page_title(cover) or "")


def test_a_parts_label_is_titled_with_the_name_set_beside_it() -> None:
    body = "Heron engines listed below are to be designed, built, installed and tested as these rules say. " * 3
    page = [
        {**_line(0, 93, "SECTION 2", 12), "bbox": [54, 93, 206, 111]},
        {**_line(0, 94, "HERON ENGINES", 12), "bbox": [346, 94, 540, 111]},
        {**_line(0, 195, body, 9), "bbox": [54, 195, 450, 300]},
    ]
    assert first_page_title(page) == "SECTION 2 — HERON ENGINES"
    alone = [page[0], {**_line(0, 300, "Date: 12 May 2031", 12), "bbox": [346, 300, 540, 318]}, page[2]]
    assert first_page_title(alone) == "SECTION 2", "a line elsewhere on the page is not the label's name"


def test_a_pages_number_of_all_in_any_language_is_a_banner() -> None:
    from indexer.titles.lines import is_banner, reads_as_title

    for folio in ("ANEXO I-A-1 Página 12 de 14", "Seite 3 von 9", "Page 1 of 205"):
        assert is_banner(folio) and not reads_as_title(folio), folio
    assert not is_banner("Page Layout for Beginners"), "a page's word without its number is no banner"


def test_a_report_excerpt_nothing_else_names_is_titled_by_its_numbered_tables_caption() -> None:
    from indexer.titles.first_page import numbered_table_title

    table = {"type": "table", "page_idx": 0, "bbox": [87, 337, 913, 720], "table_body": "<table></table>"}
    text = {"type": "text", "page_idx": 0, "bbox": [86, 67, 329, 141], "text": "quarters had a disability in 2031."}
    numbered = {
        **table,
        "table_caption": ["Table 1. Prevalence of Heron Sightings: 2030 and 2031 [Numbers in thousands]"],
    }
    assert numbered_table_title([text, numbered]) == "Table 1. Prevalence of Heron Sightings: 2030 and 2031"
    assert numbered_table_title([text, {**table, "table_caption": ["Heron sightings by county"]}]) is None
    later = {**numbered, "page_idx": 1}
    assert numbered_table_title([text, later]) is None, "a table of a later page names no document"


def test_titles_that_look_like_an_address_or_a_role_stay_titles() -> None:
    from indexer.titles.lines import reads_as_title

    for title in (
        "Windows 11 Hard Drive Encryption Guide",
        "Route 66 Main Street Revitalization Plan",
        "Book 2 Visiting St. Petersburg",
        "EN 60601-1 Medical Electrical Equipment",
        "The One Minute Manager",
        "Certified Information Security Manager",
    ):
        assert reads_as_title(title), title


def test_a_masthead_set_near_the_titles_size_does_not_displace_it() -> None:
    body = "Memory consolidation turns what we learn today into what we keep for years to come, we argue. " * 3
    page = [
        _line(0, 40, "Annual Review of Heron Psychology", 18),
        _line(0, 90, "The Neuroscience of Memory Consolidation", 19.5),
        _line(0, 130, "Ann Lee and Bo Kim", 11),
        {**_line(0, 200, body, 9), "bbox": [100, 200, 900, 400]},
    ]
    assert first_page_title(page) == "The Neuroscience of Memory Consolidation"


def test_a_persons_job_title_field_is_no_documents_title() -> None:
    def cell(left: int, top: int, right: int, text: str, size: float) -> dict:
        return {**_line(0, top, text, size), "bbox": [left, top, right, top + 15]}

    form = [
        cell(300, 40, 700, "TRAVEL AUTHORIZATION REQUEST", 20),
        cell(50, 120, 110, "Name:", 9),
        cell(200, 120, 500, "Ann Lee", 9),
        cell(50, 140, 110, "Title:", 9),
        cell(200, 140, 500, "Senior Research Scientist", 9),
    ]
    assert first_page_title(form) == "TRAVEL AUTHORIZATION REQUEST"


def test_a_page_taken_out_of_a_work_is_named_by_the_running_head_beside_its_number() -> None:
    from indexer.titles.first_page import running_head_title

    head = {
        "type": "header",
        "page_idx": 0,
        "bbox": [317, 60, 786, 75],
        "text": "Heron Table Tokenization for Herons 9",
    }
    body = {"type": "text", "page_idx": 0, "bbox": [219, 149, 786, 191], "text": "order to compute the score. " * 5}
    assert running_head_title([head, body]) == "Heron Table Tokenization for Herons"
    assert running_head_title([{**head, "text": "Chapter 4 9"}, body]) is None, "a part's name, not the work's"
    assert running_head_title([{**head, "bbox": [317, 400, 786, 415]}, body]) is None, "not atop the page"


def test_a_running_heads_year_is_no_page_number() -> None:
    from indexer.titles.first_page import running_head_title

    head = {
        "type": "header",
        "page_idx": 0,
        "bbox": [100, 30, 900, 45],
        "text": "Northwind Traders - Annual Report 2031",
    }
    assert running_head_title([head]) is None, "a year beside a running head says which year, not which page"
    assert (
        running_head_title([{**head, "text": "78 Northwind Traders Annual Report"}])
        == "Northwind Traders Annual Report"
    )


def test_a_marking_of_the_copy_is_no_title_and_a_printed_exhibit_is_named_by_its_description() -> None:
    """An exhibit printed from EDGAR opens with its header (type, sequence, file, description) in the
    text's own size; "STRICTLY CONFIDENTIAL" underlined below it says how to keep the copy."""

    def line(y: int, text: str) -> dict:
        return {"type": "text", "page_idx": 0, "bbox": [57, y, 885, y + 14], "text": text, "font_size": 13.5}

    header = (
        "EX-10.17 3 ea190737ex10-17_northwind.htm AMENDMENT TO ENGAGEMENT LETTER, DATED OCTOBER 11, 2031, "
        "BETWEEN NORTHWIND TRADERS, INC. AND CONTOSO & CO., LLC"
    )
    body = "Reference is made to the engagement letter dated August 7, 2031, by and between the parties. " * 3
    items = [
        line(40, header),
        line(69, "**Exhibit 10.17**"),
        line(212, "<u>STRICTLY CONFIDENTIAL</u>"),
        line(300, body),
    ]
    assert first_page_title(items) == (
        "AMENDMENT TO ENGAGEMENT LETTER, DATED OCTOBER 11, 2031, BETWEEN NORTHWIND TRADERS, INC. AND CONTOSO & CO., LLC"
    )
    assert first_page_title([items[2], items[3]]) is None
    markings = (
        "STRICTLY PRIVATE AND CONFIDENTIAL",
        "Proprietary & Confidential",
        "Company Confidential",
        "CONFIDENTIALITY NOTICE",
        "Confidential — Do not distribute",
        "Execution Version",
    )
    for marking in markings:
        assert is_boilerplate(marking), marking
    assert not is_boilerplate("Confidentiality Agreement Guide")
    # A header whose description names only the exhibit does not displace the headline under it.
    for described in ("EXHIBIT 99.1", "PRESS RELEASE"):
        headed = [
            line(40, f"EX-99.1 2 ex99-1.htm {described}"),
            {
                "type": "text",
                "page_idx": 0,
                "bbox": [57, 120, 885, 150],
                "text": "Northwind Reports Record First Quarter 2031 Results",
                "font_size": 20.0,
            },
            line(300, body),
        ]
        assert first_page_title(headed) == "Northwind Reports Record First Quarter 2031 Results"


def test_a_paragraph_whose_spaces_were_lost_is_no_title() -> None:
    """OCR that ran a paragraph's words together reads as twenty "words": its length says it is text."""
    run_on = (
        "Portezcevieuxwhiskyaujuge blondquifumesursonile interieure,a cote del'alcove ovoide,ou lesbuchesse "
        "consument dansl'atre,ce qui luipermetdepenserala caenogenesedel'etredontil estquestiondanslacause "
        "ambigueentendueaMoy,dans un capharnaum qui,pense-t-il, diminuecaetlalaqualitedeson"
    )
    items = [
        {"type": "text", "page_idx": 0, "bbox": [197, 171, 847, 774], "text": run_on, "font_size": 9.0},
        {"type": "text", "page_idx": 0, "bbox": [195, 792, 339, 834], "text": "oeuvre.", "font_size": 5.5},
    ]
    assert first_page_title(items) is None
    cut = " ".join(run_on.split()[:11])  # the same run cut short: still words run together
    assert first_page_title([{**items[0], "text": cut}, items[1]]) is None
    long_words = "Bundesamt für Umweltschutz und Naturschutz: Jahresbericht über Landwirtschaftsförderung"
    assert first_page_title([{**items[0], "text": long_words}, items[1]]) == long_words, "long words are words"


# --- what a page's type says: headings' sizes, figures set large ----------------------------------


def _paragraph(top: int, text: str, size: float = 10.0) -> dict:
    return {"type": "text", "page_idx": 0, "bbox": [118, top, 880, top + 40], "text": text, "font_size": size}


def test_section_headings_set_larger_than_the_courses_name_are_not_its_title() -> None:
    """A word processor's syllabus: "Grading", "Textbook", "Attendance" each over its paragraph in
    13.5 pt, the course's name in 12 pt above them. The headings' size, repeated, is no title's."""
    items = [
        _line(0, 90, "Syllabus", 12.0, level=2),
        _line(0, 120, "GEOL 105 - Rocks and Minerals (3 Credits)", 12.0, level=2),
        _paragraph(150, "This is a 3 credit course for science majors. Topics covered include the rock cycle."),
    ]
    for k, heading in enumerate(("Grading", "Textbook", "Attendance Policy", "Field Trips")):
        items += [
            _line(0, 250 + 120 * k, heading, 13.5, level=2),
            _paragraph(
                280 + 120 * k, f"Students read the {heading.lower()} notes each week and hand in their work on time."
            ),
        ]
    assert first_page_title(items) == "GEOL 105 - Rocks and Minerals (3 Credits)"


def test_a_line_that_runs_on_is_no_subtitle() -> None:
    """Under "Introduction to GIS" (24 pt) the course codes in 20 pt break after "&": the line is a
    fragment of the next, so the title is not cut into "…: NRC 585 & GEOGRAPH 585 &" (and lost)."""
    items = [
        _line(0, 50, "SYLLABUS", 26.0),
        _line(0, 100, "Introduction to Hydrology", 24.0, level=1),
        _line(0, 150, "**GEO 301 & CIVIL 301 &**", 20.0),
        _line(0, 190, "ENV 597B & DATA 597B (4 credits)", 20.0, level=2),
        _paragraph(
            520, "This class serves as an introduction to hydrology, the science of water on and under the land. " * 2
        ),
    ]
    assert first_page_title(items) == "Introduction to Hydrology"


def test_figures_set_large_do_not_make_a_pages_type_speak() -> None:
    """A report's page of highlights: "3rd" and "~40% solar" in 45 pt, its name atop in the text's
    size. Figures are callouts, not a title's type: the page's type says nothing of its title, so
    its opening line names it."""
    items = [
        _line(0, 60, "Northern Coast Operations", 10.0),
        _paragraph(
            100, "We are investing to grow along the northern coast, where wind and solar now supply the region. " * 2
        ),
        {"type": "text", "page_idx": 0, "bbox": [114, 211, 318, 299], "text": "tonnes CO₂e/MWh 0.3", "font_size": 45.0},
        {"type": "text", "page_idx": 0, "bbox": [448, 211, 545, 286], "text": "3rd", "font_size": 45.0},
        {"type": "text", "page_idx": 0, "bbox": [683, 211, 873, 299], "text": "~40% solar", "font_size": 45.0},
        _paragraph(302, "share of the region's power produced by our plants as of 2023", 9.0),
    ]
    assert first_page_title(items) == "Northern Coast Operations"


def test_a_papers_title_set_like_its_headings_is_its_title() -> None:
    """The first line in the headings' size, above the text, is the title they are set like."""
    items = [
        _line(0, 40, "Technical Memorandum 2024-07", 9.0),
        _line(0, 80, "Flood Risk in Coastal Towns", 14.0),
        _paragraph(130, "We estimate the flood risk of forty coastal towns from tide gauges and elevation models."),
    ]
    for k, heading in enumerate(("Abstract", "Methods", "Results")):
        items += [
            _line(0, 250 + 150 * k, heading, 14.0),
            _paragraph(
                280 + 150 * k, f"The {heading.lower()} of the study are set out here in the words of its authors."
            ),
        ]
    assert first_page_title(items) == "Flood Risk in Coastal Towns"


def test_a_page_left_blank_on_purpose_names_nothing() -> None:
    for notice in (
        "**his page intentionally left blank.**",
        "This Page Intentionally Left Blank",
        "Page is intentionally blank",
    ):
        assert is_boilerplate(notice), notice
        assert first_page_title([_line(0, 477, notice, 12.0)]) is None
    assert not is_boilerplate("The Blank Page")


def test_a_chinese_line_that_holds_a_sentences_end_is_text() -> None:
    """OCR's line of a book's page, "实现。不论财富的社会形式如何，…。在": two sentences end inside it, so
    it is running text, not a title; a title with one mark or a comma in it still reads as one."""
    from indexer.titles.lines import reads_as_title

    assert not reads_as_title("实现。不论财富的社会形式如何，使用价值构成财富的物质。在")
    assert not reads_as_title("这是一个句子。后面还有文字！")
    assert reads_as_title("けいおん！公式ガイドブック"), "one mark inside a title is its own"
    assert reads_as_title("行政处罚决定书")
    assert reads_as_title("关于浙江菲达环保科技股份有限公司2015年年度报告中有关财务事项的说明")


def test_a_cells_comment_is_no_part_of_its_words() -> None:
    from indexer.titles.first_page import _cell_lines

    cell = "<table><tr><td><p><!-- draft note --><strong>Harbour Pilot</strong></p></td></tr></table>"
    assert _cell_lines(cell) == [("Harbour Pilot", True)]  # wholly bold, the comment aside


def test_a_long_title_the_page_sets_apart_may_end_in_an_abbreviation() -> None:
    """A paper's title in its largest type, or the parser's top-level heading, runs past twenty
    words and may end in a full stop ("… Roxb."); the same words as text are a sentence."""
    body = "Lupeol, epilupeol and beta-sitosterol were isolated from the extract of the leaves. " * 4
    long = (
        "Understanding the barriers to setting up a healthcare quality improvement process in resource-limited "
        "settings: a situational analysis at the Medical Department of a Central Hospital in Lilongwe"
    )
    items = [
        _line(0, 60, "Research Article", 9),
        _line(0, 100, long, 18, 1),
        _line(0, 200, "Jane Roe, Ann Lee and Bo Kim", 10),
        {**_line(0, 300, body, 10), "bbox": [100, 300, 900, 420]},
    ]
    assert first_page_title(items) == long
    plant = "Phytochemical and Biological investigations of Phoenix paludosa Roxb."
    items[1] = _line(0, 100, plant, 16, 1)
    assert first_page_title(items) == plant
    items[1] = _line(0, 100, plant, 10)  # set like the text: a sentence, not the title
    assert first_page_title(items) != plant


def test_a_web_page_printed_to_pdf_is_titled_by_the_title_its_browser_printed_atop_it() -> None:
    from indexer.titles.first_page import printed_page_title

    items = [
        {"type": "text", "page_idx": 0, "bbox": [33, 24, 73, 39], "text": "3/4/2031"},
        {"type": "text", "page_idx": 0, "bbox": [317, 24, 760, 39], "text": "Heron Lake Road to 12 Main St - Maps"},
        {"type": "image", "page_idx": 0, "bbox": [37, 47, 965, 349]},
        {"type": "text", "page_idx": 0, "bbox": [33, 960, 967, 975], "text": "https://maps.example.com/dir/Heron 1/2"},
    ]
    assert printed_page_title(items) == "Heron Lake Road to 12 Main St - Maps"
    assert printed_page_title(items[:3]) is None, "no address printed under it: no browser's page"
    items[0] = {**items[0], "text": "3/4/31, 10:15 AM"}  # a browser that prints the time too
    assert printed_page_title(items) == "Heron Lake Road to 12 Main St - Maps"


def test_a_line_that_numbers_its_page_of_all_is_the_pages_furniture_however_long() -> None:
    assert is_banner("Case 8:31-cv-01261-DOC-KES Document 40 Filed 08/05/31 Page 1 of 4 Page ID #:365")
    assert is_banner("Página 12 de 14")
    assert not is_banner("A Guide to the Twelve Pages of the Harbour Charter")


def test_an_invoice_is_named_by_the_number_its_number_field_gives() -> None:
    """A page whose title names only its kind ("INVOICE") takes the number its field sets under
    its label; a title that says more keeps what it says."""
    from indexer.models import ParsedDocument
    from indexer.structure.sections import build

    def box(text: str, bbox: list[int], size: float = 9.0) -> dict:
        return {"type": "text", "page_idx": 0, "bbox": bbox, "text": text, "font_size": size}

    items = [
        box("INVOICE", [46, 148, 179, 178], 24.0),
        box("Northwind Wholesale", [93, 193, 204, 204]),
        box("**Invoice Date**", [591, 146, 666, 157]),
        box("Jun 3, 2031", [591, 160, 658, 171]),
        box("**Invoice Number**", [591, 182, 688, 194]),
        box("Contoso Demo Inc.", [772, 147, 879, 159]),
        box("INV-0046", [591, 196, 646, 207]),
        box("Description", [51, 350, 121, 361]),
        box("Twelve heron feeders, delivered to the warehouse on the third of June.", [51, 370, 700, 381]),
    ]
    blocks = [Block("text", str(item["text"]).strip("*"), page=1) for item in items]
    parsed = ParsedDocument(blocks=blocks, items=items, paged=True, format=".pdf")
    assert build(parsed, fallback_title="file").title == "Contoso Demo Inc — Invoice INV-0046"
    assert with_trade_number("INVOICE", items) == "INVOICE INV-0046"
    assert with_trade_number("Quarterly Report", items) == "Quarterly Report"
    assert with_trade_number("Receipt", [box("Receipt No.: 2031-0042", [100, 100, 300, 110])]) == "Receipt 2031-0042"
    assert with_trade_number("Receipt", items[:4]) == "Receipt", "no number field"
    assert with_trade_number("Receipt:", [box("Receipt No.: 1001", [100, 100, 300, 110])]) == "Receipt 1001"
    dated = [box("Invoice Number:", [500, 100, 600, 110]), box("2031-04-12", [500, 120, 560, 130])]
    assert with_trade_number("Invoice", dated) == "Invoice", "a date under the label is no number"
    assert with_trade_number("Invoice", [*dated, box("A-77", [650, 100, 700, 110])]) == "Invoice A-77"

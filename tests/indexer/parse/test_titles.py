"""Document titles: a filing's cover page names it, any other PDF the title set on its first
page; metadata placeholders and boilerplate lines do not."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from indexer.library import Library
from indexer.models import Block
from indexer.parse.filing_cover import cover_title
from indexer.parse.titles import metadata_title_ok

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
        [("FOR RELEASE MARCH 4, 2031", 9), ("Families Keep in Touch", 28), ("Across Long Distances", 28),
         ("BY Ada Lovelace and Alan Turing", 11), ("www.example.org", 9)],
        body,
    )
    _first_page(folder / "notes_2031.pdf", [], body)  # nothing set as a title: the file name stays
    lib = open_library(folder)
    lib.reconcile()
    titles = {d.path: d.title for d in lib.toc().documents}
    assert titles == {
        "5f0c2a9e41d8b7c3a6e2f1d0c9b8a7e6.pdf": "Families Keep in Touch Across Long Distances",
        "notes_2031.pdf": "notes 2031",
    }

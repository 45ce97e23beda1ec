"""Document titles: a filing's cover page names it; metadata placeholders do not."""

from __future__ import annotations

from indexer.models import Block
from indexer.parse.titles import cover_title, metadata_title_ok

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

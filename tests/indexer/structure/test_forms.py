"""A form's questions and answers kept apart (`indexer.structure.forms`): each question with its
check boxes one paragraph, in text as a filing's cover prints it and through the real parser."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF

from indexer.models import Block, ParsedDocument
from indexer.parse.formats import DocumentParser
from indexer.structure.forms import keep_answers_apart, split_answers
from indexer.structure.sections import build
from tests.indexer.parse.conftest import parse, parser  # noqa: F401 (the real parser, a fixture)

# A 10-K's cover as a PDF parser reads it: three questions and their answers in one block.
COVER = (
    "Indicate by check mark if the registrant is a well-known seasoned issuer, as defined in Rule 405 of the "
    "Securities Act. Yes ☒ No ☐ Indicate by check mark if the registrant is not required to file reports "
    "pursuant to Section 13 or Section 15(d) of the Act. Yes ☐ No ☒ Indicate by check mark whether the "
    "registrant is a shell company (as defined in Rule 12b-2 of the Act). Yes ☐ No ☒ The aggregate market "
    "value of the registrant's common stock held by non-affiliates was $159.00 billion."
)


def test_questions_run_together_are_cut_after_each_answer() -> None:
    assert split_answers(COVER) == [
        (
            "Indicate by check mark if the registrant is a well-known seasoned issuer, as defined in Rule 405 of the "
            "Securities Act. Yes ☒ No ☐"
        ),
        (
            "Indicate by check mark if the registrant is not required to file reports pursuant to Section 13 or "
            "Section 15(d) of the Act. Yes ☐ No ☒"
        ),
        (
            "Indicate by check mark whether the registrant is a shell company (as defined in Rule 12b-2 of the Act). "
            "Yes ☐ No ☒"
        ),
        "The aggregate market value of the registrant's common stock held by non-affiliates was $159.00 billion.",
    ]


def test_a_box_with_no_label_answers_the_question_before_it() -> None:
    text = (
        "If an emerging growth company, indicate by check mark if the registrant has elected not to use the "
        "extended transition period. ☐ Indicate by check mark whether the registrant is a shell company. Yes ☐ No ☒"
    )
    assert split_answers(text) == [
        (
            "If an emerging growth company, indicate by check mark if the registrant has elected not to use the "
            "extended transition period. ☐"
        ),
        "Indicate by check mark whether the registrant is a shell company. Yes ☐ No ☒",
    ]


def test_options_stay_with_their_question() -> None:
    """Options of a few words, and options whose long label follows the box: the words cannot tell
    where such a label ends, so they stay together."""
    filers = "Large accelerated filer ☒ Accelerated filer ☐ Non-accelerated filer ☐ Smaller reporting company ☐"
    assert split_answers(filers) == [filers]
    mark_one = (
        "(Mark One) ☒ ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934 "
        "☐ TRANSITION REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934"
    )
    assert split_answers(mark_one) == [mark_one]
    plans = "Select your plan. ☐ Basic plan, billed every month. ☐ Premium plan, billed once a year."
    assert split_answers(plans) == [plans]


def test_text_without_a_forms_boxes_is_unchanged() -> None:
    """Squares and ticks that serve as bullets, and "[ ]" as a blank to fill in, are not answers."""
    for text in (
        "□ Replace the filter. Then run the pump for five minutes before you open the valve again.",
        "✓ Fast setup ✓ Works offline The device pairs with any phone in a few seconds of holding it close.",
        (
            "You have been awarded an option as follows: Your name: [ ] Date of Grant: [ ] Grant ID: [ ] "
            "The option vests over four years from the date of grant."
        ),
        "Results are shown in Table 2. The model (a) outperforms both baselines [12] and the ablation.",
    ):
        assert split_answers(text) == [text]


def test_an_answer_that_opens_a_block_goes_back_to_its_question() -> None:
    """The parser cut between a question's options ("… Act. Yes ☒" | "No ☐ Indicate …") or set the
    options under their question as a block of their own."""
    blocks = [
        Block("text", "Indicate by check mark if the registrant is a well-known seasoned issuer. Yes ☒", page=0),
        Block("text", "No ☐ Indicate by check mark whether the registrant is a shell company. Yes ☐ No ☒", page=0),
        Block("text", "Indicate by check mark whether the registrant is an emerging growth company.", page=0),
        Block("text", "Emerging growth company ☐", page=0),
        Block("table", "| Yes ☐ | No ☒ |", page=0),
        Block("text", "No ☐ answers on the next page stay where they are", page=1),
    ]
    assert [(b.kind, b.text) for b in keep_answers_apart(blocks)] == [
        ("text", "Indicate by check mark if the registrant is a well-known seasoned issuer. Yes ☒ No ☐"),
        ("text", "Indicate by check mark whether the registrant is a shell company. Yes ☐ No ☒"),
        (
            "text",
            "Indicate by check mark whether the registrant is an emerging growth company. Emerging growth company ☐",
        ),
        ("table", "| Yes ☐ | No ☒ |"),
        ("text", "No ☐ answers on the next page stay where they are"),
    ]


def test_a_cover_page_is_one_paragraph_per_question() -> None:
    blocks = [Block("heading", "FORM 10-K", level=1, page=0), Block("text", COVER, page=0)]
    structure = build(ParsedDocument(blocks=blocks, n_pages=1), fallback_title="cover")
    texts = [p.text for p in structure.paragraphs]
    assert len(texts) == 4
    assert texts[2].startswith("Indicate by check mark whether the registrant is a shell company")
    assert texts[2].endswith("Yes ☐ No ☒")


def test_a_pdf_forms_questions_are_read_apart(parser: DocumentParser, tmp_path: Path) -> None:  # noqa: F811
    """A form printed with "[X]" boxes, read by the real parser: its lines run its questions together
    in one block (and the text layer reads one "[ ]" as "[]"); each question and answer is a paragraph."""
    pdf = FPDF(format="letter", unit="pt")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", size=16)
    pdf.set_xy(72, 72)
    pdf.cell(468, 20, "Application for a Fishing Licence", align="C")
    pdf.set_font("Helvetica", size=10)
    pdf.set_xy(72, 120)
    pdf.multi_cell(
        468,
        13,
        "Indicate by check mark whether the applicant has held a fishing licence in this state before. "
        "Yes [X] No [ ] Indicate by check mark whether the applicant has been fined under the fisheries act "
        "in the last five years. Yes [ ] No [X] Indicate by check mark whether the applicant will fish from "
        "a boat registered in the applicant's own name. Yes [X] No [ ]",
    )
    path = tmp_path / "licence.pdf"
    pdf.output(str(path))
    texts = [p.text for p in parse(parser, path).paragraphs]
    fined = [t for t in texts if "fined" in t]
    assert len(fined) == 1 and fined[0].startswith("Indicate by check mark whether the applicant has been fined")
    assert fined[0].replace("[]", "[ ]").endswith("Yes [ ] No [X]")
    assert any(t.startswith("Indicate by check mark whether the applicant has held") and "No [" in t for t in texts)

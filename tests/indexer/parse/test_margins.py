"""A transcript's margin line numbers, read by the real parser: out of the text, the text's own
headings and paragraphs kept (`indexer.parse.margins`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fpdf import FPDF

from indexer.parse.formats import DocumentParser
from tests.conftest import CORPORA
from tests.indexer.parse.conftest import parse

TURNS = [
    ("P R O C E E D I N G S", "centre"),
    ("(1:01 p.m.)", "centre"),
    ("CHIEF JUSTICE ROBERTS: We will hear argument first", "turn"),
    ("today in Case 07-1315, Knowles versus Mirzayance.", "line"),
    ("Mr. Mercer.", "line"),
    ("ORAL ARGUMENT OF STEVEN E. MERCER", "centre"),
    ("ON BEHALF OF THE PETITIONER", "centre"),
    ("MR. MERCER: Mr. Chief Justice, and may it please", "turn"),
    ("the Court:", "line"),
    ("The court of appeals in this case failed to", "turn"),
    ("apply the deferential standard of review that the", "line"),
    ("statute requires. It held that counsel was", "line"),
    ("ineffective for advising the respondent to abandon", "line"),
    ("a defense that had almost no chance of success.", "line"),
    ("JUSTICE STEVENS: May I ask you a question", "turn"),
    ("about the record before we go further?", "line"),
    ("MR. MERCER: Certainly, Justice Stevens.", "turn"),
    ("JUSTICE STEVENS: The jury had already found", "turn"),
    ("him guilty of first-degree murder at the first phase", "line"),
    ("of the trial, had it not?", "line"),
    ("MR. MERCER: That is correct, and the insanity", "turn"),
    ("phase was to follow.", "line"),
    ("JUSTICE GINSBURG: And the parents were to", "turn"),
    ("testify in that phase.", "line"),
    ("MR. MERCER: They were, Your Honor.", "turn"),
]


def transcript(path: Path, pages: int = 2, numbered: bool = True) -> Path:
    """Pages of 25 double-spaced lines, numbered 1–25 down the left margin (as a court reporter sets them)."""
    pdf = FPDF(format="letter", unit="pt")
    pdf.set_auto_page_break(False)
    for page in range(pages):
        pdf.add_page()
        for i, (text, how) in enumerate(TURNS, 1):
            y = 60 + (i - 1) * 26
            if numbered:
                pdf.set_font("Courier", size=10)
                pdf.set_xy(60, y)
                pdf.cell(20, 14, str(i), align="R")
            pdf.set_font("Courier", size=12)
            if how == "centre":
                pdf.set_xy(100, y)
                pdf.cell(430, 14, text, align="C")
            else:
                pdf.set_xy(136 if how == "turn" else 100, y)
                pdf.cell(430, 14, text)
        pdf.set_font("Courier", size=10)
        pdf.set_xy(290, 730)
        pdf.cell(30, 12, str(page + 3), align="C")
    pdf.output(str(path))
    return path


def test_margin_line_numbers_are_not_read_into_the_text(parser: DocumentParser, tmp_path: Path) -> None:
    doc = parse(parser, transcript(tmp_path / "transcript.pdf"))
    texts = [p.text for p in doc.paragraphs] + [s.title for s in doc.sections]
    # Each speaker's turn is a paragraph of its own, opening with the speaker, no line number in it.
    assert "MR. MERCER: Mr. Chief Justice, and may it please the Court:" in texts
    assert "JUSTICE STEVENS: May I ask you a question about the record before we go further?" in texts
    assert any(t.startswith("CHIEF JUSTICE ROBERTS: We will hear argument first today in Case 07-1315") for t in texts)
    joined = " ".join(texts)
    for number in range(2, 26):
        assert f" {number} " not in f" {joined} ".replace("07-1315", ""), number
    assert [s.title for s in doc.sections[1:]] == []  # no line turned into a numbered heading


def test_a_numbered_list_keeps_its_numbers(parser: DocumentParser, tmp_path: Path) -> None:
    """Numbers at the text's own edge, a word space from their line, are the text's (a list), not a margin's."""
    pdf = FPDF(format="letter", unit="pt")
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    for i in range(1, 16):
        pdf.set_xy(72, 60 + i * 24)
        pdf.cell(400, 14, f"{i} Replace filter cartridge number {i * 7} before the season starts")
    path = tmp_path / "steps.pdf"
    pdf.output(str(path))
    doc = parse(parser, path)
    text = " ".join([s.title for s in doc.sections] + [p.text for p in doc.paragraphs])
    assert "1 Replace filter cartridge number 7" in text
    assert "12 Replace filter cartridge number 84" in text


@pytest.mark.skipif(
    not (CORPORA / "pdfplumber" / "scotus-transcript-p1.pdf").exists(), reason="needs ../shared/corpora"
)
def test_a_supreme_court_transcript_reads_without_its_margin_numbers(parser: DocumentParser) -> None:
    """pdfplumber's scotus-transcript-p1.pdf: its 25 margin numbers were read into its lines ("7 ALEXANDRE
    MIRZAYANCE."), alone ("20 21 22 23 24 25") and as a numbered heading ("8 - - - - x")."""
    doc = parse(parser, CORPORA / "pdfplumber" / "scotus-transcript-p1.pdf")
    assert [s.title for s in doc.sections[1:]] == []
    lines = [line for p in doc.paragraphs for line in p.text.split("\n")]
    assert "ALEXANDRE MIRZAYANCE." in lines
    assert not [line for line in lines if re.fullmatch(r"[\d ]+", line)]
    assert not [line for line in lines if re.match(r"\d{1,2} [A-Za-z-]", line)]

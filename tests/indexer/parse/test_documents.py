"""PDF and office files through MinerU: real files built here, the real parser in its child process."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fpdf import FPDF

from indexer.errors import ParseError
from indexer.library import Library
from indexer.models import DocumentStructure
from indexer.parse.formats import DocumentParser
from tests.conftest import BENCH
from tests.indexer.parse.conftest import parse

LOREM = (
    "The committee reviewed the quarterly results and approved the budget for the coming year. "
    "Revenue grew in every region, while operating costs stayed flat compared with last year. "
)


class Report(FPDF):
    """A small annual report: running header and footer, numbered headings, an outline."""

    def header(self) -> None:
        self.set_font("Helvetica", size=8)
        self.cell(0, 6, "Northwind Traders - Annual Report 2024", align="C")
        self.ln(10)

    def footer(self) -> None:
        self.set_y(-12)
        self.set_font("Helvetica", size=8)
        self.cell(0, 6, f"Page {self.page_no()}", align="C")


def heading(pdf: Report, title: str, level: int, outline: bool) -> None:
    if outline:
        pdf.start_section(title, level=level)
    pdf.set_font("Helvetica", style="B", size=16 - 2 * level)
    pdf.multi_cell(0, 9, title)
    pdf.ln(2)


def prose(pdf: Report, text: str) -> None:
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, text)
    pdf.ln(3)


def make_report(path: Path, outline: bool = True) -> Path:
    pdf = Report()
    pdf.add_page()
    heading(pdf, "1 Introduction", 0, outline)
    prose(pdf, "Northwind Traders sells specialty foods. " + LOREM * 3)
    heading(pdf, "2 Results", 0, outline)
    heading(pdf, "2.1 Revenue by region", 1, outline)
    prose(pdf, "Revenue by region is shown in the table below. " + LOREM * 2)
    pdf.set_font("Helvetica", size=10)
    with pdf.table(col_widths=(60, 40, 40)) as table:  # long enough to run onto the next page
        for row in [("Region", "2023", "2024")] + [(f"Region {i:02d}", f"{100 + i}", f"{120 + i}") for i in range(40)]:
            cells = table.row()
            for value in row:
                cells.cell(value)
    pdf.ln(4)
    heading(pdf, "2.2 Costs", 1, outline)
    prose(pdf, LOREM * 2)
    pdf.image(_chart(path.parent / ".chart.png"), w=90)  # hidden: a picture beside it would be a document too
    pdf.set_font("Helvetica", style="I", size=9)
    pdf.multi_cell(0, 5, "Figure 1: Operating costs by quarter stayed flat.")
    pdf.ln(3)
    heading(pdf, "3 Outlook", 0, outline)
    prose(pdf, "The board expects modest growth next year. " + LOREM * 2)
    pdf.output(str(path))
    return path


GUIDE_OUTLINE = [(1, "Getting Started"), (2, "Unpacking"), (2, "First Charge"), (1, "Daily Use"), (2, "Cleaning")]


def make_guide(path: Path) -> Path:
    """Unnumbered headings, no outline: only the type size tells a chapter from a section,
    and a small bold chart title from either."""
    pdf = FPDF()
    for chapter, sections in (("Getting Started", ("Unpacking", "First Charge")), ("Daily Use", ("Cleaning",))):
        pdf.add_page()
        pdf.set_font("Helvetica", style="B", size=20)
        pdf.multi_cell(0, 10, chapter, new_x="LMARGIN", new_y="NEXT")
        for section in sections:
            pdf.set_font("Helvetica", style="B", size=14)
            pdf.multi_cell(0, 8, section, new_x="LMARGIN", new_y="NEXT")
            prose(pdf, LOREM * 3)
            pdf.set_font("Helvetica", style="B", size=8)
            pdf.multi_cell(0, 5, f"Share of owners who read {section.lower()} first", new_x="LMARGIN", new_y="NEXT")
            prose(pdf, LOREM)
    pdf.output(str(path))
    return path


def _chart(path: Path) -> str:
    """A bar chart as a PNG, drawn with Pillow: its labels exist only as pixels."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (600, 340), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=26)
    draw.text((60, 8), "Warehouse costs", fill="black", font=font)
    for i, height in enumerate((120, 150, 140, 145)):
        draw.rectangle((60 + i * 130, 280 - height, 140 + i * 130, 280), fill=(40, 90, 160))
        draw.text((80 + i * 130, 292), f"Q{i + 1}", fill="black", font=font)
    image.save(path)
    return str(path)


def tree(s: DocumentStructure) -> list[tuple[int, str]]:
    return [(sec.level, sec.title) for sec in s.sections[1:]]


@pytest.mark.slow
def test_pdf_headings_pages_tables_and_running_header(parser: DocumentParser, tmp_path: Path) -> None:
    s = parse(parser, make_report(tmp_path / "report.pdf"))
    assert tree(s) == [
        (1, "1 Introduction"),
        (1, "2 Results"),
        (2, "2.1 Revenue by region"),
        (2, "2.2 Costs"),
        (1, "3 Outlook"),
    ]
    assert s.n_pages and s.n_pages >= 2
    texts = [p.text for p in s.paragraphs]
    assert not any("Annual Report 2024" in t for t in texts), "the running header is dropped"
    assert not any(t.strip().startswith("Page ") for t in texts), "page numbers are dropped"
    tables = [p for p in s.paragraphs if p.kind == "table"]
    assert len(tables) == 1, [p.text[:80] for p in s.paragraphs]
    assert "Region 00" in tables[0].text and "Region 39" in tables[0].text, "the table spanning a page break is whole"
    assert tables[0].page_end == tables[0].page + 1, "and cites both its pages"
    assert all(p.page is not None and 1 <= p.page <= s.n_pages for p in s.paragraphs)
    assert all(
        p.bbox and 0 <= p.bbox[0] < p.bbox[2] <= 1000 and 0 <= p.bbox[1] < p.bbox[3] <= 1000 for p in s.paragraphs
    )
    figure = next(p for p in s.paragraphs if "Figure 1" in p.text)
    assert figure.kind == "figure" and figure.text.startswith("Figure 1: Operating costs"), (figure.kind, figure.text)
    assert "Warehouse costs" in figure.text and "Q4" in figure.text, f"OCR reads the chart's labels: {figure.text!r}"
    assert figure.sec_id == next(sec.sec_id for sec in s.sections if sec.title == "2.2 Costs")
    outlook = next(sec for sec in s.sections if sec.title == "3 Outlook")
    assert outlook.page_start and outlook.page_start >= 2 and outlook.page_end == s.n_pages
    assert s.title == "report", "a numbered first heading is not the document's title"


@pytest.mark.slow
def test_pdf_without_outline_gets_depth_from_numbering(parser: DocumentParser, tmp_path: Path) -> None:
    s = parse(parser, make_report(tmp_path / "plain.pdf", outline=False))
    assert [lvl for lvl, _ in tree(s)] == [1, 1, 2, 2, 1]


def test_pdf_without_numbers_or_outline_gets_depth_from_type_size(parser: DocumentParser, tmp_path: Path) -> None:
    s = parse(parser, make_guide(tmp_path / "guide.pdf"))
    assert tree(s) == GUIDE_OUTLINE, "bigger type is shallower; an 8 pt title under 11 pt text is no section"
    assert any(p.text.startswith("Share of owners who read") for p in s.paragraphs)


def scan_of(pdf_path: Path, path: Path) -> Path:
    """The PDF's pages as images only, as a scanner makes them: no text layer at all."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(pdf_path))
    pages = [pdf[i].render(scale=200 / 72).to_pil().convert("RGB") for i in range(len(pdf))]
    pdf.close()
    pages[0].save(path, save_all=True, append_images=pages[1:], resolution=200)
    return path


@pytest.mark.slow
def test_scanned_pdf_is_read_by_ocr(parser: DocumentParser, tmp_path: Path) -> None:
    scan = scan_of(make_guide(tmp_path / "guide.pdf"), tmp_path / "guide-scan.pdf")
    import pypdfium2 as pdfium

    assert not pdfium.PdfDocument(str(scan))[0].get_textpage().get_text_range().strip(), "a scan has no text layer"
    s = parse(parser, scan)
    assert tree(s) == GUIDE_OUTLINE, "the born-digital guide's outline: headings and depth from the letters' size"
    text = " ".join(p.text for p in s.paragraphs)
    assert "The committee reviewed the quarterly results and approved the budget" in text, "spaces put back"
    assert {p.page for p in s.paragraphs} == {1, 2}, "OCR text keeps its page"


@pytest.mark.slow
def test_a_page_without_text_layer_in_a_text_pdf_is_read_by_ocr(parser: DocumentParser, tmp_path: Path) -> None:
    picture = _daily_use_picture(tmp_path)
    pdf = FPDF()
    pdf.add_page()
    heading(pdf, "Overview", 0, outline=False)
    prose(pdf, "Northwind Traders sells specialty foods. " + LOREM)
    pdf.add_page()
    pdf.image(str(picture), x=0, y=0, w=pdf.w, h=pdf.h)  # a scanned page bound into the report
    mixed = tmp_path / "mixed.pdf"
    pdf.output(str(mixed))

    s = parse(parser, mixed)
    assert [title for _, title in tree(s)] == ["Overview", "Daily Use", "Cleaning"]
    second = [p for p in s.paragraphs if p.page == 2]
    assert any("The committee reviewed the quarterly results" in p.text for p in second), [p.text for p in second]
    assert not any(p.kind == "figure" for p in second), "the page's picture gives way to its text"


def _daily_use_picture(tmp_path: Path) -> Path:
    """The guide's second page ("Daily Use") as pixels, as a scanner makes it."""
    import pypdfium2 as pdfium

    guide = pdfium.PdfDocument(str(make_guide(tmp_path / "guide.pdf")))
    picture = tmp_path / "daily-use.png"
    guide[1].render(scale=200 / 72).to_pil().save(picture)
    guide.close()
    return picture


def _scan_under_a_line(tmp_path: Path, line: str, y: float) -> Path:
    """A PDF whose page is the guide's second page as pixels, under one line of text at `y` mm."""
    picture = _daily_use_picture(tmp_path)
    pdf = FPDF()
    pdf.add_page()
    pdf.image(str(picture), x=0, y=0, w=pdf.w, h=pdf.h)
    pdf.set_font("Helvetica", size=9)
    pdf.set_xy(20, y)
    pdf.cell(text=line)
    out = tmp_path / "stamped.pdf"
    pdf.output(str(out))
    return out


def test_a_scan_under_a_stamp_is_told_from_words_over_a_background_picture(tmp_path: Path) -> None:
    from indexer.parse.pdf_layers import check_pdf, pages_by_text_layer

    stamp = "Case 31-0042   Document 17   Filed 10/31/2031   Page 1 of 1"
    stamped = _scan_under_a_line(tmp_path, stamp, 5)
    assert pages_by_text_layer(str(stamped))[0] == [0], "a filing stamp over a scan: its words are in the picture"
    assert check_pdf(str(stamped))[2], "a PDF of such pages is a scan"
    slide = _scan_under_a_line(tmp_path, "Quarterly results for the whole of the year", 120)
    assert pages_by_text_layer(str(slide))[0] == [], "a slide's words over its background picture are its text"


@pytest.mark.slow
def test_a_scan_stored_in_layers_is_one_picture(parser: DocumentParser, tmp_path: Path) -> None:
    """An OCR'd scan whose picture is drawn four times at one place (a picture and its masks): its
    words are indexed once, not once a layer."""
    from fpdf.enums import TextMode

    picture = _daily_use_picture(tmp_path)
    pdf = FPDF()
    pdf.add_page()
    for _ in range(4):
        pdf.image(str(picture), x=0, y=0, w=pdf.w, h=pdf.h)
    pdf.set_font("Helvetica", size=11)
    pdf.text_mode = TextMode.INVISIBLE  # the words OCR put under the picture
    pdf.set_xy(20, 30)
    words = "The committee reviewed the quarterly results and approved the budget for the coming year. "
    pdf.multi_cell(170, 6, text="Daily Use\n" + words * 3)
    layered = tmp_path / "layered.pdf"
    pdf.output(str(layered))
    s = parse(parser, layered)
    said = [p for p in s.paragraphs if "The committee reviewed the quarterly results" in p.text]
    assert len(said) == 1, [p.text[:60] for p in s.paragraphs]


@pytest.mark.slow
def test_a_scanned_page_under_a_filing_stamp_is_read_by_ocr(parser: DocumentParser, tmp_path: Path) -> None:
    stamp = "Case 31-0042   Document 17   Filed 10/31/2031   Page 1 of 1"
    s = parse(parser, _scan_under_a_line(tmp_path, stamp, 5))
    text = " ".join(p.text for p in s.paragraphs)
    assert "The committee reviewed the quarterly results" in text, "the scan's words, not only the stamp's"
    assert not any(p.kind == "figure" for p in s.paragraphs), "the page's picture gives way to its text"


@pytest.mark.slow
def test_bad_pdfs_fail_with_a_reason(parser: DocumentParser, tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.pdf"
    corrupt.write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 20)
    with pytest.raises(ParseError, match="not a readable PDF"):
        parse(parser, corrupt)

    blank_scan = tmp_path / "scan.pdf"
    from PIL import Image

    Image.new("RGB", (850, 1100), "white").save(blank_scan)
    with pytest.raises(ParseError, match=r"no text found \(OCR read 1 page, and no words in it\)"):
        parse(parser, blank_scan)

    locked = tmp_path / "locked.pdf"
    pdf = FPDF()
    pdf.set_encryption(owner_password="owner", user_password="secret")
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.cell(0, 10, "Secret numbers")
    pdf.output(str(locked))
    with pytest.raises(ParseError, match="encrypted PDF"):
        parse(parser, locked)


def test_docx_headings_lists_and_tables(parser: DocumentParser, tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Course Syllabus", level=0)
    document.add_heading("Grading", level=1)
    document.add_paragraph("Grades are based on homework and two exams.")
    table = document.add_table(rows=3, cols=2)
    for row, (item, weight) in zip(
        table.rows, [("Homework", "40%"), ("Midterm", "25%"), ("Final", "35%")], strict=True
    ):
        row.cells[0].text, row.cells[1].text = item, weight
    document.add_heading("Late work", level=2)
    document.add_paragraph("Late homework loses ten percent per day.")
    document.add_heading("Schedule", level=1)
    document.add_paragraph("Week 1: introduction", style="List Bullet")
    document.add_paragraph("Week 2: probability", style="List Bullet")
    path = tmp_path / "syllabus.docx"
    document.save(str(path))

    s = parse(parser, path)
    assert s.title == "Course Syllabus"
    assert tree(s) == [(1, "Grading"), (2, "Late work"), (1, "Schedule")]
    kinds = {p.kind for p in s.paragraphs}
    assert {"table", "text"} <= kinds
    table_text = next(p.text for p in s.paragraphs if p.kind == "table")
    assert "Midterm" in table_text and "35%" in table_text
    assert all(p.page is None for p in s.paragraphs), "DOCX has no real pages"


def test_docx_list_paragraphs_are_not_sections(parser: DocumentParser, tmp_path: Path) -> None:
    """MinerU makes a numbered list interleaved with text (and on two levels) into headings;
    those items, a run of "Exam 1: 25%" headings and a bulleted link line are not sections."""
    import docx

    def numbered(text: str, ilvl: int) -> None:
        paragraph = document.add_paragraph(text, style="List Paragraph")
        num_pr = paragraph._p.get_or_add_pPr().get_or_add_numPr()
        num_pr.get_or_add_ilvl().val = ilvl
        num_pr.get_or_add_numId().val = 5  # the template's "List Number" list

    document = docx.Document()
    document.add_heading("Course Syllabus", level=0)
    document.add_heading("Learning goals", level=1)
    document.add_paragraph("By the end of the course students will be able to do the following things.")
    numbered("The course should cover the fundamental principles of science.", 0)
    document.add_paragraph("We cover the basic principles of nutrition science in every lecture.")
    numbered("The course should include critical thinking.", 0)
    document.add_paragraph("Students analyse nutrient data in discussion sections.")
    numbered("Complete the weekly discussion activities on time.", 1)
    numbered("Review assignments with other students.", 1)
    document.add_paragraph("Discussion sections meet every Friday.")
    document.add_heading("Grading", level=1)
    document.add_paragraph("Grades are based on homework and two exams.")
    for line in ["Exam 1: 25%", "Exam 2: 25%", "Final exam: 50%"]:
        document.add_heading(line, level=2)
    document.add_paragraph("Exams are held in the lecture hall.")
    document.add_heading("Resources", level=1)
    document.add_heading("• Writing Center - http://www.example.edu/writing", level=2)
    document.add_paragraph("Visit them early in the semester.")
    path = tmp_path / "goals.docx"
    document.save(str(path))

    s = parse(parser, path)
    assert tree(s) == [(1, "Learning goals"), (1, "Grading"), (1, "Resources")]
    texts = [p.text for p in s.paragraphs]
    assert any("critical thinking" in t for t in texts) and any("Exam 2: 25%" in t for t in texts), "kept as text"


def test_pptx_slides_are_pages(parser: DocumentParser, tmp_path: Path) -> None:
    from pptx import Presentation

    deck = Presentation()
    for title, body in [("Quarterly review", "Revenue up 12 percent"), ("Next steps", "Hire two engineers in Lisbon")]:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
    path = tmp_path / "review.pptx"
    deck.save(str(path))
    s = parse(parser, path)
    lisbon = next(p for p in s.paragraphs if "Lisbon" in p.text)
    assert lisbon.page == 2, "a slide's number is its page"
    assert any(sec.title == "Next steps" for sec in s.sections)


def test_xlsx_sheets_become_tables(parser: DocumentParser, tmp_path: Path) -> None:
    import openpyxl

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Inventory"
    for row in [("Part", "Count"), ("XJ-2231", 14), ("KP-0007", 3)]:
        sheet.append(row)
    path = tmp_path / "stock.xlsx"
    workbook.save(str(path))
    s = parse(parser, path)
    assert any(p.kind == "table" and "XJ-2231" in p.text for p in s.paragraphs)


@pytest.mark.slow
def test_a_folder_of_pdfs_is_indexed_and_cached(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    make_report(folder / "report.pdf")
    (folder / "broken.pdf").write_bytes(b"not a pdf at all")
    library = open_library(folder, data_dir=tmp_path / "data")
    report = library.reconcile()
    assert report.indexed == ["report.pdf"] and report.failed == ["broken.pdf"]
    toc = library.toc()
    assert "not a readable PDF" in toc.failed[0].reason
    hits = library.retrieve("Region 07", top_k=3).results
    table = next(h for h in hits if h.kind == "table")
    assert table.page is not None and "Region 07" in table.text and table.bbox is not None
    assert table.page_end == table.page + 1, "the table continues on the next page"
    read = library.read_section(table.doc_id, table.sec_id)
    assert read.paragraphs[table.para_idx].bbox == table.bbox
    assert read.paragraphs[table.para_idx].page_end == table.page_end
    assert table.section_path[-1] == "2.1 Revenue by region"
    cached = list((tmp_path / "data" / "parse-cache").glob("*.json.gz"))
    assert len(cached) == 1, "the successful parse is cached by content hash"


@pytest.mark.slow
def test_installing_parser_models_reparses_pdfs_only(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    make_report(folder / "report.pdf")
    (folder / "notes.md").write_text("# Notes\n\nPlain notes.")
    data, home = tmp_path / "data", tmp_path / "mineru-home"
    library = open_library(folder, data_dir=data, mineru_home=home)
    library.reconcile()
    library.close()
    (home / "models" / "MinerU-4_models_onnx").mkdir(parents=True)  # what a model download adds
    library = open_library(folder, data_dir=data, mineru_home=home)
    report = library.reconcile()
    assert report.unchanged == ["notes.md"]
    assert report.indexed == ["report.pdf"] and report.embedded == 0, "parsed again, same text: nothing re-embedded"


def test_an_encrypted_office_file_is_said_to_need_a_password(tmp_path: Path) -> None:
    """Office saves a password-protected .docx in an OLE container, not a zip: not "damaged"."""
    from docx import Document
    from msoffcrypto.format.ooxml import OOXMLFile

    from indexer.parse.formats import check_archive

    plain, locked = tmp_path / "plain.docx", tmp_path / "locked.docx"
    document = Document()
    document.add_paragraph("The merger closes in the third quarter.")
    document.save(str(plain))
    with plain.open("rb") as source, locked.open("wb") as target:
        OOXMLFile(source).encrypt("s3cret", target)
    with pytest.raises(ParseError, match=r"this \.docx file is encrypted: it needs a password"):
        check_archive(".docx", locked.read_bytes())
    check_archive(".docx", plain.read_bytes())  # the same file without a password is fine


def test_a_page_ocr_cannot_read_keeps_its_text_layer(parser: DocumentParser, tmp_path: Path) -> None:
    """Too little text to count as a text layer (a line under annotations), so read as a scan, but
    OCR finds nothing: the line the text layer has is what the page says."""
    source = next(
        (
            p
            for up in Path(__file__).resolve().parents
            if (p := up / "shared/corpora/pdfplumber/annotations.pdf").is_file()
        ),
        None,
    )
    if source is None:
        pytest.skip("../shared/corpora is not here")
    path = tmp_path / "annotations.pdf"
    path.write_bytes(source.read_bytes())
    assert [p.text for p in parse(parser, path).paragraphs] == ["Dummy PDF file"]


GARBLED = BENCH / "mmlongbench" / "pdfs" / "afe620b9beac86c1027b96d31d396407.pdf"


@pytest.mark.slow
@pytest.mark.skipif(not GARBLED.exists(), reason="needs ../shared/bench")
def test_pages_whose_text_layer_is_not_text_are_read_by_ocr(parser: DocumentParser, tmp_path: Path) -> None:
    """A company report whose first seven pages set their words in a font whose codes map to no
    characters: the text layer gives control characters ("\\x01\\x04 \\x05\\x06…") and flash read
    "4 $%" and "& | " | "". Its first two pages, read by OCR as a scan is."""
    import pypdfium2 as pdfium

    source = pdfium.PdfDocument(GARBLED)
    pages = pdfium.PdfDocument.new()
    pages.import_pages(source, [0, 1])
    path = tmp_path / "report.pdf"
    pages.save(str(path))
    doc = parse(parser, path)
    text = " ".join([*(s.title for s in doc.sections), *(p.text for p in doc.paragraphs)])
    assert "DIRECTORS' REPORT" in text and "GDP growth" in text, text[:300]
    assert not any(ord(c) < 32 and c not in "\n\t" for c in text)


def test_a_slides_title_over_a_full_bleed_picture_is_its_text_not_a_stamp(tmp_path: Path) -> None:
    from indexer.parse.pdf_layers import check_pdf, pages_by_text_layer

    pdf = FPDF(orientation="landscape")
    pdf.add_page()
    picture = tmp_path / "photo.png"
    import pypdfium2 as pdfium

    guide = pdfium.PdfDocument(str(make_guide(tmp_path / "guide.pdf")))
    guide[0].render(scale=1).to_pil().save(picture)
    guide.close()
    pdf.image(str(picture), x=0, y=0, w=pdf.w, h=pdf.h)  # a photo behind the whole slide
    pdf.set_font("Helvetica", size=28)
    pdf.set_xy(15, 6)
    pdf.cell(text="Quarterly Highlights 2031")  # the slide's title, in its top band
    deck = tmp_path / "deck.pdf"
    pdf.output(str(deck))
    assert pages_by_text_layer(str(deck))[0] == [] and not check_pdf(str(deck))[2], "a title is no stamp"

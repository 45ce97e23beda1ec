"""What MinerU leaves out of PowerPoint and Excel files (`indexer.parse.ooxml`): chart titles, slide
and cell comments, a lone sheet's name; and what it keeps (speaker notes). Decks and workbooks made
with python-pptx and openpyxl, a slide comment written into the package as PowerPoint writes it."""

from __future__ import annotations

import zipfile
from pathlib import Path

from indexer.parse.formats import DocumentParser
from tests.indexer.parse.conftest import parse

_P = "http://schemas.openxmlformats.org/presentationml/2006/main"


def commented_deck(path: Path) -> Path:
    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches

    presentation = Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[1])
    slide.shapes.title.text = "Harbour plan"
    slide.placeholders[1].text = "New quay walls"
    slide.notes_slide.notes_text_frame.text = "Mention the tide tables"
    data = CategoryChartData()
    data.categories = ["2023", "2024"]
    data.add_series("Ships", (10, 12))
    chart = slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(3), Inches(4), Inches(3), data)
    chart.chart.has_title = True
    chart.chart.chart_title.text_frame.text = "Ships per year"
    plain = path.with_name("plain.pptx")
    presentation.save(str(plain))
    comment = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:cmLst xmlns:p="{_P}">'
        '<p:cm authorId="0" dt="2024-01-01T10:00:00.000" idx="1"><p:pos x="10" y="10"/>'
        "<p:text>Check the quay length with the engineers</p:text></p:cm></p:cmLst>"
    )
    authors = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:cmAuthorLst xmlns:p="{_P}">'
        '<p:cmAuthor id="0" name="Ana Lima" initials="AL" lastIdx="1" clrIdx="0"/></p:cmAuthorLst>'
    )
    types = (
        '<Override PartName="/ppt/comments/comment1.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.presentationml.comments+xml"/>'
        '<Override PartName="/ppt/commentAuthors.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.presentationml.commentAuthors+xml"/></Types>'
    )
    relation = (
        '<Relationship Id="rIdC1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments" '
        'Target="../comments/comment1.xml"/></Relationships>'
    )
    with zipfile.ZipFile(plain) as zin, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data_ = zin.read(info.filename)
            if info.filename == "[Content_Types].xml":
                data_ = data_.replace(b"</Types>", types.encode())
            if info.filename == "ppt/slides/_rels/slide1.xml.rels":
                data_ = data_.replace(b"</Relationships>", relation.encode())
            zout.writestr(info, data_)
        zout.writestr("ppt/comments/comment1.xml", comment)
        zout.writestr("ppt/commentAuthors.xml", authors)
    return path


def workbook(path: Path, sheets: list[str]) -> Path:
    import openpyxl
    from openpyxl.chart import BarChart, Reference
    from openpyxl.comments import Comment

    book = openpyxl.Workbook()
    first = book.active
    first.title = sheets[0]
    for row in (["Port", "Fee"], ["Dover", "12"], ["Calais", "15"]):
        first.append(row)
    first["B2"].comment = Comment("Fee rose in March after the dredging", "Ana")
    chart = BarChart()
    chart.title = "Fees by port"
    chart.add_data(Reference(first, min_col=2, min_row=1, max_row=3), titles_from_data=True)
    first.add_chart(chart, "D2")
    for name in sheets[1:]:
        other = book.create_sheet(name)
        other.append(["Name", "Role"])
        other.append(["Ana", "Pilot"])
    book.save(path)
    return path


def test_a_slide_keeps_its_notes_comments_and_chart_title(parser: DocumentParser, tmp_path: Path) -> None:
    structure = parse(parser, commented_deck(tmp_path / "plan.pptx"))
    texts = [p.text for p in structure.paragraphs]
    assert "Mention the tide tables" in texts  # MinerU keeps the notes
    assert "Comment (Ana Lima): Check the quay length with the engineers" in texts
    chart = next(p for p in structure.paragraphs if p.kind == "figure")
    assert chart.text.startswith("Ships per year\n|  | Ships |\n|---|---|"), (
        chart.text
    )  # its title, its data as Markdown
    assert {p.page for p in structure.paragraphs} == {1}


def test_a_sheet_keeps_its_cell_comments_chart_title_and_name(parser: DocumentParser, tmp_path: Path) -> None:
    many = parse(parser, workbook(tmp_path / "rates.xlsx", ["Rates", "Staff"]))
    assert [s.title for s in many.sections[1:]] == ["Rates", "Staff"]
    rates = many.sections[1].sec_id
    in_rates = [p.text for p in many.paragraphs if p.sec_id == rates]
    assert "Comment on B2 (Ana): Fee rose in March after the dredging" in in_rates
    assert any(t.startswith("Fees by port\n") for t in in_rates)

    alone = parse(parser, workbook(tmp_path / "fees.xlsm", ["Harbour fees"]))
    assert alone.title == "Harbour fees" and any("| Dover | 12 |" in p.text for p in alone.paragraphs)
    default = parse(parser, workbook(tmp_path / "book.xlsx", ["Sheet1"]))
    assert "Sheet1" not in [s.title for s in default.sections]
    defaults = parse(parser, workbook(tmp_path / "ledger.xlsx", ["Sheet1", "Sheet2"]))
    assert defaults.title != "Sheet1" and defaults.named_by_file, "a default sheet's name names no workbook"

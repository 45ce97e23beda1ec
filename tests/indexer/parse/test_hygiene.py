"""Text a reader would accept: mojibake mended, symbol-font glyphs read, Markdown escapes gone,
sheets as Markdown tables. Real files built here (text, Markdown, DOCX, PDF, CSV, XLSX), read by
the real parsers (MinerU in its child process for the office files and PDFs)."""

from __future__ import annotations

import codecs
import datetime
import hashlib
from pathlib import Path

import pytest
from fpdf import FPDF

from indexer.models import DocumentStructure
from indexer.parse.formats import DocumentParser, decode_text, parse_text_file
from indexer.parse.hygiene import repair, unescape_markdown
from indexer.structure.sections import build
from indexer.tokens import count_tokens
from tests.conftest import BENCH
from tests.indexer.parse.conftest import parse

SYMBOL_BULLET, BOX_CHECKED, BOX_EMPTY, SYMBOL_SPACE = "\uf0b7", "\uf052", "\uf0a3", "\uf020"


def texts(s: DocumentStructure) -> list[str]:
    return [s.title or ""] + [sec.title for sec in s.sections] + [p.text for p in s.paragraphs]


# --- text and Markdown files -------------------------------------------------------------


def test_a_mac_roman_text_file_reads_its_bullets_quotes_and_dashes(tmp_path: Path) -> None:
    """How the SyllabusQA text files are saved: Mac Roman, lines ending in CR alone. Read as
    Windows-1252 its bullets were "¥" and its apostrophes "Õ"."""
    source = "COURSE POLICIES\r\r• Bring the lab notebook to every session.\r• Don’t miss the “safety” talk – it’s required.\r"
    path = tmp_path / "syllabus.txt"
    path.write_bytes(source.encode("mac_roman"))
    s = build(parse_text_file(path, 10**6), fallback_title="syllabus")
    (listed,) = [p for p in s.paragraphs if p.kind == "list"]
    assert listed.text == "• Bring the lab notebook to every session.\n• Don’t miss the “safety” talk – it’s required."
    assert not any(ch in "".join(texts(s)) for ch in "¥ÕÒÓÐ")


def test_windows_text_and_utf8_still_decode_as_before() -> None:
    assert decode_text("café\r\nnaïve – “fine”".encode("cp1252")) == "café\nnaïve – “fine”"
    assert decode_text("Größe 3 ≤ 4 • 東京，大阪".encode()) == "Größe 3 ≤ 4 • 東京，大阪"


def test_utf32_with_its_mark_is_not_taken_for_utf16() -> None:
    """UTF-32's little-endian mark (FF FE 00 00) begins with UTF-16's (FF FE)."""
    text = "Otters hold hands while they sleep.\n"
    for encoding in ("utf-32", "utf-32-be", "utf-16"):
        data = text.encode(encoding) if encoding != "utf-32-be" else codecs.BOM_UTF32_BE + text.encode(encoding)
        assert decode_text(data) == text, encoding


def test_mojibake_and_symbol_glyphs_in_a_text_file_are_mended(tmp_path: Path) -> None:
    source = (
        "Itâ€™s the studentâ€™s job to read.\n\n"  # UTF-8 read as Windows-1252, saved again
        "Â· Week 1Â\xa0â€“ introduction\n\n"  # a middle dot and a no-break space left as "Â"
        f"{SYMBOL_BULLET} Submit the report{SYMBOL_SPACE}by Friday.\n\n"  # a Symbol-font bullet
        f"Late work accepted: Yes {BOX_CHECKED} No {BOX_EMPTY}\n\n"  # Wingdings boxes
        "The ﬁnal “exam” is in room 3，building 2.\n"  # a ligature; curly quotes and CJK comma are the author's
    )
    path = tmp_path / "notes.txt"
    path.write_text(source, encoding="utf-8")
    s = build(parse_text_file(path, 10**6), fallback_title="notes")
    assert [p.text for p in s.paragraphs] == [
        "It’s the student’s job to read.",
        "· Week 1\xa0– introduction",
        "• Submit the report by Friday.",
        "Late work accepted: Yes No",
        "The final “exam” is in room 3，building 2.",
    ]


def test_markdown_keeps_its_own_escapes_code_and_entities(tmp_path: Path) -> None:
    """A Markdown file's escapes are its author's Markdown; only mojibake and glyphs are mended."""
    source = (
        "# Handles\n\n"
        "Write @Name\\_Of\\_Handle, not \\*bold\\*; &lt;tag&gt; stays. Itâ€™s fine.\n\n"
        "```python\nprint('a\\_b', '\\*')\n```\n"
    )
    path = tmp_path / "readme.md"
    path.write_text(source, encoding="utf-8")
    s = build(parse_text_file(path, 10**6), fallback_title="readme")
    text, code = [p for p in s.paragraphs if p.kind == "text"], [p for p in s.paragraphs if p.kind == "code"]
    assert text[0].text == "Write @Name\\_Of\\_Handle, not \\*bold\\*; &lt;tag&gt; stays. It’s fine."
    assert "print('a\\_b', '\\*')" in code[0].text


@pytest.mark.skipif(not (BENCH / "syllabusqa").exists(), reason="needs ../shared/bench")
def test_the_syllabusqa_text_files_read_as_their_authors_wrote_them() -> None:
    """All 63 are Mac Roman with CR line ends: 1,047 bullets read as "¥", 515 apostrophes as "Õ"."""
    files = sorted((BENCH / "syllabusqa" / "syllabi" / "text").glob("*.txt"))
    assert len(files) == 63
    bullets = 0
    for path in files:
        text = decode_text(path.read_bytes())
        assert not any(ch in text for ch in "¥ÕÒÓÐ"), path.name
        bullets += text.count("•")
    assert bullets == 1047


# --- the pure functions --------------------------------------------------------------------


def test_unescape_markdown_keeps_math_paths_and_lone_backslashes() -> None:
    assert unescape_markdown(r"@Name\_Of\_Handle \* \# \$400 \[1\] a\\b") == r"@Name_Of_Handle * # $400 [1] a\b"
    assert unescape_markdown(r"where $\alpha_{1} \cdot x$ grows \_fast") == r"where $\alpha_{1} \cdot x$ grows _fast"
    assert unescape_markdown(r"Z:\Fileserv\Spring 2020\Chem") == r"Z:\Fileserv\Spring 2020\Chem"


def test_a_tables_html_cells_lose_their_escapes_but_not_their_math() -> None:
    from indexer.parse.hygiene import repair_items

    (table,) = repair_items([{"type": "table", "table_body": r"<td>Jompus(\$x, bool)</td><td>$\alpha_1$</td>"}])
    assert table["table_body"] == r"<td>Jompus($x, bool)</td><td>$\alpha_1$</td>"


def test_repair_reads_a_glyph_opening_a_line_or_a_cell_as_a_bullet() -> None:
    assert repair(f"**{SYMBOL_BULLET} snacks**") == "**• snacks**"
    assert repair(f"<td>{SYMBOL_BULLET} Optical</td>") == "<td>• Optical</td>"
    assert repair(f"filer {BOX_EMPTY}{SYMBOL_SPACE}") == "filer "
    assert repair(f"Yes {BOX_CHECKED} No {BOX_EMPTY}") == "Yes No"
    assert repair(f"75%-{SYMBOL_BULLET}90%") == "75%-90%"
    assert repair("plain ASCII stays") == "plain ASCII stays"


# --- PDFs and office files through MinerU ------------------------------------------------------


def test_docx_text_without_escapes_symbol_glyphs_or_mojibake(parser: DocumentParser, tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Contact", level=1)
    document.add_paragraph("Follow @Name_Of_Handle, rated 5 * 3 # 1, costs $400 [draft] <b>.")
    bullet = document.add_paragraph()
    bullet.add_run(SYMBOL_BULLET).font.name = "Symbol"  # how Word keeps a symbol bullet typed by hand
    bullet.add_run("\tBring the lab notebook.")
    boxes = document.add_paragraph("Accept terms: Yes ")
    boxes.add_run(BOX_CHECKED).font.name = "Wingdings 2"
    boxes.add_run(" No ")
    boxes.add_run(BOX_EMPTY).font.name = "Wingdings 2"
    document.add_paragraph("Itâ€™s the studentâ€™s job Â· to read.")
    table = document.add_table(rows=2, cols=2)
    for cell, text in zip(
        table._cells, ["Handle", "Folder", "@Lab_Notes_2023 (*)", r"Z:\Fileserv\Spring 2020"], strict=True
    ):
        cell.text = text
    path = tmp_path / "contact.docx"
    document.save(str(path))
    s = parse(parser, path)
    assert [p.text for p in s.paragraphs if p.kind != "table"] == [
        "Follow @Name_Of_Handle, rated 5 * 3 # 1, costs $400 [draft] <b>.",
        "• Bring the lab notebook.",
        "Accept terms: Yes No",
        "It’s the student’s job · to read.",
    ]
    (grid,) = [p.text for p in s.paragraphs if p.kind == "table"]
    assert "@Lab_Notes_2023 (*)" in grid and r"Z:\Fileserv\Spring 2020" in grid, "a cell's escapes go, a path stays"


def test_pdf_text_without_markdown_escapes(parser: DocumentParser, tmp_path: Path) -> None:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "Follow @Name_Of_Handle for news: rated 5 * 3, costs $400, see a_b and *stars* and # 2 [x].")
    path = tmp_path / "handles.pdf"
    pdf.output(str(path))
    s = parse(parser, path)
    assert [p.text for p in s.paragraphs] == [
        "Follow @Name_Of_Handle for news: rated 5 * 3, costs $400, see a_b and *stars* and # 2 [x]."
    ]


def test_a_csv_is_a_markdown_table(parser: DocumentParser, tmp_path: Path) -> None:
    rows = ["course,credits,room", *(f"BIO {100 + i},{3 + i % 2},Hall {i}" for i in range(5))]
    path = tmp_path / "courses.csv"
    path.write_text("\n".join(rows) + "\n")
    s = parse(parser, path)
    (table,) = s.paragraphs
    assert table.kind == "table"
    assert table.text.splitlines()[:3] == ["| course | credits | room |", "|---|---|---|", "| BIO 100 | 3 | Hall 0 |"]
    assert "<" not in table.text and count_tokens(table.text) < 100  # MinerU's HTML of it: 789 characters


def test_a_large_csv_is_blocks_of_rows_each_with_its_header(parser: DocumentParser, tmp_path: Path) -> None:
    rows = ["id,name,city", *(f"{i},Customer number {i},Springfield" for i in range(1, 601))]
    path = tmp_path / "customers.csv"
    path.write_text("\n".join(rows) + "\n")
    s = parse(parser, path)
    assert len(s.paragraphs) > 1 and all(p.kind == "table" for p in s.paragraphs)
    for p in s.paragraphs:
        label, head, rule = p.text.splitlines()[:3]
        assert label.startswith("(rows ") and label.endswith(" of 600)")
        assert (head, rule) == ("| id | name | city |", "|---|---|---|")
    assert sum(p.text.count("Customer number") for p in s.paragraphs) == 600


def test_xlsx_sheets_are_sections_of_markdown_tables(parser: DocumentParser, tmp_path: Path) -> None:
    import openpyxl

    workbook = openpyxl.Workbook()
    budget = workbook.active
    budget.title = "Budget"
    for row in [("Item", "Q1", "Q2"), ("Rent", 1200, 1250), ("Power", None, 80)]:
        budget.append(row)
    staff = workbook.create_sheet("Staff")
    staff.append(("Name", "Role", "Since"))
    staff.append(("Ana Lima", "Lead", 2019))
    staff.merge_cells("B3:C3")
    staff["A3"], staff["B3"] = "Ben Ode", "Intern, unpaid"
    path = tmp_path / "office.xlsx"
    workbook.save(str(path))
    s = parse(parser, path)
    assert [sec.title for sec in s.sections[1:]] == ["Budget", "Staff"]
    tables = {s.sections[p.sec_id].title: p.text for p in s.paragraphs if p.kind == "table"}
    assert tables["Budget"] == "| Item | Q1 | Q2 |\n|---|---|---|\n| Rent | 1200 | 1250 |\n| Power |  | 80 |"
    assert tables["Staff"].splitlines()[-1] == "| Ben Ode | Intern, unpaid |  |", "a merged cell: its text, once"


# --- a figure's text read from the text layer ------------------------------------------------


def _labelled_pdf(path: Path) -> Path:
    """A page with a chart's labels in the text layer, one line running past the chart's box."""
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.set_xy(20, 50)
    pdf.cell(0, 6, "Quarterly revenue grew strongly across every region")
    pdf.set_xy(20, 60)
    pdf.cell(0, 6, "($4,369) ($3,827) 2,082 1,522")
    pdf.output(str(path))
    return path


def test_text_inside_a_box_is_read_in_whole_words(tmp_path: Path) -> None:
    """pdfium's bounded text cut the words the box's edge crossed: "Quarterly re", ",369)"."""
    from indexer.parse.pdf_layers import fill_from_text_layer

    path = _labelled_pdf(tmp_path / "chart.pdf")
    # The box MinerU gives the chart: from the left margin to the middle of "revenue" and of "($4,369)".
    items = [{"type": "image", "page_idx": 0, "bbox": [60, 150, 230, 230]}]
    fill_from_text_layer(str(path), items)
    assert items[0]["text_layer"] == "Quarterly revenue\n($4,369) ($3,827)"


def test_a_pdf_parse_cached_by_the_previous_version_is_upgraded_without_mineru(
    parser: DocumentParser, tmp_path: Path
) -> None:
    """The previous version cached no declared metadata: the child reads it from the PDF's document
    information, and the rest of the cached parse is kept as it was."""
    import gzip
    import json

    from indexer.parse.mineru import CACHE_VERSION, UPGRADABLE

    pdf = FPDF()
    pdf.set_title("Quarterly Revenue Review")
    pdf.set_author("Northwind Finance")
    pdf.set_creation_date(datetime.datetime(2031, 3, 4, 9, 30, tzinfo=datetime.UTC))
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.cell(0, 6, "Quarterly revenue grew strongly across every region")
    path = tmp_path / "review.pdf"
    pdf.output(str(path))
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    data = path.read_bytes()
    parser.parse(path, data, digest)
    current = parser.mineru._cache_path(digest)
    with gzip.open(current, "rt", encoding="utf-8") as f:
        raw = json.load(f)
    del raw["declared"]  # what version 5 cached, with a mark that no parse by MinerU makes
    for version in UPGRADABLE:  # each earlier version a PDF's parse is upgraded from
        raw["made_by"] = f"version {version}"
        with gzip.open(parser.mineru._cache_path(digest, version), "wt", encoding="utf-8") as f:
            json.dump(raw, f)
        current.unlink()

        declared = parser.parse(path, data, digest).declared
        assert (declared.title, declared.authors) == ("Quarterly Revenue Review", ["Northwind Finance"])
        assert declared.created is not None and declared.created.startswith("2031-03-04")
        with gzip.open(parser.mineru._cache_path(digest, CACHE_VERSION), "rt", encoding="utf-8") as f:
            assert json.load(f)["made_by"] == f"version {version}", "upgraded from the old parse, not parsed again"
        parser.mineru._cache_path(digest, version).unlink()


def test_a_notebooks_inline_pictures_are_not_their_bytes(tmp_path: Path) -> None:
    """Markdown exported from a notebook or an editor inlines its pictures as data URIs: a picture
    keeps its kind and alternative text, never its base64."""
    import base64

    picture = base64.b64encode(bytes(range(256)) * 12).decode()
    source = (
        "# Tide model\n\nThe fitted curve follows the harbour gauge.\n\n"
        f"![png](data:image/png;base64,{picture})\n\n"
        f'<table><tr><td><img src="data:image/png;base64,{picture}"/> Gauge</td><td>4.2 m</td></tr></table>\n\n'
        f'Residuals stay small <img alt="residual plot" src="data:image/png;base64,{picture}"> all season.\n'
    )
    path = tmp_path / "tide-model.md"
    path.write_text(source, encoding="utf-8")
    structure = build(parse_text_file(path, 10_000_000), fallback_title=path.stem)
    text = "\n".join(p.text for p in structure.paragraphs)
    assert "base64" not in text and picture[:40] not in text
    assert "![png](embedded image/png)" in text and "Gauge" in text and "residual plot" in text
    assert count_tokens(text) < 200

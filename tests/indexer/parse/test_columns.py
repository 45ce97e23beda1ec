"""A page set in three columns whose lines flash read across the columns: the item cut back into
its columns from the real text layer (pypdfium2), and the page read column by column."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF

from indexer.models import DocumentStructure
from indexer.parse.page_text import repair_pages

COLUMNS = (45.0, 222.0, 399.0)  # points from the left; each column 168 points wide
WIDTH = 168.0
TOP, STEP, ROWS = 90.0, 14.0, 40
WORDS = (
    "the agency proposes to require operators to inspect the wiring and replace any damaged part before "
    "further flight and to report the results to the manufacturer within thirty days of the inspection"
).split()


def three_columns(path: Path) -> dict[int, list[str]]:
    """A page of three columns of numbered lines ("c2r07 …"); returns each column's lines."""
    pdf = FPDF(format="letter", unit="pt")
    pdf.set_auto_page_break(False)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 20)
    pdf.set_xy(45, 40)
    pdf.cell(200, 24, "Proposed Rules")
    pdf.set_font("Times", size=9.5)
    lines: dict[int, list[str]] = {}
    k = 0
    for c, x in enumerate(COLUMNS):
        lines[c] = []
        for row in range(ROWS):
            text = f"c{c}r{row:02d}"
            while pdf.get_string_width(f"{text} {WORDS[k % len(WORDS)]}") < WIDTH - 4:
                text += f" {WORDS[k % len(WORDS)]}"
                k += 1
            pdf.set_xy(x, TOP + row * STEP)
            pdf.cell(WIDTH, 11, text)
            lines[c].append(text)
    pdf.output(str(path))
    return lines


def box(column: int | None, first: int, last: int) -> list[int]:
    """An item's box in page units (0–1000 from the top left) over rows first…last of a column (None: all three)."""
    x0 = COLUMNS[column if column is not None else 0]
    x1 = COLUMNS[column if column is not None else 2] + WIDTH - 4
    y0, y1 = TOP + first * STEP, TOP + last * STEP + 11
    return [round(1000 * x0 / 612), round(1000 * y0 / 792), round(1000 * x1 / 612), round(1000 * y1 / 792)]


def item(text: str, bbox: list[int], **more: object) -> dict:
    return {"type": "text", "text": text, "page_idx": 0, "bbox": bbox, **more}


def test_an_item_read_across_columns_is_cut_into_them_and_the_page_read_column_by_column(tmp_path: Path) -> None:
    lines = three_columns(tmp_path / "columns.pdf")
    # As flash returned the Federal Register's first page: rows 10–12 of the three columns read as
    # one item, their lines alternating, and the items around it ordered around it.
    across = " ".join(lines[c][r] for r in range(10, 13) for c in range(3))
    items = [
        item("Proposed Rules", [74, 50, 330, 80], text_level=1),
        *(item(" ".join(lines[c][:10]), box(c, 0, 9)) for c in range(3)),
        item(across, box(None, 10, 12)),
        *(item(" ".join(lines[c][13:]), box(c, 13, ROWS - 1)) for c in range(3)),
        {"type": "footer", "text": "VerDate 2020", "page_idx": 0, "bbox": [60, 960, 700, 975]},
    ]
    repaired = repair_pages(str(tmp_path / "columns.pdf"), items)
    texts = [it["text"] for it in repaired]
    assert texts[0] == "Proposed Rules"
    assert texts[-1] == "VerDate 2020"
    body = texts[1:-1]
    assert body == [
        " ".join(lines[0][:10]),
        " ".join(lines[0][10:13]),
        " ".join(lines[0][13:]),
        " ".join(lines[1][:10]),
        " ".join(lines[1][10:13]),
        " ".join(lines[1][13:]),
        " ".join(lines[2][:10]),
        " ".join(lines[2][10:13]),
        " ".join(lines[2][13:]),
    ]


def test_a_page_flash_read_well_is_left_as_it_was(tmp_path: Path) -> None:
    lines = three_columns(tmp_path / "columns.pdf")
    items = [item(" ".join(lines[c]), box(c, 0, ROWS - 1)) for c in range(3)]
    assert repair_pages(str(tmp_path / "columns.pdf"), items) is items


def test_a_federal_register_page_is_read_column_by_column(federal_register: DocumentStructure) -> None:
    """pdfplumber's federal-register-2020-17221.pdf: flash read three lines side by side in its first
    page's three columns as one ("For Boeing service information following paragraph, and other
    [Docket No. …"), and put the rest of the columns' tops after them."""
    texts = [p.text for p in federal_register.paragraphs]
    assert not any("For Boeing service information following paragraph" in t for t in texts)
    assert any(t.startswith("For Boeing service information identified in this NPRM, contact Boeing") for t in texts)
    first = next(k for k, t in enumerate(texts) if "Docket No. FAA–2020–0686; Product Identifier 2019–NM–035–AD]" in t)
    assert first < next(k for k, t in enumerate(texts) if t.startswith("AGENCY: Federal Aviation Administration"))

"""Damage costs only the damaged part (`indexer.parse.damage`): a PDF page PDFium cannot load, a
deck's malformed chart, a picture that cannot be decoded. Files damaged here the way real ones are,
and the damaged files of ../shared/corpora, parsed by the real MinerU child and indexed in a real
library."""

from __future__ import annotations

import re
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from fpdf import FPDF

from indexer.library import Library
from indexer.parse.formats import DocumentParser
from tests.indexer.parse.conftest import parse

CORPORA = Path("/work/shared/corpora")
for _up in Path(__file__).resolve().parents:
    if (_up / "shared" / "corpora").is_dir():
        CORPORA = _up / "shared" / "corpora"
        break
needs_corpora = pytest.mark.skipif(not CORPORA.is_dir(), reason="../shared/corpora is not here")


TOPICS = ["the lighthouse keeper logs every passing ship", "the cranes were repainted", "pilots read the tide tables"]


def pdf_with_broken_pages(path: Path, pages: int, broken: set[int]) -> Path:
    """A PDF whose pages in `broken` (0-based) have a number where their dictionary should be:
    PDFium says "Failed to load page" for them."""
    pdf = FPDF()
    for i in range(pages):
        pdf.add_page()
        pdf.set_font("Helvetica", size=14)
        pdf.multi_cell(0, 8, f"Page {i + 1} of the harbour report: {TOPICS[i % len(TOPICS)]}.")
    data = bytes(pdf.output())
    starts = [m.start() for m in re.finditer(rb"/Type /Page\b(?!s)", data)]
    for index in sorted(broken, reverse=True):
        start = data.rfind(b"obj", 0, starts[index]) + 3
        end = data.find(b"endobj", starts[index])
        data = data[:start] + b"\n42".ljust(end - start) + data[end:]
    path.write_bytes(data)
    return path


def damaged_copy(source: Path, target: Path, part: Callable[[str], bool], damage: Callable[[bytes], bytes]) -> Path:
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            zout.writestr(info, damage(data) if part(info.filename) else data)
    return target


def deck(path: Path, picture: Path) -> Path:
    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches

    presentation = Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[1])
    slide.shapes.title.text = "Harbour plan"
    slide.placeholders[1].text = "New quay walls on the north side"
    slide.shapes.add_picture(str(picture), Inches(1), Inches(4))
    data = CategoryChartData()
    data.categories = ["2023", "2024"]
    data.add_series("Ships", (10, 12))
    slide = presentation.slides.add_slide(presentation.slide_layouts[5])
    slide.shapes.title.text = "Traffic"
    slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2), Inches(4), Inches(3), data)
    slide = presentation.slides.add_slide(presentation.slide_layouts[1])
    slide.shapes.title.text = "Budget"
    slide.placeholders[1].text = "Four million over three years"
    presentation.save(str(path))
    return path


@pytest.fixture
def picture(tmp_path: Path) -> Path:
    from PIL import Image

    path = tmp_path / "red.png"
    Image.new("RGB", (200, 100), "red").save(path)
    return path


def _text(structure: object) -> str:
    return "\n".join(p.text for p in structure.paragraphs)  # type: ignore[attr-defined]


def test_a_pdf_page_that_does_not_load_costs_that_page_alone(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    pdf_with_broken_pages(folder / "report.pdf", 3, {1})
    library = open_library(folder)
    assert library.reconcile().indexed == ["report.pdf"]
    doc = library.toc(doc_id=library.toc().documents[0].doc_id).documents[0]
    assert doc.n_pages == 3
    assert doc.warnings == ["page 2 could not be loaded (damaged in the file): not indexed; the other pages are"]
    first, third = library.retrieve("lighthouse keeper").results[0], library.retrieve("tide tables").results[0]
    assert (first.page, third.page) == (1, 3), "the other pages keep their numbers"
    assert "pilots read the tide tables" in third.text
    assert all("cranes" not in r.text for r in library.retrieve("cranes repainted").results), "page 2 is lost"
    assert library.view_page(doc.doc_id, 3).image.width > 0


def test_a_pdf_whose_every_page_is_broken_fails_with_that_reason(parser: DocumentParser, tmp_path: Path) -> None:
    from indexer.errors import ParseError

    path = pdf_with_broken_pages(tmp_path / "ruin.pdf", 2, {0, 1})
    with pytest.raises(ParseError, match="none of its 2 pages can be loaded"):
        parse(parser, path)


def test_a_malformed_chart_costs_the_chart_alone(parser: DocumentParser, tmp_path: Path, picture: Path) -> None:
    good = deck(tmp_path / "good.pptx", picture)
    bad = damaged_copy(
        good, tmp_path / "bad-chart.pptx", lambda n: n.startswith("ppt/charts/chart"), lambda d: d[: len(d) // 2]
    )
    structure = parse(parser, bad)
    text = _text(structure)
    assert "New quay walls on the north side" in text and "Four million over three years" in text
    assert structure.warnings == ["damaged in the file, read as far as it goes: chart 1; the rest is indexed"]


def test_a_picture_that_cannot_be_decoded_is_named(parser: DocumentParser, tmp_path: Path, picture: Path) -> None:
    good = deck(tmp_path / "good.pptx", picture)
    bad = damaged_copy(good, tmp_path / "bad-picture.pptx", lambda n: "/media/" in n, lambda d: b"\x89PNG broken")
    structure = parse(parser, bad)
    assert "New quay walls on the north side" in _text(structure)
    assert structure.warnings == ["1 picture(s) damaged in the file and left out: image1.png"]


@needs_corpora
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("unstructured/fake-power-point-malformed.pptx", "Problem Date Placeholder"),
        ("pdfplumber/malformed-from-issue-932.pdf", "重庆万州经济技术开发"),
        ("unstructured/fake-power-point-many-pages.pptx", "Page 1"),  # titles alone: they are its text
        ("unstructured/fake-html-lang-de.html", "Jahresabschluss zum Geschäftsjahr vom 01.01.2020"),  # one <h3>
    ],
)
def test_the_damaged_files_of_the_corpora_are_indexed(
    parser: DocumentParser, tmp_path: Path, name: str, expected: str
) -> None:
    path = tmp_path / Path(name).name
    shutil.copyfile(CORPORA / name, path)
    structure = parse(parser, path)
    assert expected in _text(structure) + "\n".join(s.title for s in structure.sections)

"""A page drawn with tens of thousands of vector paths (a map, a plot, a schematic) is read from
its text layer with its image as a figure, and the rest of its document is parsed as usual:
real PDFs built here, the real parser child, the real library."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from fpdf import FPDF

from indexer.library import Library
from indexer.parse.heavy_pages import HEAVY_PAGE_OBJECTS, heavy_pages
from tests.indexer.parse.test_documents import make_report

PATHS = HEAVY_PAGE_OBJECTS + 10_000  # just past the limit: heavy, yet quick to draw


def text_page(pdf: FPDF, title: str, body: str) -> None:
    pdf.add_page()
    pdf.set_font("Helvetica", style="B", size=16)
    pdf.multi_cell(0, 9, title, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, body, new_x="LMARGIN", new_y="NEXT")


def map_page(pdf: FPDF, label: str, paths: int = PATHS) -> None:
    """A page of `paths` short strokes, with one line of text on it (a map's legend)."""
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, label, new_x="LMARGIN", new_y="NEXT")
    rnd = random.Random(7)
    for _ in range(paths):
        x, y = rnd.uniform(10, 200), rnd.uniform(40, 280)
        pdf.line(x, y, x + rnd.uniform(-3, 3), y + rnd.uniform(-3, 3))


def make_brief(path: Path) -> Path:
    pdf = FPDF()
    pdf.set_title("Valley Water Access Brief 2024")
    text_page(pdf, "Water access brief", "Wells drilled since 2015 now serve most villages in the valley. " * 4)
    legend = "Legend: blue lines mark the Ombrella river and its tributaries. "
    map_page(pdf, legend + "Grey lines mark the tracks between the villages and the wells drilled since 2015. " * 4)
    text_page(pdf, "Recommendations", "Maintenance budgets should follow the number of working pumps. " * 4)
    pdf.output(str(path))
    return path


def test_a_heavy_page_is_counted_cheaply_and_only_it(tmp_path: Path) -> None:
    brief = make_brief(tmp_path / "brief.pdf")
    assert list(heavy_pages(str(brief))) == [1]
    assert heavy_pages(str(brief), limit=0) == {}, "0 turns the fallback off"
    assert heavy_pages(str(make_report(tmp_path / "report.pdf"))) == {}


def test_a_heavy_page_never_costs_its_document(folder: Path, open_library: Callable[..., Library]) -> None:
    make_brief(folder / "brief.pdf")
    make_report(folder / "report.pdf")
    only_map = FPDF()
    map_page(only_map, "Survey grid of the northern district.")
    only_map.output(str(folder / "map.pdf"))
    library = open_library(folder)
    report = library.reconcile()
    assert sorted(report.indexed) == ["brief.pdf", "map.pdf", "report.pdf"] and not report.failed

    docs = {d.path: d for d in library.toc().documents}
    brief = library.toc(doc_id=docs["brief.pdf"].doc_id).documents[0]
    assert brief.n_pages == 3
    assert brief.title == "Valley Water Access Brief 2024", "the original's metadata, though MinerU read a copy"
    assert any("page 2 read from the text layer only" in w for w in brief.warnings), brief.warnings
    assert not any("the parser gave few" in w for w in brief.warnings), "a heavy page is no page flash lost"
    paragraphs = [p for s in brief.sections for p in library.read_section(brief.doc_id, s.sec_id).paragraphs]

    def page_of(words: str) -> int | None:
        return next((p.page for p in paragraphs if words in p.text), None)

    assert page_of("Wells drilled") == 1 and page_of("Maintenance budgets") == 3, "pages after a heavy one keep theirs"
    figure = [p for p in paragraphs if p.kind == "figure"]
    assert len(figure) == 1 and figure[0].page == 2

    hit = library.retrieve("Ombrella river tributaries", top_k=1, doc_ids=[brief.doc_id]).results[0]
    assert "Ombrella" in hit.text and hit.page == 2, "the heavy page's text is found on its page"
    shown = library.read_section(brief.doc_id, hit.sec_id, start_para=hit.para_idx + 1, images=True)
    assert shown.images and shown.images[0].page == 2, "the page is the figure hosts that see can ask for"

    lone = library.retrieve("survey grid northern district", top_k=1, doc_ids=[docs["map.pdf"].doc_id]).results[0]
    assert "Survey grid" in lone.text and lone.page == 1, "a PDF of heavy pages alone is read too"
    assert docs["report.pdf"].n_sections > 1, "a document beside it is parsed as usual"

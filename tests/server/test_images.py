"""Figures, charts and tables shown to vision-capable hosts: crops of the PDF page, cited to
their paragraph, counted in the token budget; a whole page on request; a clear word where no
image can be made. A real PDF (drawn chart, table, caption) through MinerU and the MCP layer."""

from __future__ import annotations

import base64
import io
import math
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from mcp import Client
from PIL import Image

from indexer.answers.pages import MAX_SIDE
from indexer.errors import InvalidArgument, NotReady
from indexer.library import Library
from server.app import build_server
from server.render import render_section
from tests.conftest import write
from tests.indexer.parse.test_documents import make_report

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def report(folder: Path, open_library: Callable[..., Library]) -> Library:
    make_report(folder / "report.pdf")
    write(folder, "notes.md", "# Notes\n\nA figure is described here in words only.\n")
    library = open_library(folder)
    library.reconcile()
    return library


def section(library: Library, title: str) -> tuple[int, int]:
    doc = next(d for d in library.toc().documents if d.path == "report.pdf")
    full = library.toc(doc_id=doc.doc_id)
    return doc.doc_id, next(s.sec_id for s in full.documents[0].sections if s.title == title)


def ink(png: bytes) -> float:
    """Share of pixels that are not near-white."""
    image = Image.open(io.BytesIO(png)).convert("L")
    return sum(1 for v in image.getdata() if v < 200) / (image.width * image.height)


@pytest.mark.slow
def test_a_chart_and_a_table_come_as_crops_of_their_page(report: Library) -> None:
    doc_id, costs = section(report, "2.2 Costs")
    plain = report.read_section(doc_id, costs)
    assert plain.images == [] and "image" not in render_section(plain), "images only when asked"

    answer = report.read_section(doc_id, costs, images=True)
    figure = next(p for p in answer.paragraphs if p.kind == "figure")
    assert figure.image == 1 and len(answer.images) == 1
    image = answer.images[0]
    assert (image.doc_id, image.sec_id, image.para_idx, image.page, image.bbox) == (
        doc_id,
        costs,
        figure.para_idx,
        figure.page,
        figure.bbox,
    )
    decoded = Image.open(io.BytesIO(image.data))
    assert decoded.format == "PNG" and decoded.size == (image.width, image.height)
    assert max(image.width, image.height) <= MAX_SIDE and image.tokens == math.ceil(image.width * image.height / 750)
    assert ink(image.data) > 0.05, "the crop holds the chart's pixels, not a blank region"
    assert f"[{figure.para_idx}] p.{figure.page} figure — image 1 below" in render_section(answer)
    assert "Figure 1: Operating costs" in figure.text, "its caption is in the text"

    _, regions = section(report, "2.1 Revenue by region")
    table = report.read_section(doc_id, regions, images=True)
    assert [p.kind for p in table.paragraphs if p.image] == ["table"] and len(table.images) == 1


@pytest.mark.slow
def test_images_keep_to_the_budget_and_say_how_to_get_the_rest(
    folder: Path, report: Library, open_library: Callable[..., Library], tmp_path: Path
) -> None:
    doc_id, costs = section(report, "2.2 Costs")
    whole = report.read_section(doc_id, costs, images=True)
    figure = next(p for p in whole.paragraphs if p.image)
    report.close()
    small = open_library(folder, data_dir=tmp_path / "data", token_budget=300)  # the same index, a tight budget
    first = small.read_section(doc_id, costs, images=True)
    assert first.images == [] and first.next_start_para == figure.para_idx, "the figure and its image wait"
    assert f"start_para={figure.para_idx}" in (first.hint or "")
    alone = small.read_section(doc_id, costs, start_para=figure.para_idx, images=True)
    assert alone.paragraphs[0].para_idx == figure.para_idx and alone.images == []
    assert "1 image(s) left out: with its paragraph, one would not fit the token budget." in (alone.hint or "")


@pytest.mark.slow
def test_a_whole_page_and_what_cannot_be_shown(report: Library) -> None:
    doc_id, _ = section(report, "2.2 Costs")
    page = report.view_page(doc_id, 1)
    assert page.n_pages >= 2 and max(page.image.width, page.image.height) == MAX_SIDE
    assert ink(page.image.data) > 0.01
    with pytest.raises(InvalidArgument, match=rf"document {doc_id} has pages 1–{page.n_pages} \(got 99\)"):
        report.view_page(doc_id, 99)
    notes = next(d.doc_id for d in report.toc().documents if d.path == "notes.md")
    answer = report.read_section(notes, 0, images=True)
    assert answer.images == [] and "notes.md is not a PDF, so only the pictures kept from it can be shown" in (
        answer.hint or ""
    )
    with pytest.raises(NotReady, match="only a PDF's pages can be rendered"):
        report.view_page(notes, 1)


@pytest.fixture
async def client(report: Library) -> AsyncIterator[Client]:
    async with Client(build_server(report)) as c:
        yield c


@pytest.mark.slow
async def test_the_host_receives_png_image_content(client: Client, report: Library) -> None:
    doc_id, costs = section(report, "2.2 Costs")
    result = await client.call_tool("read_section", {"doc_id": doc_id, "sec_id": costs, "images": True})
    assert not result.is_error
    text, *images = result.content
    assert "figure — image 1 below" in text.text and len(images) == 1
    assert images[0].type == "image" and images[0].mime_type == "image/png"
    png = base64.b64decode(images[0].data)
    assert Image.open(io.BytesIO(png)).size == (
        result.structured_content["images"][0]["width"],
        result.structured_content["images"][0]["height"],
    )
    assert "data" not in result.structured_content["images"][0], "the bytes travel as image content only"

    page = await client.call_tool("view_page", {"doc_id": doc_id, "page": 2})
    assert not page.is_error and page.content[1].type == "image"
    assert f"({doc_id}) report.pdf | page 2 of" in page.content[0].text


@pytest.mark.slow
async def test_a_page_is_a_resource_a_user_can_attach(client: Client, report: Library) -> None:
    doc_id, _ = section(report, "2.2 Costs")
    templates = (await client.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["deepread://doc/{doc_id}/page/{page}.png"]
    read = await client.read_resource(f"deepread://doc/{doc_id}/page/1.png")
    (content,) = read.contents
    assert content.mime_type == "image/png"
    assert Image.open(io.BytesIO(base64.b64decode(content.blob))).size == (
        report.view_page(doc_id, 1).image.width,
        report.view_page(doc_id, 1).image.height,
    )
    with pytest.raises(Exception, match=r"has pages 1–\d+ \(got 99\)"):
        await client.read_resource(f"deepread://doc/{doc_id}/page/99.png")

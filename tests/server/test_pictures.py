"""Pictures inside office files, shown to vision-capable hosts: a slide's picture and a DOCX
figure come as they were stored (MinerU inlines them; the parser's child keeps them in the parse
cache, never in the folder), a large one is scaled down, a file without any says so, and a
picture that is gone is named. Real PPTX and DOCX files, parsed by MinerU."""

from __future__ import annotations

import base64
import io
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client
from PIL import Image, ImageDraw

from indexer.answers.pages import MAX_SIDE
from indexer.library import Library
from indexer.parse.blocks import UNCAPTIONED
from server.app import build_server
from server.render import render_section

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def bars(path: Path, size: tuple[int, int] = (400, 300)) -> None:
    """A bar chart drawn as a picture: a red and a blue bar on white."""
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    w, h = size
    draw.rectangle([w // 8, h // 3, w // 3, h - 10], fill=(220, 20, 20))
    draw.rectangle([w // 2, h // 6, 3 * w // 4, h - 10], fill=(20, 20, 220))
    image.save(path)


def colours(data: bytes) -> tuple[float, float]:
    """Shares of clearly red and clearly blue pixels."""
    image = Image.open(io.BytesIO(data)).convert("RGB")
    pixels = list(image.getdata())
    red = sum(1 for r, g, b in pixels if r > 150 and g < 90 and b < 90)
    blue = sum(1 for r, g, b in pixels if b > 150 and r < 90 and g < 90)
    return red / len(pixels), blue / len(pixels)


@pytest.fixture
def office(folder: Path, tmp_path: Path, open_library: Callable[..., Library]) -> Library:
    import docx
    from docx.shared import Inches
    from pptx import Presentation
    from pptx.util import Inches as SlideInches

    chart, wide = tmp_path / "chart.png", tmp_path / "wide.png"
    bars(chart)
    bars(wide, (3000, 1500))
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Quarterly revenue"
    slide.shapes.add_picture(str(chart), SlideInches(1), SlideInches(2), SlideInches(4))
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Outlook"
    slide.placeholders[1].text = "We expect growth in the second half."
    deck.save(str(folder / "deck.pptx"))

    report = docx.Document()
    report.add_heading("Revenue", 1)
    report.add_paragraph("Revenue grew in every region.")
    report.add_picture(str(wide), width=Inches(6))
    report.add_paragraph("Figure 1: Revenue by region")
    report.save(str(folder / "report.docx"))

    plain = docx.Document()
    plain.add_heading("Minutes", 1)
    plain.add_paragraph("The board met and approved the budget.")
    plain.save(str(folder / "minutes.docx"))

    library = open_library(folder)
    library.reconcile()
    return library


def doc_id(library: Library, path: str) -> int:
    return next(d.doc_id for d in library.toc().documents if d.path == path)


def section_with(library: Library, doc: int, kind: str) -> int:
    """The first section holding a paragraph of `kind`."""
    for s in library.toc(doc_id=doc).documents[0].sections:
        if any(p.kind == kind for p in library.read_section(doc, s.sec_id).paragraphs):
            return s.sec_id
    raise AssertionError(f"no {kind} in doc {doc}")


@pytest.mark.slow
def test_a_slide_picture_is_served_as_it_was_stored(office: Library, folder: Path) -> None:
    deck = doc_id(office, "deck.pptx")
    sec = section_with(office, deck, "figure")
    answer = office.read_section(deck, sec, images=True)
    figure = next(p for p in answer.paragraphs if p.kind == "figure")
    (image,) = answer.images
    assert figure.image == 1 and (image.sec_id, image.para_idx, image.page, image.bbox) == (
        sec,
        figure.para_idx,
        1,
        None,
    )
    decoded = Image.open(io.BytesIO(image.data))
    assert decoded.size == (image.width, image.height) == (400, 300), "served at its own size"
    assert image.mime_type == f"image/{decoded.format.lower()}"
    red, blue = colours(image.data)
    assert red > 0.05 and blue > 0.05, "the picture holds the drawn bars"
    assert f"[{figure.para_idx}] p.1 figure — image 1 below" in render_section(answer)
    assert sorted(p.name for p in folder.iterdir()) == ["deck.pptx", "minutes.docx", "report.docx"], (
        "nothing written into the folder"
    )


@pytest.mark.slow
def test_a_docx_figure_keeps_its_caption_and_a_large_picture_is_scaled(office: Library) -> None:
    report = doc_id(office, "report.docx")
    sec = section_with(office, report, "figure")
    answer = office.read_section(report, sec, images=True)
    figure = next(p for p in answer.paragraphs if p.image)
    assert "Figure 1: Revenue by region" in figure.text
    (image,) = answer.images
    assert image.page is None and (image.width, image.height) == (MAX_SIDE, MAX_SIDE // 2)
    decoded = Image.open(io.BytesIO(image.data))
    assert decoded.format == "PNG" and decoded.size == (MAX_SIDE, MAX_SIDE // 2) and image.mime_type == "image/png"
    assert all(share > 0.05 for share in colours(image.data))


@pytest.mark.slow
def test_a_file_without_pictures_says_so_and_a_gone_picture_is_named(office: Library, tmp_path: Path) -> None:
    minutes = doc_id(office, "minutes.docx")
    answer = office.read_section(minutes, 0, images=True)
    assert answer.images == [] and answer.paragraphs
    assert (
        "minutes.docx is not a PDF, so only the pictures kept from it can be shown, and the paragraphs read here have none."
        in (answer.hint or "")
    )
    assert UNCAPTIONED not in render_section(answer)

    shutil.rmtree(tmp_path / "data" / "parse-cache" / "pictures")
    deck = doc_id(office, "deck.pptx")
    sec = section_with(office, deck, "figure")
    gone = office.read_section(deck, sec, images=True)
    assert gone.images == [] and "are gone: the parse cache was cleared" in (gone.hint or "")


@pytest.mark.slow
async def test_the_host_receives_the_picture_with_its_own_mime_type(office: Library) -> None:
    deck = doc_id(office, "deck.pptx")
    sec = section_with(office, deck, "figure")
    async with Client(build_server(office)) as client:
        result = await client.call_tool("read_section", {"doc_id": deck, "sec_id": sec, "images": True})
    assert not result.is_error
    _text, picture = result.content
    listed = result.structured_content["images"][0]
    assert picture.type == "image" and picture.mime_type == listed["mime_type"]
    assert Image.open(io.BytesIO(base64.b64decode(picture.data))).size == (listed["width"], listed["height"])
    assert listed["page"] == 1 and listed["bbox"] is None and "data" not in listed


async def test_a_picture_of_a_page_is_a_page_the_host_can_view_and_attach(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """A JPEG of a page: view_page sends it as it was kept (a JPEG), the page resource as a PNG."""
    from tests.indexer.parse.test_images import FIRST, page_image

    page_image(FIRST, "Harbour Rules").resize((700, 990)).save(folder / "rules.jpg", quality=90)
    library = open_library(folder)
    library.reconcile()
    scan = doc_id(library, "rules.jpg")
    async with Client(build_server(library)) as client:
        viewed = await client.call_tool("view_page", {"doc_id": scan, "page": 1})
        attached = await client.read_resource(f"deepread://doc/{scan}/page/1.png")
    assert not viewed.is_error
    _text, image = viewed.content
    assert image.type == "image" and image.mime_type == "image/jpeg"
    assert Image.open(io.BytesIO(base64.b64decode(image.data))).size == (700, 990)
    (content,) = attached.contents
    assert content.mime_type == "image/png"
    assert Image.open(io.BytesIO(base64.b64decode(content.blob))).format == "PNG"

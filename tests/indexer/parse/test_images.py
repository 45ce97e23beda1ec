"""Pictures of documents (`indexer.parse.images`): real OCR in the parser's child, a page per image or
TIFF frame, the page kept as a picture that read_section(images=true) and view_page show; a photo
without words fails with a reason a person understands. Pages drawn with fpdf2 and rasterised as a
scanner would, and a real photo from ../shared/corpora."""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from fpdf import FPDF
from PIL import Image

from indexer.library import Library
from indexer.parse.formats import is_supported
from indexer.parse.images import NO_TEXT

PHOTO = Path("/work/shared/corpora/unstructured/img/example.jpg")
for _up in Path(__file__).resolve().parents:
    if (_up / "shared" / "corpora").is_dir():
        PHOTO = _up / "shared" / "corpora" / "unstructured" / "img" / "example.jpg"
        break


def page_image(lines: list[str], title: str) -> Image.Image:
    """A page of text as a scanner gives it: rendered at 150 dpi, no text layer."""
    import pypdfium2 as pdfium

    pdf = FPDF(format=(148, 210))
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 20)
    pdf.multi_cell(0, 12, title, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=12)
    for line in lines:
        pdf.multi_cell(0, 7, line, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3)
    document = pdfium.PdfDocument(bytes(pdf.output()))
    image = document[0].render(scale=150 / 72).to_pil().convert("RGB")
    document.close()
    return image


FIRST = ["The harbour master opens the lock gates at dawn.", "Boats wait in the outer basin until the tide turns."]
SECOND = ["Cargo is weighed on the north quay before noon."]


def test_picture_formats_are_supported() -> None:
    for name in ("a.png", "b.JPG", "c.jpeg", "d.tif", "e.tiff", "f.webp", "g.bmp"):
        assert is_supported(Path(name)), name


def test_a_picture_of_a_page_is_read_kept_and_shown(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    page_image(FIRST, "Harbour Rules").save(folder / "rules.png")
    first, second = page_image(FIRST, "Harbour Rules"), page_image(SECOND, "Quay Rules")
    first.save(folder / "both.tiff", save_all=True, append_images=[second], compression="tiff_deflate")
    library = open_library(folder)
    report = library.reconcile()
    assert sorted(report.indexed) == ["both.tiff", "rules.png"], report
    docs = {d.path: d for d in library.toc().documents}
    assert docs["rules.png"].n_pages == 1 and docs["both.tiff"].n_pages == 2

    hits = library.retrieve("lock gates at dawn", doc_ids=[docs["rules.png"].doc_id]).results
    assert hits and "opens the lock gates at dawn" in hits[0].text and hits[0].page == 1
    quay = library.retrieve("cargo weighed north quay", doc_ids=[docs["both.tiff"].doc_id]).results
    assert quay and "weighed on the north quay" in quay[0].text and quay[0].page == 2

    view = library.view_page(docs["rules.png"].doc_id, 1)  # the picture kept when it was read
    assert (view.n_pages, view.image.mime_type) == (1, "image/png")
    assert Image.open(io.BytesIO(view.image.data)).size == (view.image.width, view.image.height)
    assert max(view.image.width, view.image.height) <= 1000
    second_page = library.view_page(docs["both.tiff"].doc_id, 2)  # a frame, kept as a PNG
    assert second_page.page == 2 and second_page.image.mime_type == "image/png"
    with pytest.raises(Exception, match="pages 1–2"):
        library.view_page(docs["both.tiff"].doc_id, 3)

    section = library.read_section(docs["rules.png"].doc_id, 0, images=True)
    assert len(section.images) == 1 and section.images[0].page == 1
    assert sorted(p.name for p in folder.iterdir()) == ["both.tiff", "rules.png"]  # nothing written beside them


def test_a_photo_without_words_fails_with_a_reason(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    if PHOTO.is_file():
        shutil.copyfile(PHOTO, folder / "flower.jpg")
    else:  # a gradient stands in for a photo
        Image.linear_gradient("L").resize((480, 360)).convert("RGB").save(folder / "flower.jpg")
    library = open_library(folder)
    library.reconcile()
    failed = library.toc().failed
    assert [(f.path, f.reason) for f in failed] == [("flower.jpg", NO_TEXT)]
    assert "a photo?" in NO_TEXT


def test_a_picture_named_for_another_format_is_read_as_what_it_is(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    page_image(SECOND, "Quay Rules").save(folder / "quay.png", format="JPEG")  # JPEG bytes in a .png
    (folder / "broken.jpg").write_bytes(b"\xff\xd8\xff\xe0 this is not really a picture")
    library = open_library(folder)
    library.reconcile()
    assert [d.path for d in library.toc().documents] == ["quay.png"]
    hits = library.retrieve("cargo weighed north quay").results
    assert hits and "weighed on the north quay" in hits[0].text
    [broken] = library.toc().failed
    assert broken.path == "broken.jpg" and broken.reason.startswith("a damaged picture"), broken.reason

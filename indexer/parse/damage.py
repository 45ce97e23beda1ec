"""Damage costs only the damaged part: a PDF page that does not load, an office file's malformed chart,
slide or embedded part, a picture that cannot be decoded. Runs in the parser's child (`mineru_worker`).

* A PDF page PDFium cannot load ("Failed to load page": its dictionary is broken) failed the whole
  file, in the cheap checks as in MinerU. `mend_pdf` writes a copy in the child's folder where each
  such page is a blank page of its size, so every other page keeps its number and is read as before;
  the document says which pages were lost.
* An office file (a zip of XML parts) with one malformed part — a chart cut short, a slide with a
  broken tag — made MinerU raise on the whole file. When it does, `mend_package` writes a copy whose
  broken XML parts are read as far as they go (lxml's recovering parser), or, where even that is
  refused, replaced by their bare root element, and the copy is parsed; the document names the parts.
* A picture an office file holds that cannot be decoded is left out by MinerU without a word:
  `damaged_pictures` names them, for the document's warnings.
"""

from __future__ import annotations

import contextlib
import re
import zipfile
from pathlib import Path

PACKAGE_FORMATS = frozenset({".docx", ".pptx", ".xlsx", ".xlsm", ".odt", ".odp", ".ods", ".epub"})
_RASTER = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp")
LISTED = 5  # parts or pages named in a warning; the rest are counted


def _pages(pages: list[int]) -> str:
    shown = ", ".join(str(p + 1) for p in pages[:LISTED])
    more = f" and {len(pages) - LISTED} more" if len(pages) > LISTED else ""
    return f"page{'s' if len(pages) > 1 else ''} {shown}{more}"


def mend_pdf(path: str, target: str) -> tuple[str, list[int], str | None]:
    """(the path to parse, the 0-based pages that could not be loaded, a warning): the PDF itself
    when every page loads (or it cannot be opened at all: `check_pdf` says why), else a copy at
    `target` with blank pages in their place."""
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(path)
    except pdfium.PdfiumError:
        return path, [], None
    try:
        broken = []
        for index in range(len(pdf)):
            try:
                pdf[index].close()
            except pdfium.PdfiumError:
                broken.append(index)
        if not broken:
            return path, [], None
        if len(broken) == len(pdf):
            return path, broken, None
        copy = pdfium.PdfDocument.new()
        try:
            size = (612.0, 792.0)
            for index in range(len(pdf)):
                if index in broken:
                    with contextlib.suppress(pdfium.PdfiumError):  # else the size of the page before it
                        size = pdf.get_page_size(index)
                    copy.new_page(*size).close()
                else:
                    copy.import_pages(pdf, [index])
                    size = pdf.get_page_size(index)
            with open(target, "wb") as out:
                copy.save(out)
        finally:
            copy.close()
    finally:
        pdf.close()
    warning = f"{_pages(broken)} could not be loaded (damaged in the file): not indexed; the other pages are"
    return target, broken, warning


def describe(part: str) -> str:
    """A part of an office package as a person knows it."""
    name = part.rsplit("/", 1)[-1]
    number = re.search(r"(\d+)\.\w+$", name)
    n = f" {number.group(1)}" if number else ""
    for pattern, what in (
        (r"/charts?/", f"chart{n}"),
        (r"/slides/slide", f"slide{n}"),
        (r"/notesSlides/", f"the notes of slide{n}"),
        (r"/comments?/|comments\d*\.xml$", "comments"),
        (r"/worksheets/sheet", f"sheet{n}"),
        (r"/embeddings/", f"embedded object {name}"),
        (r"/media/", f"picture {name}"),
        (r"/diagrams/", f"diagram{n}"),
        (r"^word/document\.xml$", "the document's body"),
        (r"^content\.xml$", "the document's body"),
    ):
        if re.search(pattern, part):
            return what
    return part


def mend_package(path: str, target: str) -> list[str]:
    """Write to `target` a copy of the zip-based office file at `path` whose malformed XML parts are
    mended; the parts mended, as `describe` names them (none: nothing to mend, and no copy)."""
    from lxml import etree

    damaged: list[str] = []
    try:
        source = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError):
        return []
    with source:
        parts = source.infolist()
        contents: dict[str, bytes] = {}
        for info in parts:
            data = source.read(info.filename)
            if info.filename.endswith((".xml", ".rels")) or info.filename == "[Content_Types].xml":
                try:
                    etree.fromstring(data)
                except etree.XMLSyntaxError:
                    data = _recovered(data)
                    damaged.append(info.filename)
            contents[info.filename] = data
    if not damaged:
        return []
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as copy:
        for info in parts:
            copy.writestr(info, contents[info.filename])
    return [describe(part) for part in damaged]


def _recovered(data: bytes) -> bytes:
    """What lxml's recovering parser reads of a malformed XML part; its bare root element when it
    reads nothing (an empty document is no XML at all)."""
    from lxml import etree

    root = etree.fromstring(data, etree.XMLParser(recover=True, resolve_entities=False, no_network=True))
    if root is None:
        match = re.search(rb"<([\w:]+)((?:\s+[\w:]+=\"[^\"]*\")*)\s*/?>", data[data.find(b"?>") + 2 :] or data)
        return (match.group(0).rstrip(b"/>").rstrip(b">") + b"/>") if match else b"<root/>"
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)


def damaged_pictures(path: str) -> list[str]:
    """The raster pictures of an office package that cannot be decoded (MinerU leaves them out)."""
    from PIL import Image, UnidentifiedImageError

    found = []
    try:
        with zipfile.ZipFile(path) as package:
            for info in package.infolist():
                name = info.filename.lower()
                if ("/media/" not in name and not name.startswith("pictures/")) or not name.endswith(_RASTER):
                    continue
                try:
                    with package.open(info) as stream, Image.open(stream) as image:
                        image.verify()
                except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
                    found.append(Path(info.filename).name)
    except (zipfile.BadZipFile, OSError):
        return []
    return found

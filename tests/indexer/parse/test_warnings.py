"""What goes wrong without failing a file is reported, not swallowed: the parser child
returns warnings, the store keeps them with the document, get_toc shows them."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from indexer.library import Library
from indexer.parse import mineru_worker
from server.render import render_toc


def test_a_picture_ocr_cannot_read_is_a_warning_not_silence(tmp_path: Path) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\nnot really a PDF")
    items = [{"type": "image", "page_idx": 0, "bbox": [0, 0, 1000, 1000]}]
    warnings: list[str] = []
    mineru_worker.read_pictures(str(broken), items, warnings)
    assert len(warnings) == 1
    assert warnings[0].startswith(("OCR of pictures failed (", "words in pictures not read: OCR unavailable"))
    assert "content" not in items[0], "the picture is left as it was"


def test_a_pdf_without_pictures_gets_no_warning_about_them(tmp_path: Path) -> None:
    warnings: list[str] = []
    mineru_worker.read_pictures(str(tmp_path / "missing.pdf"), [{"type": "text", "text": "x"}], warnings)
    assert warnings == []


def _seed_parse(library: Library, data: bytes, warnings: list[str]) -> None:
    """The parse cache holds what the MinerU child returned for these bytes; here a short
    report with the warnings the child gave (what a real parse with OCR problems returns)."""
    items = [
        {"type": "text", "text": "Annual Report", "text_level": 1, "page_idx": 0},
        {"type": "text", "text": "Revenue grew by a tenth over the year, led by the harbour business.", "page_idx": 0},
        {"type": "text", "text": "Outlook", "text_level": 1, "page_idx": 1},
        {"type": "text", "text": "The board expects steady demand for ferries next year.", "page_idx": 1},
    ]
    raw = {"ok": True, "tier": "flash", "content_list": items, "page_count": 3, "outline": [], "warnings": warnings}
    path = library.index.writing.reconciler.versions.parser.mineru._cache_path(hashlib.sha256(data).hexdigest())
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as f:
        json.dump(raw, f)


def test_get_toc_shows_a_documents_warnings(folder: Path, open_library: Callable[..., Library]) -> None:
    data = b"%PDF-1.7\n% a report whose third page is a scan\n"
    (folder / "report.pdf").write_bytes(data)
    library = open_library(folder)
    warnings = [
        "1 page without a text layer not read: OCR unavailable (RapidOCR is not usable)",
        "the PDF's outline could not be read (PdfiumError); heading depth guessed",
    ]
    _seed_parse(library, data, warnings)
    library.reconcile()

    whole = library.toc()
    (doc,) = whole.documents
    assert doc.status == "ready", "warnings do not fail a document"
    assert doc.warnings == [f"{warnings[0]} (+1 more: get_toc(doc_id={doc.doc_id}))"], (
        "the map of all: the first, and where the rest are"
    )
    assert f"  Warnings: {warnings[0]} (+1 more" in render_toc(whole)

    one = library.toc(doc_id=doc.doc_id)
    assert one.documents[0].warnings == warnings
    assert "  Warnings: " + "; ".join(warnings) in render_toc(one).splitlines()[1:3]  # under its card
    assert library.retrieve("ferries next year").results[0].doc_id == doc.doc_id, "and it is searchable"


def test_warnings_go_when_the_file_is_parsed_cleanly(folder: Path, open_library: Callable[..., Library]) -> None:
    data = b"%PDF-1.7\n% version one\n"
    (folder / "report.pdf").write_bytes(data)
    library = open_library(folder)
    _seed_parse(library, data, ["OCR of pictures failed (ValueError: bad image)"])
    library.reconcile()
    assert library.toc().documents[0].warnings

    fixed = b"%PDF-1.7\n% version two\n"
    _seed_parse(library, fixed, [])
    (folder / "report.pdf").write_bytes(fixed)
    library.reconcile()
    doc = library.toc().documents[0]
    assert doc.version == 2 and doc.warnings == []
    assert "Warnings" not in render_toc(library.toc())

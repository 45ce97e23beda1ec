"""The opening pages of a PDF as a file of their own: titles come from the first pages, and a
quick run need not parse a 400-page manual whole."""

from __future__ import annotations

import hashlib
from pathlib import Path


def first_pages(path: Path, pages: int, work: Path) -> Path:
    """A copy of the PDF's first `pages` pages with its metadata (pypdf, which MinerU installs),
    or the file itself."""
    if not pages or path.suffix.lower() != ".pdf":
        return path
    from pypdf import PdfReader, PdfWriter

    try:
        reader = PdfReader(path)
        if len(reader.pages) <= pages:
            return path
        writer = PdfWriter()
        for page in reader.pages[:pages]:
            writer.add_page(page)
        if reader.metadata:
            writer.add_metadata({k: str(v) for k, v in reader.metadata.items()})
        copy = work / f"{hashlib.sha1(str(path).encode()).hexdigest()[:8]}-{path.name}"
        with copy.open("wb") as out:
            writer.write(out)
        return copy
    except Exception:  # noqa: BLE001 (an encrypted or malformed PDF is parsed whole, as the server would)
        return path

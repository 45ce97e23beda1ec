"""Pictures kept from office files (PPTX, DOCX, XLSX …), and the pages of a picture of a document
(`indexer.parse.images`), so that read_section(images=true) and view_page can show them: a PDF's
figures are rendered from its pages (`indexer.answers.pages`), but an office file has no page to
render, and MinerU hands its pictures over inline, as `data:` URLs.

The parser's child (`keep`) writes each picture once, named by the sha256 of its bytes, into
the parse cache's `pictures/` folder: the parse results that refer to them live there too, a
shared cache shares them, and an unchanged picture in a new version costs nothing. Nothing is
written into the watched folder. `indexer.answers.pages.StoredPictures` serves them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from pathlib import Path

from indexer.models import Item

# What hosts accept as image content, by the MIME type of the data: URL.
SUFFIXES = {"image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/webp": "webp"}
MIME_TYPES = {suffix: mime for mime, suffix in SUFFIXES.items()}
MAX_PICTURE_BYTES = 20_000_000  # one picture; larger ones are left out, with a warning
MAX_DOCUMENT_BYTES = 200_000_000  # all of one file's pictures


def keep(items: list[Item], folder: Path, warnings: list[str]) -> None:
    """Write the inline pictures of MinerU's content list into `folder` and set each item's
    `picture` to the stored name; `img_path` is cleared either way (megabytes we never index)."""
    kept_bytes = 0
    left_out = 0
    for item in items:
        url = str(item.get("img_path") or "")
        if not url.startswith("data:"):
            continue
        item["img_path"] = None
        header, _, payload = url.partition(",")
        suffix = SUFFIXES.get(header[5:].split(";")[0].lower())
        try:
            data = base64.b64decode(payload, validate=True) if suffix and header.endswith(";base64") else b""
        except (binascii.Error, ValueError):
            data = b""
        if not suffix or not data or len(data) > MAX_PICTURE_BYTES or kept_bytes + len(data) > MAX_DOCUMENT_BYTES:
            left_out += 1
            continue
        item["picture"] = keep_bytes(data, suffix, folder)
        kept_bytes += len(data)
    if left_out:
        warnings.append(
            f"{left_out} picture(s) not kept: not JPEG, PNG, GIF or WebP, unreadable, or over "
            f"{MAX_PICTURE_BYTES // 1_000_000} MB (of {MAX_DOCUMENT_BYTES // 1_000_000} MB per file)"
        )


def keep_bytes(data: bytes, suffix: str, folder: Path) -> str:
    """Write one picture (`suffix`: one of `SUFFIXES`' values) into `folder` once; its stored name."""
    name = f"{hashlib.sha256(data).hexdigest()}.{suffix}"
    target = folder / name
    if not target.exists():
        folder.mkdir(parents=True, exist_ok=True)
        part = target.with_name(f"{name}.{os.getpid()}.part")
        part.write_bytes(data)
        part.replace(target)
    return name


def all_kept(items: list[Item], folder: Path) -> bool:
    """Whether every picture a cached parse refers to is still in `folder` (a cleared cache
    folder means parsing again, not answering with pictures that are gone)."""
    return all((folder / it["picture"]).is_file() for it in items if it.get("picture"))

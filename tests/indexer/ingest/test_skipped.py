"""Files the folder walk passes over are named, with why: the map counts them and names the call
that lists them, and the list follows the folder. Real files, the real store and model."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from indexer.errors import InvalidArgument, NotFound
from indexer.library import Library
from server.render import render_toc
from tests.conftest import write


def test_unsupported_files_and_links_out_are_named_with_why(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    write(folder, "guide.md", "# Guide\n\nOtters swim in the river.")
    write(folder, "data/export.json", '{"otters": 3}')
    (folder / "archive.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    write(folder, ".hidden.txt", "scratch")  # hidden and temporary files are passed over without a word
    write(folder, "draft.md~", "scratch")
    outside = write(tmp_path, "outside/secret.md", "# Secret\n\nNot served.")
    os.symlink(outside, folder / "secret.md")
    library = open_library(folder)
    library.reconcile()

    toc = library.toc()
    assert [d.path for d in toc.documents] == ["guide.md"]
    assert toc.n_skipped == 3
    assert "3 file(s) here are not indexed" in (toc.hint or "") and "get_toc(skipped=true)" in (toc.hint or "")

    listed = library.toc(skipped=True)
    assert [(s.path, s.reason) for s in listed.skipped] == [
        (
            "archive.zip",
            "not a supported type (.zip): an archive: unpack it into the folder to index the documents in it",
        ),
        (
            "data/export.json",
            "not a supported type (.json): data or code, not a document: rename it to .txt to index it as plain text",
        ),
        ("secret.md", "a link to outside the served folder: not followed"),
    ]
    text = render_toc(listed)
    assert "Skipped: archive.zip — not a supported type (.zip)" in text and "No documents" not in text
    with pytest.raises(NotFound, match="its 1 file\\(s\\) are not indexed"):
        library.toc(path="data")
    write(folder, "data/readme.md", "# Data\n\nThe export holds counts.")
    library.reconcile()
    assert library.toc(path="data").n_skipped == 1, "a folder's map counts what is passed over under it"

    with pytest.raises(InvalidArgument, match="give it alone"):
        library.toc(doc_id=1, skipped=True)


def test_the_list_follows_the_folder(folder: Path, open_library: Callable[..., Library]) -> None:
    write(folder, "guide.md", "# Guide\n\nOtters swim in the river.")
    library = open_library(folder)
    library.reconcile()
    assert library.toc().n_skipped == 0
    assert library.toc(skipped=True).hint.startswith("Every file of a supported type")

    table = write(folder, "sheets/table.numbers", "not a format we read")
    library.sync_paths([table])  # what a file event does
    assert [s.path for s in library.toc(skipped=True).skipped] == ["sheets/table.numbers"]
    table.unlink()
    library.sync_paths([table])
    assert library.toc(skipped=True).skipped == []

    write(folder, "more/a.bin", "x")
    write(folder, "more/b.bin", "y")
    library.sync_paths([folder / "more"])  # a folder moved in
    assert library.toc().n_skipped == 2
    for name in ("a.bin", "b.bin"):
        (folder / "more" / name).unlink()
    (folder / "more").rmdir()
    library.sync_paths([folder / "more"])  # and away
    assert library.toc().n_skipped == 0

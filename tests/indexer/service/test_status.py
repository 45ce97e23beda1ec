"""The service's status as the map's notes, the server's progress and the CLI read it: who writes,
what semantic search has yet to cover. Real files, the real store, Chroma and the offline model."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from indexer.library import Library
from tests.conftest import write


def test_the_writer_says_what_semantic_search_has_left(folder: Path, open_library: Callable[..., Library]) -> None:
    write(folder, "a.md", "# A\n\nOtters swim in the river.\n\nThey eat fish and crabs.")
    library = open_library(folder)
    status = library.status()
    assert status.writer and not status.written_elsewhere and status.writer_pid == str(os.getpid())
    assert status.progress is None and status.paused is None and status.vectors_left is None
    assert library.index.writing is not None
    with library.index.writing.catchup.held():  # the lane waits: the document is readable, its vectors not in
        library.reconcile(wait=False)
        left = library.status().vectors_left
        assert left is not None and (left.documents, left.paragraphs) == (1, 2)
    assert library.wait_for_vectors(60)
    status = library.status()
    assert status.vectors_left is None and not status.embedding and status.embedded == 2 and status.passages >= 1


def test_a_reader_names_the_writer(folder: Path, tmp_path: Path, open_library: Callable[..., Library]) -> None:
    write(folder, "a.md", "# A\n\nOtters swim in the river.")
    writer = open_library(folder, data_dir=tmp_path / "shared")
    writer.reconcile()
    reader = open_library(folder, data_dir=tmp_path / "shared")
    status = reader.status()
    assert not status.writer and status.written_elsewhere and status.writer_pid == str(os.getpid())
    assert status.progress is None and not status.embedding and status.embedded == 0

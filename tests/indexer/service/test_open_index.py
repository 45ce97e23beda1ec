"""An index opened by several processes: one writes, the others read the same files and take over
writing when the writer is gone. Real files, the real store, Chroma and the offline model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from indexer.library import Library
from tests.conftest import write


def test_a_second_library_on_the_index_reads_it_and_takes_over_when_the_writer_closes(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    """One writer per index; another opening finds the lock taken and reads the same index,
    seeing the writer's commits (its search scans the vectors' SQLite copy), until it takes over."""
    write(folder, "a.md", "# A\n\nOtters swim in the river.")
    (folder / "b.zip").write_bytes(b"PK")
    first = open_library(folder, data_dir=tmp_path / "shared")
    first.reconcile()
    second = open_library(folder, data_dir=tmp_path / "shared")
    assert first.writer and not second.writer and second.index.writing is None
    assert second.reconcile().indexed == [], "a reader leaves the folder to the writer"
    assert [d.path for d in second.toc().documents] == ["a.md"]
    assert second.retrieve("where do otters swim", top_k=1).results[0].text.startswith("Otters")
    assert second.toc(skipped=True).skipped[0].path == "b.zip", "the writer's walk is shared"

    write(folder, "b.md", "# B\n\nBadgers dig setts in the wood.")
    first.reconcile()  # the writer commits; the reader sees it at its next answer
    assert "b.md" in [d.path for d in second.toc().documents]
    assert second.retrieve("badgers woodland", top_k=1).results[0].text.startswith("Badgers")

    assert not second.take_over(), "not while the writer lives"
    first.close()
    assert second.take_over() and second.writer
    write(folder, "c.md", "# C\n\nCranes nest in the marsh.")
    assert second.reconcile().indexed == ["c.md"]
    assert second.retrieve("cranes marsh", top_k=1).results[0].text.startswith("Cranes")

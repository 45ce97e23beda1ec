"""An index's folders: recorded by its writer, read back without opening it; and what changed
since, told to a process that opened the index only to answer (`write=False`).

Real files, the real store, Chroma and the offline MiniLM.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from indexer.ingest.covered import index_folders
from indexer.library import Library, LibraryConfig
from tests.conftest import write

HERON = "# Herons\n\nThe heron waits in the shallows at dawn.\n"
OAK = "# Oaks\n\nOaks keep their leaves late into the winter.\n"


def test_the_writer_records_its_folders(tmp_path: Path, open_library: Callable[..., Library]) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    assert index_folders(tmp_path / "data") is None, "no index there"
    open_library(one, two).close()
    assert index_folders(tmp_path / "data") == [one.resolve(), two.resolve()], "even before any file is indexed"


def test_a_reader_counts_the_changed_files_and_writes_only_when_asked(
    folder: Path, tmp_path: Path, models_dir: Path
) -> None:
    write(folder, "heron.md", HERON)
    write(folder, "oak.md", OAK)
    config = LibraryConfig(roots=[folder], data_dir=tmp_path / "data", models_dir=models_dir)
    with Library(config) as writer:
        writer.reconcile()
    with Library(config, write=False) as reader:  # as `toc`, `search` and `read` open it
        assert not reader.writer and not reader.index.written_elsewhere and reader.index.writing is None
        assert reader.changed_files() == 0
        assert "Herons" in reader.toc().documents[0].title
        assert reader.index.embedder._loaded is None, "the map needs no model"

        write(folder, "heron.md", HERON.replace("dawn", "dusk"))  # changed
        os.utime(folder / "heron.md", ns=(1, 1))  # a time no stat shares with the indexed version
        write(folder, "moss.md", "# Moss\n\nMoss grows on the north side.\n")  # new
        (folder / "oak.md").unlink()  # gone
        assert reader.changed_files() == 3
        assert reader.toc().documents[0].version == 1, "a reader answers from the index as it is"

        assert reader.take_over() and reader.writer
        report = reader.reconcile()
        assert (sorted(report.indexed), report.removed) == (["heron.md", "moss.md"], ["oak.md"])
        assert reader.changed_files() == 0

"""The writer's work: the first reconcile of a writer parses again what failed for a reason that
may pass, and a reconcile tells readers which files its walk passed over. Real files, a real PDF
through MinerU, the real store and model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from indexer.library import Library
from tests.conftest import write
from tests.indexer.ingest.test_healing import _pdf


@pytest.mark.slow
def test_a_parse_over_its_time_limit_is_retried_at_the_next_start(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    """A limit too small for the machine fails the file as one that may pass; the next start parses it again."""
    _pdf(folder / "kingfishers.pdf", "Kingfishers dive for small fish from a perch above the water. " * 6)
    data = tmp_path / "data"
    lib = open_library(folder, data_dir=data, parse_timeout_s=0.2)  # less CPU time than the parser needs to start
    assert lib.reconcile().failed == ["kingfishers.pdf"]
    (failed,) = lib.toc().failed
    assert "CPU time, over the parse time limit" in failed.reason
    assert failed.retry == "this may pass: parsed again when the server is idle, with twice the time"
    assert lib.reconcile().failed == [], "an unchanged file is not parsed again within the run"
    lib.close()

    lib = open_library(folder, data_dir=data)  # the next start, with the usual limit
    report = lib.reconcile()
    assert report.indexed == ["kingfishers.pdf"] and not lib.toc().failed
    assert lib.retrieve("kingfisher perch", top_k=1).results[0].text.startswith("Kingfishers dive")


def test_a_reconcile_records_the_skipped_files_for_readers(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    write(folder, "a.md", "# A\n\nOtters swim in the river.")
    (folder / "b.zip").write_bytes(b"PK")
    writer = open_library(folder, data_dir=tmp_path / "shared")
    writer.reconcile()
    assert writer.index.skipped() == [
        (
            str(folder.resolve()),
            "b.zip",
            "not a supported type (.zip): an archive: unpack it into the folder to index the documents in it",
        )
    ]
    reader = open_library(folder, data_dir=tmp_path / "shared")
    assert reader.index.writing is None
    assert reader.index.skipped() == writer.index.skipped(), "a reader reads the writer's walk from the store"
    (folder / "b.zip").unlink()
    writer.reconcile()
    assert reader.index.skipped() == []

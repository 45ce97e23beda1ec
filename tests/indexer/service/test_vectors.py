"""Which vectors a process searches: the writer Chroma, a reader of an embedded index the vectors'
SQLite copy (Chroma's embedded store is not process-safe); a collection on a shared Chroma server
named after its index, as Chroma allows."""

from __future__ import annotations

import re
from pathlib import Path

from indexer.service.config import LibraryConfig
from indexer.service.vectors import _collection_name, open_vectors
from indexer.store.repair import Repairs
from indexer.store.vectors import CopyVectors, VectorIndex


def test_the_writer_searches_chroma_and_a_reader_the_copy(tmp_path: Path) -> None:
    config = LibraryConfig(roots=[tmp_path / "docs"], data_dir=tmp_path / "data", models_dir=tmp_path / "models")
    config.data_dir.mkdir()
    repairs = Repairs(config.data_dir)
    writer = open_vectors(config, repairs, writer=True)
    reader = open_vectors(config, repairs, writer=False)
    try:
        assert isinstance(writer, VectorIndex) and isinstance(reader, CopyVectors)
        assert (config.data_dir / "chroma").is_dir() and (config.data_dir / "vectors.sqlite3").is_file()
    finally:
        reader.close()
        writer.close()


def test_a_shared_chroma_collection_is_named_after_its_index() -> None:
    for name in ("data", "my index (2)", "_x_", "ünïcode", ""):
        collection = _collection_name(Path("/tmp") / name)
        assert re.fullmatch(r"[a-zA-Z0-9][a-zA-Z0-9._-]{1,510}[a-zA-Z0-9]", collection), collection
    assert _collection_name(Path("/srv/team-index")) == "deepread-team-index"

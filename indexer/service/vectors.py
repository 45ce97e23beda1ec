"""Which vectors a process of an index searches: Chroma for the writer, or for anyone when it is
a Chroma server (process-safe); the vectors' SQLite copy for a reader of an embedded index, since
Chroma's embedded store is not process-safe."""

from __future__ import annotations

import re
from pathlib import Path

from indexer.service.config import LibraryConfig
from indexer.store.repair import CHROMA_DIR, COPY_FILE, Repairs
from indexer.store.vectors import CopyVectors, VectorIndex, VectorSearch


def open_vectors(config: LibraryConfig, repairs: Repairs, writer: bool) -> VectorSearch:
    """The vectors this process searches (and, for the writer, writes)."""
    copy = config.data_dir / COPY_FILE
    if not writer and not config.chroma_url:
        return CopyVectors(copy, on_damage=repairs.found)
    # A shared Chroma server holds many indexes: name the collection after this one.
    collection = _collection_name(config.data_dir) if config.chroma_url else "paragraphs"
    return VectorIndex(
        collection, path=config.data_dir / CHROMA_DIR, url=config.chroma_url, copy=copy, on_damage=repairs.found
    )


def writer_vectors(config: LibraryConfig, repairs: Repairs) -> VectorIndex:
    vectors = open_vectors(config, repairs, writer=True)
    assert isinstance(vectors, VectorIndex)
    return vectors


def _collection_name(data_dir: Path) -> str:
    """Chroma wants 3–512 characters of [a-zA-Z0-9._-], starting and ending alphanumeric."""
    suffix = re.sub(r"[^a-zA-Z0-9._-]", "-", data_dir.name)[-60:].strip("-_.")
    return f"deepread-{suffix or 'index'}"

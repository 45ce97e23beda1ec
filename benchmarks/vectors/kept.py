"""A kept index's passages, read back from its store: what the embedding benchmarks embed again."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def index_passages(index: Path, with_context: bool | None = None) -> list[Any]:
    """Every passage (`indexer.structure.passages.Passage`) of the index kept in `index` (its data
    dir), packed as the index packs them; `with_context` None: as the index's signature says."""
    from indexer.models import section_paths
    from indexer.store.database import Store
    from indexer.structure.passages import vector_ids

    store = Store(index / "index.sqlite3")
    try:
        if with_context is None:
            with_context = "context=False" not in (store.get_meta("index_signature") or "")
        passages: list[Any] = []
        for doc in store.documents():
            paths = section_paths(store.sections(doc.doc_id))
            passages.extend(
                vector_ids(doc.doc_id, store.document_paragraphs(doc.doc_id), paths, with_context)[1].values()
            )
        return passages
    finally:
        store.close()

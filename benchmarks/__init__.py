"""Benchmark scripts; each appends its results to a file in `benchmarks/results/`."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def append_result(out: Path, header: str, text: str) -> None:
    """Append `text` to the results file `out`, starting it with `header` when it is new."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists():
        out.write_text(header)
    with out.open("a") as f:
        f.write(text)


def index_passages(index: Path, with_context: bool | None = None) -> list[Any]:
    """Every passage (`indexer.structure.passages.Passage`) of the index kept in `index` (its data
    dir), packed as the index packs them; `with_context` None: as the index's signature says.
    (Imported here, not above: scripts that score older checkouts import this package too.)"""
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

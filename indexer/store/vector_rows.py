"""Which paragraphs have their vectors: a mixin of `Store`.

A document's current version is `embedded` once every passage of it has a vector (the catch-up
lane, `indexer.ingest.catchup`, gives each what it lacks); paragraphs name their passage's
vector by `vec_id`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager

from indexer.store.connection import marks
from indexer.store.rows import DocumentRow, typed


class VectorRows:
    """Vector bookkeeping for `Store`, which provides the connection (`_query`, `transaction`)."""

    _query: Callable[..., list[sqlite3.Row]]
    transaction: Callable[[], AbstractContextManager[sqlite3.Connection]]

    def set_embedded(self, doc_id: int, version: int) -> bool:
        """Mark this version's vectors complete; False when a newer version replaced it meanwhile."""
        with self.transaction() as db:
            cur = db.execute(
                "UPDATE documents SET embedded = 1 "
                "WHERE doc_id = ? AND version = ? AND status IN ('ready', 'indexing')",
                (doc_id, version),
            )
            return cur.rowcount > 0

    def assign_vectors(self, doc_id: int, vec_ids: dict[int, str]) -> None:
        """Point paragraphs (by id) at other vectors, and mark the document as waiting for them."""
        with self.transaction() as db:
            db.executemany("UPDATE paragraphs SET vec_id = ? WHERE id = ?", [(v, i) for i, v in vec_ids.items()])
            db.execute("UPDATE documents SET embedded = 0 WHERE doc_id = ?", (doc_id,))

    def forget_vectors(self) -> None:
        """Every readable version waits for its vectors again (a vector store was replaced): the
        catch-up lane gives each what it lacks."""
        with self.transaction() as db:
            db.execute("UPDATE documents SET embedded = 0 WHERE status IN ('ready', 'indexing') AND n_sections > 0")

    def awaiting_vectors(self) -> list[DocumentRow]:
        """Readable versions whose paragraphs do not all have their vectors yet, smallest first:
        a short note is fully searchable in seconds, not after the 3,000 paragraphs of a 10-K."""
        rows = self._query(
            "SELECT * FROM documents WHERE embedded = 0 AND status IN ('ready', 'indexing') AND n_sections > 0"
            " ORDER BY n_paras, doc_id"
        )
        return [typed(DocumentRow, r) for r in rows]

    def paragraph_ids_for_vectors(self, vec_ids: list[str]) -> dict[str, list[int]]:
        """Current paragraphs per vector id; vectors of replaced versions map to nothing."""
        rows = self._query(f"SELECT vec_id, id FROM paragraphs WHERE vec_id IN ({marks(vec_ids)})", vec_ids)
        found: dict[str, list[int]] = {}
        for r in rows:
            found.setdefault(r["vec_id"], []).append(r["id"])
        return found

    def vec_ids(self, doc_id: int) -> set[str]:
        return {r["vec_id"] for r in self._query("SELECT DISTINCT vec_id FROM paragraphs WHERE doc_id = ?", (doc_id,))}

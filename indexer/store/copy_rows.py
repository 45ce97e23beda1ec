"""Rows of files that are copies of a document (the same bytes): a mixin of `Store`.

A copy keeps its own row in `documents` (its path, file facts and an id kept for the day its
file differs) with status `copy` and `copy_of`, the document it copies; it has no content
(`indexer.ingest.copies` decides what is a copy and what a copy becomes).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager

from indexer.store.connection import marks
from indexer.store.rows import COPY, DocumentRow, typed


class CopyRows:
    """Copies for `Store`, which provides the connection (`_query`, `transaction`, `_delete_content`)."""

    _query: Callable[..., list[sqlite3.Row]]
    transaction: Callable[[], AbstractContextManager[sqlite3.Connection]]
    _delete_content: Callable[[sqlite3.Connection, int], None]

    def same_content(self, content_hash: str, doc_id: int) -> list[DocumentRow]:
        """Readable documents other than `doc_id` whose current version was read from these bytes."""
        rows = self._query(
            "SELECT * FROM documents WHERE content_hash = ? AND doc_id != ? AND status IN ('ready', 'indexing')"
            " AND n_sections > 0 ORDER BY doc_id",
            (content_hash, doc_id),
        )
        return [typed(DocumentRow, r) for r in rows]

    def copies_of(self, doc_ids: list[int] | None = None) -> dict[int, list[DocumentRow]]:
        """Per document (these, or every one), the rows of its copies, in path order."""
        among = "" if doc_ids is None else f" AND copy_of IN ({marks(doc_ids)})"
        rows = self._query(
            f"SELECT * FROM documents WHERE status = '{COPY}'{among} ORDER BY root, relpath", doc_ids or []
        )
        found: dict[int, list[DocumentRow]] = {}
        for r in rows:
            found.setdefault(r["copy_of"], []).append(typed(DocumentRow, r))
        return found

    def make_copy(self, doc_id: int, original: int, file_facts: dict[str, object]) -> None:
        """The file of `doc_id` has the same bytes as `original`'s: its row becomes a copy of that
        document (its own content, if any, goes; its id is kept for the day the file differs)."""
        fields = {
            **file_facts,
            "status": COPY,
            "copy_of": original,
            "reason": None,
            "title": None,
            "n_pages": None,
            "n_sections": 0,
            "n_paras": 0,
            "n_tokens": 0,
            "warnings": None,
            "embedded": 1,
            "transient": 0,
            "retries": 0,
            "retried_at": None,
        }
        assignments = ", ".join(f"{name} = ?" for name in fields)
        with self.transaction() as db:
            self._delete_content(db, doc_id)
            db.execute(f"UPDATE documents SET {assignments} WHERE doc_id = ?", (*fields.values(), doc_id))

    def promote(self, copy: DocumentRow, doc_id: int) -> None:
        """The file of document `doc_id` is gone but a copy of it remains: the document lives on under
        the copy's path, with the same id; the copy's row goes."""
        with self.transaction() as db:
            db.execute("DELETE FROM documents WHERE doc_id = ?", (copy.doc_id,))
            db.execute(
                "UPDATE documents SET root = ?, relpath = ?, size = ?, mtime_ns = ? WHERE doc_id = ?",
                (copy.root, copy.relpath, copy.size, copy.mtime_ns, doc_id),
            )

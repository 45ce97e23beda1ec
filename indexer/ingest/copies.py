"""Identical files are one document: the document keeps its id and content, the others are its copies.

Two copies of one PDF in a folder were two documents with the same title, and every hit came
twice. A file whose bytes are those of a readable document (same sha256) is neither parsed,
stored nor embedded again: its row in the store becomes a copy (status `copy`, `copy_of` the
document), the map lists its path on the document's line, and retrieve finds the text once.

* Of two identical documents the one with the lower id stays and the other becomes its copy,
  so an id never passes from an older document to a newer one, and two files indexed at once
  (on two lanes) end the same whichever is committed first.
* A copy whose file changes, or whose document's file changes, is a document again, under the
  id its row has had since the copy was first seen.
* When a document's file is deleted or moved out, a copy that remains takes its place: the
  document lives on under the copy's path, with the same id (`heir`, `Store.promote`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

from indexer.store.database import DocumentRow, Store
from indexer.store.rows import COPY
from indexer.store.vectors import VectorIndex

log = logging.getLogger(__name__)


class Copies:
    """What makes a file a copy of a document, and what a copy becomes when either changes."""

    def __init__(self, store: Store, vectors: VectorIndex, file_hash: Callable[[Path], str | None]):
        self.store = store
        self.vectors = vectors
        self.file_hash = file_hash

    def original_for(self, doc_id: int, content_hash: str) -> DocumentRow | None:
        """The readable document with these bytes and a lower id than `doc_id` whose file is still
        there (a file moved over another's path is that path's new version, not a copy), if any."""
        for doc in self.store.same_content(content_hash, doc_id):
            if doc.doc_id < doc_id and (Path(doc.root) / doc.relpath).is_file():
                return doc
        return None

    def make(self, doc_id: int, original: DocumentRow, facts: dict[str, object]) -> None:
        """Make `doc_id` a copy of `original` (its own content and vectors, if any, go)."""
        self.store.make_copy(doc_id, original.doc_id, facts)
        self.vectors.delete_document(doc_id)
        log.info("doc %d has the same bytes as doc %d (%s): its copy", doc_id, original.doc_id, original.relpath)

    def absorb(self, doc_id: int, content_hash: str) -> None:
        """After `doc_id` is committed from these bytes: documents with a higher id read from the
        same bytes become its copies."""
        for other in self.store.same_content(content_hash, doc_id):
            if other.doc_id > doc_id:
                self.store.make_copy(other.doc_id, doc_id, {})
                self.vectors.delete_document(other.doc_id)
                log.info("doc %d has the same bytes as doc %d: listed as its copy", other.doc_id, doc_id)

    def still_a_copy(self, copy: DocumentRow, path: Path, stat: os.stat_result) -> bool:
        """Whether a copy's file still has its document's bytes (its file facts are updated when
        they moved); False when the copy must be indexed as a document of its own."""
        original = self.store.document(copy.copy_of) if copy.copy_of is not None else None
        if original is None or not original.readable:
            return False
        unchanged = (copy.size, copy.mtime_ns) == (stat.st_size, stat.st_mtime_ns)
        own = copy.content_hash if unchanged else self.file_hash(path)
        if own is None:
            return False
        if own != original.content_hash:
            if original.content_hash is not None:  # the document's bytes are known, and differ
                return False
            # The document is being indexed again (its facts were forgotten): compare with its file.
            if own != self.file_hash(Path(original.root) / original.relpath):
                return False
        if not unchanged or copy.content_hash != own:
            self.store.set_status(
                copy.doc_id, COPY, None, size=stat.st_size, mtime_ns=stat.st_mtime_ns, content_hash=own
            )
        return True

    def stale(self, doc_ids: list[int]) -> list[DocumentRow]:
        """Copies of these documents whose bytes are no longer the document's (it was edited), or
        whose document is no longer readable (its new version failed)."""
        if not doc_ids:
            return []
        docs = [d for d in map(self.store.document, doc_ids) if d is not None]
        hashes = {d.doc_id: d.content_hash for d in docs if d.readable}
        return [
            c
            for doc_id, copies in self.store.copies_of(doc_ids).items()
            for c in copies
            if c.content_hash != hashes.get(doc_id)
        ]

    def heir(self, doc: DocumentRow, gone: set[tuple[str, str]]) -> DocumentRow | None:
        """A copy of a document whose file is gone that is still on disk, to take its place."""
        for copy in self.store.copies_of([doc.doc_id]).get(doc.doc_id, []):
            if (copy.root, copy.relpath) not in gone and (Path(copy.root) / copy.relpath).is_file():
                return copy
        return None

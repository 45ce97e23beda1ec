"""One file's new version: read safely, parsed, structured, then swapped in atomically.

`Versions.prepare` reads a file that changed (a file read mid-save, or written to while read,
is "deferred": its last good version stays), parses it and builds its structure;
`commit` makes the new version visible in one SQLite transaction (readable, and found by BM25
at once), marked `embedded` only if every paragraph already has its vector; vectors no longer
referenced go after the swap, and the catch-up lane (`indexer.ingest.catchup`) adds the
missing ones. A failure that may pass keeps the previous version readable (`fail`).
`indexer.ingest.reconcile` decides which files, in which order, on which lane.
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from indexer.errors import ParseError
from indexer.ingest.copies import Copies
from indexer.ingest.files import relative_key
from indexer.models import DocumentStructure
from indexer.parse.formats import CANNOT_READ, EMPTY, UNREADABLE, DocumentParser, read_bytes
from indexer.store.database import DocumentRow, Store
from indexer.store.space import write_failure
from indexer.store.vectors import VectorIndex
from indexer.structure.passages import vector_ids
from indexer.structure.sections import build
from indexer.titles.decide import title_from_name

log = logging.getLogger(__name__)

SETTLE_S = 2.0  # a file modified this recently, read empty or unreadable, is still being saved


@dataclass
class Outcome:
    """What indexing one file did: "indexed", "unchanged" or "failed" (its vectors are the lane's)."""

    action: str


@dataclass
class Prepared:
    """A parsed file waiting for its swap (its vectors follow on the catch-up lane)."""

    doc_id: int
    relpath: str
    structure: DocumentStructure
    facts: dict[str, object]
    vec_ids: list[str]


class Versions:
    """Reads, parses and commits one file's version at a time (on a parse lane, or the caller's thread)."""

    def __init__(
        self, store: Store, vectors: VectorIndex, parser: DocumentParser, max_file_bytes: int, heading_context: bool
    ):
        self.store = store
        self.vectors = vectors
        self.parser = parser
        self.max_file_bytes = max_file_bytes
        self.heading_context = heading_context
        self.on_commit: Callable[[], None] = lambda: None  # a version waits for vectors: wake the lane
        self.copies = Copies(store, vectors, self.file_hash)

    def prepare(
        self, root: Path, path: Path, doc: DocumentRow | None, retry: float | None = None
    ) -> Outcome | Prepared:
        """Read and parse a file that changed; an Outcome when there is nothing to embed.

        `retry`: also parse again a transient failure whose file did not change, with its time
        limit scaled by this much. A file read empty or unreadable mid-save, or changing while
        read, is "deferred": its last good version stays, and it is read again once it settles."""
        relpath = relative_key(path, root)
        if doc is None:
            doc = self.store.document_at(str(root), relpath)
        doc_id = doc.doc_id if doc else self.store.add_document(str(root), relpath)
        try:
            stat = path.stat()
        except OSError as exc:
            if _vanished(path):
                return Outcome("deferred")
            if exc.errno == errno.ELOOP:
                reason = "a symbolic link loop: the link never reaches a file"
            elif path.is_symlink():
                reason = "a symbolic link to a missing file"
            else:
                reason = f"{CANNOT_READ}: {exc.strerror or exc}"
            if not (doc and doc.status == "failed" and doc.reason == reason):
                self.fail(doc_id, ParseError(reason), {})
            return Outcome("failed")
        facts: dict[str, object] = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
        if doc is not None and doc.is_copy:
            if self.copies.still_a_copy(doc, path, stat):
                return Outcome("unchanged")
            log.info("%s no longer has the bytes of doc %s: indexed as a document of its own", relpath, doc.copy_of)
            self.store.set_status(doc_id, "pending", None, size=None, mtime_ns=None, content_hash=None)
            doc = self.store.document(doc_id)
        # A failure that may pass: a failed document, or a new version that failed while the previous stays.
        again = retry is not None and doc is not None and bool(doc.transient)
        # A file the server could not read, made readable since: a chmod changes neither size nor mtime.
        readable_now = doc is not None and _unread(doc) and os.access(path, os.R_OK)
        same = (
            doc and doc.status in ("ready", "failed") and (doc.size, doc.mtime_ns) == (stat.st_size, stat.st_mtime_ns)
        )
        if same and not again and not readable_now:
            return Outcome("unchanged")

        try:
            data = read_bytes(path, self.max_file_bytes)
            settled = _settled(path, stat)
        except ParseError as exc:
            if _vanished(path):
                return Outcome("deferred")
            if (
                doc is not None
                and doc.readable
                and (exc.transient or str(exc) == EMPTY)
                and not _settled(path, stat, quiet=True)
            ):
                log.info("%s read %s while being saved: its last version stays until it settles", relpath, str(exc))
                return Outcome("deferred")
            self.fail(doc_id, exc, facts, retries=doc.retries + 1 if again and doc else 0, kept=doc)
            return Outcome("failed")
        if not settled:  # written to while read: what was read may be half of it
            log.info("%s changed while it was read: reading it again once it settles", relpath)
            return Outcome("deferred")
        facts["content_hash"] = digest = hashlib.sha256(data).hexdigest()
        if original := self.copies.original_for(doc_id, digest):  # identical files: one document
            self.copies.make(doc_id, original, facts)
            return Outcome("indexed")
        if doc and doc.status in ("ready", "failed") and doc.content_hash == facts["content_hash"]:
            if not (doc.status == "failed" and (doc.transient or readable_now)):  # a touch retries what may pass
                self.store.set_status(doc_id, doc.status, doc.reason, **facts)  # touched, same bytes
                return Outcome("unchanged")
            again = True

        self.store.set_status(doc_id, "indexing", None)
        retries = doc.retries + 1 if again and doc else 0
        try:
            parsed = self.parser.parse(path, data, str(facts["content_hash"]), patience=retry or 1.0)
            structure = build(parsed, fallback_title=title_from_name(path))
        except ParseError as exc:
            self.fail(doc_id, exc, facts, retries, kept=doc)
            return Outcome("failed")
        except Exception as exc:  # a parser bug must not stop the other documents
            if (failure := write_failure(exc)) is not None:  # a full disk is not the file's fault: indexing pauses
                raise failure from exc
            log.exception("parser crashed on %s", path)
            self.fail(doc_id, ParseError(f"parser error ({type(exc).__name__}): {exc}"), facts)
            return Outcome("failed")
        if not structure.paragraphs and len(structure.sections) <= 1:  # headings alone are a readable map
            self.fail(doc_id, ParseError("no text found in the file"), facts)
            return Outcome("failed")
        return self.prepared(doc_id, relpath, structure, facts)

    def prepared(self, doc_id: int, relpath: str, structure: DocumentStructure, facts: dict[str, object]) -> Prepared:
        ids, _ = vector_ids(doc_id, structure.paragraphs, structure.section_paths(), self.heading_context)
        return Prepared(doc_id, relpath, structure, facts, ids)

    def commit(self, batch: list[Prepared], given: dict[str, np.ndarray] | None = None) -> list[Outcome]:
        """Swap each document's new version in, marked embedded when all its vectors exist
        (unchanged paragraphs keep theirs; `given` vectors are added first); the rest wait
        for the catch-up lane. Vectors no longer referenced go after the swap."""
        outcomes: list[Outcome] = []
        waiting = False
        for p in batch:
            content_hash = str(p.facts["content_hash"])
            if original := self.copies.original_for(p.doc_id, content_hash):  # committed meanwhile, on another lane
                self.copies.make(p.doc_id, original, p.facts)
                outcomes.append(Outcome("indexed"))
                continue
            existing = self.vectors.ids_for_document(p.doc_id)
            missing = {vid for vid in p.vec_ids if vid and vid not in existing}  # junk has no vector ("")
            if missing and given is not None:
                ids = sorted(missing)
                self.vectors.add(ids, [p.doc_id] * len(ids), np.asarray([given[v] for v in ids], dtype=np.float32))
                existing |= missing
                missing = set()
            self.store.replace_content(p.doc_id, p.structure, p.vec_ids, p.facts, embedded=not missing)
            stale = existing - set(p.vec_ids)
            if stale:
                self.vectors.delete(sorted(stale))
            self.copies.absorb(p.doc_id, content_hash)
            waiting = waiting or bool(missing)
            log.info(
                "indexed %s (doc %d): %d sections, %d paragraphs, %d waiting for vectors",
                p.relpath,
                p.doc_id,
                len(p.structure.sections),
                len(p.structure.paragraphs),
                len(missing),
            )
            outcomes.append(Outcome("indexed"))
        if waiting:
            self.on_commit()
        return outcomes

    def settle(self, job: tuple[str, str, Path], result: Outcome | Prepared | BaseException) -> Outcome | None:
        """A parse carried from an earlier batch, now done: committed if its document is still
        there and its file unchanged since it was read; None otherwise (a changed file is
        parsed again, a removed one was removed)."""
        if isinstance(result, BaseException):
            log.error("parsing %s failed: %r; parsing it again", job[1], result)
            return None
        if isinstance(result, Outcome):
            return result
        try:
            stat = job[2].stat()
        except OSError:
            return None
        if self.store.document(result.doc_id) is None or (stat.st_size, stat.st_mtime_ns) != (
            result.facts["size"],
            result.facts["mtime_ns"],
        ):
            return None
        (outcome,) = self.commit([result])
        return outcome

    def fail(
        self,
        doc_id: int,
        error: ParseError,
        facts: dict[str, object],
        retries: int = 0,
        kept: DocumentRow | None = None,
    ) -> None:
        """Mark failed and drop the old content: it no longer describes the file. `retries`: how
        often these same bytes failed before, for a failure that may pass.

        A failure that may pass (a time limit on a busy machine) of a new version of a readable
        document (`kept`, as it was before) keeps the previous version: it is served, marked with
        the reason, until the new one parses (the file's old facts stay, so a restart, an idle
        retry or a touch parses it again)."""
        row = self.store.document(doc_id)
        name = row.relpath if row else "?"  # every line about a failed file names it
        if error.transient and kept is not None and kept.readable:
            self.store.keep_previous(doc_id, str(error), retries)
            log.warning(
                "%s (doc %d): its new version failed (may pass: retried by itself), the previous stays: %s",
                name,
                doc_id,
                error,
            )
            return
        self.store.mark_failed(doc_id, str(error), transient=error.transient, retries=retries, **facts)
        self.vectors.delete_document(doc_id)
        log.warning(
            "%s (doc %d) failed%s: %s", name, doc_id, " (may pass: retried by itself)" if error.transient else "", error
        )

    def file_hash(self, path: Path) -> str | None:
        try:
            return hashlib.sha256(read_bytes(path, self.max_file_bytes)).hexdigest()
        except ParseError:  # unreadable, not a regular file, too large: not a move we can prove
            return None

    def remove(self, doc_id: int) -> None:
        # Vectors first: a crash in between leaves a document without vectors, whose file
        # is gone, so the next reconcile removes it; the other order would leak vectors.
        self.vectors.delete_document(doc_id)
        self.store.delete_document(doc_id)


def _vanished(path: Path) -> bool:
    """Nothing at the path any more: the file was deleted or renamed away since it was listed. That
    is no failure of the file: its row stays as it is, for its path's next look (its event, or the
    batch's `deferred`) to remove it or carry it to its new name, and no reason of a missing file
    goes along with its bytes to the new name."""
    return not os.path.lexists(path)


def _unread(doc: DocumentRow) -> bool:
    """The document failed for want of reading its file, not for its bytes."""
    return doc.status == "failed" and (doc.reason == UNREADABLE or (doc.reason or "").startswith(CANNOT_READ))


def _settled(path: Path, before: os.stat_result, quiet: bool = False) -> bool:
    """The file is as it was when first looked at (same size and mtime); with `quiet`, also not
    modified in the last SETTLE_S seconds (a save that truncates first, then writes)."""
    try:
        now = path.stat()
    except OSError:
        return False
    same = (now.st_size, now.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    return same and (not quiet or time.time() - now.st_mtime >= SETTLE_S)

"""Indexing: folder → parse → structure → store, then → embed.

`Indexer.reconcile()` brings the index in line with the folders (new files
indexed, changed ones re-indexed, deleted ones removed, unchanged ones not
touched: size and mtime first, then the content hash); `sync_paths()` does the
same for the paths a file event names. Files are parsed on two lanes, quickest
first (`indexer.ingest.lanes`), and each is committed as soon as it is parsed
(`_commit`): the SQLite swap makes its new version visible in one transaction
(readable, and found by BM25 at once), marked `embedded` only if every paragraph
already has its vector; vectors no longer referenced go after the swap. The
catch-up lane (`indexer.ingest.catchup`) then adds the missing vectors, batch by batch,
and marks each version embedded once all are in. A crash anywhere leaves a
consistent index: a version without its flag is embedded by the next start, and
unreferenced vectors are reused or removed the next time their document is indexed.
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from indexer.store.embedder import Embedder
from indexer.errors import ParseError
from indexer.ingest.files import Folders, real_path, relative_key, title_from_name
from indexer.ingest.lanes import LANES, ParseLanes
from indexer.models import DocumentStructure
from indexer.parse.formats import EMPTY, DocumentParser, read_bytes
from indexer.parse.mineru import MINERU_FORMATS
from indexer.structure.passages import vector_ids
from indexer.store.database import DocumentRow, Store
from indexer.structure.sections import build
from indexer.store.vectors import VectorIndex

log = logging.getLogger(__name__)

# Passages embedded and written to Chroma together: a Chroma add costs ~80 ms however
# few vectors it carries, and a batch is also how often the catch-up lane can be stopped.
BATCH_PASSAGES = 128


@dataclass
class Progress:
    """What indexing is doing now; passed to the progress callback."""

    done: int
    total: int
    path: str
    action: str  # "started", then "indexed", "unchanged", "failed" or "removed" per file


@dataclass
class Outcome:
    """What indexing one file did: "indexed", "unchanged" or "failed" (its vectors are the lane's)."""

    action: str


@dataclass
class _Prepared:
    """A parsed file waiting for its swap (its vectors follow on the catch-up lane)."""

    doc_id: int
    relpath: str
    structure: DocumentStructure
    facts: dict[str, object]
    vec_ids: list[str]


@dataclass
class ReconcileReport:
    embedded: int = 0  # paragraphs embedded while the caller waited for semantic search (Library.reconcile)
    indexed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    deferred: list[Path] = field(default_factory=list)  # read mid-save: to read again once they settle


ProgressCallback = Callable[[Progress], None]


class Indexer:
    def __init__(
        self,
        store: Store,
        vectors: VectorIndex,
        embedder: Embedder,
        parser: DocumentParser,
        roots: list[Path],
        max_file_bytes: int,
        heading_context: bool = True,
        excluded: list[Path] | None = None,
        parse_jobs: int = LANES,
    ):
        self.store = store
        self.vectors = vectors
        self.embedder = embedder
        self.parser = parser
        self.folders = Folders(roots, excluded)
        self.max_file_bytes = max_file_bytes
        self.heading_context = heading_context
        self.cancel = threading.Event()  # set to stop a running reconcile between files
        self.on_commit: Callable[[], None] = lambda: None  # a version waits for vectors: wake the lane
        # (root, relpath, path) → what parsing it gave; `sync` commits it
        self.lanes: ParseLanes[tuple[str, str, Path], Outcome | _Prepared] = ParseLanes(parse_jobs)

    # --- reconcile -------------------------------------------------------------------

    def reconcile(
        self, progress: ProgressCallback | None = None, patience: float | None = None, retry: float | None = None
    ) -> ReconcileReport:
        """The whole folder: every file on disk against every document in the index (`sync`)."""
        files = self.folders.scan()
        gone = [d for d in self.store.documents() if (d.root, d.relpath) not in files]
        return self.sync(files, gone, progress, patience, retry)

    def retry_failed(
        self, docs: list[DocumentRow], retry: float, progress: ProgressCallback | None = None,
        patience: float | None = None,
    ) -> ReconcileReport:
        """Parse these failed documents' files again (failures that may pass), their time limit
        scaled by `retry`."""
        files = {(d.root, d.relpath): Path(d.root) / d.relpath for d in docs}
        return self.sync({k: p for k, p in files.items() if p.exists()}, [], progress, patience, retry)

    def sync_paths(
        self, paths: Iterable[Path], progress: ProgressCallback | None = None, patience: float | None = None
    ) -> ReconcileReport:
        """Just these paths (from file events): index what exists, remove what is gone.

        A path may be a folder (created, moved in, moved away or deleted): everything
        under it is considered.
        """
        files: dict[tuple[str, str], Path] = {}
        touched: list[DocumentRow] = []
        for path in paths:
            path = real_path(path.parent) / path.name  # the roots are resolved: so is the folder of a path
            root = self.folders.root_of(path)
            if root is None:
                continue
            relpath = relative_key(path, root)
            if path.is_dir() and not path.is_symlink():
                files.update(self.folders.scan_dir(root, path))
            elif self.folders.is_document(path, root):
                files[(str(root), relpath)] = path
            touched.extend(self.store.documents_under(str(root), relpath))
        # What the index holds under these paths but the disk no longer shows is gone.
        gone = {d.doc_id: d for d in touched if (d.root, d.relpath) not in files}
        return self.sync(dict(sorted(files.items())), list(gone.values()), progress, patience)

    def sync(
        self,
        files: dict[tuple[str, str], Path],
        gone_docs: list[DocumentRow],
        progress: ProgressCallback | None = None,
        patience: float | None = None,
        retry: float | None = None,
    ) -> ReconcileReport:
        """Index `files` (if changed) and remove `gone_docs`, keeping doc_ids of moved files.
        `patience`: leave parses running this long to finish on their own once the rest of the
        batch is done (`indexer.ingest.lanes`); None waits for every file, and for those left before.
        `retry`: parse unchanged files whose failure may pass again, their time limit scaled by it."""
        report = ReconcileReport()
        known = {(d.root, d.relpath): d for d in self.store.documents()}
        gone = {(d.root, d.relpath): d for d in gone_docs}
        gone_by_hash = {doc.content_hash: doc for doc in gone.values() if doc.content_hash}
        total = len(files) + len(gone)
        done = 0

        # First register every new file, so get_toc lists it as pending right away.
        for (root, relpath), path in files.items():
            if (root, relpath) in known:
                continue
            # A file that vanished elsewhere with the same bytes was moved: keep its doc_id.
            digest = self._file_hash(path) if gone_by_hash else None
            moved = gone_by_hash.pop(digest, None) if digest else None
            if moved is not None:
                self.store.set_status(moved.doc_id, moved.status, moved.reason, root=root, relpath=relpath)
                gone.pop((moved.root, moved.relpath), None)
                total -= 1
                known[(root, relpath)] = self.store.document(moved.doc_id)  # type: ignore[assignment]
            else:
                known[(root, relpath)] = self.store.document(self.store.add_document(root, relpath))  # type: ignore[assignment]

        if progress and total:
            progress(Progress(0, total, "", "started"))  # get_toc reports indexing from the first moment

        def record(job: tuple[str, str, Path], outcome: Outcome) -> None:
            nonlocal done
            action = outcome.action
            if action == "deferred":  # read mid-save: its last version stays, and it is read again later
                report.deferred.append(job[2])
                action = "unchanged"
            getattr(report, action).append(job[1])
            done += 1
            if progress:
                progress(Progress(done, total, job[1], action))

        # Parses an earlier batch left running that are done now (all of them, when waiting).
        for job, result in self.lanes.finished(wait=patience is None):
            if (outcome := self._settle(job, result)) is not None:
                total += 1
                record(job, outcome)
            elif job[2].exists() and job[:2] not in files:  # changed while it was parsed, or the parse failed: again
                files[job[:2]] = job[2]
                total += 1

        # Files are parsed on the lanes, quickest first, and each is committed on this thread as
        # soon as its parse is done; a file still parsing from an earlier batch is left to it
        # (`_settle` parses it again if it changed meanwhile).
        carried = {job[:2] for job in self.lanes.carried()}
        queued = sorted(files.items(), key=lambda f: _parse_cost(f[1]))
        jobs = [(root, relpath, path) for (root, relpath), path in queued if (root, relpath) not in carried]
        total -= len(files) - len(jobs)

        def work(job: tuple[str, str, Path]) -> Outcome | _Prepared:
            return self._prepare(Path(job[0]), job[2], known.get(job[:2]), retry)

        for job, prepared in self.lanes.run(jobs, work, self.cancel, patience):
            if not isinstance(prepared, Outcome):
                (prepared,) = self._commit([prepared])  # readable now; its vectors follow on the lane
            record(job, prepared)
        if self.cancel.is_set():
            return report

        for doc in gone.values():
            self.remove(doc.doc_id)
            report.removed.append(doc.relpath)
            done += 1
            if progress:
                progress(Progress(done, total, doc.relpath, "removed"))
        return report

    # --- one file --------------------------------------------------------------------

    def add_structures(
        self, root: Path, documents: list[tuple[str, DocumentStructure]], vectors: np.ndarray | None = None
    ) -> list[int]:
        """Documents built without a file, committed as parsed files are; for benchmarks that build
        a synthetic collection. `vectors` (one row per paragraph, in order; a passage takes its last paragraph's) stand in for embedding.
        A reconcile removes such documents, since no file backs them."""
        batch = []
        for relpath, structure in documents:
            doc_id = self.store.add_document(str(root), relpath)
            facts = {"size": 0, "mtime_ns": 0, "content_hash": f"built-{doc_id}"}
            batch.append(self._prepared(doc_id, relpath, structure, facts))
        given = None
        if vectors is not None:
            given = dict(zip((v for p in batch for v in p.vec_ids), vectors, strict=True))
        self._commit(batch, given)
        return [p.doc_id for p in batch]

    def _prepare(
        self, root: Path, path: Path, doc: DocumentRow | None, retry: float | None = None
    ) -> Outcome | _Prepared:
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
            if exc.errno == errno.ELOOP:
                reason = "a symbolic link loop: the link never reaches a file"
            elif path.is_symlink():
                reason = "a symbolic link to a missing file"
            else:
                reason = f"cannot read file: {exc.strerror or exc}"
            if not (doc and doc.status == "failed" and doc.reason == reason):
                self._fail(doc_id, ParseError(reason), {})
            return Outcome("failed")
        facts: dict[str, object] = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
        # A failure that may pass: a failed document, or a new version that failed while the previous stays.
        again = retry is not None and doc is not None and bool(doc.transient)
        if doc and doc.status in ("ready", "failed") and doc.size == stat.st_size and doc.mtime_ns == stat.st_mtime_ns:
            if not again:
                return Outcome("unchanged")

        try:
            data = read_bytes(path, self.max_file_bytes)
            settled = _settled(path, stat)
        except ParseError as exc:
            if doc is not None and doc.readable and (exc.transient or str(exc) == EMPTY) and not _settled(path, stat, quiet=True):
                log.info("%s read %s while being saved: its last version stays until it settles", relpath, str(exc))
                return Outcome("deferred")
            self._fail(doc_id, exc, facts, retries=doc.retries + 1 if again and doc else 0, kept=doc)
            return Outcome("failed")
        if not settled:  # written to while read: what was read may be half of it
            log.info("%s changed while it was read: reading it again once it settles", relpath)
            return Outcome("deferred")
        facts["content_hash"] = hashlib.sha256(data).hexdigest()
        if doc and doc.status in ("ready", "failed") and doc.content_hash == facts["content_hash"]:
            if not (doc.status == "failed" and doc.transient):  # a touch retries a failure that may pass
                self.store.set_status(doc_id, doc.status, doc.reason, **facts)  # touched, same bytes
                return Outcome("unchanged")
            again = True

        self.store.set_status(doc_id, "indexing", None)
        retries = doc.retries + 1 if again and doc else 0
        try:
            parsed = self.parser.parse(path, data, str(facts["content_hash"]), patience=retry or 1.0)
            structure = build(parsed, fallback_title=title_from_name(path))
        except ParseError as exc:
            self._fail(doc_id, exc, facts, retries, kept=doc)
            return Outcome("failed")
        except Exception as exc:  # a parser bug must not stop the other documents
            log.exception("parser crashed on %s", path)
            self._fail(doc_id, ParseError(f"parser error ({type(exc).__name__}): {exc}"), facts)
            return Outcome("failed")
        if not structure.paragraphs and len(structure.sections) <= 1:  # headings alone are a readable map
            self._fail(doc_id, ParseError("no text found in the file"), facts)
            return Outcome("failed")
        return self._prepared(doc_id, relpath, structure, facts)

    def _prepared(self, doc_id: int, relpath: str, structure: DocumentStructure, facts: dict[str, object]) -> _Prepared:
        ids, _ = vector_ids(doc_id, structure.paragraphs, structure.section_paths(), self.heading_context)
        return _Prepared(doc_id, relpath, structure, facts, ids)

    def _commit(self, batch: list[_Prepared], given: dict[str, np.ndarray] | None = None) -> list[Outcome]:
        """Swap each document's new version in, marked embedded when all its vectors exist
        (unchanged paragraphs keep theirs; `given` vectors are added first); the rest wait
        for the catch-up lane. Vectors no longer referenced go after the swap."""
        outcomes: list[Outcome] = []
        waiting = False
        for p in batch:
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
            waiting = waiting or bool(missing)
            log.info("indexed %s (doc %d): %d sections, %d paragraphs, %d waiting for vectors",
                     p.relpath, p.doc_id, len(p.structure.sections), len(p.structure.paragraphs), len(missing))
            outcomes.append(Outcome("indexed"))
        if waiting:
            self.on_commit()
        return outcomes

    def _settle(self, job: tuple[str, str, Path], result: Outcome | _Prepared | BaseException) -> Outcome | None:
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
            result.facts["size"], result.facts["mtime_ns"]
        ):
            return None
        (outcome,) = self._commit([result])
        return outcome

    def _fail(
        self, doc_id: int, error: ParseError, facts: dict[str, object], retries: int = 0, kept: DocumentRow | None = None
    ) -> None:
        """Mark failed and drop the old content: it no longer describes the file. `retries`: how
        often these same bytes failed before, for a failure that may pass.

        A failure that may pass (a time limit on a busy machine) of a new version of a readable
        document (`kept`, as it was before) keeps the previous version: it is served, marked with
        the reason, until the new one parses (the file's old facts stay, so a restart, an idle
        retry or a touch parses it again)."""
        if error.transient and kept is not None and kept.readable:
            self.store.keep_previous(doc_id, str(error), retries)
            log.warning("doc %d: its new version failed (may pass: retried by itself), the previous stays: %s",
                        doc_id, error)
            return
        self.store.mark_failed(doc_id, str(error), transient=error.transient, retries=retries, **facts)
        self.vectors.delete_document(doc_id)
        log.warning("doc %d failed%s: %s", doc_id, " (may pass: retried by itself)" if error.transient else "", error)

    def _file_hash(self, path: Path) -> str | None:
        try:
            return hashlib.sha256(read_bytes(path, self.max_file_bytes)).hexdigest()
        except ParseError:  # unreadable, not a regular file, too large: not a move we can prove
            return None

    def remove(self, doc_id: int) -> None:
        # Vectors first: a crash in between leaves a document without vectors, whose file
        # is gone, so the next reconcile removes it; the other order would leak vectors.
        self.vectors.delete_document(doc_id)
        self.store.delete_document(doc_id)


SETTLE_S = 2.0  # a file modified this recently, read empty or unreadable, is still being saved


def _settled(path: Path, before: os.stat_result, quiet: bool = False) -> bool:
    """The file is as it was when first looked at (same size and mtime); with `quiet`, also not
    modified in the last SETTLE_S seconds (a save that truncates first, then writes)."""
    try:
        now = path.stat()
    except OSError:
        return False
    same = (now.st_size, now.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    return same and (not quiet or time.time() - now.st_mtime >= SETTLE_S)


def _parse_cost(path: Path) -> tuple[bool, int]:
    """Quick files first: text files parse in milliseconds, and among the rest a smaller file
    is sooner done, so one long PDF (a 300-page scan under OCR) cannot hold a folder of short
    ones behind it. Ids are given in path order before, so the order changes no id."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0  # unreadable: it fails at once
    return path.suffix.lower() in MINERU_FORMATS, size


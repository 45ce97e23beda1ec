"""Reconciling: folder → parse → structure → store, then → embed.

`Reconciler.reconcile()` brings the index in line with the folders (new files
indexed, changed ones re-indexed, deleted ones removed, unchanged ones not
touched: size and mtime first, then the content hash); `sync_paths()` does the
same for the paths a file event names. Files are parsed on two lanes, quickest
first (`indexer.ingest.lanes`), and each is committed as soon as it is parsed
(`indexer.ingest.versions`): the SQLite swap makes its new version visible in one
transaction (readable, and found by BM25 at once), marked `embedded` only if every
paragraph already has its vector; vectors no longer referenced go after the swap. The
catch-up lane (`indexer.ingest.catchup`) then adds the missing vectors, batch by batch,
and marks each version embedded once all are in. A crash anywhere leaves a
consistent index: a version without its flag is embedded by the next start, and
unreferenced vectors are reused or removed the next time their document is indexed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from indexer.ingest.files import Folders, real_path, relative_key
from indexer.ingest.lanes import LANES, ParseLanes
from indexer.ingest.rules import IGNORE_FILE
from indexer.ingest.versions import Outcome, Prepared, Versions
from indexer.models import DocumentStructure
from indexer.parse.formats import DocumentParser
from indexer.parse.mineru import CHILD_FORMATS
from indexer.store.database import DocumentRow, Store
from indexer.store.embedder import Embedder
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
class ReconcileReport:
    embedded: int = 0  # paragraphs embedded while the caller waited for semantic search (Library.reconcile)
    indexed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    deferred: list[Path] = field(default_factory=list)  # read mid-save: to read again once they settle


ProgressCallback = Callable[[Progress], None]


class Reconciler:
    """Brings the index in line with the folders, file by file (the writer's only)."""

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
        exclude: Iterable[str] = (),
        include: Iterable[str] = (),
    ):
        """`exclude`, `include`: the settings' patterns (`indexer.ingest.rules`)."""
        self.store = store
        self.vectors = vectors
        self.embedder = embedder
        self.folders = Folders(roots, excluded, exclude, include)
        self.versions = Versions(store, vectors, parser, max_file_bytes, heading_context)
        self.cancel = threading.Event()  # set to stop a running reconcile between files
        # (root, relpath, path) → what parsing it gave; `sync` commits it
        self.lanes: ParseLanes[tuple[str, str, Path], Outcome | Prepared] = ParseLanes(parse_jobs)

    # --- reconcile -------------------------------------------------------------------

    def reconcile(
        self, progress: ProgressCallback | None = None, patience: float | None = None, retry: float | None = None
    ) -> ReconcileReport:
        """The whole folder: every file on disk against every document in the index (`sync`)."""
        files = self.folders.scan()
        gone = [d for d in self.store.documents() if (d.root, d.relpath) not in files]
        return self.sync(files, gone, progress, patience, retry)

    def retry_failed(
        self,
        docs: list[DocumentRow],
        retry: float,
        progress: ProgressCallback | None = None,
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
        under it is considered. A root's ignore file that changed (created, edited, deleted)
        changes what is indexed anywhere in the folder: the whole folder is reconciled.
        """
        paths = list(paths)
        for given in paths:
            folder = real_path(given.parent)
            if given.name == IGNORE_FILE and folder in self.folders.roots and self.folders.rules.changed(folder):
                log.info("%s changed: the folder is reconciled with its patterns", folder / IGNORE_FILE)
                return self.reconcile(progress, patience)
        files: dict[tuple[str, str], Path] = {}
        touched: list[DocumentRow] = []
        for given in paths:
            path = real_path(given.parent) / given.name  # the roots are resolved: so is the folder of a path
            root = self.folders.root_of(path)
            if root is None:
                continue
            relpath = relative_key(path, root)
            if path.is_dir() and not path.is_symlink():
                files.update(self.folders.scan_dir(root, path))
            elif self.folders.is_document(path, root):
                files[(str(root), relpath)] = path
            else:
                self.folders.note(path, root)
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
        gone_by_hash = {doc.content_hash: doc for doc in gone.values() if doc.content_hash and not doc.is_copy}
        total = len(files) + len(gone)
        done = 0

        # First register every new file, so get_toc lists it as pending right away.
        for (root, relpath), path in files.items():
            if (root, relpath) in known:
                continue
            # A file that vanished elsewhere with the same bytes was moved: keep its doc_id.
            digest = self.versions.file_hash(path) if gone_by_hash else None
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

        changed: list[int] = []

        def record(job: tuple[str, str, Path], outcome: Outcome) -> None:
            nonlocal done
            action = outcome.action
            if action == "deferred":  # read mid-save: its last version stays, and it is read again later
                report.deferred.append(job[2])
                action = "unchanged"
            getattr(report, action).append(job[1])
            if action in ("indexed", "failed") and (row := known.get(job[:2])):
                changed.append(row.doc_id)  # a new version, or none: its copies may differ now
            done += 1
            if progress:
                progress(Progress(done, total, job[1], action))

        # Parses an earlier batch left running that are done now (all of them, when waiting).
        for job, result in self.lanes.finished(wait=patience is None):
            if (outcome := self.versions.settle(job, result)) is not None:
                total += 1
                record(job, outcome)
            elif job[2].exists() and job[:2] not in files:  # changed while it was parsed, or the parse failed: again
                files[job[:2]] = job[2]
                total += 1

        # Files are parsed on the lanes, quickest first, and each is committed on this thread as
        # soon as its parse is done; a file still parsing from an earlier batch is left to it
        # (`Versions.settle` parses it again if it changed meanwhile).
        carried = {job[:2] for job in self.lanes.carried()}
        queued = sorted(files.items(), key=lambda f: _parse_cost(f[1]))
        jobs = [(root, relpath, path) for (root, relpath), path in queued if (root, relpath) not in carried]
        total -= len(files) - len(jobs)

        def work(job: tuple[str, str, Path]) -> Outcome | Prepared:
            return self.versions.prepare(Path(job[0]), job[2], known.get(job[:2]), retry)

        for job, result in self.lanes.run(jobs, work, self.cancel, patience):
            committed = result if isinstance(result, Outcome) else self.versions.commit([result])[0]
            record(job, committed)  # readable now; its vectors follow on the lane
        if self.cancel.is_set():
            return report

        for doc in gone.values():
            heir = None if doc.is_copy else self.versions.copies.heir(doc, set(gone))
            if heir is not None:  # a copy of it remains: the document lives on under the copy's path
                self.store.promote(heir, doc.doc_id)
                log.info("%s is gone; doc %d is now %s, its copy", doc.relpath, doc.doc_id, heir.relpath)
            else:
                self.versions.remove(doc.doc_id)
            report.removed.append(doc.relpath)
            done += 1
            if progress:
                progress(Progress(done, total, doc.relpath, "removed"))
        if stale := self.versions.copies.stale(changed):  # their document changed or failed: documents again
            again = self.sync({(c.root, c.relpath): Path(c.root) / c.relpath for c in stale}, [], None, patience)
            for name in ("indexed", "unchanged", "failed", "removed", "deferred"):
                getattr(report, name).extend(getattr(again, name))
        return report

    # --- one file --------------------------------------------------------------------

    def add_structures(
        self, root: Path, documents: list[tuple[str, DocumentStructure]], vectors: np.ndarray | None = None
    ) -> list[int]:
        """Documents built without a file, committed as parsed files are; for benchmarks that build
        a synthetic collection. `vectors` (one row per paragraph, in order; a passage takes its last
        paragraph's) stand in for embedding. A reconcile removes such documents, since no file backs them."""
        batch = []
        for relpath, structure in documents:
            doc_id = self.store.add_document(str(root), relpath)
            facts = {"size": 0, "mtime_ns": 0, "content_hash": f"built-{doc_id}"}
            batch.append(self.versions.prepared(doc_id, relpath, structure, facts))
        given = None
        if vectors is not None:
            given = dict(zip((v for p in batch for v in p.vec_ids), vectors, strict=True))
        self.versions.commit(batch, given)
        return [p.doc_id for p in batch]


def _parse_cost(path: Path) -> tuple[bool, int]:
    """Quick files first: text files parse in milliseconds, and among the rest a smaller file
    is sooner done, so one long PDF (a 300-page scan under OCR) cannot hold a folder of short
    ones behind it. Ids are given in path order before, so the order changes no id."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0  # unreadable: it fails at once
    return path.suffix.lower() in CHILD_FORMATS, size

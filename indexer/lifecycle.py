"""An open index and its life: the data directory, what it holds, and keeping it in line with the folders.

`OpenIndex` opens the store, the vectors and the embedding model of a data directory. Many
processes may open one index; the one holding its lock file writes: it rebuilds what a changed
model, packing or token count invalidates, runs the lane on which vectors catch up
(`indexer.ingest.catchup`) and the reconciles that follow the folders (`indexer.ingest.pipeline`).
The others read the same files and take over writing when the writer is gone (`take_over`).
A one-shot query opens it to read (`write=False`): it answers at once, and writes only when it
asks to (`take_over`), after `changed_files` found the folders changed with no writer to follow them.
A damaged file of the index is rebuilt by the writer, at open or while serving (`indexer.store.repair`);
a failure to write (a full disk) pauses indexing until writing works again (`pause`).
`indexer.library.Library` adds the questions of the tool contract on top.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Self

from filelock import FileLock, Timeout

from indexer.errors import CannotWrite, IndexDamaged
from indexer.ingest.catchup import CatchUpState, Pace, VectorCatchUp, embed_pending
from indexer.ingest.covered import FOLDERS_META, changed_files
from indexer.ingest.files import Folders, check_roots, root_labels
from indexer.ingest.lanes import LANES, SLOW_PARSE_S
from indexer.ingest.pipeline import Indexer, Progress, ProgressCallback, ReconcileReport
from indexer.parse.formats import DocumentParser
from indexer.parse.mineru import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT_S, MineruOptions
from indexer.search.hybrid import HybridSearch, SearchMode
from indexer.search.rerank import Reranker
from indexer.store.database import DocumentRow
from indexer.store.embedder import DEFAULT_MODEL, Embedder
from indexer.store.repair import INDEX_FILE, Repairs
from indexer.store.space import Pause
from indexer.store.upgrades import check_parser_models, check_signature, check_structure
from indexer.store.vectors import CopyVectors, VectorIndex, VectorSearch

log = logging.getLogger(__name__)

RETRY_PATIENCE = 2.0  # a failure that may pass is retried when idle with this many times the time limit


@dataclass
class LibraryConfig:
    roots: list[Path]
    data_dir: Path
    models_dir: Path
    embedding_model: str = DEFAULT_MODEL
    chroma_url: str | None = None
    token_budget: int = 8000
    max_file_bytes: int = 100_000_000
    heading_context: bool = True
    search_mode: SearchMode = "hybrid"
    embed_threads: int | None = None
    mineru_home: Path | None = None  # MinerU's models and config (default: in the data dir)
    parse_timeout_s: float = DEFAULT_TIMEOUT_S
    parse_memory_mb: int = DEFAULT_MEMORY_MB
    parse_cache_dir: Path | None = None  # MinerU results by content hash (default: in the data dir); shareable
    reranker: str | None = None  # fastembed cross-encoder name; None = no reranking
    reranker_path: Path | None = None  # its ONNX folder, when it cannot be downloaded
    mineru_url: str | None = None  # parse on this MinerU server (mineru-api or mineru-router) instead of here
    mineru_api_key: str | None = None  # its --api-key, when it has one
    parse_jobs: int = LANES  # files parsed at once (more make sense with a MinerU server)


class OpenIndex:
    """The data directory opened for one process: store, vectors, model, parser, indexer, search."""

    def __init__(self, config: LibraryConfig, write: bool = True):
        """`write=False`: open to answer, not to follow the folders. The lock is still taken when
        free (no one writes meanwhile, and an older schema can be brought up to date), but the
        writer's part (Chroma, the parser, the vector lane, the rebuild checks) waits for `take_over`."""
        config = replace(config, roots=check_roots(config.roots))
        self.config = config
        self._labels = root_labels(config.roots)
        self.progress: Progress | None = None  # set while a reconcile runs
        self._retry_at_start = True  # the first reconcile parses transient failures again
        self._retried: set[tuple[int, str | None]] = set()  # (doc_id, content hash) retried when idle this run
        config.data_dir.mkdir(parents=True, exist_ok=True)
        self.repairs = Repairs(config.data_dir)
        self.pause = Pause(config.data_dir)  # writing failed (a full disk): indexing waits for space
        self._lock = _try_lock(config.data_dir)  # None: another process writes this index
        self.writer = self._lock is not None and write
        self._parse_options = MineruOptions(
            cache_dir=config.parse_cache_dir or config.data_dir / "parse-cache",
            home=config.mineru_home or config.data_dir / "mineru",
            work_dir=config.data_dir / "tmp",
            timeout_s=config.parse_timeout_s,
            memory_mb=config.parse_memory_mb,
            url=config.mineru_url,
            api_key=config.mineru_api_key,
        )
        self._pictures_dir = self._parse_options.pictures_dir
        self.indexer: Indexer | None = None  # the writer's
        self.catchup: VectorCatchUp | None = None  # the writer's
        self._lane_model: Embedder | None = None
        try:
            self.store, self._rebuilt = self.repairs.open_store(config.data_dir / INDEX_FILE, self._lock is not None)
            self.embedder = Embedder(config.models_dir, config.embedding_model, threads=config.embed_threads)
            self.vectors: VectorSearch = self._open_for_writing() if self.writer else self._vectors(writer=False)
            reranker = (
                Reranker(config.reranker, config.models_dir, config.reranker_path, config.embed_threads)
                if config.reranker
                else None
            )
            self.search = HybridSearch(self.store, self.vectors, self.embedder, config.search_mode, reranker)
        except BaseException:
            if self._lock is not None:
                self._lock.release()
            raise

    def _vectors(self, writer: bool) -> VectorSearch:
        """Chroma for the writer, or for anyone when it is a server (process-safe); the vectors'
        SQLite copy for a reader of an embedded index (Chroma's embedded store is not process-safe)."""
        config = self.config
        copy = config.data_dir / "vectors.sqlite3"
        if not writer and not config.chroma_url:
            return CopyVectors(copy, on_damage=self.repairs.found)
        # A shared Chroma server holds many indexes: name the collection after this one.
        collection = _collection_name(config.data_dir) if config.chroma_url else "paragraphs"
        return VectorIndex(
            collection, path=config.data_dir / "chroma", url=config.chroma_url, copy=copy, on_damage=self.repairs.found
        )

    def _open_for_writing(self) -> VectorIndex:
        """What only the writer runs: the vectors, the checks that rebuild what changed, the
        parser, the indexer and the vector lane. Returns the vectors."""
        config = self.config
        shutil.rmtree(config.data_dir / "tmp", ignore_errors=True)  # what a killed writer's parser left
        self.repairs.check_vectors(chroma=not config.chroma_url)
        self.vectors = vectors = self._vectors(writer=True)
        assert isinstance(vectors, VectorIndex)
        self.repairs.repair_vectors(self.store, vectors)
        self.store.set_meta(FOLDERS_META, json.dumps([str(root) for root in config.roots]))
        parser = DocumentParser(self._parse_options)
        self._checks(vectors, parser)
        self.indexer = Indexer(
            self.store,
            vectors,
            self.embedder,
            parser,
            config.roots,
            config.max_file_bytes,
            heading_context=config.heading_context,
            excluded=[config.data_dir],
            parse_jobs=config.parse_jobs,
        )
        self.catchup = VectorCatchUp(self._embed_pending)
        self.indexer.versions.on_commit = self.catchup.wake
        if self.store.awaiting_vectors():  # what a stop or a crash left: semantic search catches up
            self.catchup.wake()
        return vectors

    def _checks(self, vectors: VectorIndex, parser: DocumentParser) -> None:
        """What the writer checks at open, and again after the index was made anew."""
        check_signature(self.store, vectors, self.embedder, self.config.heading_context)
        check_structure(self.store)
        check_parser_models(self.store, parser)
        if self._rebuilt:
            self.repairs.drop_orphans(self.store, vectors)
            self._rebuilt = False

    def _embed_pending(self, stop: threading.Event, pace: Pace) -> int:
        """The vector lane's work; a failure to write pauses it, damage is reported and rebuilt."""
        assert isinstance(self.vectors, VectorIndex)
        try:
            embedder, context = self._lane_embedder(), self.config.heading_context
            return embed_pending(self.store, self.vectors, embedder, context, stop, pace)
        except CannotWrite as failure:
            self.pause.failed(failure)
        except IndexDamaged as damaged:  # reported where found: the writer rebuilds it
            log.warning("embedding stopped: %s", damaged)
        return 0

    # --- damage and a full disk --------------------------------------------------------

    def repair(self) -> bool:
        """Rebuild what was found damaged while serving (the writer's background thread, between
        batches); True when something was, and the folder should be reconciled."""
        due = self.repairs.due()
        if not due or self.indexer is None:
            return False
        assert isinstance(self.vectors, VectorIndex)
        if INDEX_FILE in due:
            self.repairs.repair_index(self.store, due[INDEX_FILE])
            self._rebuilt = True
            self._checks(self.vectors, self.indexer.versions.parser)
        self.repairs.repair_vectors(self.store, self.vectors)
        if self.catchup is not None:
            self.catchup.wake()
        return True

    def take_over(self) -> bool:
        """Become the writer if the one that was is gone: the kernel frees its lock when it exits,
        even by kill -9. Its commits are all in (each was atomic); a file it was parsing is parsed
        again by the next reconcile, from the parse cache when it had finished. True once writing."""
        if self.writer:
            return True
        lock = self._lock or _try_lock(self.config.data_dir)  # opened to read, it may hold the lock already
        if lock is None:
            return False
        self._lock = lock
        reading = self.vectors
        try:
            self.store.writer = True
            self.store.migrate()
            # The reader's copy is left to the collector, not closed: a query may still be scanning it.
            self.search.vectors = self._open_for_writing()
        except BaseException:
            self.vectors, self.indexer, self.catchup = reading, None, None
            self.store.writer = False
            lock.release()
            self._lock = None
            raise
        self.writer = True
        log.info("took over writing the index in %s", self.config.data_dir)
        return True

    @property
    def written_elsewhere(self) -> bool:
        """Another process holds this index's lock: it writes, and follows the folders."""
        return self._lock is None

    def writer_pid(self) -> str:
        """The process that writes this index, as it wrote itself down."""
        owner = self.config.data_dir / "owner.pid"
        return owner.read_text().strip() if owner.exists() else "unknown"

    def _lane_embedder(self) -> Embedder:
        """The vector lane's own copy of the model, loaded on the lane's thread (`indexer.ingest.catchup`)."""
        if self._lane_model is None:
            config = self.config
            self._lane_model = Embedder(config.models_dir, config.embedding_model, threads=config.embed_threads)
        return self._lane_model

    def close(self) -> None:
        if self.catchup is not None:
            self.catchup.stop()  # after the batch under way; the next start embeds the rest
        self.store.close()
        self.vectors.close()
        if self._lock is not None:
            self._lock.release()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- indexing --------------------------------------------------------------------

    def reconcile(self, progress: ProgressCallback | None = None, wait: bool = True) -> ReconcileReport:
        """Bring the index in line with the folders; `toc()` reports progress meanwhile. Each
        document is readable and found by keyword search once parsed; `wait`: return once
        semantic search covers them too (the server does not wait, and leaves a slow parse to
        finish on its own: `indexer.ingest.lanes`). The first reconcile of a run also parses again the
        files whose failure may pass (a time limit, a killed parser): the first one this process
        writes, so a reader that takes over retries them too."""
        patience = None if wait else SLOW_PARSE_S
        retry = 1.0 if self._retry_at_start and self.writer else None
        self._retry_at_start = self._retry_at_start and not self.writer
        return self._tracked(lambda indexer, record: indexer.reconcile(record, patience, retry), progress, wait)

    def sync_paths(
        self, paths: list[Path], progress: ProgressCallback | None = None, wait: bool = True
    ) -> ReconcileReport:
        """Re-index or remove just these paths (file events)."""
        patience = None if wait else SLOW_PARSE_S
        return self._tracked(lambda indexer, record: indexer.sync_paths(paths, record, patience), progress, wait)

    def finish_parses(self, progress: ProgressCallback | None = None) -> ReconcileReport:
        """Wait for the parses a reconcile left running (`wait=False`) and commit them: a one-shot
        command reports every file as indexed or failed, never as still indexing."""
        return self._tracked(lambda indexer, record: indexer.sync({}, [], record, None), progress, wait=False)

    def retry_failed(self, progress: ProgressCallback | None = None) -> ReconcileReport:
        """Once per run, parse again the files whose failure may pass (a time limit on a busy
        machine, a killed parser; a failed document, or a new version whose previous one
        stays), with RETRY_PATIENCE times their time limit: the server calls
        this when it is idle."""
        due = [d for d in self.store.documents() if d.transient and (d.doc_id, d.content_hash) not in self._retried]
        self._retried.update((d.doc_id, d.content_hash) for d in due)
        if not due:
            return ReconcileReport()
        log.info("parsing %d failed file(s) again with %g× the time limit", len(due), RETRY_PATIENCE)
        return self._tracked(
            lambda indexer, record: indexer.retry_failed(due, RETRY_PATIENCE, record, SLOW_PARSE_S),
            progress,
            wait=False,
        )

    def changed_files(self) -> int:
        """How many files differ from what the index holds: new, gone, changed in size or time,
        or left unfinished by a writer that stopped. A walk and a stat per file, nothing read:
        a process that opened the index to read asks this before it takes over writing."""
        return changed_files(Folders(self.config.roots, excluded=[self.config.data_dir]), self.store)

    def note_scanning(self) -> None:
        """Until the files found are registered, get_toc says the folder is being scanned."""
        if self.progress is None:
            self.progress = Progress(0, 0, "", "scanning")

    def _tracked(
        self,
        work: Callable[[Indexer, ProgressCallback], ReconcileReport],
        progress: ProgressCallback | None,
        wait: bool,
    ) -> ReconcileReport:
        indexer = self.indexer
        if indexer is None:  # another process writes this index and follows its folders
            return ReconcileReport()
        assert self.catchup is not None

        def record(p: Progress) -> None:
            self.progress = p if p.done < p.total else None
            if progress:
                progress(p)

        self.note_scanning()
        indexer.cancel.clear()  # a stop ends the run under way, not every later one
        embedded = self.catchup.embedded
        try:
            report = work(indexer, record)
        finally:
            self.progress = None
            skipped = json.dumps(self._walk_skipped())
            if skipped != (self.store.get_meta("skipped") or "[]"):
                self.store.set_meta("skipped", skipped)
        if wait:
            self.catchup.wait()
            report.embedded = self.catchup.embedded - embedded
        return report

    def use_search(self, mode: SearchMode, reranker: Reranker | None = None) -> None:
        """Search this way from now on: benchmarks compare modes and rerankers on one open index."""
        self.search.mode, self.search.reranker = mode, reranker

    # --- paths -----------------------------------------------------------------------

    def display_path(self, doc: DocumentRow) -> str:
        """The relpath; with several roots, after the root's label (its name, or as much of its
        path as tells it from the others)."""
        return self.shown_path(doc.root, doc.relpath)

    def shown_path(self, root: str, relpath: str) -> str:
        if len(self.config.roots) == 1:
            return relpath
        return f"{self._labels.get(root, Path(root).name)}/{relpath}"

    def skipped(self) -> list[tuple[str, str]]:
        """What the folder walk passed over that a user may look for: (shown path, why), by path;
        the writer's walk, kept in the store for the processes that read the index."""
        found = self._walk_skipped() if self.indexer is not None else json.loads(self.store.get_meta("skipped") or "[]")
        return sorted((self.shown_path(root, relpath), why) for root, relpath, why in found)

    def _walk_skipped(self) -> list[list[str]]:
        assert self.indexer is not None
        return sorted([root, relpath, why] for (root, relpath), why in self.indexer.folders.skipped.items())

    def vectors_left(self) -> CatchUpState | None:
        """What semantic search has yet to cover, and the lane's recent rate; None when it covers all."""
        waiting = self.store.awaiting_vectors()
        if not waiting:
            return None
        return CatchUpState(len(waiting), sum(d.n_paras for d in waiting), self.catchup.rate if self.catchup else None)


def _collection_name(data_dir: Path) -> str:
    """Chroma wants 3–512 characters of [a-zA-Z0-9._-], starting and ending alphanumeric."""
    suffix = re.sub(r"[^a-zA-Z0-9._-]", "-", data_dir.name)[-60:].strip("-_.")
    return f"deepread-{suffix or 'index'}"


def _try_lock(data_dir: Path) -> FileLock | None:
    """The writer's lock of this index, or None when another process holds it."""
    lock = FileLock(str(data_dir / "index.lock"))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return None
    try:
        (data_dir / "owner.pid").write_text(str(os.getpid()))
    except OSError:  # a full disk: the index is still ours to write once there is space
        log.debug("could not write owner.pid in %s", data_dir)
    return lock

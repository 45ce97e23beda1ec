"""An index opened by one process: its store, vectors, model and search, as writer or as reader.

Many processes may open one index; the one holding its lock (`indexer.service.lock`) writes
(`writing`, `indexer.service.writing`), the others read the same files and take over writing
when the writer is gone (`take_over`). A one-shot query opens it to read (`write=False`): it
answers at once, and writes only when it asks to, after `changed_files` found the folders
changed with no writer to follow them. A damaged file of the index is set aside and made anew
at open (`indexer.store.repair`); a failure to write (a full disk) pauses indexing until
writing works again (`pause`).
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from typing import Self

from indexer.ingest.covered import changed_files
from indexer.ingest.files import Folders, check_roots
from indexer.search.hybrid import HybridSearch, SearchMode
from indexer.search.rerank import Reranker
from indexer.service.config import LibraryConfig
from indexer.service.lock import take_lock, writer_pid
from indexer.service.vectors import open_vectors
from indexer.service.writing import SKIPPED_META, Writing
from indexer.store.embedder import Embedder
from indexer.store.repair import INDEX_FILE, Repairs
from indexer.store.space import Pause
from indexer.store.vectors import VectorSearch

log = logging.getLogger(__name__)


class OpenIndex:
    """The data directory opened for one process: store, vectors, model, search, and the
    writer's part (`writing`) when this process writes."""

    def __init__(self, config: LibraryConfig, write: bool = True):
        """`write=False`: open to answer, not to follow the folders. The lock is still taken when
        free (no one writes meanwhile, and an older schema can be brought up to date), but the
        writer's part (Chroma, the parser, the vector lane, the rebuild checks) waits for `take_over`."""
        config = replace(config, roots=check_roots(config.roots))
        self.config = config
        config.data_dir.mkdir(parents=True, exist_ok=True)
        self.repairs = Repairs(config.data_dir)
        self.pause = Pause(config.data_dir)  # writing failed (a full disk): indexing waits for space
        self._lock = take_lock(config.data_dir)  # None: another process writes this index
        self.writing: Writing | None = None  # the writer's part, once this process writes
        try:
            self.store, rebuilt = self.repairs.open_store(config.data_dir / INDEX_FILE, self._lock is not None)
            self.embedder = Embedder(config.models_dir, config.embedding_model, threads=config.embed_threads)
            if self._lock is not None and write:
                self.writing = Writing(config, self.store, self.embedder, self.repairs, self.pause, rebuilt)
                self.vectors: VectorSearch = self.writing.vectors
            else:
                self.vectors = open_vectors(config, self.repairs, writer=False)
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

    @property
    def writer(self) -> bool:
        """This process writes the index and follows its folders."""
        return self.writing is not None

    @property
    def written_elsewhere(self) -> bool:
        """Another process holds this index's lock: it writes, and follows the folders."""
        return self._lock is None

    def writer_pid(self) -> str:
        """The process that writes this index, as it wrote itself down."""
        return writer_pid(self.config.data_dir)

    def take_over(self) -> bool:
        """Become the writer if the one that was is gone: the kernel frees its lock when it exits,
        even by kill -9. Its commits are all in (each was atomic); a file it was parsing is parsed
        again by the next reconcile, from the parse cache when it had finished. True once writing."""
        if self.writing is not None:
            return True
        lock = self._lock or take_lock(self.config.data_dir)  # opened to read, it may hold the lock already
        if lock is None:
            return False
        self._lock = lock
        try:
            self.store.writer = True
            self.store.migrate()
            writing = Writing(self.config, self.store, self.embedder, self.repairs, self.pause, rebuilt=False)
        except BaseException:
            self.store.writer = False
            lock.release()
            self._lock = None
            raise
        # The reader's copy is left to the collector, not closed: a query may still be scanning it.
        self.writing, self.vectors = writing, writing.vectors
        self.search.vectors = writing.vectors
        log.info("took over writing the index in %s", self.config.data_dir)
        return True

    def changed_files(self) -> int:
        """How many files differ from what the index holds: new, gone, changed in size or time,
        or left unfinished by a writer that stopped. A walk and a stat per file, nothing read:
        a process that opened the index to read asks this before it takes over writing."""
        config = self.config
        return changed_files(Folders(config.roots, [config.data_dir], config.exclude, config.include), self.store)

    def skipped(self) -> list[tuple[str, str, str]]:
        """What the folder walk passed over that a user may look for: (root, relpath, why); the
        writer's walk, kept in the store for the processes that read the index."""
        found = self.writing.skipped_files() if self.writing else json.loads(self.store.get_meta(SKIPPED_META) or "[]")
        return [(root, relpath, why) for root, relpath, why in found]

    def use_search(self, mode: SearchMode, reranker: Reranker | None = None) -> None:
        """Search this way from now on: benchmarks compare modes and rerankers on one open index."""
        self.search.mode, self.search.reranker = mode, reranker

    def close(self) -> None:
        if self.writing is not None:
            self.writing.close()
        self.store.close()
        self.vectors.close()
        if self._lock is not None:
            self._lock.release()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

"""What only the writer of an index does: reconcile the folders, run the vector lane, rebuild
what was found damaged.

`Writing` is made when a process holds the writer's lock (`indexer.service.lock`), at open or on
taking over. Opening it rebuilds what a changed model, packing or token count invalidates
(`indexer.store.upgrades`), and sets up the parser, the reconciler (`indexer.ingest.reconcile`)
and the lane on which vectors catch up (`indexer.ingest.catchup`). Each reconcile is tracked, so
the map says how far indexing is (`progress`), and records the files the walk passed over
(`skipped_files`) for the processes that read the index. A failure to write pauses the lane
(`indexer.store.space.Pause`); damage met here is reported to `Repairs`, whose rebuild the
background thread runs between batches (`repair`).
"""

from __future__ import annotations

import json
import logging
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

from indexer.errors import CannotWrite, IndexDamaged
from indexer.ingest.catchup import Pace, VectorCatchUp, embed_pending
from indexer.ingest.covered import FOLDERS_META
from indexer.ingest.lanes import SLOW_PARSE_S
from indexer.ingest.reconcile import Progress, ProgressCallback, Reconciler, ReconcileReport
from indexer.parse.formats import DocumentParser
from indexer.service.config import LibraryConfig
from indexer.service.vectors import writer_vectors
from indexer.store.database import Store
from indexer.store.embedder import Embedder
from indexer.store.repair import INDEX_FILE, Repairs
from indexer.store.space import Pause
from indexer.store.upgrades import check_parser_models, check_signature, check_structure

log = logging.getLogger(__name__)

RETRY_PATIENCE = 2.0  # a failure that may pass is retried when idle with this many times the time limit
SKIPPED_META = "skipped"  # the files the writer's walk passed over, for readers: [[root, relpath, why], …]


class Writing:
    """The writer's part of an open index: the vectors it writes, the parser, the reconciler and
    the vector lane."""

    def __init__(
        self, config: LibraryConfig, store: Store, embedder: Embedder, repairs: Repairs, pause: Pause, rebuilt: bool
    ):
        """`rebuilt`: the store was made anew at open (`Repairs.open_store`): vectors it no longer
        names are dropped once the checks ran."""
        self.config, self.store, self.repairs, self.pause = config, store, repairs, pause
        self._embedder = embedder
        self._rebuilt = rebuilt
        shutil.rmtree(config.data_dir / "tmp", ignore_errors=True)  # what a killed writer's parser left
        repairs.check_vectors(chroma=not config.chroma_url)
        self.vectors = writer_vectors(config, repairs)
        repairs.repair_vectors(store, self.vectors)
        store.set_meta(FOLDERS_META, json.dumps([str(root) for root in config.roots]))
        self.parser = DocumentParser(config.parse_options())
        self._checks()
        self.reconciler = Reconciler(
            store,
            self.vectors,
            embedder,
            self.parser,
            config.roots,
            config.max_file_bytes,
            heading_context=config.heading_context,
            excluded=[config.data_dir],
            parse_jobs=config.parse_jobs,
            exclude=config.exclude,
            include=config.include,
        )
        self.progress: Progress | None = None  # set while a reconcile runs
        self._retry_at_start = True  # the first reconcile parses transient failures again
        self._retried: set[tuple[int, str | None]] = set()  # (doc_id, content hash) retried when idle this run
        self._lane_model: Embedder | None = None
        self.catchup = VectorCatchUp(self._embed_pending)
        self.reconciler.versions.on_commit = self.catchup.wake
        if store.awaiting_vectors():  # what a stop or a crash left: semantic search catches up
            self.catchup.wake()

    def _checks(self) -> None:
        """What the writer checks at open, and again after the index was made anew."""
        check_signature(self.store, self.vectors, self._embedder, self.config.heading_context)
        check_structure(self.store)
        check_parser_models(self.store, self.parser)
        if self._rebuilt:
            self.repairs.drop_orphans(self.store, self.vectors)
            self._rebuilt = False

    def _embed_pending(self, stop: threading.Event, pace: Pace) -> int:
        """The vector lane's work; a failure to write pauses it, damage is reported and rebuilt."""
        try:
            embedder, context = self._lane_embedder(), self.config.heading_context
            return embed_pending(self.store, self.vectors, embedder, context, stop, pace)
        except CannotWrite as failure:
            self.pause.failed(failure)
        except IndexDamaged as damaged:  # reported where found: the writer rebuilds it
            log.warning("embedding stopped: %s", damaged)
        return 0

    def _lane_embedder(self) -> Embedder:
        """The vector lane's own copy of the model, loaded on the lane's thread (`indexer.ingest.catchup`)."""
        if self._lane_model is None:
            config = self.config
            self._lane_model = Embedder(config.models_dir, config.embedding_model, threads=config.embed_threads)
        return self._lane_model

    def repair(self) -> bool:
        """Rebuild what was found damaged while serving (the background thread, between batches);
        True when something was, and the folder should be reconciled."""
        due = self.repairs.due()
        if not due:
            return False
        if INDEX_FILE in due:
            self.repairs.repair_index(self.store, due[INDEX_FILE])
            self._rebuilt = True
            self._checks()
        self.repairs.repair_vectors(self.store, self.vectors)
        self.catchup.wake()
        return True

    # --- reconciling -----------------------------------------------------------------

    def reconcile(self, progress: ProgressCallback | None = None, wait: bool = True) -> ReconcileReport:
        """Bring the index in line with the folders. Each document is readable and found by keyword
        search once parsed; `wait`: return once semantic search covers them too (the server does not
        wait, and leaves a slow parse to finish on its own: `indexer.ingest.lanes`). The first
        reconcile of a writer also parses again the files whose failure may pass (a time limit, a
        killed parser), so a reader that takes over retries them too."""
        patience = None if wait else SLOW_PARSE_S
        retry = 1.0 if self._retry_at_start else None
        self._retry_at_start = False
        return self._tracked(lambda r, record: r.reconcile(record, patience, retry), progress, wait)

    def sync_paths(
        self, paths: list[Path], progress: ProgressCallback | None = None, wait: bool = True
    ) -> ReconcileReport:
        """Re-index or remove just these paths (file events)."""
        patience = None if wait else SLOW_PARSE_S
        return self._tracked(lambda r, record: r.sync_paths(paths, record, patience), progress, wait)

    def finish_parses(self, progress: ProgressCallback | None = None) -> ReconcileReport:
        """Wait for the parses a reconcile left running (`wait=False`) and commit them: a one-shot
        command reports every file as indexed or failed, never as still indexing."""
        return self._tracked(lambda r, record: r.sync({}, [], record, None), progress, wait=False)

    def retry_failed(self, progress: ProgressCallback | None = None) -> ReconcileReport:
        """Once per run, parse again the files whose failure may pass (a time limit on a busy
        machine, a killed parser; a failed document, or a new version whose previous one stays),
        with RETRY_PATIENCE times their time limit: the background thread calls this when idle."""
        due = [d for d in self.store.documents() if d.transient and (d.doc_id, d.content_hash) not in self._retried]
        self._retried.update((d.doc_id, d.content_hash) for d in due)
        if not due:
            return ReconcileReport()
        log.info("parsing %d failed file(s) again with %g× the time limit", len(due), RETRY_PATIENCE)
        return self._tracked(
            lambda r, record: r.retry_failed(due, RETRY_PATIENCE, record, SLOW_PARSE_S), progress, wait=False
        )

    def note_scanning(self) -> None:
        """Until the files found are registered, get_toc says the folder is being scanned."""
        if self.progress is None:
            self.progress = Progress(0, 0, "", "scanning")

    def _tracked(
        self,
        work: Callable[[Reconciler, ProgressCallback], ReconcileReport],
        progress: ProgressCallback | None,
        wait: bool,
    ) -> ReconcileReport:
        def record(p: Progress) -> None:
            self.progress = p if p.done < p.total else None
            if progress:
                progress(p)

        self.note_scanning()
        self.reconciler.cancel.clear()  # a stop ends the run under way, not every later one
        embedded = self.catchup.embedded
        try:
            report = work(self.reconciler, record)
        finally:
            self.progress = None
            skipped = json.dumps(self.skipped_files())
            if skipped != (self.store.get_meta(SKIPPED_META) or "[]"):
                self.store.set_meta(SKIPPED_META, skipped)
        if wait:
            self.catchup.wait()
            report.embedded = self.catchup.embedded - embedded
        return report

    def skipped_files(self) -> list[list[str]]:
        """What the last walk passed over that a user may look for: [root, relpath, why], by path."""
        return sorted([root, relpath, why] for (root, relpath), why in self.reconciler.folders.skipped.items())

    def cancel(self) -> None:
        """End the reconcile under way between two files (each file's swap is atomic either way)."""
        self.reconciler.cancel.set()

    def close(self) -> None:
        """Stop the vector lane after the batch under way; the next start embeds the rest."""
        self.catchup.stop()

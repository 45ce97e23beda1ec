"""Indexing off the request path: one worker thread, so the tools answer meanwhile."""

from __future__ import annotations

import logging
import threading

from indexer.library import Library
from indexer.pipeline import ProgressCallback

log = logging.getLogger(__name__)


class BackgroundIndexer:
    def __init__(self, library: Library, progress: ProgressCallback | None = None):
        self.library = library
        self._progress = progress
        self._idle = threading.Event()
        self._thread = threading.Thread(target=self._run, name="deepread-indexer", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 30) -> None:
        """Stop after the file being indexed now (its swap is atomic either way)."""
        self.library.indexer.cancel.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def wait_idle(self, timeout: float | None = None) -> bool:
        return self._idle.wait(timeout)

    def _run(self) -> None:
        try:
            report = self.library.reconcile(self._progress)
            log.info(
                "index ready: %d indexed, %d unchanged, %d failed, %d removed",
                len(report.indexed), len(report.unchanged), len(report.failed), len(report.removed),
            )
        except Exception:  # keep serving what is indexed; the log says why indexing stopped
            log.exception("indexing stopped")
        finally:
            self._idle.set()

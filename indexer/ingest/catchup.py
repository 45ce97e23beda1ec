"""Dense vectors catch up on their own thread, so a document is usable as soon as it is parsed.

A new version is committed without waiting for its embeddings: `get_toc` lists it,
`read_section` reads it and BM25 finds it at once; its paragraphs then wait for their
vectors, which this lane computes in batches while the indexer parses the next files.
On a machine with few cores the two compete for them: the lane runs at a lower CPU
priority (`LANE_NICENESS`, Linux), with its own copy of the model loaded on its thread so
that the threads ONNX Runtime starts for it inherit that priority, and parsing (what makes
a document readable) and queries come first; the total work is the same. A document
counts as embedded (`documents.embedded`) only once all its vectors are in Chroma, so
after a crash the next start finds what is missing and completes it.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from indexer.ingest.reconcile import BATCH_PASSAGES
from indexer.models import section_paths
from indexer.store.database import Store
from indexer.store.embedder import Embedder
from indexer.store.vectors import VectorIndex
from indexer.structure.passages import vector_ids

log = logging.getLogger(__name__)

RATE_WEIGHT = 0.3  # how fast the rate estimate follows the latest batch
LANE_NICENESS = 10  # nice value of the lane's threads: they take the CPU time parsing leaves
Pace = Callable[[int, float, int], None]  # (paragraphs, seconds, passages) of the batch just done


def lower_priority() -> None:
    """Lower the calling thread's CPU priority to LANE_NICENESS. On Linux the nice value is
    per thread and the threads it starts inherit it; elsewhere this is left alone (it would
    apply to the whole process)."""
    if sys.platform.startswith("linux"):
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), LANE_NICENESS)
        except OSError:  # not allowed here: same priority as the rest, which is only slower to read
            log.debug("could not lower the vector lane's priority")


@dataclass
class CatchUpState:
    """What is left for semantic search, and when it should be done."""

    documents: int  # readable documents still without all their vectors
    paragraphs: int  # their paragraphs (an upper bound: unchanged ones keep their vectors)
    rate: float | None  # paragraphs embedded per second lately; None before the first batch

    @property
    def eta_s(self) -> float | None:
        return self.paragraphs / self.rate if self.rate else None


class VectorCatchUp:
    """One thread running `embed`, woken whenever a version is committed."""

    def __init__(self, embed: Callable[[threading.Event, Pace], int]):
        """`embed(stop, pace)` embeds what is waiting and returns when nothing is left or `stop`
        is set; it calls `pace(paragraphs, seconds, passages)` before each batch with what the
        previous one did (0, 0, 0 before the first), which keeps the rate and honours a hold."""
        self._embed = embed
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._held = 0
        self._resumed = threading.Condition(self._lock)
        self.rate: float | None = None
        self.embedded = 0  # paragraphs embedded since the lane started
        self.passages = 0  # the passages that covered them (one vector each)
        self._thread = threading.Thread(target=self._run, name="deepread-vectors", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Something may be waiting for vectors."""
        with self._lock:
            self._idle.clear()
            self._wake.set()

    def wait(self, timeout: float | None = None) -> bool:
        """True once nothing waits for vectors (or the lane stopped)."""
        return self._idle.wait(timeout)

    @property
    def busy(self) -> bool:
        return not self._idle.is_set()

    @contextmanager
    def held(self) -> Iterator[None]:
        """No new batch starts while held (tests see the state between parse and vectors)."""
        with self._lock:
            self._held += 1
        try:
            yield
        finally:
            with self._lock:
                self._held -= 1
                self._resumed.notify_all()

    def stop(self, timeout: float = 30) -> None:
        """Stop after the batch under way; what is left is done by the next start."""
        self._stop.set()
        with self._lock:
            self._resumed.notify_all()
        self._wake.set()
        self._thread.join(timeout)
        self._idle.set()

    def _run(self) -> None:
        lower_priority()
        while not self._stop.is_set():
            self._wake.wait()
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                self._embed(self._stop, self._pace)
            except Exception:  # keep the lane alive: the next commit or start tries again
                log.exception("embedding failed; semantic search may miss the documents left")
            with self._lock:
                if not self._wake.is_set():
                    self._idle.set()

    def _pace(self, paragraphs: int, seconds: float, passages: int) -> None:
        self.embedded += paragraphs
        self.passages += passages
        if seconds > 0 and paragraphs:
            latest = paragraphs / seconds
            self.rate = latest if self.rate is None else (1 - RATE_WEIGHT) * self.rate + RATE_WEIGHT * latest
        with self._lock:  # while held, the next batch waits
            while self._held and not self._stop.is_set():
                self._resumed.wait()


def embed_pending(
    store: Store,
    vectors: VectorIndex,
    embedder: Embedder,
    heading_context: bool,
    stop: threading.Event,
    pace: Pace = lambda n, s, p: None,
) -> int:
    """Add the passage vectors committed versions are missing, document by document, in batches
    of BATCH_PASSAGES (those the vectors' copy holds are given back to Chroma without embedding);
    mark each version embedded once all are in. `pace(paragraphs, seconds, passages)` is called
    before each batch with the previous one's. Returns the paragraphs covered."""
    done = 0
    last = (0, 0.0, 0)
    while not stop.is_set():
        waiting = store.awaiting_vectors()
        if not waiting:
            vectors.caught_up()
            break
        for doc in waiting:
            rows = store.document_paragraphs(doc.doc_id)
            ids, passages = vector_ids(doc.doc_id, rows, section_paths(store.sections(doc.doc_id)), heading_context)
            existing = vectors.ids_for_document(doc.doc_id)
            covers = Counter(ids)  # paragraphs per passage: the rate and ETA are in paragraphs
            todo = [(vid, passage) for vid, passage in passages.items() if vid not in existing]
            if todo:  # what the vectors' copy holds goes back to Chroma as it is (a Chroma store set aside)
                restored = vectors.restore([vid for vid, _ in todo])
                todo = [(vid, passage) for vid, passage in todo if vid not in restored]
            for start in range(0, len(todo), BATCH_PASSAGES):
                pace(*last)
                if stop.is_set():
                    return done
                now = store.document(doc.doc_id)
                if now is None or now.version != doc.version:  # removed or replaced meanwhile
                    break
                began = time.monotonic()
                chunk = todo[start : start + BATCH_PASSAGES]
                embedded, members = embedder.embed_passages([p.text for _, p in chunk], [p.spans for _, p in chunk])
                vectors.add([v for v, _ in chunk], [doc.doc_id] * len(chunk), embedded, members)
                paragraphs = sum(covers[v] for v, _ in chunk)
                done += paragraphs
                last = (paragraphs, time.monotonic() - began, len(chunk))
            if store.set_embedded(doc.doc_id, doc.version):
                log.info("vectors complete for doc %d (%d passages embedded)", doc.doc_id, len(todo))
                stale = existing - set(ids)  # left by a version replaced while it was embedded
                if stale:
                    vectors.delete(sorted(stale))
            elif store.document(doc.doc_id) is None:  # removed while it was embedded: so are the vectors it got
                vectors.delete_document(doc.doc_id)
            if stop.is_set():
                return done
    pace(*last)
    return done

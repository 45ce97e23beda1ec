"""Following the folders off the request path: one worker thread fed by file events.

In the process that writes the index, the worker first reconciles the whole folder, then
waits for paths from the watcher. In a process that reads an index another one writes, it
waits instead for the writer to go, takes over writing (`OpenIndex.take_over`) and goes on as
the writer does. Paths are debounced: the worker waits until no new path has arrived
for `debounce` seconds (at most `max_delay` after the first), so a burst of
writes (an editor's save, a sync client, `git checkout`) is handled once, in
its final state. The tools keep answering from what is indexed meanwhile.

The worker also keeps the index whole (`indexer.store.repair`): a file found damaged, here or by
another process (checked every REPORT_POLL_S), is rebuilt between batches and the folder
reconciled; and when writing fails (a full disk) indexing pauses, events are held, and once a
probe write works again (checked every RESUME_POLL_S) the whole folder is reconciled. A batch
that failed otherwise took its events with it: the whole folder is reconciled RECHECK_S later
(twice as late each time it fails again). A take-over that failed is tried again.
"""

from __future__ import annotations

import enum
import functools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from indexer.errors import CannotWrite, IndexDamaged
from indexer.ingest.reconcile import ProgressCallback, ReconcileReport
from indexer.ingest.versions import SETTLE_S
from indexer.ingest.watch import FolderWatcher
from indexer.service.open_index import OpenIndex
from indexer.service.writing import Writing

log = logging.getLogger(__name__)

IDLE_RETRY_S = 30.0  # quiet this long, the worker parses again the failures that may pass
TAKEOVER_POLL_S = 1.0  # a reader checks this often whether the writer is gone
REPORT_POLL_S = 2.0  # the writer checks this often whether another process reported damage
RESUME_POLL_S = 5.0  # while writing fails, a probe write is tried this often
RECHECK_S = 5.0  # a batch failed: the whole folder is reconciled this long after (doubling, to RECHECK_MAX_S)
RECHECK_MAX_S = 300.0


class Due(enum.Enum):
    """Work the worker does besides the paths events name."""

    RETRY = "retry"  # quiet for a while: parse again the failures that may pass
    REPAIR = "repair"  # rebuild what was found damaged, then reconcile
    RESUME = "resume"  # writing works again: reconcile the whole folder
    RECHECK = "recheck"  # a batch failed, its events unapplied: reconcile the whole folder


@dataclass
class Totals:
    """What the worker has done since it started (status and tests)."""

    indexed: int = 0
    failed: int = 0
    removed: int = 0
    embedded: int = 0  # paragraphs the catch-up lane embedded


class Follower:
    """The worker thread that keeps an open index in line with its folders."""

    def __init__(
        self,
        index: OpenIndex,
        watch: bool = True,
        poll: bool = False,
        debounce: float = 0.5,
        max_delay: float = 5.0,
        progress: ProgressCallback | None = None,
        retry_after: float = IDLE_RETRY_S,
    ):
        """`retry_after`: seconds without file events after which failures that may pass (a time
        limit on a busy machine, a killed parser) are parsed again, with more time (once a run)."""
        self.index = index
        self._counts = Totals()
        self._embedded_before = 0
        self._progress = progress
        self._debounce = debounce
        self._max_delay = max_delay
        self._pending: set[Path] = set()
        self._collect = False  # a parse left running by an earlier batch is done: commit it
        self._failures = True  # a file may have failed for a reason that passes: retried once idle
        self._retry_after = retry_after
        self._first_at: float | None = None
        self._last_at = 0.0
        self._quiet_from = time.monotonic()  # no event nor batch since: the idle retry counts from here
        self._repair_after = 0.0
        self._recheck_at: float | None = None  # a batch failed: the whole folder is reconciled then
        self._recheck_s = RECHECK_S
        self._wake = threading.Condition()
        self._stopping = False
        self._idle = threading.Event()
        self._thread = threading.Thread(target=self._run, name="deepread-indexer", daemon=True)
        index.repairs.on_found = self._wake_up
        config = index.config
        self.watcher = (
            FolderWatcher(config.roots, self.notify, poll=poll, excluded=[config.data_dir]) if watch else None
        )

    @property
    def totals(self) -> Totals:
        writing = self.index.writing
        embedded = writing.catchup.embedded - self._embedded_before if writing is not None else 0
        return replace(self._counts, embedded=embedded)

    def start(self) -> None:
        if self.index.writing is not None:
            self._start_writing(self.index.writing)
        self._thread.start()

    def _start_writing(self, writing: Writing) -> None:
        """This process writes the index: follow the folders (the watcher first, so nothing changed
        during the reconcile is missed)."""
        self._embedded_before = writing.catchup.embedded
        writing.reconciler.lanes.on_finished = self._parse_finished
        writing.note_scanning()  # get_toc says so from the first moment, before the thread runs
        if self.watcher is not None:
            self.watcher.start()

    def stop(self, timeout: float = 30) -> None:
        """Stop after the file being indexed now (its swap is atomic either way)."""
        if self.watcher is not None:
            self.watcher.stop()
        if self.index.writing is not None:
            self.index.writing.cancel()
        with self._wake:
            self._stopping = True
            self._wake.notify()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def notify(self, paths: list[Path]) -> None:
        """Called from the watcher thread: these paths may have changed."""
        with self._wake:
            now = time.monotonic()
            if not self._pending:
                self._first_at = now
            self._pending.update(paths)
            self._last_at = now
            self._idle.clear()
            self._wake.notify()

    def _wake_up(self) -> None:
        """Called from any thread: something was found damaged."""
        with self._wake:
            self._idle.clear()
            self._wake.notify()

    def _parse_finished(self) -> None:
        """Called from a parse lane: a parse an earlier batch left running is done."""
        with self._wake:
            self._collect = True
            self._idle.clear()
            self._wake.notify()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """True once the startup reconcile is done, no event is waiting and semantic search has
        caught up (tests, CLI)."""
        started = time.monotonic()
        if not self._idle.wait(timeout):
            return False
        left = None if timeout is None else max(timeout - (time.monotonic() - started), 0)
        writing = self.index.writing
        return (writing is None or writing.catchup.wait(left)) and self._idle.is_set()

    def _await_writing(self) -> Writing | None:
        """A reader of an index another process writes: until that one is gone, the index changes
        under us by itself; then this process takes over. None when stopped first."""
        self._idle.set()
        while not self.index.take_over():
            with self._wake:
                if not self._stopping:
                    self._wake.wait(TAKEOVER_POLL_S)
                if self._stopping:
                    return None
        assert self.index.writing is not None
        self._idle.clear()
        self._start_writing(self.index.writing)
        return self.index.writing

    def _run(self) -> None:
        writing = self.index.writing or self._guarded_takeover()
        if writing is None:
            return
        # Documents are usable once parsed: nothing here waits for their vectors (the lane's job).
        self._guarded(lambda: writing.reconcile(self._progress, wait=False), "startup reconcile")
        while True:
            batch = self._next_batch(writing)
            if batch is None:
                return
            if batch is Due.RETRY:
                self._guarded(lambda: writing.retry_failed(self._progress), "retry of failures that may pass")
                continue
            if batch is Due.REPAIR and not self._guarded(writing.repair, "the rebuild of a damaged file"):
                continue
            if batch in (Due.REPAIR, Due.RESUME, Due.RECHECK):
                if batch is Due.RESUME:
                    writing.catchup.wake()  # the vectors it could not write, if it was the lane that stopped
                self._guarded(lambda: writing.reconcile(self._progress, wait=False), "reconcile")
                continue
            changed = functools.partial(writing.sync_paths, batch, self._progress, wait=False)
            self._guarded(changed, f"{len(batch)} changed path(s)")

    def _guarded_takeover(self) -> Writing | None:
        while True:
            try:
                return self._await_writing()
            except Exception:  # the index stays readable as it is; the log says why writing failed
                log.exception("taking over the index failed; trying again in %g s", RECHECK_S)
            with self._wake:
                if not self._stopping:
                    self._wake.wait(RECHECK_S)
                if self._stopping:
                    return None

    def _next_batch(self, writing: Writing) -> list[Path] | Due | None:
        """The next work: the paths events named once they settled (none: commit the parses the
        lanes finished), or what is `Due`; None once stopped."""
        with self._wake:
            while True:
                if self._stopping:
                    return None
                pause = self.index.pause
                if pause.failure is not None:  # events wait: the reconcile on resuming sees them
                    if pause.over():
                        self._pending.clear()
                        self._idle.clear()
                        return Due.RESUME
                    self._idle.set()
                    self._wake.wait(RESUME_POLL_S)
                    continue
                if self.index.repairs.due() and time.monotonic() >= self._repair_after:
                    self._idle.clear()
                    self._repair_after = time.monotonic() + REPORT_POLL_S  # one that fails is tried again later
                    return Due.REPAIR
                if self._recheck_at is not None and time.monotonic() >= self._recheck_at:
                    self._recheck_at = None
                    self._idle.clear()
                    return Due.RECHECK
                if not self._pending and self._collect:
                    self._collect = False
                    return []  # a sync of no paths commits what the lanes finished
                if not self._pending:
                    if not writing.reconciler.lanes.busy() and self._recheck_at is None:  # else work is due
                        self._idle.set()
                    quiet = time.monotonic() - self._quiet_from
                    woken = self._wake.wait(
                        min(REPORT_POLL_S, max(self._retry_after - quiet, 0.01)) if self._failures else REPORT_POLL_S
                    )
                    if (
                        self._failures
                        and not woken
                        and time.monotonic() - self._quiet_from >= self._retry_after
                        and not (self._pending or self._collect or self._stopping)
                    ):
                        self._failures = False  # quiet for a while: parse again what may pass (once a run)
                        self._idle.clear()
                        return Due.RETRY
                    continue
                now = time.monotonic()
                quiet_until = self._last_at + self._debounce
                deadline = (self._first_at or now) + self._max_delay
                if now >= min(quiet_until, deadline):
                    batch = sorted(self._pending)
                    self._pending.clear()
                    self._quiet_from = now
                    return batch
                self._wake.wait(min(quiet_until, deadline) - now)

    def _guarded(self, work: Callable[[], ReconcileReport | bool], what: str) -> bool:
        """Run a batch's work and count what it did; False when it failed (the index stays as it
        was: each commit is atomic). A failure to write pauses indexing, damage is rebuilt next."""
        try:
            report = work()
        except CannotWrite as failure:
            self.index.pause.failed(failure)
            return False
        except IndexDamaged as damaged:  # reported where found: the next batch rebuilds it
            log.warning("indexing stopped during %s: %s", what, damaged)
            return False
        except Exception:  # keep serving and watching; the log says what broke
            log.exception("indexing failed during %s; the folder is reconciled in %g s", what, self._recheck_s)
            self._recheck_at = time.monotonic() + self._recheck_s
            self._recheck_s = min(2 * self._recheck_s, RECHECK_MAX_S)
            return False
        finally:
            self._quiet_from = time.monotonic()
        self._recheck_s = RECHECK_S
        if not isinstance(report, ReconcileReport):
            return bool(report)
        self._counts.indexed += len(report.indexed)
        self._counts.failed += len(report.failed)
        self._counts.removed += len(report.removed)
        if report.failed:
            self._failures = True
        if report.deferred:  # read mid-save: read again once they have settled
            timer = threading.Timer(SETTLE_S, self.notify, [report.deferred])
            timer.daemon = True
            timer.start()
        if report.indexed or report.failed or report.removed:
            log.info(
                "%s: %d indexed, %d unchanged, %d failed, %d removed",
                what,
                len(report.indexed),
                len(report.unchanged),
                len(report.failed),
                len(report.removed),
            )
        return True

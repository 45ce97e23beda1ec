"""Parse lanes: the files of a batch are parsed a few at a time, and a parse that outlives its
batch goes on alone, so that no single file holds the queue.

Each MinerU parse is a child process of about one core: two lanes keep a 2-core machine busy
while the vectors catch up beside them. Files are handed out quickest first (the caller sorts
them), and each result is given back as soon as it is done, to be committed at once.

A batch may leave early (`patience`): once nothing of it is queued and every parse still
running has run that long (a 300-page scan under OCR, a hostile PDF running into its time
limit), those parses are *carried*: the batch returns, the files events name meanwhile are
indexed, and a carried result is collected later (`finished`), after `on_finished` says one
is there. The lanes are daemon threads: a parse under way never holds the process at exit,
and its child dies with the process (PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
R = TypeVar("R")

LANES = 2  # files parsed at once
SLOW_PARSE_S = 20.0  # a parse running this long, with nothing else of its batch left, goes on alone


class ParseLanes(Generic[K, R]):
    def __init__(self, lanes: int = LANES):
        self.lanes = lanes
        self._lock = threading.Lock()
        self._carried: set[K] = set()
        self._finished: queue.SimpleQueue[tuple[K, R | BaseException]] = queue.SimpleQueue()
        self.on_finished: Callable[[], None] = lambda: None  # a carried parse is done (called on its lane)

    def carried(self) -> set[K]:
        with self._lock:
            return set(self._carried)

    def busy(self) -> bool:
        """A carried parse is running, or done and not yet collected."""
        with self._lock:
            return bool(self._carried) or not self._finished.empty()

    def run(
        self, jobs: list[K], work: Callable[[K], R], stop: threading.Event, patience: float | None = None
    ) -> Iterator[tuple[K, R]]:
        """`work(job)` for each job, in order, on the lanes; yields `(job, result)` as each is
        done and raises what a job raised. Jobs not started when `stop` is set are dropped."""
        todo: queue.SimpleQueue[K] = queue.SimpleQueue()
        for job in jobs:
            todo.put(job)
        done: queue.SimpleQueue[tuple[K, R | BaseException]] = queue.SimpleQueue()
        started: dict[K, float] = {}

        def lane() -> None:
            while not stop.is_set():
                try:
                    job = todo.get_nowait()
                except queue.Empty:
                    return
                with self._lock:
                    started[job] = time.monotonic()
                try:
                    result: R | BaseException = work(job)
                except BaseException as exc:  # given to the caller, on its thread
                    result = exc
                with self._lock:
                    del started[job]
                    carried = job in self._carried
                    (self._finished if carried else done).put((job, result))
                    self._carried.discard(job)
                if carried:
                    self.on_finished()

        with self._lock:
            n = max(1, self.lanes - len(self._carried))  # carried parses still hold theirs
        for _ in range(min(n, len(jobs))):
            threading.Thread(target=lane, name="deepread-parse", daemon=True).start()
        outstanding = len(jobs)
        while outstanding:
            try:
                job, result = done.get(timeout=0.2)
            except queue.Empty:
                with self._lock:
                    if stop.is_set() and not started:
                        return
                    now = time.monotonic()
                    if (
                        patience is not None
                        and len(started) == outstanding  # nothing queued, nothing between lanes
                        and all(now - t >= patience for t in started.values())
                    ):
                        self._carried.update(started)
                        return
                continue
            outstanding -= 1
            if isinstance(result, BaseException):
                raise result
            yield job, result

    def finished(self, wait: bool = False) -> list[tuple[K, R | BaseException]]:
        """Carried parses that are done; with `wait`, once every carried parse is."""
        out: list[tuple[K, R | BaseException]] = []
        while True:
            try:
                out.append(self._finished.get_nowait())
                continue
            except queue.Empty:
                pass
            with self._lock:
                busy = bool(self._carried)
            if not (wait and busy):
                return out
            with contextlib.suppress(queue.Empty):
                out.append(self._finished.get(timeout=0.2))

"""What the service is doing, in one snapshot: indexing progress, a pause, rebuilds, what
semantic search has yet to cover. The map's notes, the server's progress notifications and the
command line's summary all read it, so none of them reaches into the parts that keep it."""

from __future__ import annotations

import functools

from indexer.errors import CannotWrite
from indexer.ingest.catchup import CatchUpState
from indexer.ingest.reconcile import Progress
from indexer.service.open_index import OpenIndex
from indexer.store.repair import Rebuilt


class Status:
    """Taken when made; what needs the store (`vectors_left`, `rebuilt`) is read on first use, so a
    tool call that only asks whether indexing is under way costs no query."""

    def __init__(self, index: OpenIndex):
        writing = index.writing
        catchup = writing.catchup if writing is not None else None
        self._index = index
        self._rate = catchup.rate if catchup is not None else None
        self.writer = writing is not None  # this process writes the index and follows the folders
        self.written_elsewhere = index.written_elsewhere  # another process holds the writer's lock
        self.progress: Progress | None = writing.progress if writing is not None else None  # a reconcile under way
        self.paused: CannotWrite | None = index.pause.failure  # why indexing is paused (a full disk), if it is
        self.embedding = catchup is not None and catchup.busy  # the vector lane is at work
        self.embedded = catchup.embedded if catchup is not None else 0  # paragraphs embedded since writing began
        self.passages = catchup.passages if catchup is not None else 0  # the passages (one vector each) for them

    @functools.cached_property
    def writer_pid(self) -> str:
        """The process that writes the index, as it wrote itself down."""
        return self._index.writer_pid()

    @functools.cached_property
    def vectors_left(self) -> CatchUpState | None:
        """What semantic search has yet to cover, and the lane's recent rate; None when it covers all."""
        waiting = self._index.store.awaiting_vectors()
        if not waiting:
            return None
        return CatchUpState(len(waiting), sum(d.n_paras for d in waiting), self._rate)

    @functools.cached_property
    def rebuilt(self) -> list[Rebuilt]:
        """Files of the index rebuilt lately, as the map tells them."""
        return self._index.repairs.rebuilt(self._index.store)

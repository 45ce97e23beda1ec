"""File events from watchdog, reduced to "these paths may have changed".

The watcher does no filtering beyond the cheap and obvious (hidden paths,
the data dir): deciding what a path means (new, edited, moved, deleted, a
whole folder) is `Reconciler.sync_paths`, which looks at the disk and the index.
That makes every kind of event (an editor's atomic save is created-tmp,
modified-tmp, moved-tmp→file; `git checkout` is hundreds of events; a polling
observer reports a save as delete + create) come out right the same way.

Facts (docs/libraries.md): watchdog 7 keyword-only `schedule(handler, path,
recursive=True)`; a renamed folder emits a move for it and every child;
inotify limits surface as `OSError(ENOSPC|EMFILE)` for a root, in which case
we fall back to polling rather than stop. Below a root watchdog swallows the
same error and leaves the folder unwatched, so a tree with more folders than
the watch limit is polled from the start.
"""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingObserver

log = logging.getLogger(__name__)

_IGNORED_EVENTS = {"opened", "closed_no_write"}


class _Handler(FileSystemEventHandler):
    def __init__(self, on_paths: Callable[[list[Path]], None], excluded: list[Path]):
        self._on_paths = on_paths
        self._excluded = excluded

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in _IGNORED_EVENTS:
            return
        paths = [Path(_text(event.src_path))]
        if event.event_type == "moved" and event.dest_path:
            paths.append(Path(_text(event.dest_path)))
        paths = [p for p in paths if not any(p == e or e in p.parents for e in self._excluded)]
        if paths:
            self._on_paths(paths)


def _text(path: str | bytes) -> str:
    return path.decode("utf-8", "surrogateescape") if isinstance(path, bytes) else path


class FolderWatcher:
    """Watch folders recursively; call `on_paths` (from watchdog's thread) with touched paths."""

    def __init__(
        self,
        roots: list[Path],
        on_paths: Callable[[list[Path]], None],
        poll: bool = False,
        poll_interval: float = 2.0,
        excluded: list[Path] | None = None,
    ):
        self.roots = roots
        self.poll = poll
        self._poll_interval = poll_interval
        self._handler = _Handler(on_paths, [e.resolve() for e in excluded or []])
        self._observer: BaseObserver | None = None

    def start(self) -> None:
        if not self.poll and (limit := _watch_limit()) is not None and _more_folders_than(self.roots, limit):
            log.warning(
                "the folders hold more sub-folders than the inotify watch limit (%d); polling every %g s instead",
                limit,
                self._poll_interval,
            )
            self.poll = True
        try:
            self._observer = self._start(PollingObserver(timeout=self._poll_interval) if self.poll else Observer())
        except OSError as exc:
            if self.poll or exc.errno not in (errno.ENOSPC, errno.EMFILE):
                raise
            log.warning(
                "native file events unavailable (%s: inotify limit reached); polling every %g s instead",
                exc.strerror,
                self._poll_interval,
            )
            self.poll = True
            self._observer = self._start(PollingObserver(timeout=self._poll_interval))

    def _start(self, observer: BaseObserver) -> BaseObserver:
        try:
            for root in self.roots:
                observer.schedule(self._handler, str(root), recursive=True)
            observer.start()
        except BaseException:  # roots scheduled before the failure must not keep their watches
            observer.unschedule_all()
            observer.stop()
            raise
        return observer

    def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=10)
            self._observer = None


def _watch_limit() -> int | None:
    """The inotify watches a user may hold here (the lower of the system's and this user
    namespace's limits); None where there is no such limit (not Linux)."""
    found = []
    for name in ("/proc/sys/fs/inotify/max_user_watches", "/proc/sys/user/max_inotify_watches"):
        try:
            found.append(int(Path(name).read_text()))
        except (OSError, ValueError):
            continue
    return min(found) if found else None


def _more_folders_than(roots: list[Path], limit: int) -> bool:
    """Whether the trees hold more than `limit` folders (inotify watches one per folder); the
    walk stops as soon as they do."""
    count = 0
    for root in roots:
        for _ in os.walk(root):
            count += 1
            if count > limit:
                return True
    return False

"""The writer's lock: one process writes an index, the others read it.

The lock is a file lock (`index.lock`) the kernel frees when its process exits, even by kill -9,
so a reader can take over writing from a writer that died. The writer writes its pid beside it
(`owner.pid`), which readers name when they say who keeps the index up to date.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from filelock import FileLock, Timeout

log = logging.getLogger(__name__)

LOCK_FILE, OWNER_FILE = "index.lock", "owner.pid"


def take_lock(data_dir: Path) -> FileLock | None:
    """The writer's lock of this index, or None when another process holds it."""
    lock = FileLock(str(data_dir / LOCK_FILE))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return None
    try:
        (data_dir / OWNER_FILE).write_text(str(os.getpid()))
    except OSError:  # a full disk: the index is still ours to write once there is space
        log.debug("could not write %s in %s", OWNER_FILE, data_dir)
    return lock


def writer_pid(data_dir: Path) -> str:
    """The process that writes this index, as it wrote itself down."""
    owner = data_dir / OWNER_FILE
    try:
        return owner.read_text().strip() or "unknown"
    except OSError:
        return "unknown"

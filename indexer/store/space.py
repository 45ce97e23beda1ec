"""When the index cannot be written: a full disk, a quota, a read-only or forbidden data dir.

Nothing is lost when a write fails: each commit is one transaction, so the index stays as the
last one left it, readable. What the person needs is one line: what could not be written,
where, and how much space is free there (`CannotWrite`), and then for writing to resume by
itself once it can (`writable`).

The same failure reaches us in several forms: SQLite says SQLITE_FULL for a full disk,
SQLITE_IOERR_WRITE for a quota or a file size limit (EDQUOT, EFBIG), SQLITE_READONLY or
SQLITE_CANTOPEN for a folder it may not write; Chroma passes SQLite's code in its message;
Python's own writes raise OSError with the errno. `write_failure` reads any of them, anywhere
in an exception's chain.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import shutil
import sqlite3
from pathlib import Path

from indexer.errors import CannotWrite

log = logging.getLogger(__name__)

PROBE_BYTES = 4 * 1024 * 1024  # writing resumes once this much can be written beside the index

_ERRNO_KINDS = {
    errno.ENOSPC: "full",
    errno.EDQUOT: "quota",
    errno.EFBIG: "quota",  # a file size limit (ulimit -f)
    errno.EROFS: "read-only",
    errno.EACCES: "denied",
    errno.EPERM: "denied",
}
_SQLITE_KINDS = {"SQLITE_FULL": "full", "SQLITE_READONLY": "read-only", "SQLITE_READONLY_DIRECTORY": "read-only"}
_SQLITE_MAYBE = ("SQLITE_CANTOPEN", "SQLITE_IOERR", "SQLITE_READONLY_CANTINIT", "SQLITE_READONLY_CANTLOCK")
# Chroma (Rust) says "error returned from database: (code: 13) database or disk is full".
_CHROMA_CODES = {13: "full", 8: "read-only", 14: None, 10: None}
_OS_TEXTS = {
    "No space left on device": "full",
    "Disk quota exceeded": "quota",
    "Read-only file system": "read-only",
}
_WHY = {
    "full": "the disk is full",
    "quota": "the disk quota (or file size limit) is used up",
    "read-only": "the folder is read-only",
    "denied": "permission denied",
    "io": "a write failed (disk I/O error)",
}
_REMEDY = {
    "full": "free some space",
    "quota": "free some space or raise the quota",
    "read-only": "make the folder writable",
    "denied": "make the folder writable",
    "io": "check the disk",
}


class Pause:
    """Indexing paused by a failure to write; reading goes on, and writing resumes once a probe
    write beside the index succeeds (`writable`)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.failure: CannotWrite | None = None

    def failed(self, failure: CannotWrite) -> None:
        if self.failure is None:
            log.warning("indexing paused: %s; it resumes once you %s", failure.fact, failure.remedy)
        self.failure = failure

    def over(self) -> bool:
        """Paused, and writing works again: resume (True)."""
        if self.failure is None or not writable(self.folder):
            return False
        log.info("writing works again in %s: indexing resumes", self.folder)
        self.failure = None
        return True

    def check(self) -> None:
        """Raise the failure that paused indexing, if any (a one-shot command ends with it)."""
        if self.failure is not None:
            raise self.failure


def write_failure(exc: BaseException, where: Path | None = None) -> CannotWrite | None:
    """The failure to write that `exc` (or an exception it was raised from) is, said in one
    line; None when it is something else. `where`: the file being written, when the error
    does not name it (SQLite's and Chroma's do not)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, CannotWrite):
            return current
        found = _kind(current, where)
        if found is not None:
            kind, path = found
            return cannot_write(kind, path)
        current = current.__cause__ or current.__context__
    return None


def _kind(exc: BaseException, where: Path | None) -> tuple[str, Path] | None:
    if isinstance(exc, OSError) and exc.errno in _ERRNO_KINDS:
        path = Path(os.fsdecode(exc.filename)) if exc.filename else where
        if path is None:
            return None
        if exc.errno in (errno.EACCES, errno.EPERM) and not _within(path, where):  # a file read, not the index
            return None
        return _ERRNO_KINDS[exc.errno], path
    if where is None:
        return None
    if isinstance(exc, sqlite3.Error):
        name = getattr(exc, "sqlite_errorname", "") or ""
        if name in _SQLITE_KINDS:
            return _SQLITE_KINDS[name], where
        if name.startswith(_SQLITE_MAYBE) or "disk is full" in str(exc):
            return _from_facts(where, "full" if "disk is full" in str(exc) else None)
        return None
    text = str(exc)
    for phrase, kind in _OS_TEXTS.items():
        if phrase in text:
            return kind, where
    if type(exc).__module__.startswith("chromadb") and (code := re.search(r"\(code: (\d+)\)", text)):
        number = int(code.group(1))
        if number in _CHROMA_CODES:
            return _from_facts(where, _CHROMA_CODES[number])
    return None


def _from_facts(where: Path, said: str | None) -> tuple[str, Path] | None:
    """An error that may be a failure to write (SQLite's "unable to open database file", "disk
    I/O error"): decided by the folder, writable or not, and the space left on its disk."""
    if said is not None:
        return said, where
    folder = _existing(where if where.is_dir() else where.parent)
    if not os.access(folder, os.W_OK):
        return "read-only", where
    free = free_bytes(folder)
    if free is not None and free < PROBE_BYTES:
        return "full", where
    return "io", where


def cannot_write(kind: str, path: Path) -> CannotWrite:
    free = free_bytes(path)
    space = f", {format_size(free)} free there" if free is not None else ""
    fact = f"cannot write {describe(path)} ({path}): {_WHY[kind]}{space}"
    return CannotWrite(fact, _REMEDY[kind], str(path), free, kind)


def describe(path: Path) -> str:
    """What a file of the data dir is, in the words of the one-line message."""
    names = {
        "index.sqlite3": "the index",
        "vectors.sqlite3": "the vectors' copy",
        "chroma": "the vector store",
        "chroma.sqlite3": "the vector store",
        "parse-cache": "the parse cache",
        "deepread.log": "the log",
        "tmp": "the parser's work folder",
    }
    for part in (path.name, *(p.name for p in path.parents)):
        for name, what in names.items():
            if part == name or part.startswith(name + "-"):
                return what
    return "the index"


def free_bytes(path: Path) -> int | None:
    """Bytes free to this user on the disk that holds `path` (the nearest folder that exists)."""
    try:
        return shutil.disk_usage(_existing(path)).free
    except OSError:
        return None


def writable(folder: Path, size: int = PROBE_BYTES) -> bool:
    """Whether `size` bytes can be written in `folder` now (a file written and removed): the
    test for resuming after a failure to write, whatever its kind."""
    probe = folder / ".space-probe"
    try:
        with open(probe, "wb") as f:
            block = b"\0" * 65536
            for _ in range(size // len(block)):
                f.write(block)
            f.flush()
            os.fsync(f.fileno())
        return True
    except OSError:
        return False
    finally:
        with contextlib.suppress(OSError):
            probe.unlink()


def format_size(n: int) -> str:
    size, unit = float(n), "bytes"
    for larger in ("KB", "MB", "GB", "TB"):
        if size < 1024:
            break
        size, unit = size / 1024, larger
    return f"{n} bytes" if unit == "bytes" else f"{size:.1f} {unit}" if size < 10 else f"{size:.0f} {unit}"


def _within(path: Path, where: Path | None) -> bool:
    if where is None:
        return False
    folder = where if where.is_dir() else where.parent
    return path == folder or folder in path.parents


def _existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path

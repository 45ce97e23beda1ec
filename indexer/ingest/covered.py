"""The folders an index covers: which they are, and how many of their files changed since.

The writer records the folders in the store (`FOLDERS_META`) each time it opens the index;
`index_folders` reads them back without opening the index, so the command line can list the
indexes a user has and tell a folder never indexed from one that is. `changed_files` compares a
walk of the folders with what the store holds, by size and time (nothing is read): a process
that opened an index to answer asks it before taking over writing.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from indexer.ingest.files import Folders
from indexer.store.database import Store
from indexer.store.rows import COPY

FOLDERS_META = "folders"  # the folders an index covers, as its writer last opened it


def index_folders(data_dir: Path) -> list[Path] | None:
    """The folders the index in `data_dir` covers (None: no index there), read without opening
    it: listing the indexes must neither wait for nor upgrade a schema. An index written before
    the folders were recorded names those of its documents."""
    path = data_dir / "index.sqlite3"
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=5)
        try:
            row = db.execute("SELECT value FROM meta WHERE key = ?", (FOLDERS_META,)).fetchone()
            if row is not None:
                return [Path(p) for p in json.loads(row[0])]
            return [Path(r) for (r,) in db.execute("SELECT DISTINCT root FROM documents ORDER BY root")]
        finally:
            db.close()
    except (sqlite3.Error, ValueError):  # not an index (yet): being created, or another file
        return None


def changed_files(folders: Folders, store: Store) -> int:
    """How many files differ from what the index holds: new, gone, changed in size or time, or
    left unfinished by a writer that stopped (a copy of a document is settled, as a document is)."""
    files = folders.scan()
    known = {(d.root, d.relpath): d for d in store.documents()}
    changed = len(files.keys() ^ known.keys())
    for key, path in files.items():
        doc = known.get(key)
        if doc is None:
            continue
        try:
            stat = path.stat()
        except OSError:
            changed += 1
            continue
        if doc.status not in ("ready", "failed", COPY) or (doc.size, doc.mtime_ns) != (stat.st_size, stat.st_mtime_ns):
            changed += 1
    return changed

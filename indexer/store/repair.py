"""A damaged file of the index is set aside and rebuilt, and the map says so.

Everything in the data dir is made from the folder and the parse cache, so damage never stops
the server (`indexer.store.health` tells damage; `Store`, `VectorIndex` and `VectorCopy`
report it wherever a statement meets it). Only the process that writes the index rebuilds:

- `index.sqlite3` (documents, sections, paragraphs, BM25): set aside, and a new one made with
  what the old one still gives: each document under its doc_id and version (so the ids a host
  holds stay true), failed files as they were, the meta (model, structure); every other file is
  indexed again by the next reconcile, its parse from the cache. New ids start above any old one.
- `vectors.sqlite3` (the vectors' copy): set aside; what it still gives is kept, the rest
  embedded again in the background. Chroma answers meanwhile.
- `chroma/`: set aside; the catch-up lane gives Chroma back every vector from the copy, without
  embedding. The copy answers every query meanwhile.

A process that finds damage it may not repair (a reader, or the writer's query) writes it down
(`damage-reported.json` in the data dir, with the inode of the file it saw, so a report on a
file already replaced is dropped); the writer's background thread checks for that file every
few seconds, and every start reads it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from indexer.errors import IndexDamaged
from indexer.store.database import SCHEMA_WAIT_S, Store
from indexer.store.health import CHECK_BUDGET_S, check, readable_number, readable_rows, set_aside
from indexer.store.vectors import VectorIndex

log = logging.getLogger(__name__)

REPORTS = "damage-reported.json"
INDEX_FILE, COPY_FILE, CHROMA_DIR = "index.sqlite3", "vectors.sqlite3", "chroma"
NOTE_S = 24 * 3600  # the map tells of a rebuild for a day: long enough for a host's session
NOTES_KEPT = 3


@dataclass
class Rebuilt:
    """One rebuild, as the map tells it (kept in the store's meta, so readers tell it too)."""

    at: float
    name: str  # index.sqlite3, vectors.sqlite3 or chroma
    reason: str
    aside: str | None  # where the damaged file went
    ids: str = "kept"  # for index.sqlite3: "kept", "some changed" or "changed"

    def note(self) -> str:
        when = time.strftime("%H:%M UTC", time.gmtime(self.at))
        kept = f" and is kept as {self.aside}" if self.aside else ""
        said = f"{self.name} was damaged ({self.reason[:80]}){kept}"
        if self.name != INDEX_FILE:
            return f"Semantic search was rebuilt at {when}: {said}; reading and keyword search were not affected."
        ids = {
            "kept": "doc_ids are as before",
            "some changed": "doc_ids are as before for the documents it still named; the others have new ones",
            "changed": "doc_ids changed: take them from this map",
        }[self.ids]
        return f"The index was rebuilt at {when}: {said}; {ids}."


class Repairs:
    """What this process found damaged, what others reported, and the notes of rebuilds."""

    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        self._lock = threading.Lock()
        self._found: dict[str, tuple[str, int | None]] = {}  # name → (reason, inode of the file seen)
        self.on_found = lambda: None  # the writer's background thread: wake and repair

    def found(self, damaged: IndexDamaged) -> None:
        """A statement met damage (any thread): kept for the writer, in this process and on disk."""
        inode = _inode(self.data_dir / damaged.name)
        with self._lock:
            if self._found.get(damaged.name, (None, None))[1] == inode:  # told already, of this very file
                return
            self._found[damaged.name] = (damaged.reason, inode)
            reports = self._read()
            reports[damaged.name] = {"reason": damaged.reason, "inode": inode, "at": time.time()}
            with contextlib.suppress(OSError):  # a full disk: this process still repairs what it found
                tmp = self.data_dir / f"{REPORTS}.{os.getpid()}"
                tmp.write_text(json.dumps(reports))
                tmp.replace(self.data_dir / REPORTS)
        log.warning("%s in %s is damaged: %s", damaged.name, self.data_dir, damaged.reason)
        self.on_found()

    def due(self) -> dict[str, str]:
        """The files to rebuild: found here or reported by another process, and still the file
        that was seen damaged (`name` → reason)."""
        with self._lock:
            seen = dict(self._found)
            for name, report in self._read().items():
                seen.setdefault(name, (str(report.get("reason", "")), report.get("inode")))
        return {name: reason for name, (reason, inode) in seen.items() if inode == _inode(self.data_dir / name)}

    def reported(self, name: str) -> bool:
        return name in self.due()

    def done(self, name: str) -> None:
        """This file was rebuilt (or found sound): no report of it stands."""
        with self._lock:
            self._found.pop(name, None)
            reports = self._read()
            if reports.pop(name, None) is not None:
                with contextlib.suppress(OSError):
                    if reports:
                        (self.data_dir / REPORTS).write_text(json.dumps(reports))
                    else:
                        (self.data_dir / REPORTS).unlink()

    def _read(self) -> dict[str, dict]:
        try:
            reports = json.loads((self.data_dir / REPORTS).read_text())
        except (OSError, ValueError):
            return {}
        return reports if isinstance(reports, dict) else {}

    # --- index.sqlite3 -----------------------------------------------------------------

    def open_store(self, path: Path, writer: bool) -> tuple[Store, bool]:
        """The store, checked first by the writer (`indexer.store.health`): a damaged one is set
        aside and made again (True: it was). A reader that finds it damaged reports it and waits
        for the writer to make it again."""
        if writer:
            budget = None if self.reported(INDEX_FILE) else CHECK_BUDGET_S
            if (reason := check(path, budget)) is not None:
                return self.new_store(path, reason), True
        deadline = time.monotonic() + SCHEMA_WAIT_S
        while True:
            try:
                return Store(path, writer=writer, on_damage=self.found), False
            except IndexDamaged as damaged:
                if writer:
                    return self.new_store(path, damaged.reason), True
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)  # reported: the writer sets it aside and makes a new one

    def new_store(self, path: Path, reason: str) -> Store:
        """At open: set the damaged file aside and make a new one with what it still gives."""
        aside = set_aside(path)
        store = Store(path, writer=True, on_damage=self.found)
        self.restore(store, aside, reason)
        return store

    def restore(self, store: Store, aside: Path, reason: str) -> None:
        """Into a new, empty store: the documents and meta the set-aside file still gives."""
        docs, whole = readable_rows(aside, "SELECT * FROM documents", "doc_id")
        meta, _ = readable_rows(aside, "SELECT key, value FROM meta", "key")
        seq = readable_number(aside, "SELECT seq FROM sqlite_sequence WHERE name = 'documents'")
        copied = readable_number(self.data_dir / COPY_FILE, "SELECT max(doc_id) FROM vectors")
        floor = max([seq or 0, copied or 0, *(int(d["doc_id"]) for d in docs)])
        kept = {r["key"]: r["value"] for r in meta}
        _restore(store, [dict(d) for d in docs], kept, floor)
        ids = "kept" if docs and whole else "some changed" if docs else "changed" if floor else "kept"
        self.note(store, Rebuilt(time.time(), INDEX_FILE, reason, aside.name, ids))
        log.warning(
            "%s was damaged (%s): set aside as %s; %d document(s) kept their doc_ids, the folder is indexed again "
            "from the parse cache",
            INDEX_FILE,
            reason,
            aside.name,
            len(docs),
        )
        self.done(INDEX_FILE)

    def repair_index(self, store: Store, reason: str) -> None:
        """While serving: the store's file set aside and made again in place (every holder of the
        store goes on with the new file); the caller reconciles."""
        aside = store.replace_file()
        self.restore(store, aside, reason)

    @staticmethod
    def drop_orphans(store: Store, vectors: VectorIndex) -> None:
        """After the index was made again: the vectors of documents it no longer has."""
        known = {d.doc_id for d in store.documents()}
        for doc_id in sorted(vectors.doc_ids() - known):
            vectors.delete_document(doc_id)

    # --- the vectors -------------------------------------------------------------------

    def check_vectors(self, chroma: bool) -> None:
        """At open: the vectors' copy checked as the index is; Chroma's SQLite file by its header
        (whole when it is cut short or was reported), the rest by Chroma's own open and a first
        search (`VectorIndex`), which read what a quick_check would, and cost nothing extra."""
        files = [(COPY_FILE, self.data_dir / COPY_FILE, CHECK_BUDGET_S)]
        if chroma:
            files.append((CHROMA_DIR, self.data_dir / CHROMA_DIR / "chroma.sqlite3", 0.0))
        for name, path, budget in files:
            if (reason := check(path, None if self.reported(name) else budget)) is not None:
                self.found(IndexDamaged(f"{name} is damaged ({reason})", name, reason))

    def repair_vectors(self, store: Store, vectors: VectorIndex) -> bool:
        """Rebuild the vector stores found damaged; True when one was. Every document then waits
        for its vectors, and the catch-up lane gives back what it can without embedding."""
        due = self.due()
        rebuilt = []
        if CHROMA_DIR in due:
            aside = vectors.replace_chroma()
            rebuilt.append(Rebuilt(time.time(), CHROMA_DIR, due[CHROMA_DIR], aside.name if aside else None))
        if COPY_FILE in due:
            aside, kept = vectors.replace_copy()
            rebuilt.append(Rebuilt(time.time(), COPY_FILE, due[COPY_FILE], aside.name if aside else None))
            log.info("kept %d vectors of the damaged copy; the others are embedded again", kept)
        for r in rebuilt:
            self.note(store, r)
            self.done(r.name)
            log.warning(
                "%s was damaged (%s): set aside as %s; semantic search is rebuilt in the background",
                r.name,
                r.reason,
                r.aside,
            )
        if rebuilt:
            store.forget_vectors()
        return bool(rebuilt)

    # --- notes -------------------------------------------------------------------------

    def note(self, store: Store, rebuilt: Rebuilt) -> None:
        notes = [*self.rebuilt(store, within=None), rebuilt][-NOTES_KEPT:]
        with contextlib.suppress(Exception):  # a full disk: the log says it all the same
            store.set_meta("rebuilt", json.dumps([asdict(n) for n in notes]))

    @staticmethod
    def rebuilt(store: Store, within: float | None = NOTE_S) -> list[Rebuilt]:
        """The rebuilds of the last `within` seconds (None: all kept)."""
        try:
            notes = [Rebuilt(**n) for n in json.loads(store.get_meta("rebuilt") or "[]")]
        except (ValueError, TypeError):
            return []
        return [n for n in notes if within is None or time.time() - n.at < within]


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _restore(store: Store, documents: list[dict[str, Any]], meta: dict[str, str], floor: int) -> None:
    """What a set-aside file still gives, into a new store: each document under its doc_id and
    version, a failed one as it was (its file is not parsed again unless it changes), the others
    pending, to be indexed again from the parse cache; the meta (model, structure); new doc_ids
    start above `floor`, so none a host holds is given to another file."""
    with store.transaction() as db:
        for key, value in meta.items():
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
        for d in documents:
            failed = d.get("status") == "failed"
            facts = (d.get("size"), d.get("mtime_ns"), d.get("content_hash")) if failed else (None, None, None)
            db.execute(
                "INSERT INTO documents (doc_id, root, relpath, status, reason, version, transient, retries,"
                " size, mtime_ns, content_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    d["doc_id"],
                    d["root"],
                    d["relpath"],
                    "failed" if failed else "pending",
                    d.get("reason") if failed else None,
                    d.get("version") or 0,
                    d.get("transient", 0) if failed else 0,
                    d.get("retries", 0) if failed else 0,
                    *facts,
                ),
            )
        db.execute("DELETE FROM sqlite_sequence WHERE name = 'documents'")
        db.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('documents', ?)", (floor,))

"""The vectors a second time, by document, in a SQLite file beside the index (`vectors.sqlite3`).

`VectorIndex` (`indexer.store.vectors`) keeps it beside Chroma: a scoped query scans it exactly,
which is faster than Chroma's filtered search, and it holds each passage's paragraph vectors
(`members`), which only order a found passage's paragraphs. A vector is added to the copy
before Chroma, so a damaged Chroma store is restored from the copy without embedding again;
a damaged copy is set aside and what it still gives is kept (`salvage`), the rest embedded
again. A process that reads an index another one writes searches the copy alone
(`CopyVectors`): Chroma's embedded store is not process-safe, SQLite in WAL mode is.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path

import numpy as np

from indexer.errors import DeepreadError, IndexDamaged
from indexer.store.connection import atomic, connect, marks
from indexer.store.health import readable_rows

log = logging.getLogger(__name__)

OnDamage = Callable[[IndexDamaged], None]
IN_BATCH = 1000  # ids looked up in one statement


class VectorCopy:
    """One SQLite file of float32 rows (8 KiB pages hold five, so a folder's rows are read in a
    few pages each). `mirrors`: it holds every vector of the collection (made with it, or since
    it was empty); otherwise the documents it holds in full are listed in `filled`."""

    def __init__(self, path: Path, mirrors: bool, on_damage: OnDamage | None = None):
        self.path = path
        self._db = connect(path, on_damage or (lambda damaged: None))
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA page_size = 8192")  # before the first table: a 1.5 KB row stays in its page
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self.inode = os.stat(path).st_ino
            new = not self._db.execute("SELECT 1 FROM sqlite_master WHERE name = 'vectors'").fetchone()
            self._db.executescript(
                """
                CREATE TABLE IF NOT EXISTS vectors
                    (doc_id INTEGER NOT NULL, id TEXT NOT NULL UNIQUE, vector BLOB NOT NULL);
                CREATE INDEX IF NOT EXISTS vectors_doc ON vectors (doc_id);
                CREATE TABLE IF NOT EXISTS filled (doc_id INTEGER PRIMARY KEY);
                CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
                CREATE TABLE IF NOT EXISTS members
                    (doc_id INTEGER NOT NULL, id TEXT PRIMARY KEY, vectors BLOB NOT NULL);
                CREATE INDEX IF NOT EXISTS members_doc ON members (doc_id);
                """
            )
            if new:
                self._db.execute("INSERT OR REPLACE INTO meta VALUES ('mirrors', ?)", (str(int(mirrors)),))
            self._mirrors = self._meta("mirrors") == "1"

    @property
    def mirrors(self) -> bool:
        return self._mirrors

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def reset(self) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM vectors")
            db.execute("DELETE FROM members")
            db.execute("DELETE FROM filled")
            db.execute("INSERT OR REPLACE INTO meta VALUES ('mirrors', '1')")
            self._mirrors = True

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def flag(self, key: str) -> bool:
        with self._lock:
            return self._meta(key) == "1"

    def set_flag(self, key: str, on: bool) -> None:
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, str(int(on))))

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write; one that fails (a full disk) leaves no transaction open."""
        with self._lock, atomic(self._db) as db:
            yield db

    def add(
        self,
        ids: Sequence[str],
        doc_ids: Sequence[int],
        embeddings: np.ndarray,
        members: Sequence[np.ndarray | None] | None = None,
    ) -> None:
        rows = [
            (d, i, np.asarray(v, dtype=np.float32).tobytes()) for i, d, v in zip(ids, doc_ids, embeddings, strict=True)
        ]
        # A passage's paragraph vectors as one float16 matrix: they only order its paragraphs.
        held = [
            (d, i, np.asarray(m, dtype=np.float16).tobytes())
            for i, d, m in zip(ids, doc_ids, [None] * len(ids) if members is None else members, strict=True)
            if m is not None
        ]
        with self._transaction() as db:
            db.executemany("INSERT OR REPLACE INTO vectors (doc_id, id, vector) VALUES (?, ?, ?)", rows)
            db.executemany("INSERT OR REPLACE INTO members (doc_id, id, vectors) VALUES (?, ?, ?)", held)

    def members(self, ids: list[str], dim: int) -> dict[str, np.ndarray]:
        """Paragraph vectors by passage; none where the copy cannot say (a copy made before them,
        read by a process that may not add the table), which leaves BM25 to order the passages."""
        if not ids:
            return {}
        try:
            with self._lock:
                rows = self._db.execute(f"SELECT id, vectors FROM members WHERE id IN ({marks(ids)})", ids).fetchall()
        except sqlite3.OperationalError:
            return {}
        return {
            r[0]: np.frombuffer(r[1], dtype=np.float16).astype(np.float32).reshape(-1, dim)
            for r in rows
            if dim and len(r[1]) % (2 * dim) == 0
        }

    def fill(self, doc_ids: list[int], ids: list[str], owners: list[int], vectors: np.ndarray) -> None:
        """These documents' vectors in full (`owners[i]`: the document of `ids[i]`)."""
        with self._transaction() as db:
            db.execute(f"DELETE FROM vectors WHERE doc_id IN ({marks(doc_ids)})", doc_ids)
            db.executemany(
                "INSERT OR REPLACE INTO vectors (doc_id, id, vector) VALUES (?, ?, ?)",
                [(d, i, v.tobytes()) for d, i, v in zip(owners, ids, vectors, strict=True)],
            )
            db.executemany("INSERT OR REPLACE INTO filled VALUES (?)", [(d,) for d in doc_ids])

    def delete(self, ids: list[str]) -> None:
        with self._transaction() as db:
            db.executemany("DELETE FROM vectors WHERE id = ?", [(i,) for i in ids])
            db.executemany("DELETE FROM members WHERE id = ?", [(i,) for i in ids])

    def delete_document(self, doc_id: int) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM vectors WHERE doc_id = ?", (doc_id,))
            db.execute("DELETE FROM members WHERE doc_id = ?", (doc_id,))
            db.execute("DELETE FROM filled WHERE doc_id = ?", (doc_id,))

    def unfilled(self, doc_ids: list[int]) -> list[int]:
        """Those of these documents whose vectors the copy may not hold in full."""
        if self._mirrors:
            return []
        with self._lock:
            filled = {
                r[0] for r in self._db.execute(f"SELECT doc_id FROM filled WHERE doc_id IN ({marks(doc_ids)})", doc_ids)
            }
        return [d for d in doc_ids if d not in filled]

    def ids(self, doc_id: int) -> set[str]:
        with self._lock:
            return {r[0] for r in self._db.execute("SELECT id FROM vectors WHERE doc_id = ?", (doc_id,))}

    def vectors(self, ids: list[str]) -> tuple[list[str], list[int], np.ndarray]:
        """Those of these vectors the copy holds: their ids, documents and rows."""
        rows = []
        with self._lock:
            for start in range(0, len(ids), IN_BATCH):  # SQLite binds at most 32,766 values at once
                batch = ids[start : start + IN_BATCH]
                rows += self._db.execute(
                    f"SELECT id, doc_id, vector FROM vectors WHERE id IN ({marks(batch)})", batch
                ).fetchall()
        if not rows:
            return [], [], np.zeros((0, 0), dtype=np.float32)
        matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        return [r[0] for r in rows], [r[1] for r in rows], matrix

    def doc_ids(self) -> set[int]:
        with self._lock:
            return {r[0] for r in self._db.execute("SELECT DISTINCT doc_id FROM vectors")}

    def read(self, doc_ids: list[int] | None, limit: int | None) -> tuple[list[str], np.ndarray | None]:
        """These documents' (None: every document's) vector ids and vectors; (ids, None) past `limit` vectors."""
        where, params = (f" WHERE doc_id IN ({marks(doc_ids)})", doc_ids) if doc_ids is not None else ("", [])
        with self._lock:
            if limit is not None:
                n = self._db.execute(f"SELECT count(*) FROM vectors{where}", params).fetchone()[0]
                if n > limit:
                    return [], None
            rows = self._db.execute(f"SELECT id, vector FROM vectors{where}", params).fetchall()
        if not rows:
            return [], np.zeros((0, 0), dtype=np.float32)
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        return [r[0] for r in rows], matrix

    def salvage(self, aside: Path) -> int:
        """What a set-aside (damaged) copy still gives, into this new one: each vector whose
        paragraph vectors are readable too (when it had any), so a passage is either whole or
        embedded again. Returns the vectors kept."""
        held, _ = readable_rows(aside, "SELECT rowid, doc_id, id, vectors FROM members", "rowid")
        members = {r["id"]: r for r in held}
        found, _ = readable_rows(aside, "SELECT rowid, doc_id, id, vector FROM vectors", "rowid")
        kept = [r for r in found if not members or r["id"] in members]
        with self._transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO vectors (doc_id, id, vector) VALUES (?, ?, ?)",
                [(r["doc_id"], r["id"], r["vector"]) for r in kept],
            )
            db.executemany(
                "INSERT OR REPLACE INTO members (doc_id, id, vectors) VALUES (?, ?, ?)",
                [
                    (members[r["id"]]["doc_id"], r["id"], members[r["id"]]["vectors"])
                    for r in kept
                    if r["id"] in members
                ],
            )
        return len(kept)


class CopyVectors:
    """The vectors' copy alone, for a process that reads an index another process writes
    (`indexer.service.vectors`): the writer adds a vector to the copy before Chroma. Every query is an
    exact scan of the copy, the whole collection's too (slower than Chroma's index past some
    100,000 vectors). A copy the writer replaced (set aside as damaged) is followed at the next
    query; a damaged one answers nothing (keyword search still does) and is reported."""

    def __init__(self, copy: Path, on_damage: OnDamage | None = None):
        self._path = copy
        self._copy: VectorCopy | None = None
        self._on_damage = on_damage
        self._warned = False

    def query(self, embedding: np.ndarray, n: int, doc_ids: list[int] | None) -> list[tuple[str, float]]:
        if n <= 0 or (copy := self._opened()) is None:
            return []
        try:
            ids, matrix = copy.read(doc_ids, None)
        except IndexDamaged:
            return []
        return nearest(ids, matrix, embedding, n) if matrix is not None else []

    def member_vectors(self, ids: list[str], dim: int) -> dict[str, np.ndarray]:
        if (copy := self._opened()) is None:
            return {}
        try:
            return copy.members(ids, dim)
        except IndexDamaged:
            return {}

    def _opened(self) -> VectorCopy | None:
        """Open the copy once the writer has made it: a reader never creates it, which would
        decide for the writer whether the copy mirrors Chroma."""
        if self._copy is not None:
            with contextlib.suppress(FileNotFoundError):
                if os.stat(self._path).st_ino != self._copy.inode:  # the writer set it aside: the new one
                    self._copy.close()
                    self._copy = None
        if self._copy is None and self._path.exists():
            try:
                with closing(sqlite3.connect(self._path)) as probe:
                    made = probe.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone()
                if made:
                    self._copy = VectorCopy(self._path, mirrors=False, on_damage=self._on_damage)
            except (sqlite3.Error, DeepreadError) as exc:  # reported (damage); searched again once replaced
                if not self._warned:
                    log.warning("the vectors' copy %s cannot be read: %s", self._path, exc)
                    self._warned = True
                return None
        return self._copy

    def close(self) -> None:
        if self._copy is not None:
            self._copy.close()


def nearest(ids: list[str], matrix: np.ndarray, embedding: np.ndarray, n: int) -> list[tuple[str, float]]:
    """The `n` rows of `matrix` nearest `embedding` by cosine (as Chroma's space), best first."""
    if not ids:
        return []
    query = np.asarray(embedding, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1) * max(float(np.linalg.norm(query)), 1e-12)
    scores = matrix @ query / np.maximum(norms, 1e-12)
    best = np.argsort(-scores)[:n] if len(ids) <= 4 * n else np.argpartition(-scores, n)[:n]
    best = best[np.argsort(-scores[best])]
    return [(ids[i], float(scores[i])) for i in best]

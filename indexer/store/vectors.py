"""Paragraph vectors in Chroma.

Chroma is used as a content-addressed vector cache per document: a vector's
id is `"{doc_id}:{sha1 of the embedded text and its paragraphs' spans}"`, so an edit re-embeds only the
paragraphs whose text changed, and the SQLite store (which says which
vec_ids are current) decides what a query may return. Embeddings are always
passed in, never computed by Chroma, so a reopened collection never reaches
for Chroma's default (downloading) embedding function.

Facts that shaped this (LIBRARIES.md): `upsert` of existing ids is very slow
(delete + add instead), `add` of an existing id is silently ignored, and the
embedded client is not process-safe (one writer per data dir). Within the
process two threads write (the indexer deletes, the catch-up lane adds): writes
take turns behind one lock.

A query scoped to documents does not go through Chroma's filtered HNSW search, which
takes longer the smaller the share of the collection it may return (at a million
paragraphs: 76 ms for a folder of 100 documents, 320 ms for one): the vectors are kept
a second time, by document, in a SQLite file beside the index (`_Copy`), and a scope of
up to EXACT_SCOPE vectors is scanned exactly from there (6 ms for that folder), which is
both faster and exact. A vector is added to the copy before Chroma and deleted from it
after, so Chroma never holds a vector the copy lacks; a copy made for an index that
already had vectors is filled from Chroma, a document at its first scoped query.

The copy also keeps each passage's paragraph vectors (`members`, float16): they order a found
passage's paragraphs (`indexer.search.hybrid`) and are never searched, so Chroma does not hold them.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

import numpy as np

if TYPE_CHECKING:  # chromadb is imported where a collection is opened: a reader of the copy never loads it
    from chromadb.api.models.Collection import Collection
    from chromadb.api.types import Where

EXACT_SCOPE = 20_000  # a scoped query over at most this many vectors is an exact scan of the copy
FILL_DOCS = 200  # documents of an index older than its copy filled from Chroma at one query, at most


class VectorIndex:
    def __init__(
        self, collection_name: str, path: Path | None = None, url: str | None = None, copy: Path | None = None
    ):
        """Embedded persistent client at `path`, or a Chroma server at `url` (`http://host:port`);
        `copy`: the SQLite file of the vectors' copy for scoped queries (none: they use Chroma's filter)."""
        import chromadb
        from chromadb.config import Settings

        settings = Settings(anonymized_telemetry=False)
        if url:
            from urllib.parse import urlparse

            parsed = urlparse(url)
            self._client = chromadb.HttpClient(
                host=parsed.hostname or "localhost",
                port=parsed.port or 8000,
                ssl=parsed.scheme == "https",
                settings=settings,
            )
        else:
            assert path is not None
            self._client = chromadb.PersistentClient(path=str(path), settings=settings)
        self._name = collection_name
        self._writing = threading.Lock()
        self._collection = self._open()
        self._max_batch = self._client.get_max_batch_size()
        self._copy = _Copy(copy, mirrors=self._collection.count() == 0) if copy else None

    def _open(self) -> Collection:
        return self._client.get_or_create_collection(
            self._name,
            embedding_function=None,
            configuration={"hnsw": {"space": "cosine"}},
        )

    def reset(self) -> None:
        """Drop every vector (the embedding model changed)."""
        with self._writing:
            self._client.delete_collection(self._name)
            self._collection = self._open()
            if self._copy:
                self._copy.reset()

    def count(self) -> int:
        return self._collection.count()

    def close(self) -> None:
        if self._copy:
            self._copy.close()

    def ids_for_document(self, doc_id: int) -> set[str]:
        return set(self._collection.get(where={"doc_id": doc_id}, include=[])["ids"])

    def add(
        self,
        ids: Sequence[str],
        doc_ids: Sequence[int],
        embeddings: np.ndarray,
        members: Sequence[np.ndarray | None] | None = None,
    ) -> None:
        """Add vectors; `doc_ids[i]` is the document of `ids[i]` (kept as metadata for filters),
        `members[i]` the vectors of its passage's paragraphs (kept in the copy only: they rank a
        passage's paragraphs, never search the collection)."""
        with self._writing:
            if self._copy:  # first: a crash in between leaves the copy with a vector Chroma is given again
                self._copy.add(ids, doc_ids, embeddings, members)
            for start in range(0, len(ids), self._max_batch):
                end = start + self._max_batch
                self._collection.add(
                    ids=list(ids[start:end]),
                    embeddings=embeddings[start:end],
                    metadatas=[{"doc_id": d} for d in doc_ids[start:end]],
                )

    def delete(self, ids: Sequence[str]) -> None:
        ids = list(ids)
        with self._writing:
            for start in range(0, len(ids), self._max_batch):
                self._collection.delete(ids=ids[start : start + self._max_batch])
            if self._copy:
                self._copy.delete(ids)

    def delete_document(self, doc_id: int) -> None:
        with self._writing:
            self._collection.delete(where={"doc_id": doc_id})
            if self._copy:
                self._copy.delete_document(doc_id)

    def member_vectors(self, ids: list[str], dim: int) -> dict[str, np.ndarray]:
        """The paragraph vectors (of length `dim`) of those of these passages that have them
        (`Embedder.embed_passages`), one row per paragraph in reading order."""
        return self._copy.members(ids, dim) if self._copy else {}

    def query(self, embedding: np.ndarray, n: int, doc_ids: list[int] | None) -> list[tuple[str, float]]:
        """Nearest vectors as `(vec_id, cosine similarity)`, best first."""
        if n <= 0:  # (an empty collection answers with no ids; counting first cost 26 ms at a million vectors)
            return []
        if doc_ids is not None and (exact := self._exact(embedding, n, doc_ids)) is not None:
            return exact
        where = _where(doc_ids) if doc_ids is not None else None
        result = self._collection.query(query_embeddings=[embedding], n_results=n, where=where, include=["distances"])
        ids = result["ids"][0]
        distances = result["distances"][0] if result["distances"] else [0.0] * len(ids)
        return [(i, 1.0 - float(d)) for i, d in zip(ids, distances, strict=True)]

    def _exact(self, embedding: np.ndarray, n: int, doc_ids: list[int]) -> list[tuple[str, float]] | None:
        """The nearest of these documents' vectors by a full scan of the copy; None when they are
        too many (or there is no copy)."""
        if self._copy is None or len(doc_ids) > EXACT_SCOPE:  # so many documents: too many vectors anyway
            return None
        missing = self._copy.unfilled(doc_ids)
        if len(missing) > FILL_DOCS:  # an index from before the copy, scoped wide: Chroma's filter this time
            return None
        if missing:
            self._fill(missing)
        ids, matrix = self._copy.read(doc_ids, EXACT_SCOPE)
        if matrix is None:
            return None
        return _nearest(ids, matrix, embedding, n)

    def _fill(self, doc_ids: list[int]) -> None:
        """Copy these documents' vectors from Chroma (an index made before the copy), while nothing writes."""
        assert self._copy is not None
        with self._writing:
            got = self._collection.get(where=_where(doc_ids), include=["embeddings", "metadatas"])
            vectors = np.asarray(got["embeddings"], dtype=np.float32).reshape(len(got["ids"]), -1)
            owners = [int(str(m["doc_id"])) for m in got["metadatas"] or []]  # stored as an int
            self._copy.fill(doc_ids, list(got["ids"]), owners, vectors)


class _Copy:
    """The vectors again, by document, for exact scoped scans: one SQLite file of float32 rows
    (8 KiB pages hold five, so a folder's rows are read in a few pages each). `mirrors`: it
    holds every vector of the collection (made with it, or since it was empty); otherwise the
    documents it holds in full are listed in `filled`."""

    def __init__(self, path: Path, mirrors: bool):
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA page_size = 8192")  # before the first table: a 1.5 KB row stays in its page
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
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
            self._mirrors = self._db.execute("SELECT value FROM meta WHERE key = 'mirrors'").fetchone()[0] == "1"

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

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

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
                rows = self._db.execute(f"SELECT id, vectors FROM members WHERE id IN ({_marks(ids)})", ids).fetchall()
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
            db.execute(f"DELETE FROM vectors WHERE doc_id IN ({_marks(doc_ids)})", doc_ids)
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
                r[0]
                for r in self._db.execute(f"SELECT doc_id FROM filled WHERE doc_id IN ({_marks(doc_ids)})", doc_ids)
            }
        return [d for d in doc_ids if d not in filled]

    def read(self, doc_ids: list[int] | None, limit: int | None) -> tuple[list[str], np.ndarray | None]:
        """These documents' (None: every document's) vector ids and vectors; (ids, None) past `limit` vectors."""
        where, params = (f" WHERE doc_id IN ({_marks(doc_ids)})", doc_ids) if doc_ids is not None else ("", [])
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


class VectorSearch(Protocol):
    """What a search asks of vectors, a writer's `VectorIndex` or a reader's `CopyVectors`."""

    def query(self, embedding: np.ndarray, n: int, doc_ids: list[int] | None) -> list[tuple[str, float]]: ...

    def member_vectors(self, ids: list[str], dim: int) -> dict[str, np.ndarray]: ...

    def close(self) -> None: ...


class CopyVectors:
    """The vectors' SQLite copy alone, for a process that reads an index another process writes
    (`indexer.lifecycle`): Chroma's embedded store is not process-safe, SQLite in WAL mode is, and
    the writer adds a vector to the copy before Chroma. Every query is an exact scan of the copy,
    the whole collection's too (slower than Chroma's index past some 100,000 vectors)."""

    def __init__(self, copy: Path):
        self._path = copy
        self._copy: _Copy | None = None

    def query(self, embedding: np.ndarray, n: int, doc_ids: list[int] | None) -> list[tuple[str, float]]:
        if n <= 0 or not self._opened():
            return []
        assert self._copy is not None
        ids, matrix = self._copy.read(doc_ids, None)
        return _nearest(ids, matrix, embedding, n) if matrix is not None else []

    def member_vectors(self, ids: list[str], dim: int) -> dict[str, np.ndarray]:
        if not self._opened():
            return {}
        assert self._copy is not None
        return self._copy.members(ids, dim)

    def _opened(self) -> bool:
        """Open the copy once the writer has made it: a reader never creates it, which would
        decide for the writer whether the copy mirrors Chroma."""
        if self._copy is None and self._path.exists():
            with closing(sqlite3.connect(self._path)) as probe:
                made = probe.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone()
            if made:
                self._copy = _Copy(self._path, mirrors=False)  # (the table exists: its own flag stands)
        return self._copy is not None

    def close(self) -> None:
        if self._copy is not None:
            self._copy.close()


def _nearest(ids: list[str], matrix: np.ndarray, embedding: np.ndarray, n: int) -> list[tuple[str, float]]:
    """The `n` rows of `matrix` nearest `embedding` by cosine (as Chroma's space), best first."""
    if not ids:
        return []
    query = np.asarray(embedding, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1) * max(float(np.linalg.norm(query)), 1e-12)
    scores = matrix @ query / np.maximum(norms, 1e-12)
    best = np.argsort(-scores)[:n] if len(ids) <= 4 * n else np.argpartition(-scores, n)[:n]
    best = best[np.argsort(-scores[best])]
    return [(ids[i], float(scores[i])) for i in best]


def _where(doc_ids: list[int]) -> Where:
    """Chroma's filter for these documents' vectors."""
    if len(doc_ids) == 1:
        return {"doc_id": doc_ids[0]}
    among: dict[Literal["$in", "$nin"], list[str | int | float | bool]] = {"$in": list(doc_ids)}
    return {"doc_id": among}


def _marks(values: Sequence[object]) -> str:
    return ",".join("?" * len(values))

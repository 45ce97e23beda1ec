"""Paragraph vectors in Chroma.

Chroma is used as a content-addressed vector cache per document: a vector's
id is `"{doc_id}:{sha1 of the embedded text}"`, so an edit re-embeds only the
paragraphs whose text changed, and the SQLite store (which says which
vec_ids are current) decides what a query may return. Embeddings are always
passed in, never computed by Chroma, so a reopened collection never reaches
for Chroma's default (downloading) embedding function.

Facts that shaped this (LIBRARIES.md): `upsert` of existing ids is very slow
(delete + add instead), `add` of an existing id is silently ignored, and the
embedded client is not process-safe (one writer per data dir). Within the
process two threads write (the indexer deletes, the catch-up lane adds): writes
take turns behind one lock.

A query scoped to a few documents does not go through Chroma's filtered HNSW
search (291 ms at 100,000 paragraphs, for a document of a few hundred): their
vectors, kept in memory after the first query (`_Scoped`), are scanned exactly,
which is both faster and exact. Any write to a document drops its copy.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

EXACT_SCOPE = 20_000  # a scoped query over at most this many vectors is an exact scan …
EXACT_DOCS = 32  # … of at most this many documents, unless their vectors are all in memory already
SCOPED_CACHE = 100_000  # vectors kept in memory for scoped queries (~150 MB at 384 dimensions)


def vec_id(doc_id: int, embedded_text: str) -> str:
    return f"{doc_id}:{hashlib.sha1(embedded_text.encode('utf-8')).hexdigest()[:20]}"


class VectorIndex:
    def __init__(self, collection_name: str, path: Path | None = None, url: str | None = None):
        """Embedded persistent client at `path`, or a Chroma server at `url` (`http://host:port`)."""
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
        self._scoped = _Scoped(SCOPED_CACHE)
        self._collection = self._open()
        self._max_batch = self._client.get_max_batch_size()

    def _open(self):  # noqa: ANN202 (chromadb's Collection type)
        return self._client.get_or_create_collection(
            self._name,
            embedding_function=None,
            configuration={"hnsw": {"space": "cosine"}},
        )

    def reset(self) -> None:
        """Drop every vector (the embedding model changed)."""
        self._client.delete_collection(self._name)
        self._collection = self._open()
        self._scoped = _Scoped(SCOPED_CACHE)

    def count(self) -> int:
        return self._collection.count()

    def ids_for_document(self, doc_id: int) -> set[str]:
        return set(self._collection.get(where={"doc_id": doc_id}, include=[])["ids"])

    def add(self, ids: Sequence[str], doc_ids: Sequence[int], embeddings: np.ndarray) -> None:
        """Add vectors; `doc_ids[i]` is the document of `ids[i]` (kept as metadata for filters)."""
        with self._writing:
            for start in range(0, len(ids), self._max_batch):
                end = start + self._max_batch
                self._collection.add(
                    ids=list(ids[start:end]),
                    embeddings=embeddings[start:end],
                    metadatas=[{"doc_id": d} for d in doc_ids[start:end]],
                )
        self._scoped.forget(set(doc_ids))  # after the write: a copy taken meanwhile is not kept

    def delete(self, ids: Sequence[str]) -> None:
        ids = list(ids)
        with self._writing:
            for start in range(0, len(ids), self._max_batch):
                self._collection.delete(ids=ids[start : start + self._max_batch])
        self._scoped.forget({int(i.split(":", 1)[0]) for i in ids})

    def delete_document(self, doc_id: int) -> None:
        with self._writing:
            self._collection.delete(where={"doc_id": doc_id})
        self._scoped.forget({doc_id})

    def query(self, embedding: np.ndarray, n: int, doc_ids: list[int] | None) -> list[tuple[str, float]]:
        """Nearest vectors as `(vec_id, cosine similarity)`, best first."""
        if n <= 0:  # (an empty collection answers with no ids; counting first cost 26 ms at a million vectors)
            return []
        if doc_ids is not None and (exact := self._exact(embedding, n, doc_ids)) is not None:
            return exact
        where = None
        if doc_ids is not None:
            where = {"doc_id": doc_ids[0]} if len(doc_ids) == 1 else {"doc_id": {"$in": doc_ids}}
        result = self._collection.query(
            query_embeddings=[embedding], n_results=n, where=where, include=["distances"]
        )
        ids = result["ids"][0]
        distances = result["distances"][0] if result["distances"] else [0.0] * len(ids)
        return [(i, 1.0 - float(d)) for i, d in zip(ids, distances)]

    def _exact(self, embedding: np.ndarray, n: int, doc_ids: list[int]) -> list[tuple[str, float]] | None:
        """The nearest of these documents' vectors by a full scan; None when they are too many."""
        if len(doc_ids) > EXACT_DOCS and not all(self._scoped.has(d) for d in doc_ids):
            return None  # a folder of many documents: one filtered query beats fetching each one's vectors
        ids: list[str] = []
        blocks: list[np.ndarray] = []
        for doc_id in doc_ids:
            found = self._scoped.get(doc_id)
            if found is None:
                generation = self._scoped.generation(doc_id)
                got = self._collection.get(where={"doc_id": doc_id}, include=["embeddings"])
                if not got["ids"]:  # its vectors are not in yet: nothing to scan (keyword search still finds it)
                    continue
                vectors = np.asarray(got["embeddings"], dtype=np.float32).reshape(len(got["ids"]), -1)
                found = (list(got["ids"]), vectors)
                self._scoped.put(doc_id, found, generation)
            ids.extend(found[0])
            blocks.append(found[1])
            if len(ids) > EXACT_SCOPE:
                return None
        if not ids:
            return []
        matrix = np.concatenate(blocks)
        query = np.asarray(embedding, dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1) * max(float(np.linalg.norm(query)), 1e-12)
        scores = matrix @ query / np.maximum(norms, 1e-12)  # cosine, as Chroma's space
        best = np.argsort(-scores)[:n] if len(ids) <= 4 * n else np.argpartition(-scores, n)[:n]
        best = best[np.argsort(-scores[best])]
        return [(ids[i], float(scores[i])) for i in best]


class _Scoped:
    """Documents' vectors for exact scoped queries, least recently used first out, bounded in vectors.

    A copy is kept only if no write to its document ended while it was read (`generation`)."""

    def __init__(self, capacity: int):
        self._capacity = capacity
        self._held = 0
        self._docs: OrderedDict[int, tuple[list[str], np.ndarray]] = OrderedDict()
        self._generations: dict[int, int] = {}
        self._lock = threading.Lock()

    def generation(self, doc_id: int) -> int:
        with self._lock:
            return self._generations.get(doc_id, 0)

    def has(self, doc_id: int) -> bool:
        with self._lock:
            return doc_id in self._docs

    def get(self, doc_id: int) -> tuple[list[str], np.ndarray] | None:
        with self._lock:
            found = self._docs.get(doc_id)
            if found is not None:
                self._docs.move_to_end(doc_id)
            return found

    def put(self, doc_id: int, entry: tuple[list[str], np.ndarray], generation: int) -> None:
        with self._lock:
            self._drop(doc_id)
            if len(entry[0]) > self._capacity or self._generations.get(doc_id, 0) != generation:
                return
            self._docs[doc_id] = entry
            self._held += len(entry[0])
            while self._held > self._capacity:
                self._drop(next(iter(self._docs)))

    def forget(self, doc_ids: set[int]) -> None:
        with self._lock:
            for doc_id in doc_ids:
                self._drop(doc_id)
                self._generations[doc_id] = self._generations.get(doc_id, 0) + 1

    def _drop(self, doc_id: int) -> None:
        entry = self._docs.pop(doc_id, None)
        if entry is not None:
            self._held -= len(entry[0])

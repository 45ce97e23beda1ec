"""Paragraph vectors in Chroma.

Chroma is used as a content-addressed vector cache per document: a vector's
id is `"{doc_id}:{sha1 of the embedded text}"`, so an edit re-embeds only the
paragraphs whose text changed, and the SQLite store (which says which
vec_ids are current) decides what a query may return. Embeddings are always
passed in, never computed by Chroma, so a reopened collection never reaches
for Chroma's default (downloading) embedding function.

Facts that shaped this (LIBRARIES.md): `upsert` of existing ids is very slow
(delete + add instead), `add` of an existing id is silently ignored, and the
embedded client is not process-safe (one writer per data dir).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np


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

    def count(self) -> int:
        return self._collection.count()

    def ids_for_document(self, doc_id: int) -> set[str]:
        return set(self._collection.get(where={"doc_id": doc_id}, include=[])["ids"])

    def add(self, ids: Sequence[str], doc_ids: Sequence[int], embeddings: np.ndarray) -> None:
        """Add vectors; `doc_ids[i]` is the document of `ids[i]` (kept as metadata for filters)."""
        for start in range(0, len(ids), self._max_batch):
            end = start + self._max_batch
            self._collection.add(
                ids=list(ids[start:end]),
                embeddings=embeddings[start:end],
                metadatas=[{"doc_id": d} for d in doc_ids[start:end]],
            )

    def delete(self, ids: Sequence[str]) -> None:
        ids = list(ids)
        for start in range(0, len(ids), self._max_batch):
            self._collection.delete(ids=ids[start : start + self._max_batch])

    def delete_document(self, doc_id: int) -> None:
        self._collection.delete(where={"doc_id": doc_id})

    def query(self, embedding: np.ndarray, n: int, doc_ids: list[int] | None) -> list[tuple[str, float]]:
        """Nearest vectors as `(vec_id, cosine similarity)`, best first."""
        if n <= 0 or self._collection.count() == 0:
            return []
        where = None
        if doc_ids is not None:
            where = {"doc_id": doc_ids[0]} if len(doc_ids) == 1 else {"doc_id": {"$in": doc_ids}}
        result = self._collection.query(
            query_embeddings=[embedding], n_results=n, where=where, include=["distances"]
        )
        ids = result["ids"][0]
        distances = result["distances"][0] if result["distances"] else [0.0] * len(ids)
        return [(i, 1.0 - float(d)) for i, d in zip(ids, distances)]

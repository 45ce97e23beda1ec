"""Paragraph vectors in Chroma.

Chroma is used as a content-addressed vector cache per document: a vector's
id is `"{doc_id}:{sha1 of the embedded text and its paragraphs' spans}"`, so an edit re-embeds only the
paragraphs whose text changed, and the SQLite store (which says which
vec_ids are current) decides what a query may return. Embeddings are always
passed in, never computed by Chroma, so a reopened collection never reaches
for Chroma's default (downloading) embedding function.

Facts that shaped this (docs/libraries.md): `upsert` of existing ids is very slow
(delete + add instead), `add` of an existing id is silently ignored, and the
embedded client is not process-safe (one writer per data dir). Within the
process two threads write (the indexer deletes, the catch-up lane adds): writes
take turns behind one lock.

A query scoped to documents does not go through Chroma's filtered HNSW search, which
takes longer the smaller the share of the collection it may return (at a million
paragraphs: 76 ms for a folder of 100 documents, 320 ms for one): the vectors are kept
a second time, by document, in a SQLite file beside the index (`indexer.store.vector_copy`), and a scope of
up to EXACT_SCOPE vectors is scanned exactly from there (6 ms for that folder), which is
both faster and exact. A vector is added to the copy before Chroma and deleted from it
after, so Chroma never holds a vector the copy lacks; a copy made for an index that
already had vectors is filled from Chroma, a document at its first scoped query.

The copy also keeps each passage's paragraph vectors (`members`, float16): they order a found
passage's paragraphs (`indexer.search.hybrid`) and are never searched, so Chroma does not hold them.

Each holds what the other lacks when one is damaged: a damaged Chroma store is set aside and
filled again from the copy without embedding (the copy answers every query meanwhile); a damaged
copy is set aside, what it still gives kept, the rest embedded again (Chroma answers meanwhile).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, TypeVar

import numpy as np

from indexer.errors import DeepreadError, IndexDamaged
from indexer.store.health import set_aside
from indexer.store.space import write_failure
from indexer.store.vector_copy import CopyVectors, OnDamage, VectorCopy, nearest

if TYPE_CHECKING:  # chromadb is imported where a collection is opened: a reader of the copy never loads it
    from chromadb.api.models.Collection import Collection
    from chromadb.api.types import Where

EXACT_SCOPE = 20_000  # a scoped query over at most this many vectors is an exact scan of the copy
FILL_DOCS = 200  # documents of an index older than its copy filled from Chroma at one query, at most

T = TypeVar("T")
__all__ = ["CopyVectors", "VectorIndex", "VectorSearch"]


class VectorIndex:
    def __init__(
        self,
        collection_name: str,
        path: Path | None = None,
        url: str | None = None,
        copy: Path | None = None,
        on_damage: OnDamage | None = None,
    ):
        """Embedded persistent client at `path`, or a Chroma server at `url` (`http://host:port`);
        `copy`: the SQLite file of the vectors' copy for scoped queries (none: they use Chroma's filter).

        A damaged store (Chroma's at `path`, or the copy) is told to `on_damage` here and
        whenever it is found later, and left to the owner to replace (`replace_chroma`,
        `replace_copy`); meanwhile queries answer from the other one."""
        self._path, self._url, self._copy_path = path, url, copy
        self.on_damage = on_damage or (lambda damaged: None)
        self._name = collection_name
        self._writing = threading.Lock()
        self._collection: Collection | None = None
        with contextlib.suppress(IndexDamaged):  # told to on_damage
            self._connect()
        self._copy: VectorCopy | None = None
        if copy:
            with contextlib.suppress(IndexDamaged):
                self._copy = VectorCopy(copy, mirrors=self._count_or_none() in (0, None), on_damage=self.on_damage)
        # Chroma is being restored from the copy (`replace_chroma`): until it is, the copy answers.
        self._behind = self._copy is not None and self._copy.flag("restoring")

    def _connect(self) -> None:
        import chromadb
        from chromadb.config import Settings

        settings = Settings(anonymized_telemetry=False)
        if self._url:
            from urllib.parse import urlparse

            parsed = urlparse(self._url)
            self._client = chromadb.HttpClient(
                host=parsed.hostname or "localhost",
                port=parsed.port or 8000,
                ssl=parsed.scheme == "https",
                settings=settings,
            )
            self._collection = self._open()
        else:
            assert self._path is not None
            self._client = self._chroma(lambda: chromadb.PersistentClient(path=str(self._path), settings=settings))
            self._collection = self._chroma(self._open)
            self._chroma(self._probe)
        self._max_batch = self._client.get_max_batch_size()

    def _open(self) -> Collection:
        return self._client.get_or_create_collection(
            self._name,
            embedding_function=None,
            configuration={"hnsw": {"space": "cosine"}},
        )

    def _probe(self) -> None:
        """Read a vector and search with it: Chroma loads its files (a damaged one fails here, at open)."""
        got = self._live.get(limit=1, include=["embeddings"])
        if got["ids"]:
            self._live.query(query_embeddings=np.asarray(got["embeddings"])[:1], n_results=1, include=[])

    @property
    def _live(self) -> Collection:
        if self._collection is None:
            raise IndexDamaged("the vector store is damaged and being rebuilt", "chroma", "not open")
        return self._collection

    def _chroma(self, call: Callable[[], T]) -> T:
        """A call to an embedded Chroma store, its failures in the index's terms: a failure to write
        is `CannotWrite`; any other error of Chroma's (its SQLite file or its vector files damaged)
        is `IndexDamaged`, told to `on_damage` (a Chroma server's errors are its own)."""
        try:
            return call()
        except BaseException as exc:
            if not _chroma_failure(exc) or self._path is None:
                raise
            if (failure := write_failure(exc, self._path)) is not None:
                raise failure from exc
            damaged = IndexDamaged(
                f"the vector store {self._path.name}/ is damaged ({str(exc)[:200]}): it is set aside and rebuilt "
                "from the vectors' copy",
                "chroma",
                str(exc)[:200],
            )
            self.on_damage(damaged)
            raise damaged from exc

    def _count_or_none(self) -> int | None:
        try:
            return self._chroma(lambda: self._live.count())  # noqa: PLW0108 (`_live` checked inside)
        except IndexDamaged:
            return None

    def replace_chroma(self) -> Path | None:
        """Set a damaged Chroma store aside and start an empty one; the catch-up lane fills it again
        from the copy (`restore`), and the copy answers every query until then. Returns where the
        old one went (None: it was missing)."""
        assert self._path is not None
        with self._writing:
            self._collection = None
            _forget_client(self._path)
            aside = set_aside(self._path) if self._path.exists() else None
            self._connect()
            if self._copy is not None:
                self._copy.set_flag("restoring", True)
                self._behind = True
        return aside

    def replace_copy(self) -> tuple[Path | None, int]:
        """Set a damaged copy aside and start a new one with what it still gives (`VectorCopy.salvage`);
        the catch-up lane embeds the rest again. Returns where it went and the vectors kept."""
        assert self._copy_path is not None
        with self._writing:
            if self._copy is not None:
                with contextlib.suppress(sqlite3.Error, DeepreadError):
                    self._copy.close()
            self._copy = None
            aside = set_aside(self._copy_path) if self._copy_path.exists() else None
            self._copy = VectorCopy(self._copy_path, mirrors=True, on_damage=self.on_damage)
            kept = self._copy.salvage(aside) if aside is not None else 0
        return aside, kept

    def reset(self) -> None:
        """Drop every vector (the embedding model changed)."""
        with self._writing:
            self._chroma(lambda: self._client.delete_collection(self._name))
            self._collection = self._chroma(self._open)
            if self._copy:
                self._copy.reset()

    def count(self) -> int:
        return self._chroma(lambda: self._live.count())  # noqa: PLW0108 (`_live` checked inside)

    def close(self) -> None:
        """Close the copy and let go of the Chroma client: Chroma keeps one per folder for the
        process, files open, which a later open of the same folder would otherwise be given."""
        if self._copy:
            with contextlib.suppress(sqlite3.Error, DeepreadError):
                self._copy.close()
        if self._path is not None and (client := self.__dict__.get("_client")) is not None:
            with contextlib.suppress(Exception):  # (a store found damaged may fail to close)
                client.close()

    def ids_for_document(self, doc_id: int) -> set[str]:
        """The vectors of this document that need nothing: in Chroma, and in the copy too when
        the copy holds every vector (a replaced copy lacks those it could not keep)."""
        ids = set(self._chroma(lambda: self._live.get(where={"doc_id": doc_id}, include=[]))["ids"])
        if self._copy is not None and self._copy.mirrors:
            ids &= self._copy.ids(doc_id)
        return ids

    def add(
        self,
        ids: Sequence[str],
        doc_ids: Sequence[int],
        embeddings: np.ndarray,
        members: Sequence[np.ndarray | None] | None = None,
    ) -> None:
        """Add vectors; `doc_ids[i]` is the document of `ids[i]` (kept as metadata for filters),
        `members[i]` the vectors of its passage's paragraphs (kept in the copy only: they rank a
        passage's paragraphs, never search the collection). Chroma ignores an id it holds."""
        with self._writing:
            if self._copy:  # first: a crash in between leaves the copy with a vector Chroma is given again
                self._copy.add(ids, doc_ids, embeddings, members)
            self._add_to_chroma(list(ids), list(doc_ids), embeddings)

    def _add_to_chroma(self, ids: list[str], doc_ids: list[int], embeddings: np.ndarray) -> None:
        for start in range(0, len(ids), self._max_batch):
            batch = slice(start, start + self._max_batch)
            self._chroma(partial(self._add_batch, ids[batch], doc_ids[batch], embeddings[batch]))

    def _add_batch(self, ids: list[str], doc_ids: list[int], embeddings: np.ndarray) -> None:
        self._live.add(ids=ids, embeddings=embeddings, metadatas=[{"doc_id": d} for d in doc_ids])

    def restore(self, ids: list[str]) -> set[str]:
        """Give Chroma back these vectors from the copy (after `replace_chroma`), without embedding;
        returns those the copy held."""
        if self._copy is None:
            return set()
        found, owners, matrix = self._copy.vectors(ids)
        if found:
            with self._writing:
                self._add_to_chroma(found, owners, matrix)
        return set(found)

    def caught_up(self) -> None:
        """Nothing waits for vectors: Chroma holds all again, and answers again."""
        if self._behind and self._copy is not None:
            self._copy.set_flag("restoring", False)
        self._behind = False

    def delete(self, ids: Sequence[str]) -> None:
        ids = list(ids)
        with self._writing:
            for start in range(0, len(ids), self._max_batch):
                self._chroma(partial(self._delete_batch, ids[start : start + self._max_batch]))
            if self._copy:
                self._copy.delete(ids)

    def _delete_batch(self, ids: list[str]) -> None:
        self._live.delete(ids=ids)

    def delete_document(self, doc_id: int) -> None:
        with self._writing:
            self._chroma(lambda: self._live.delete(where={"doc_id": doc_id}))
            if self._copy:
                self._copy.delete_document(doc_id)

    def doc_ids(self) -> set[int]:
        """The documents that have vectors in the copy (those of a lost index are dropped by the repair)."""
        return self._copy.doc_ids() if self._copy is not None else set()

    def member_vectors(self, ids: list[str], dim: int) -> dict[str, np.ndarray]:
        """The paragraph vectors (of length `dim`) of those of these passages that have them
        (`Embedder.embed_passages`), one row per paragraph in reading order."""
        if self._copy is None:
            return {}
        try:
            return self._copy.members(ids, dim)
        except IndexDamaged:  # told to on_damage; the passages' paragraphs go by their words meanwhile
            return {}

    def query(self, embedding: np.ndarray, n: int, doc_ids: list[int] | None) -> list[tuple[str, float]]:
        """Nearest vectors as `(vec_id, cosine similarity)`, best first."""
        if n <= 0:  # (an empty collection answers with no ids; counting first cost 26 ms at a million vectors)
            return []
        if doc_ids is not None and (exact := self._exact(embedding, n, doc_ids)) is not None:
            return exact
        if self._behind and (scanned := self._scan(embedding, n, doc_ids)) is not None:
            return scanned
        where = _where(doc_ids) if doc_ids is not None else None
        try:
            result = self._chroma(
                lambda: self._live.query(query_embeddings=[embedding], n_results=n, where=where, include=["distances"])
            )
        except IndexDamaged:  # told to on_damage: the copy answers until Chroma is replaced
            return self._scan(embedding, n, doc_ids) or []
        ids = result["ids"][0]
        distances = result["distances"][0] if result["distances"] else [0.0] * len(ids)
        return [(i, 1.0 - float(d)) for i, d in zip(ids, distances, strict=True)]

    def _scan(self, embedding: np.ndarray, n: int, doc_ids: list[int] | None) -> list[tuple[str, float]] | None:
        """An exact scan of the whole copy, when it holds every vector (Chroma is damaged or being
        restored); None otherwise."""
        if self._copy is None or not self._copy.mirrors:
            return None
        try:
            ids, matrix = self._copy.read(doc_ids, None)
        except IndexDamaged:
            return None
        return nearest(ids, matrix, embedding, n) if matrix is not None else []

    def _exact(self, embedding: np.ndarray, n: int, doc_ids: list[int]) -> list[tuple[str, float]] | None:
        """The nearest of these documents' vectors by a full scan of the copy; None when they are
        too many (or there is no copy, or it is damaged)."""
        if self._copy is None or len(doc_ids) > EXACT_SCOPE:  # so many documents: too many vectors anyway
            return None
        try:
            missing = self._copy.unfilled(doc_ids)
            if len(missing) > FILL_DOCS:  # an index from before the copy, scoped wide: Chroma's filter this time
                return None
            if missing:
                self._fill(missing)
            ids, matrix = self._copy.read(doc_ids, EXACT_SCOPE)
        except IndexDamaged:  # told to on_damage: Chroma's filter meanwhile
            return None
        if matrix is None:
            return None
        return nearest(ids, matrix, embedding, n)

    def _fill(self, doc_ids: list[int]) -> None:
        """Copy these documents' vectors from Chroma (an index made before the copy), while nothing writes."""
        assert self._copy is not None
        with self._writing:
            got = self._chroma(lambda: self._live.get(where=_where(doc_ids), include=["embeddings", "metadatas"]))
            vectors = np.asarray(got["embeddings"], dtype=np.float32).reshape(len(got["ids"]), -1)
            owners = [int(str(m["doc_id"])) for m in got["metadatas"] or []]  # stored as an int
            self._copy.fill(doc_ids, list(got["ids"]), owners, vectors)


def _forget_client(path: Path) -> None:
    """Chroma keeps one client per folder for the process, with its files open, also after it
    failed to open them: dropped, so that the next client at this path opens the new store."""
    from chromadb.api.shared_system_client import SharedSystemClient

    system = SharedSystemClient._identifier_to_system.pop(str(path), None)
    SharedSystemClient._identifier_to_refcount.pop(str(path), None)
    if system is not None:
        with contextlib.suppress(Exception):  # its files are damaged: stopping may fail too
            system.stop()


def _chroma_failure(exc: BaseException) -> bool:
    """An error raised by Chroma's embedded store: its own errors, SQLite's, and a panic of its
    Rust core (a BaseException) reading a damaged file."""
    from chromadb.errors import ChromaError

    return isinstance(exc, ChromaError | sqlite3.DatabaseError | OSError) or type(exc).__name__ == "PanicException"


class VectorSearch(Protocol):
    """What a search asks of vectors, a writer's `VectorIndex` or a reader's `CopyVectors`."""

    def query(self, embedding: np.ndarray, n: int, doc_ids: list[int] | None) -> list[tuple[str, float]]: ...

    def member_vectors(self, ids: list[str], dim: int) -> dict[str, np.ndarray]: ...

    def close(self) -> None: ...


def _where(doc_ids: list[int]) -> Where:
    """Chroma's filter for these documents' vectors."""
    if len(doc_ids) == 1:
        return {"doc_id": doc_ids[0]}
    among: dict[Literal["$in", "$nin"], list[str | int | float | bool]] = {"$in": list(doc_ids)}
    return {"doc_id": among}

"""SQLite: documents, sections, paragraphs and the BM25 index (FTS5, queried in `keywords`), in one file.

Everything a reader sees comes from here, so replacing a document is one
transaction: a concurrent reader sees the old version or the new one, and a
crash leaves the old one. Vectors live in Chroma keyed by `vec_id`; a vector
only counts when a current paragraph here points at it.

One connection is shared by a process's threads behind a lock. One process writes an index
(`indexer.service.lock` holds its lock file); others open it as readers (`writer=False`) and,
SQLite being in WAL mode, see each commit at their next answer. Rows become typed objects in
one way (`indexer.store.rows`).

Every statement's error is said in the index's terms (`_Connection`): a damaged file is
`IndexDamaged`, reported to `on_damage` wherever it is found (the writer sets the file aside
and rebuilds it: `indexer.store.repair`; `replace_file`, `restore`), and a failure to write is
`CannotWrite` (`indexer.store.space`). A reader sees the writer's new file at its next answer.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from indexer.errors import IndexDamaged, NotReady
from indexer.languages import document_language
from indexer.models import DocumentStructure
from indexer.store.connection import atomic, connect, marks
from indexer.store.health import set_aside
from indexer.store.keywords import Keywords
from indexer.store.migrations import MIGRATIONS
from indexer.store.rows import COPY, DocumentRow, ParagraphRow, SectionRow, typed
from indexer.tokens import lexical_terms

SCHEMA_WAIT_S = 60.0  # a reader waits this long for the writer to create or upgrade the schema


class Store:
    """The index's SQLite file: documents and their versions, sections, paragraphs, the files that
    are copies of a document, which paragraphs have their vectors; BM25 over the paragraphs is its
    `keywords` (`indexer.store.keywords`)."""

    def __init__(self, path: Path, writer: bool = True, on_damage: Callable[[IndexDamaged], None] | None = None):
        """`writer`: this process writes the index (and brings its schema up to date); another
        process's `Store` only reads, and sees each of the writer's commits at its next answer.
        `on_damage`: told when a statement finds the file damaged (before it raises `IndexDamaged`)."""
        self.path = path
        self.writer = writer
        self.on_damage = on_damage or (lambda damaged: None)
        self._lock = threading.RLock()
        self.generation = 0  # counts the writes seen: what others derive from the index keys on it
        self.keywords = Keywords(self)
        self._connect()

    def _connect(self) -> None:
        self._db = connect(self.path, lambda damaged: self.on_damage(damaged))  # noqa: PLW0108 (set later too)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")  # cheap commits, and readers in other processes
        self._inode = os.stat(self.path).st_ino
        self._db.execute("PRAGMA synchronous=NORMAL")
        if self.writer:
            self.migrate()
        else:
            self._await_schema()
        self.keywords.open(self._db)
        self._data_version = self._db.execute("PRAGMA data_version").fetchone()[0]
        self.forget_counts()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def replace_file(self) -> Path:
        """Set this (damaged) file aside and go on in a new, empty one made in its place;
        returns the name it was set aside under. Readers follow at their next answer."""
        with self._lock:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            aside = set_aside(self.path)
            self._connect()
            return aside

    def _follow(self) -> None:
        """A reader whose file the writer replaced (set aside as damaged) opens the new one."""
        try:
            replaced = os.stat(self.path).st_ino != self._inode
        except FileNotFoundError:  # between the writer's rename and its new file: the old one a moment more
            return
        if replaced:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._connect()

    def _await_schema(self, timeout: float = SCHEMA_WAIT_S) -> None:
        """A reader opened beside a writer that is still creating or upgrading the schema waits for it."""
        deadline = time.monotonic() + timeout
        while self._db.execute("PRAGMA user_version").fetchone()[0] < len(MIGRATIONS):
            if time.monotonic() > deadline:
                raise NotReady(f"the index in {self.path.parent} is being prepared by the process that writes it")
            time.sleep(0.2)

    def migrate(self) -> None:
        done = self._db.execute("PRAGMA user_version").fetchone()[0]
        for number, step in enumerate(MIGRATIONS[done:], start=done + 1):
            with self.transaction():
                step(self._db)
                self._db.execute(f"PRAGMA user_version = {number}")

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """A consistent read: no document version is swapped while the block runs."""
        with self._lock:
            if not self.writer:
                self._follow()
            self._db.execute("BEGIN")
            try:
                version = self._db.execute("PRAGMA data_version").fetchone()[0]
                if version != self._data_version:  # another process committed: what was counted may be stale
                    self._data_version = version
                    self.forget_counts()
                yield
            finally:
                if self._db.in_transaction:
                    self._db.execute("COMMIT")

    def forget_counts(self) -> None:
        """A write changed the index: what was counted of it is read again when next needed."""
        self.keywords.forget()
        self.generation += 1

    def query(self, sql: str, params: Iterable[object] = ()) -> list[sqlite3.Row]:
        """The rows of one statement, read under the connection's lock."""
        with self._lock:
            return self._db.execute(sql, tuple(params)).fetchall()

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """The connection, held for several statements (`Keywords` counts and stems on it)."""
        with self._lock:
            yield self._db

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write. One that fails (a full disk) leaves no transaction open, so the
        next write, once there is space, starts clean."""
        with self._lock:
            try:
                with atomic(self._db, "BEGIN IMMEDIATE") as db:
                    yield db
            finally:
                self.forget_counts()

    # --- meta ------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        rows = self.query("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0]["value"] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # --- documents -------------------------------------------------------------------

    def documents(self) -> list[DocumentRow]:
        return [typed(DocumentRow, r) for r in self.query("SELECT * FROM documents ORDER BY doc_id")]

    def document(self, doc_id: int) -> DocumentRow | None:
        rows = self.query("SELECT * FROM documents WHERE doc_id = ?", (doc_id,))
        return typed(DocumentRow, rows[0]) if rows else None

    def document_at(self, root: str, relpath: str) -> DocumentRow | None:
        rows = self.query("SELECT * FROM documents WHERE root = ? AND relpath = ?", (root, relpath))
        return typed(DocumentRow, rows[0]) if rows else None

    def documents_under(self, root: str, relpath: str) -> list[DocumentRow]:
        """The document at `relpath` and every document in the folder `relpath` (root: "." or "")."""
        if relpath in ("", "."):
            rows = self.query("SELECT * FROM documents WHERE root = ?", (root,))
        else:
            prefix = relpath.rstrip("/") + "/"
            rows = self.query(
                "SELECT * FROM documents WHERE root = ? AND (relpath = ? OR substr(relpath, 1, ?) = ?)",
                (root, relpath, len(prefix), prefix),
            )
        return [typed(DocumentRow, r) for r in rows]

    def add_document(self, root: str, relpath: str) -> int:
        """Register a file as pending; returns its new, never reused doc_id."""
        with self.transaction() as db:
            cur = db.execute("INSERT INTO documents (root, relpath, status) VALUES (?, ?, 'pending')", (root, relpath))
            return int(cur.lastrowid or 0)

    def set_status(self, doc_id: int, status: str, reason: str | None = None, **fields: object) -> None:
        """Set a document's status (and file facts such as content_hash) without touching its content."""
        assignments = ", ".join(f"{name} = ?" for name in ["status", "reason", *fields])
        with self.transaction() as db:
            db.execute(
                f"UPDATE documents SET {assignments} WHERE doc_id = ?", (status, reason, *fields.values(), doc_id)
            )

    def replace_content(
        self,
        doc_id: int,
        structure: DocumentStructure,
        vec_ids: list[str],
        file_facts: dict[str, object],
        embedded: bool = True,
    ) -> None:
        """Swap in a document's new version in one transaction; `embedded`: its vectors are all in."""
        paths = structure.section_paths()
        with self.transaction() as db:
            self._delete_content(db, doc_id)
            db.executemany(
                "INSERT INTO sections VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (doc_id, s.sec_id, s.title, s.level, s.parent, s.n_paras, s.n_tokens, s.page_start, s.page_end)
                    for s in structure.sections
                ],
            )
            for para, vec_id in zip(structure.paragraphs, vec_ids, strict=True):
                cur = db.execute(
                    "INSERT INTO paragraphs (doc_id, sec_id, para_idx, kind, page, text, n_tokens, vec_id, bbox,"
                    " page_end, picture, junk) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        doc_id,
                        para.sec_id,
                        para.para_idx,
                        para.kind,
                        para.page,
                        para.text,
                        para.n_tokens,
                        vec_id,
                        json.dumps(para.bbox) if para.bbox else None,
                        para.page_end,
                        para.picture,
                        int(para.junk),
                    ),
                )
                db.execute(
                    "INSERT INTO lexical (rowid, terms, context) VALUES (?, ?, ?)",
                    (
                        cur.lastrowid,
                        " ".join(lexical_terms(para.text)),
                        " ".join(lexical_terms(" ".join(paths[para.sec_id]))),
                    ),
                )
            fields = {
                **file_facts,
                "status": "ready",
                "reason": None,
                "title": structure.title,
                "detail": structure.detail,
                "named_by_file": int(structure.named_by_file),
                "kind": structure.kind,
                "issuer": structure.issuer,
                "about": structure.about,
                "language": document_language(p.text for p in structure.paragraphs if not p.junk),
                "n_pages": structure.n_pages,
                "n_sections": len(structure.sections),
                "n_paras": len(structure.paragraphs),
                "n_tokens": structure.n_tokens,
                "warnings": json.dumps(structure.warnings) if structure.warnings else None,
                "embedded": int(embedded),
                "indexed_at": time.time(),
                "transient": 0,
                "retries": 0,
                "retried_at": None,
            }
            assignments = ", ".join(f"{name} = ?" for name in fields)
            db.execute(
                f"UPDATE documents SET {assignments}, version = version + 1 WHERE doc_id = ?",
                (*fields.values(), doc_id),
            )

    def languages(self, doc_ids: list[int] | None) -> dict[str | None, int]:
        """How many readable documents (of these) are written in each language (None: not told)."""
        scope, params = "", []
        if doc_ids is not None:
            scope, params = f" AND doc_id IN ({','.join('?' * len(doc_ids))})", list(doc_ids)
        rows = self.query(
            "SELECT language, count(*) AS n FROM documents WHERE status IN ('ready', 'indexing') AND n_sections > 0"
            f"{scope} GROUP BY language",
            params,
        )
        return {r["language"]: r["n"] for r in rows}

    def forget_file_facts(self, suffixes: frozenset[str] | None = None) -> None:
        """Make the next reconcile re-index every file, or those with these suffixes
        (the embedded text, the model or the installed parser models changed)."""
        with self.transaction() as db:
            for row in db.execute("SELECT doc_id, relpath FROM documents").fetchall():
                if suffixes is None or Path(row["relpath"]).suffix.lower() in suffixes:
                    db.execute(
                        "UPDATE documents SET size = NULL, mtime_ns = NULL, content_hash = NULL WHERE doc_id = ?",
                        (row["doc_id"],),
                    )

    def mark_failed(
        self, doc_id: int, reason: str, transient: bool = False, retries: int = 0, **fields: object
    ) -> None:
        """Failed: drop the old content (it no longer describes the file) and keep the reason;
        `retries`: how often a transient failure of these bytes has been parsed again."""
        fields = {
            **fields,
            "status": "failed",
            "reason": reason,
            "n_sections": 0,
            "n_paras": 0,
            "n_tokens": 0,
            "warnings": None,
            "transient": int(transient),
            "retries": retries,
            "retried_at": time.time() if retries else None,
        }
        assignments = ", ".join(f"{name} = ?" for name in fields)
        with self.transaction() as db:
            self._delete_content(db, doc_id)
            db.execute(f"UPDATE documents SET {assignments} WHERE doc_id = ?", (*fields.values(), doc_id))

    def keep_previous(self, doc_id: int, reason: str, retries: int) -> None:
        """A new version failed for a reason that may pass: the previous one stays readable, with
        the reason and the retry count (its file facts stay the old ones, so the file still reads
        as changed)."""
        fields = {
            "status": "ready",
            "reason": reason,
            "transient": 1,
            "retries": retries,
            "retried_at": time.time() if retries else None,
        }
        assignments = ", ".join(f"{name} = ?" for name in fields)
        with self.transaction() as db:
            db.execute(f"UPDATE documents SET {assignments} WHERE doc_id = ?", (*fields.values(), doc_id))

    def delete_document(self, doc_id: int) -> None:
        with self.transaction() as db:
            self._delete_content(db, doc_id)
            db.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))

    @staticmethod
    def _delete_content(db: sqlite3.Connection, doc_id: int) -> None:
        db.execute("DELETE FROM lexical WHERE rowid IN (SELECT id FROM paragraphs WHERE doc_id = ?)", (doc_id,))
        db.execute("DELETE FROM paragraphs WHERE doc_id = ?", (doc_id,))
        db.execute("DELETE FROM sections WHERE doc_id = ?", (doc_id,))

    # --- sections and paragraphs -----------------------------------------------------

    def section_titles(self, doc_ids: list[int]) -> dict[tuple[int, int], str]:
        """`(doc_id, sec_id)` → title of these documents' headed sections that hold paragraphs."""
        rows = self.query(
            f"SELECT doc_id, sec_id, title FROM sections "
            f"WHERE doc_id IN ({marks(doc_ids)}) AND level > 0 AND n_paras > 0"
            " ORDER BY doc_id, sec_id",
            doc_ids,
        )
        return {(r["doc_id"], r["sec_id"]): r["title"] for r in rows}

    def sections(self, doc_id: int) -> list[SectionRow]:
        return [
            typed(SectionRow, r)
            for r in self.query("SELECT * FROM sections WHERE doc_id = ? ORDER BY sec_id", (doc_id,))
        ]

    def paragraphs(self, doc_id: int, sec_id: int, start: int, end: int) -> list[ParagraphRow]:
        rows = self.query(
            "SELECT * FROM paragraphs WHERE doc_id = ? AND sec_id = ? AND para_idx BETWEEN ? AND ? ORDER BY para_idx",
            (doc_id, sec_id, start, end),
        )
        return [typed(ParagraphRow, r) for r in rows]

    def document_paragraphs(self, doc_id: int) -> list[ParagraphRow]:
        rows = self.query("SELECT * FROM paragraphs WHERE doc_id = ? ORDER BY sec_id, para_idx", (doc_id,))
        return [typed(ParagraphRow, r) for r in rows]

    def paragraphs_by_id(self, ids: list[int]) -> dict[int, ParagraphRow]:
        rows = self.query(f"SELECT * FROM paragraphs WHERE id IN ({marks(ids)})", ids)
        return {r["id"]: typed(ParagraphRow, r) for r in rows}

    # --- copies: files with a document's bytes (`indexer.ingest.copies` decides) -------

    def same_content(self, content_hash: str, doc_id: int) -> list[DocumentRow]:
        """Readable documents other than `doc_id` whose current version was read from these bytes."""
        rows = self.query(
            "SELECT * FROM documents WHERE content_hash = ? AND doc_id != ? AND status IN ('ready', 'indexing')"
            " AND n_sections > 0 ORDER BY doc_id",
            (content_hash, doc_id),
        )
        return [typed(DocumentRow, r) for r in rows]

    def copies_of(self, doc_ids: list[int] | None = None) -> dict[int, list[DocumentRow]]:
        """Per document (these, or every one), the rows of its copies, in path order."""
        among = "" if doc_ids is None else f" AND copy_of IN ({marks(doc_ids)})"
        rows = self.query(
            f"SELECT * FROM documents WHERE status = '{COPY}'{among} ORDER BY root, relpath", doc_ids or []
        )
        found: dict[int, list[DocumentRow]] = {}
        for r in rows:
            found.setdefault(r["copy_of"], []).append(typed(DocumentRow, r))
        return found

    def make_copy(self, doc_id: int, original: int, file_facts: dict[str, object]) -> None:
        """The file of `doc_id` has the same bytes as `original`'s: its row becomes a copy of that
        document (its own content, if any, goes; its id is kept for the day the file differs). Its
        own copies with these bytes become the original's: a copy of a copy is listed nowhere (those
        of other bytes, its earlier ones, wait for the reconciler to index them as documents)."""
        fields = {
            **file_facts,
            "status": COPY,
            "copy_of": original,
            "reason": None,
            "title": None,
            "n_pages": None,
            "n_sections": 0,
            "n_paras": 0,
            "n_tokens": 0,
            "warnings": None,
            "embedded": 1,
            "transient": 0,
            "retries": 0,
            "retried_at": None,
        }
        assignments = ", ".join(f"{name} = ?" for name in fields)
        with self.transaction() as db:
            self._delete_content(db, doc_id)
            db.execute(f"UPDATE documents SET {assignments} WHERE doc_id = ?", (*fields.values(), doc_id))
            db.execute(
                f"UPDATE documents SET copy_of = ? WHERE copy_of = ? AND status = '{COPY}'"
                " AND content_hash = (SELECT content_hash FROM documents WHERE doc_id = ?)",
                (original, doc_id, original),
            )

    def promote(self, copy: DocumentRow, doc_id: int) -> None:
        """The file of document `doc_id` is gone but a copy of it remains: the document lives on under
        the copy's path, with the same id; the copy's row goes."""
        with self.transaction() as db:
            db.execute("DELETE FROM documents WHERE doc_id = ?", (copy.doc_id,))
            db.execute(
                "UPDATE documents SET root = ?, relpath = ?, size = ?, mtime_ns = ? WHERE doc_id = ?",
                (copy.root, copy.relpath, copy.size, copy.mtime_ns, doc_id),
            )

    # --- vectors: which paragraphs have theirs (the catch-up lane, `indexer.ingest.catchup`) --

    def set_embedded(self, doc_id: int, version: int) -> bool:
        """Mark this version's vectors complete; False when a newer version replaced it meanwhile."""
        with self.transaction() as db:
            cur = db.execute(
                "UPDATE documents SET embedded = 1 "
                "WHERE doc_id = ? AND version = ? AND status IN ('ready', 'indexing')",
                (doc_id, version),
            )
            return cur.rowcount > 0

    def assign_vectors(self, doc_id: int, vec_ids: dict[int, str]) -> None:
        """Point paragraphs (by id) at other vectors, and mark the document as waiting for them."""
        with self.transaction() as db:
            db.executemany("UPDATE paragraphs SET vec_id = ? WHERE id = ?", [(v, i) for i, v in vec_ids.items()])
            db.execute("UPDATE documents SET embedded = 0 WHERE doc_id = ?", (doc_id,))

    def forget_vectors(self) -> None:
        """Every readable version waits for its vectors again (a vector store was replaced): the
        catch-up lane gives each what it lacks."""
        with self.transaction() as db:
            db.execute("UPDATE documents SET embedded = 0 WHERE status IN ('ready', 'indexing') AND n_sections > 0")

    def awaiting_vectors(self) -> list[DocumentRow]:
        """Readable versions whose paragraphs do not all have their vectors yet, smallest first:
        a short note is fully searchable in seconds, not after the 3,000 paragraphs of a 10-K."""
        rows = self.query(
            "SELECT * FROM documents WHERE embedded = 0 AND status IN ('ready', 'indexing') AND n_sections > 0"
            " ORDER BY n_paras, doc_id"
        )
        return [typed(DocumentRow, r) for r in rows]

    def paragraph_ids_for_vectors(self, vec_ids: list[str]) -> dict[str, list[int]]:
        """Current paragraphs per vector id; vectors of replaced versions map to nothing."""
        rows = self.query(f"SELECT vec_id, id FROM paragraphs WHERE vec_id IN ({marks(vec_ids)})", vec_ids)
        found: dict[str, list[int]] = {}
        for r in rows:
            found.setdefault(r["vec_id"], []).append(r["id"])
        return found

    def vec_ids(self, doc_id: int) -> set[str]:
        return {r["vec_id"] for r in self.query("SELECT DISTINCT vec_id FROM paragraphs WHERE doc_id = ?", (doc_id,))}

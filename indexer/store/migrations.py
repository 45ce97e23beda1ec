"""The schema of the index, as the steps that built it: applied in order when a store
opens, `PRAGMA user_version` counting how many ran. A new column or table is a new step
at the end; a step never changes once released.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

# FTS5 over our own terms (see indexer.tokens); Porter matches "statements" to "statement".
LEXICAL_TOKENIZER = "porter unicode61 remove_diacritics 2 tokenchars '_'"


def _m001_initial(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE documents (
            doc_id INTEGER PRIMARY KEY AUTOINCREMENT,  -- AUTOINCREMENT: ids are never reused
            root TEXT NOT NULL,
            relpath TEXT NOT NULL,
            content_hash TEXT,
            size INTEGER,
            mtime_ns INTEGER,
            status TEXT NOT NULL,
            reason TEXT,
            title TEXT,
            n_pages INTEGER,
            n_sections INTEGER NOT NULL DEFAULT 0,
            n_paras INTEGER NOT NULL DEFAULT 0,
            n_tokens INTEGER NOT NULL DEFAULT 0,
            version INTEGER NOT NULL DEFAULT 0,
            indexed_at REAL,
            UNIQUE (root, relpath)
        );
        CREATE TABLE sections (
            doc_id INTEGER NOT NULL,
            sec_id INTEGER NOT NULL,
            title TEXT NOT NULL,
            level INTEGER NOT NULL,
            parent INTEGER,
            n_paras INTEGER NOT NULL,
            n_tokens INTEGER NOT NULL,
            page_start INTEGER,
            page_end INTEGER,
            PRIMARY KEY (doc_id, sec_id)
        ) WITHOUT ROWID;
        CREATE TABLE paragraphs (
            id INTEGER PRIMARY KEY,
            doc_id INTEGER NOT NULL,
            sec_id INTEGER NOT NULL,
            para_idx INTEGER NOT NULL,
            kind TEXT NOT NULL,
            page INTEGER,
            text TEXT NOT NULL,
            n_tokens INTEGER NOT NULL,
            vec_id TEXT NOT NULL,
            UNIQUE (doc_id, sec_id, para_idx)
        );
        CREATE INDEX paragraphs_vec_id ON paragraphs (vec_id);
        CREATE VIRTUAL TABLE lexical USING fts5 (terms, tokenize = "unicode61 remove_diacritics 2 tokenchars '_'");
        """,
    )


def _run_script(db: sqlite3.Connection, script: str) -> None:
    """Statement by statement: `executescript` would commit the migration's transaction."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def _m002_paragraph_bbox(db: sqlite3.Connection) -> None:
    db.execute("ALTER TABLE paragraphs ADD COLUMN bbox TEXT")  # JSON [x0, y0, x1, y1], 0–1000


def _m003_lexical_context(db: sqlite3.Connection) -> None:
    """BM25 also sees each paragraph's heading path, and matches word stems (Porter).

    The new table starts empty: forgetting the file facts makes the next reconcile
    index every file again (parses come from the cache; vectors are reused).
    """
    _run_script(
        db,
        f"""
        DROP TABLE lexical;
        CREATE VIRTUAL TABLE lexical USING fts5 (terms, context, tokenize = "{LEXICAL_TOKENIZER}");
        UPDATE documents SET size = NULL, mtime_ns = NULL, content_hash = NULL;
        """,
    )


def _m004_paragraph_page_end(db: sqlite3.Connection) -> None:
    """A table continued over a page break cites all its pages, not just the first."""
    db.execute("ALTER TABLE paragraphs ADD COLUMN page_end INTEGER")
    db.execute("UPDATE paragraphs SET page_end = page")


def _m005_document_warnings(db: sqlite3.Connection) -> None:
    """What went wrong without failing a file (pages OCR could not read), shown in get_toc."""
    db.execute("ALTER TABLE documents ADD COLUMN warnings TEXT")


def _m006_document_embedded(db: sqlite3.Connection) -> None:
    """Versions are committed before their vectors exist: 1 once all are in Chroma (versions
    committed until now always waited for theirs)."""
    db.execute("ALTER TABLE documents ADD COLUMN embedded INTEGER NOT NULL DEFAULT 1")


def _m007_paragraph_picture(db: sqlite3.Connection) -> None:
    """A picture kept from an office file, shown by read_section(images=true)."""
    db.execute("ALTER TABLE paragraphs ADD COLUMN picture TEXT")


def _m008_document_retries(db: sqlite3.Connection) -> None:
    """A failure that says nothing about the file (a time limit on a busy machine) is retried by
    itself: whether it is such a one, how often it was retried, and when last."""
    db.execute("ALTER TABLE documents ADD COLUMN transient INTEGER NOT NULL DEFAULT 0")
    db.execute("ALTER TABLE documents ADD COLUMN retries INTEGER NOT NULL DEFAULT 0")
    db.execute("ALTER TABLE documents ADD COLUMN retried_at REAL")


def _m009_paragraph_junk(db: sqlite3.Connection) -> None:
    """Text that is not language (`indexer.parse.junk`): kept and found by its words, never embedded."""
    db.execute("ALTER TABLE paragraphs ADD COLUMN junk INTEGER NOT NULL DEFAULT 0")


def _m010_document_title_facts(db: sqlite3.Connection) -> None:
    """What tells a document from others titled alike (the period, date or version it states), and
    whether its title is only its file's name (`indexer.titles.shown`)."""
    db.execute("ALTER TABLE documents ADD COLUMN detail TEXT")
    db.execute("ALTER TABLE documents ADD COLUMN named_by_file INTEGER NOT NULL DEFAULT 0")


def _m011_document_language(db: sqlite3.Connection) -> None:
    """The language a document is written in (`indexer.languages`): a query in another says so.
    Documents indexed before have none until they are structured again."""
    db.execute("ALTER TABLE documents ADD COLUMN language TEXT")


def _m012_document_copies(db: sqlite3.Connection) -> None:
    """A file identical to a document (same bytes) is a copy of it, not a document of its own: its row
    keeps its path and file facts with status 'copy' and the document it copies (`indexer.ingest.copies`).
    Each file indexed asks for documents with its bytes: by an index on the hash, not a scan."""
    db.execute("ALTER TABLE documents ADD COLUMN copy_of INTEGER")
    db.execute("CREATE INDEX documents_content_hash ON documents (content_hash)")


def _m013_document_card(db: sqlite3.Connection) -> None:
    """A document's card (`indexer.titles.card`): its kind, its issuer or authors, one line of what it
    is about (its date is `detail`). Documents indexed before have none until structured again."""
    db.execute("ALTER TABLE documents ADD COLUMN kind TEXT")
    db.execute("ALTER TABLE documents ADD COLUMN issuer TEXT")
    db.execute("ALTER TABLE documents ADD COLUMN about TEXT")


# Applied in order on open; `PRAGMA user_version` records how many ran.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _m001_initial,
    _m002_paragraph_bbox,
    _m003_lexical_context,
    _m004_paragraph_page_end,
    _m005_document_warnings,
    _m006_document_embedded,
    _m007_paragraph_picture,
    _m008_document_retries,
    _m009_paragraph_junk,
    _m010_document_title_facts,
    _m011_document_language,
    _m012_document_copies,
    _m013_document_card,
]

"""The store's rows as typed objects, read one way (`typed`): columns by name, so a column a
later migration adds is ignored until the dataclass names it."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, fields
from typing import TypeVar

COPY = "copy"  # a document row's status when its file is a copy of another document's (`copy_of`)


@dataclass
class DocumentRow:
    doc_id: int
    root: str
    relpath: str
    content_hash: str | None
    size: int | None
    mtime_ns: int | None
    status: str
    reason: str | None
    title: str | None
    n_pages: int | None
    n_sections: int
    n_paras: int
    n_tokens: int
    version: int
    warnings: str | None  # JSON list: what went wrong without failing the file
    embedded: int  # 1 once every paragraph of this version has its vector (semantic search covers it)
    transient: int = 0  # failed for a reason that may pass (time limit, killed parser, I/O): retried by itself
    retries: int = 0  # times a transient failure was parsed again since the file last changed
    retried_at: float | None = None  # when last
    detail: str | None = None  # the period, date or version the document states (`indexer.titles.shown`)
    named_by_file: int = 0  # 1: nothing in the document names it; its title is the file's name
    language: str | None = None  # the language its text is written in (`indexer.languages`), if told
    copy_of: int | None = None  # status 'copy': the document whose file has the same bytes (`indexer.ingest.copies`)
    kind: str | None = None  # the card (`indexer.titles.card`): what kind of document it is,
    issuer: str | None = None  # who issued or wrote it,
    about: str | None = None  # and one line of what it is about (its date is `detail`)

    @property
    def warning_list(self) -> list[str]:
        return json.loads(self.warnings) if self.warnings else []

    @property
    def is_copy(self) -> bool:
        """A file with the same bytes as a document, listed with it rather than as one of its own."""
        return self.status == COPY

    @property
    def readable(self) -> bool:
        """A version is committed (its sections at least: a document may be headings alone)
        and not failed since; while a new version is indexed, the previous one stays readable."""
        return self.status in ("ready", "indexing") and self.n_sections > 0


@dataclass
class SectionRow:
    doc_id: int
    sec_id: int
    title: str
    level: int
    parent: int | None
    n_paras: int
    n_tokens: int
    page_start: int | None
    page_end: int | None


@dataclass
class ParagraphRow:
    id: int
    doc_id: int
    sec_id: int
    para_idx: int
    kind: str
    page: int | None
    text: str
    n_tokens: int
    vec_id: str
    bbox: str | None = None  # JSON
    page_end: int | None = None
    picture: str | None = None  # a kept picture's key (office files)
    junk: int = 0  # not language (`indexer.parse.junk`): no vector, ranked after real text

    @property
    def box(self) -> list[int] | None:
        return json.loads(self.bbox) if self.bbox else None


Row = TypeVar("Row", DocumentRow, SectionRow, ParagraphRow)


_NAMES: dict[type, tuple[str, ...]] = {}


def _names(cls: type) -> tuple[str, ...]:
    """The dataclass's field names, looked up once per class."""
    if cls not in _NAMES:
        _NAMES[cls] = tuple(f.name for f in fields(cls))
    return _NAMES[cls]


def typed(cls: type[Row], row: sqlite3.Row) -> Row:
    """A row as its dataclass, columns read by name: one a later migration adds is ignored
    until the dataclass names it."""
    return cls(**{name: row[name] for name in _names(cls)})

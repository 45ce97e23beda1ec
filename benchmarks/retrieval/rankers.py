"""The two kinds of ranker compared: deepread's `Library.retrieve` read the way an agent
reads it (hits, windows or sections) and the flat-chunk baseline (fixed word windows
of each file's text, cosine similarity in numpy), behind one `Ranker` protocol that
yields scored `Unit`s.

Kept apart from the scoring, which sees only units, and from the runs, which pick
configurations of these rankers.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
import pypdfium2

from benchmarks import common
from benchmarks.retrieval.shared import CHUNK_STEP, CHUNK_WORDS, TOP_K, bag
from indexer.library import Library
from indexer.store.database import ParagraphRow
from indexer.store.embedder import Embedder

# --- rankers -------------------------------------------------------------------------------


@dataclass
class Unit:
    """One ranked result: its own tokens and pages, and those of the section it lies in."""

    tokens: Counter[str]
    section: Counter[str]
    words: int  # whitespace words of the unit's text
    pages: frozenset[int] = frozenset()
    section_pages: frozenset[int] = frozenset()  # the section's page span (first to last page)
    doc: str | None = None  # the file it comes from (a page number matches only in the question's file)


class Ranker(Protocol):
    def rank(self, query: str, doc: str | None) -> tuple[list[Unit], float]:
        """Top-k units, best first, and the search time in seconds (`doc=None`: whole collection)."""
        ...

    def units_of(self, doc: str) -> Iterable[Unit]:
        """Every unit of a document (for the hit ceiling and the random baseline)."""
        ...


class LibraryRanker:
    """`Library.retrieve` hits with their sections, read the way an agent would read them.

    `window` > 0: each hit with that many neighbours on each side, as from
    `retrieve(before=window, after=window)`. `read_tokens` > 0: locate, then read —
    each hit's whole section when it fits in `read_tokens`, else the paragraphs
    around the hit that fit (`read_section` with a range); a hit inside a passage
    already read adds nothing, and the next hits are taken until TOP_K passages
    are read (or 3 × TOP_K hits are used up).
    """

    def __init__(self, lib: Library, window: int = 0, read_tokens: int = 0):
        self.lib = lib
        self.window = window
        self.read_tokens = read_tokens
        self.doc_ids = {d.relpath: d.doc_id for d in common.open_index(lib).store.documents() if d.n_paras > 0}
        self.names = {doc_id: name for name, doc_id in self.doc_ids.items()}
        self._sections: dict[tuple[int, int], tuple[Counter[str], frozenset[int]]] = {}

    def rank(self, query: str, doc: str | None) -> tuple[list[Unit], float]:
        if doc is not None and doc not in self.doc_ids:  # failed to parse: nothing to find
            return [], 0.0
        doc_ids = [self.doc_ids[doc]] if doc is not None else None
        # A hit inside a passage already read adds nothing, so a reader goes deeper
        # in the ranking to get TOP_K distinct passages.
        depth = TOP_K if not (self.window or self.read_tokens) else 3 * TOP_K
        start = time.perf_counter()
        result = self.lib.retrieve(query, top_k=depth, doc_ids=doc_ids, before=0, after=0)
        elapsed = time.perf_counter() - start
        hits = sorted((r for r in result.results if r.is_hit), key=lambda r: r.rank or 0)
        units: list[Unit] = []
        read: set[tuple[int, int, int]] = set()
        for r in hits:
            if len(units) == TOP_K:
                break
            if (r.doc_id, r.sec_id, r.para_idx) in read:
                continue
            rows = self.passage(r.doc_id, r.sec_id, r.para_idx)
            read.update((row.doc_id, row.sec_id, row.para_idx) for row in rows)
            text = "\n".join(row.text for row in rows)
            section, span = self.section(r.doc_id, r.sec_id)
            pages = frozenset(page for row in rows for page in row_pages(row))
            units.append(Unit(bag(text), section, len(text.split()), pages, span, self.names.get(r.doc_id)))
        return units, elapsed

    def passage(self, doc_id: int, sec_id: int, para_idx: int) -> list[ParagraphRow]:
        """What is read for one hit: the hit, its window, or the section around it up to `read_tokens`."""
        if not self.read_tokens:
            return common.open_index(self.lib).store.paragraphs(
                doc_id, sec_id, para_idx - self.window, para_idx + self.window
            )
        rows = common.open_index(self.lib).store.paragraphs(doc_id, sec_id, 0, 10**6)
        at = next(i for i, row in enumerate(rows) if row.para_idx == para_idx)
        lo, hi, used = at, at + 1, rows[at].n_tokens
        grew = True
        while grew:
            grew = False
            for i in (hi, lo - 1):  # alternately after and before the hit
                if 0 <= i < len(rows) and used + rows[i].n_tokens <= self.read_tokens:
                    used += rows[i].n_tokens
                    lo, hi = min(lo, i), max(hi, i + 1)
                    grew = True
        return rows[lo:hi]

    def section(self, doc_id: int, sec_id: int) -> tuple[Counter[str], frozenset[int]]:
        key = (doc_id, sec_id)
        if key not in self._sections:
            rows = common.open_index(self.lib).store.paragraphs(doc_id, sec_id, 0, 10**6)
            pages = [page for r in rows for page in row_pages(r)]
            span = frozenset(range(min(pages), max(pages) + 1)) if pages else frozenset()
            self._sections[key] = (bag("\n".join(r.text for r in rows)), span)
        return self._sections[key]

    def units_of(self, doc: str) -> Iterable[Unit]:
        doc_id = self.doc_ids.get(doc)
        if doc_id is None:
            return
        for section in common.open_index(self.lib).store.sections(doc_id):
            tokens, span = self.section(doc_id, section.sec_id)
            for row in common.open_index(self.lib).store.paragraphs(doc_id, section.sec_id, 0, 10**6):
                pages = frozenset(row_pages(row))
                yield Unit(bag(row.text), tokens, len(row.text.split()), pages, span, doc)


def row_pages(row: ParagraphRow) -> range:
    """Every page a paragraph runs on (a table continued over a page break has several)."""
    if row.page is None:
        return range(0)
    return range(row.page, (row.page_end or row.page) + 1)


Page = tuple[int | None, str]  # (1-based page or None for text files, text)


def word_windows(
    pages: list[Page], size: int = CHUNK_WORDS, step: int = CHUNK_STEP
) -> list[tuple[str, frozenset[int]]]:
    """Overlapping windows of whitespace words with the pages they span; the last one ends at the text's end."""
    words = [(word, page) for page, text in pages for word in text.split()]
    if not words:
        return []
    starts = [0] if len(words) <= size else [*list(range(0, len(words) - size, step)), len(words) - size]
    windows = []
    for s in starts:
        chunk = words[s : s + size]
        windows.append((" ".join(w for w, _ in chunk), frozenset(p for _, p in chunk if p is not None)))
    return windows


def file_pages(path: Path) -> list[Page]:
    """What a typical vector-store server reads: the PDF text layer page by page, or the file's text."""
    if path.suffix.lower() != ".pdf":
        return [(None, path.read_text(encoding="utf-8", errors="replace"))]
    try:
        pdf = pypdfium2.PdfDocument(str(path))
    except pypdfium2.PdfiumError:
        return []
    try:
        return [(n, pdf[n - 1].get_textpage().get_text_bounded()) for n in range(1, len(pdf) + 1)]
    finally:
        pdf.close()


class ChunkRanker:
    """The flat-chunk baseline: fixed windows of each file's text, cosine similarity in numpy.

    Chunk vectors are kept in `cache_dir` (keyed by the chunks' text), so a rerun
    with `--work` does not embed them again.
    """

    def __init__(self, embedder: Embedder, files: dict[str, Path], cache_dir: Path):
        self.embedder = embedder
        self.embedded = 0  # chunks embedded now (0: all from the cache)
        self.texts: list[str] = []
        self.pages: list[frozenset[int]] = []
        docs: list[str] = []
        for name, path in sorted(files.items()):
            chunks = word_windows(file_pages(path))
            self.texts.extend(text for text, _ in chunks)
            self.pages.extend(pages for _, pages in chunks)
            docs.extend([name] * len(chunks))
        self.docs = np.array(docs)
        start = time.perf_counter()
        self.matrix = self._embed(cache_dir)
        self.embed_seconds = time.perf_counter() - start
        self.bags = [bag(t) for t in self.texts]

    def _embed(self, cache_dir: Path) -> np.ndarray:
        digest = hashlib.sha1("\x00".join(self.texts).encode()).hexdigest()[:16]
        cached = cache_dir / f"chunks-{digest}.npy"
        if cached.exists():
            return np.load(cached)
        self.embedded = len(self.texts)
        matrix = self.embedder.embed(self.texts)
        cache_dir.mkdir(parents=True, exist_ok=True)
        np.save(cached, matrix)
        return matrix

    def rank(self, query: str, doc: str | None) -> tuple[list[Unit], float]:
        start = time.perf_counter()
        scores = self.matrix @ self.embedder.embed([query])[0]
        if doc is not None:
            scores = np.where(self.docs == doc, scores, -np.inf)
        order = [int(i) for i in np.argsort(-scores, kind="stable")[:TOP_K] if np.isfinite(scores[i])]
        elapsed = time.perf_counter() - start
        return [self.unit(i) for i in order], elapsed

    def unit(self, i: int) -> Unit:
        """A chunk is its own section."""
        return Unit(
            self.bags[i], self.bags[i], len(self.texts[i].split()), self.pages[i], self.pages[i], str(self.docs[i])
        )

    def units_of(self, doc: str) -> Iterable[Unit]:
        return (self.unit(i) for i in np.flatnonzero(self.docs == doc))

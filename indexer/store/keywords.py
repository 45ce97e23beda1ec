"""BM25 over paragraphs: the keyword queries against the store's FTS5 index.

A part of `Store` (`indexer.store.database`, `store.keywords`), which holds the connection and
its lock: the documents and their versions are one idea, ranking paragraphs by their words another. FTS5's
`bm25()` ranks a query in SQL; past a few thousand rows it is most of a query's time, so
common words do not make candidates on their own (`_ranked`) and a handful of rows are scored
here exactly as FTS5 would (`_bm25`, with `indexer.store.lexical`). Row counts per term and
the index's totals are kept until the next write (`forget_counts`).
"""

from __future__ import annotations

import bisect
import sqlite3
from collections.abc import Iterable
from typing import TYPE_CHECKING

from indexer.store import lexical
from indexer.store.connection import marks
from indexer.store.migrations import LEXICAL_TOKENIZER
from indexer.tokens import query_terms

if TYPE_CHECKING:
    from indexer.store.database import Store

# BM25 weight of a paragraph's heading path relative to its text: the path says what a
# paragraph is about ("Consolidated Statements of Cash Flows") but is shared by the section.
CONTEXT_WEIGHT = 0.5


class Keywords:
    """BM25 queries over a store's paragraphs (`Store.keywords`), on the store's connection."""

    def __init__(self, store: Store):
        self._store = store
        self._counts: dict[str, int] = {}  # BM25's row count per term, until the next write
        self._totals: lexical.Totals | None = None  # and the index's totals

    def open(self, db: sqlite3.Connection) -> None:
        """A scratch table that stems text as the index does (`stems`); it lives in this connection
        only, so each connection the store opens gets its own."""
        db.execute(f'CREATE VIRTUAL TABLE temp.stems USING fts5 (word, tokenize = "{LEXICAL_TOKENIZER}")')
        db.execute("CREATE VIRTUAL TABLE temp.stems_vocab USING fts5vocab(temp, stems, instance)")
        self.forget()

    def forget(self) -> None:
        """A write changed the index: row counts and totals are read again when next needed."""
        self._counts = {}
        self._totals = None

    def search(self, query: str, limit: int, doc_ids: list[int] | None) -> list[tuple[int, float]]:
        """BM25 over paragraphs: `(paragraph id, score)`, best first (score higher is better)."""
        terms = query_terms(query)
        if not terms:
            return []
        if doc_ids is None:
            return self._ranked(terms, limit, None)
        spans = self._spans(doc_ids)
        if not spans:
            return []
        if len(spans) > MAX_SPANS:  # documents scattered over the collection: one pass over what the terms match
            return self._ranked(terms, limit, doc_ids)
        # A document's paragraphs are stored in one run of rowids (a folder's documents often
        # in one run too): FTS5 seeks each run in the terms' lists instead of scoring every
        # paragraph of the collection they match (60 ms a query at a million paragraphs).
        union, params = _in_ranges(_SCORED, _match(terms), spans)
        rows = self._store.query(  # the join keeps the scope exact should a range hold another document's rows
            f"SELECT u.id, u.score FROM ({union}) u JOIN paragraphs p ON p.id = u.id"
            f" WHERE p.doc_id IN ({marks(doc_ids)}) ORDER BY u.score LIMIT ?",
            [*params, *doc_ids, limit],
        )
        return [(r["id"], -r["score"]) for r in rows]

    def holds_word(self, word: str, doc_ids: list[int] | None) -> bool:
        """Whether a paragraph (of these documents) holds the word as BM25 matches it; a word it
        does not index (a stopword) is held. The whole collection is asked by the counts BM25
        keeps, without ranking what matches."""
        terms = query_terms(word)
        if not terms:
            return True
        if doc_ids is None:
            return all(n > 0 for n in self.row_counts(terms).values())
        return bool(self.search(word, 1, doc_ids))

    def _spans(self, doc_ids: list[int]) -> list[tuple[int, int]]:
        """The rowid runs holding these documents' paragraphs, runs that (nearly) touch merged."""
        rows = self._store.query(
            f"SELECT MIN(id) AS lo, MAX(id) AS hi FROM paragraphs WHERE doc_id IN ({marks(doc_ids)})"
            " GROUP BY doc_id ORDER BY lo",
            doc_ids,
        )
        spans: list[tuple[int, int]] = []
        for r in rows:
            if spans and r["lo"] <= spans[-1][1] + SPAN_GAP:
                spans[-1] = (spans[-1][0], max(spans[-1][1], r["hi"]))
            else:
                spans.append((r["lo"], r["hi"]))
        return spans

    def _ranked(self, terms: list[str], limit: int, doc_ids: list[int] | None) -> list[tuple[int, float]]:
        """The `limit` best paragraphs by BM25 (of those in `doc_ids`, if given), in one pass.

        FTS5 scores every row the terms match, so when they match more than SCORED_ROWS
        (common words in a large collection) only the rows holding one of the query's rarer
        terms are candidates (as many of the rarest as fit in SCORED_ROWS, at least one): a
        common word adds to a paragraph's score but does not make it a candidate on its own,
        as in Lucene's common-terms query. FTS5 ranks the candidates with every term (the
        rare ones count twice in that pass, being named twice) and the best CANDIDATES are
        scored exactly (`_bm25`). Below SCORED_ROWS the ranking is FTS5's, exact.
        (Measured at 1,000,000 paragraphs: benchmarks/results/scale.md.)
        """
        join, scope, scope_params = "", "", []
        if doc_ids is not None:
            join = " JOIN paragraphs p ON p.id = lexical.rowid"
            scope, scope_params = f" AND p.doc_id IN ({marks(doc_ids)})", list(doc_ids)
        counts = self.row_counts(terms)
        if sum(counts.values()) <= SCORED_ROWS:
            rows = self._store.query(
                f"{_SCORED}{join} WHERE lexical MATCH ?{scope} ORDER BY score LIMIT ?",
                [_match(terms), *scope_params, limit],
            )
            return [(r["id"], -r["score"]) for r in rows]
        rare: list[str] = []
        for term in sorted(terms, key=lambda t: counts[t]):
            if rare and sum(counts[t] for t in rare) + counts[term] > SCORED_ROWS:
                break
            rare.append(term)
        rows = self._store.query(
            f"{_SCORED}{join} WHERE lexical MATCH ?{scope} ORDER BY score LIMIT ?",
            [f"({_match(rare)}) AND ({_match(terms)})", *scope_params, max(CANDIDATES, limit)],
        )
        scores = self._bm25(terms, [r["id"] for r in rows])
        return sorted(scores.items(), key=lambda item: -item[1])[:limit]

    def scores(self, query: str, ids: list[int]) -> dict[int, float]:
        """BM25 scores of just these paragraphs (higher is better); those matching no query term are left out."""
        return self._bm25(query_terms(query), ids)

    def _bm25(self, terms: list[str], ids: list[int]) -> dict[int, float]:
        """FTS5's BM25 of these rows for `terms`, computed here (`indexer.store.lexical`): FTS5 would
        count every row of each term again to score them (a quarter second at a million
        paragraphs for common words). A row's length comes from FTS5's own record of it; its
        words that may share a query term's stem (the same first two letters) are stemmed by
        FTS5's tokenizer."""
        if not terms or not ids:
            return {}
        with self._store.connection() as db:
            counts = self.row_counts(terms)
            totals = self._lexical_totals()
            placeholders = marks(ids)
            content = db.execute(f"SELECT id, c0, c1 FROM lexical_content WHERE id IN ({placeholders})", ids).fetchall()
            lengths = {
                r["id"]: lexical.row_length(r["sz"])
                for r in db.execute(f"SELECT id, sz FROM lexical_docsize WHERE id IN ({placeholders})", ids)
            }
            stems = self.stems(terms)
            if any(len(stems.get(term, ())) != 1 for term in terms):  # a phrase to the tokenizer: FTS5 scores it
                ranges = [(i, i) for i in sorted(set(ids))]
                found: dict[int, float] = {}
                for start in range(0, len(ranges), MAX_COMPOUND):
                    union, params = _in_ranges(_SCORED, _match(terms), ranges[start : start + MAX_COMPOUND])
                    found.update((r["id"], -r["score"]) for r in db.execute(union, params))
                return found
            weights: dict[str, float] = {}
            for term in terms:
                stem = stems[term][0]
                weights[stem] = weights.get(stem, 0.0) + lexical.idf(totals.n_rows, counts[term])
            columns = [(r["id"], [(r["c0"] or "").split(), (r["c1"] or "").split()]) for r in content]
            word_stems = self._stems_like((w for _, cols in columns for col in cols for w in col), weights)
        scores: dict[int, float] = {}
        for row_id, cols in columns:
            frequency: dict[str, float] = {}
            for words, weight in zip(cols, (1.0, CONTEXT_WEIGHT), strict=True):
                for word in words:
                    for stem in word_stems.get(word, ()):
                        if stem in weights:
                            frequency[stem] = frequency.get(stem, 0.0) + weight
            if frequency:
                scores[row_id] = lexical.score(weights, frequency, lengths.get(row_id, 0), totals.avg_tokens)
        return scores

    def near(self, pairs: list[tuple[str, str]], ids: list[int], gap: int, least: int = 0) -> dict[int, int]:
        """How many of the word pairs (`indexer.tokens.query_pairs`) each of these paragraphs holds
        `gap` words apart at most, in either order, words compared as BM25 stems them ("data
        centers" holds data/center); a paragraph holding none, or fewer than `least` of the pairs'
        words (all of them, when they are fewer), is left out."""
        stems = {word: found[0] for word, found in self.stems(sorted({w for p in pairs for w in p})).items()}
        stemmed = [(stems[a], stems[b]) for a, b in pairs if a in stems and b in stems]
        if not stemmed or not ids:
            return {}
        with self._store.connection() as db:
            content = db.execute(f"SELECT id, c0 FROM lexical_content WHERE id IN ({marks(ids)})", ids).fetchall()
        wanted = {stem for pair in stemmed for stem in pair}
        rows = [(r["id"], (r["c0"] or "").split()[:NEAR_SCAN_WORDS]) for r in content]  # a long table's opening
        word_stems = self._stems_like((w for _, words in rows for w in words), wanted)
        counts: dict[int, int] = {}
        for row_id, words in rows:
            at: dict[str, list[int]] = {}  # where the paragraph holds each wanted stem, in order
            for i, word in enumerate(words):
                for stem in word_stems.get(word, ()):
                    if stem in wanted:
                        at.setdefault(stem, []).append(i)
            held = sum(_near(at.get(a, []), at.get(b, []), gap) for a, b in stemmed)
            if held and len(at) >= min(least, len(wanted)):
                counts[row_id] = held
        return counts

    def _stems_like(self, words: Iterable[str], stems: Iterable[str]) -> dict[str, list[str]]:
        """The stems of those of `words` that start as one of `stems` does (`lexical.start`): only
        they may stem to it, so only they are stemmed to be compared with them."""
        starts = {lexical.start(stem) for stem in stems}
        return self.stems(sorted({word for word in words if lexical.start(word) in starts}))

    def stems(self, words: list[str]) -> dict[str, list[str]]:
        """Each word's tokens as BM25 indexes them (stemmed: "statements" is "statement"), from a
        scratch FTS5 table in the connection's temp schema."""
        if not words:
            return {}
        with self._store.connection() as db:
            db.executemany("INSERT INTO temp.stems (rowid, word) VALUES (?, ?)", list(enumerate(words)))
            try:
                found: dict[str, list[str]] = {}
                for r in db.execute("SELECT doc, term FROM temp.stems_vocab ORDER BY doc, offset"):
                    found.setdefault(words[r["doc"]], []).append(r["term"])
                return found
            finally:
                db.execute("DELETE FROM temp.stems")

    def row_counts(self, terms: list[str]) -> dict[str, int]:
        """How many paragraphs hold each term (what BM25 weighs it by), kept until the next write."""
        with self._store.connection() as db:
            if len(self._counts) > MAX_COUNTED:  # a server that only reads, asked many distinct words
                self._counts.clear()
            for term in terms:
                if term not in self._counts:
                    self._counts[term] = db.execute(
                        "SELECT count(*) FROM lexical WHERE lexical MATCH ?", (_match([term]),)
                    ).fetchone()[0]
            return {term: self._counts[term] for term in terms}

    def _lexical_totals(self) -> lexical.Totals:
        """Rows and tokens of the BM25 index, from FTS5's averages record; kept until the next write."""
        with self._store.connection() as db:
            if self._totals is None:
                row = db.execute("SELECT block FROM lexical_data WHERE id = 1").fetchone()
                self._totals = lexical.totals(row["block"] if row else None)
            return self._totals


MAX_SPANS = 16  # rowid runs a scoped BM25 query seeks one by one; past this, one pass is quicker (measured)
SPAN_GAP = 256  # runs this close are sought as one (the join keeps the scope exact)
MAX_COMPOUND = 200  # rowid ranges in one compound SELECT (SQLite allows 500)
SCORED_ROWS = 50_000  # rows FTS5 may score in one ranking pass (0.7 µs each) before rare terms lead (`_ranked`)
CANDIDATES = 160  # rows the rare terms' pass hands to scoring with every term
MAX_COUNTED = 100_000  # terms whose row counts are kept between writes
NEAR_SCAN_WORDS = 5_000  # words of a paragraph looked through for pairs said together (a table may hold 30,000)
_SCORED = f"SELECT lexical.rowid AS id, bm25(lexical, 1.0, {CONTEXT_WEIGHT}) AS score FROM lexical"


def _near(first: list[int], second: list[int], gap: int) -> bool:
    """Whether a position in `second` is `gap` words at most from one in `first`, either side (both
    sorted: "cloud provider", "provider of cloud services"): for each of the first's, the second's
    nearest positions are found by bisection, not by a scan."""
    for i in first:
        after, before = bisect.bisect_right(second, i), bisect.bisect_left(second, i)
        if (after < len(second) and second[after] - i <= gap) or (before > 0 and i - second[before - 1] <= gap):
            return True
    return False


def _in_ranges(select: str, match: str, ranges: list[tuple[int, int]]) -> tuple[str, list[object]]:
    """`select` (FROM lexical) for the query's terms within each range of rowids, as one
    compound SELECT: FTS5 seeks a rowid range in each term's list instead of scoring every
    paragraph the terms match."""
    sql = " UNION ALL ".join([f"{select} WHERE lexical MATCH ? AND lexical.rowid BETWEEN ? AND ?"] * len(ranges))
    return sql, [v for lo, hi in ranges for v in (match, lo, hi)]


def _match(terms: list[str]) -> str:
    """An FTS5 expression matching any of these terms."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)

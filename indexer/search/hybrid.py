"""Hybrid paragraph ranking: dense (Chroma) + lexical (FTS5 BM25), fused by reciprocal rank.

Dense search finds paraphrases; BM25 finds exact numbers, codes and names
that embeddings blur. Reciprocal rank fusion needs no score calibration
between the two, which is why it is the default.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from indexer.search import named
from indexer.search.documents import DocumentMatch, names_written
from indexer.search.rerank import DEFAULT_DEPTH, Reranker
from indexer.store.database import Store
from indexer.store.embedder import Embedder
from indexer.store.vectors import VectorSearch
from indexer.tokens import SENTENCE_END, codes, query_pairs

SearchMode = Literal["hybrid", "dense", "lexical"]
RRF_K = 60
LEXICAL_FLOOR = 0.05  # BM25 hits scoring under this share of the best one do not count as matches
SECOND_LAG = (
    2  # a passage's second paragraph follows the best ones of this many next passages (benchmarks/results/passages.md)
)
CROWD = 3  # candidates alike but for their numbers: near-duplicates
# A query naming a section (`indexer.search.named`) is looked for when the search is scoped to at
# most this many documents.
NAMED_DOCS = 16
_DIGITS = re.compile(r"\d+")
# Proximity (`HybridSearch._near`): two words the question writes next to each other (function
# words aside) are said together in a paragraph within NEAR_GAP words of each other, either order
# ("cloud provider", "provider of cloud services"); a paragraph counts when it holds NEAR_WORDS of
# the question's words. The ranking by such pairs weighs NEAR_WEIGHT beside dense and BM25 (a whole
# weight outvoted the documents a question names). Over one document it is left out: the PDF sets'
# first hits fell there (FinanceBench hit@1 64.1 → 61.5) while every set gained over the whole
# folder (docs/benchmarks.md, "Words said together").
NEAR_GAP = 3
NEAR_WORDS = 3
NEAR_WEIGHT = 0.75
CODE_HITS = 5  # paragraphs holding an exact code, placed first
CODE_ROWS = 20  # a code more paragraphs of the index hold than this is no one thing's


@dataclass
class Ranked:
    paragraph_id: int
    score: float


@dataclass
class Found:
    """A search's hits, and what the answer says about them."""

    hits: list[Ranked]
    lexical_matched: bool | None  # whether BM25 matched any paragraph; None when it did not run (dense mode)
    waiting: set[int]  # documents whose vectors are not all in yet: dense search cannot see them
    absent: list[str] = field(default_factory=list)  # names the query writes that no document searched holds


def rrf_fuse(rankings: list[list[int]], weights: list[float] | None = None, k: int = RRF_K) -> list[Ranked]:
    """Reciprocal rank fusion: score = Σ weight / (k + rank); ties keep first-seen order."""
    weights = weights or [1.0] * len(rankings)
    scores: dict[int, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, pid in enumerate(ranking, start=1):
            scores[pid] = scores.get(pid, 0.0) + weight / (k + rank)
    return [Ranked(pid, s) for pid, s in sorted(scores.items(), key=lambda item: -item[1])]


class HybridSearch:
    def __init__(
        self,
        store: Store,
        vectors: VectorSearch,
        embedder: Embedder,
        mode: SearchMode = "hybrid",
        reranker: Reranker | None = None,
    ):
        self.store = store
        self.vectors = vectors
        self.embedder = embedder
        self.mode = mode
        self.reranker = reranker
        self.names = named.SectionNames(store)
        self.documents = DocumentMatch(store)

    def search(self, query: str, top_k: int, doc_ids: list[int] | None) -> Found:
        depth = max(4 * top_k, 40)
        rankings: list[list[int]] = []
        waiting: set[int] = set()
        # The documents the question names (`indexer.search.documents`) are searched on their own too.
        pointed = self.documents.pointed(query, doc_ids) if doc_ids is None or len(doc_ids) > 1 else []
        if self.mode in ("hybrid", "dense"):
            rankings.append(self.dense(query, depth, doc_ids))
            if pointed:
                rankings.append(self.dense(query, depth, pointed))
            waiting = {d.doc_id for d in self.store.awaiting_vectors()}
        lexical: list[int] | None = None
        if self.mode in ("hybrid", "lexical"):
            lexical = self._lexical(query, depth, doc_ids)
            rankings.append(lexical)
            if pointed:
                rankings.append(self._lexical(query, depth, pointed))
        fused = rrf_fuse(rankings)
        across = self.mode == "hybrid" and (doc_ids is None or len(doc_ids) > 1)  # several documents
        if across and (near := self._near(query, [r.paragraph_id for r in fused])):
            # the paragraphs that say the question's words together, fused with the others
            fused = rrf_fuse([*rankings, near], [1.0] * len(rankings) + [NEAR_WEIGHT])
        fused = self._with_led_tables(fused)
        if self.mode == "hybrid" and waiting and lexical:
            fused = self._stand_in_for_missing_vectors(fused, lexical, waiting)
        fused = self.arrange(fused, lexical if self.mode == "hybrid" else None, top_k, set(pointed))
        # A section the question names, in the documents it is scoped to, or else names too.
        scope = doc_ids if doc_ids is not None and len(doc_ids) <= NAMED_DOCS else pointed or doc_ids
        if exact := self._exact_codes(query, doc_ids) if self.mode != "dense" else []:
            placed = set(exact)
            fused = [Ranked(pid, fused[0].score if fused else 1.0) for pid in exact] + [
                r for r in fused if r.paragraph_id not in placed
            ]
        if named := self._named(query, scope, fused)[:top_k]:  # its substance first, then the lines that label it
            placed = set(named)
            fused = [Ranked(pid, fused[0].score if fused else 1.0) for pid in named] + [
                r for r in fused if r.paragraph_id not in placed
            ]
        if self.reranker is not None:
            fused = self.rerank(query, fused[: max(top_k, DEFAULT_DEPTH)])
        absent = [name for name in names_written(query) if not self.store.keywords.holds_word(name, doc_ids)]
        return Found(fused[:top_k], None if lexical is None else bool(lexical), waiting, absent)

    def _near(self, query: str, candidates: list[int]) -> list[int]:
        """The candidates ranked by how many pairs of the question's adjacent words they hold close
        together, either order (`Keywords.near`): "We are China's largest cloud provider" says what
        "How many data centers does China's largest cloud provider have?" asks about, a survey that
        names China in every line does not. Only a paragraph holding NEAR_WORDS of the question's
        words counts: one holding two, said together ("Every crew member reads this part"), shares
        the question's subject, not what it asks. The others are left out; ties keep the fused order."""
        counts = self.store.keywords.near(query_pairs(query), candidates, NEAR_GAP, NEAR_WORDS)
        return sorted((pid for pid in candidates if pid in counts), key=lambda pid: -counts[pid])

    def _lexical(self, query: str, depth: int, doc_ids: list[int] | None) -> list[int]:
        """BM25's ranking. A paragraph that matched only words found everywhere ("sku" in every
        block of a table) is no lexical evidence beside one that matched a rare code: it is left out."""
        scored = self.store.keywords.search(query, depth, doc_ids)
        return [pid for pid, score in scored if score >= LEXICAL_FLOOR * scored[0][1]]

    def _exact_codes(self, query: str, doc_ids: list[int] | None) -> list[int]:
        """The paragraphs holding a code the query writes exactly ("INV-2024-00417"), first: a
        neighbour that shares its pieces ("INV-2024-00471") reads alike to dense search and shares
        most of its words with BM25, but is another invoice. Only a code few paragraphs of the index
        hold counts ("10-K" in every filing of a folder names none of them)."""
        exact: list[int] = []
        for code in codes(query):
            if not 0 < self.store.keywords.row_counts([code])[code] <= CODE_ROWS:
                continue
            found = [pid for pid, _ in self.store.keywords.search(code, CODE_HITS, doc_ids)]
            exact += [pid for pid in found if pid not in exact]
        return exact

    def _named(self, query: str, doc_ids: list[int] | None, fused: list[Ranked]) -> list[int]:
        """The opening of the section a scoped query names (`indexer.search.named`): a host that asks a
        document for a section by its name gets it first, whatever else talks about it. A question
        written as a sentence that names financial statements ("… using the income statement.") gets
        those of the document its best hit is in, in the order it names them."""
        if doc_ids is None or len(doc_ids) > NAMED_DOCS:
            return []
        if key := self.names.section_named(query, doc_ids):
            return named.opening(self.store, key)
        if not SENTENCE_END.search(query):  # only a question written as a sentence names statements
            return []
        rows = self.store.paragraphs_by_id([r.paragraph_id for r in fused[:NAMED_DOCS]])
        lead = next(
            (
                rows[r.paragraph_id].doc_id
                for r in fused[:NAMED_DOCS]
                if r.paragraph_id in rows and rows[r.paragraph_id].doc_id in doc_ids
            ),
            doc_ids[0],
        )
        return [pid for key in self.names.statements_named(query, [lead]) for pid in named.opening(self.store, key)]

    def _stand_in_for_missing_vectors(self, fused: list[Ranked], lexical: list[int], waiting: set[int]) -> list[Ranked]:
        """A document whose vectors are still being computed cannot rank in dense search, so
        its paragraphs would lose every tie to documents that can: until they are in, a
        paragraph's BM25 rank stands in for the dense rank it cannot have yet."""
        rows = self.store.paragraphs_by_id(lexical)
        bonus = {
            pid: 1.0 / (RRF_K + rank)
            for rank, pid in enumerate(lexical, start=1)
            if pid in rows and rows[pid].doc_id in waiting
        }
        if not bonus:
            return fused
        rescored = [Ranked(r.paragraph_id, r.score + bonus.get(r.paragraph_id, 0.0)) for r in fused]
        return sorted(rescored, key=lambda r: -r.score)

    def arrange(
        self,
        ranked: list[Ranked],
        lexical: list[int] | None = None,
        top_k: int | None = None,
        pointed: frozenset[int] | set[int] = frozenset(),
    ) -> list[Ranked]:
        """The fused ranking made fit to read (`lexical`: what BM25 matched; `top_k`: the hits asked
        for; `pointed`: the documents the question names):

        - a hit whose text repeats a better hit of the same document goes (a chart's source line
          or a disclaimer printed on every page would fill the top k with copies);
        - a paragraph found only by dense search that is one of a crowd of near-duplicates (three
          or more candidates alike but for their numbers) follows every one BM25 matched, and
          junk (`indexer.parse.junk`) follows every paragraph of real text BM25 matched: a flood of
          look-alikes or of noise cannot push out an exact match, and a word only the noise
          holds still finds it;
        - over more than one document, no document takes more than half of the top k (rounded
          up) while another has a candidate: its further hits follow the others' best ones; a
          document the question names is not held back so.
        """
        rows = self.store.paragraphs_by_id([r.paragraph_id for r in ranked])
        seen: set[tuple[int, str]] = set()
        kept: list[Ranked] = []
        shapes: dict[int, str] = {}
        for r in ranked:
            row = rows.get(r.paragraph_id)
            if row is None:  # replaced meanwhile; the caller skips it too
                kept.append(r)
                continue
            text = " ".join(row.text.lower().split())
            key = (row.doc_id, text)
            if key not in seen:
                seen.add(key)
                shapes[r.paragraph_id] = _DIGITS.sub("#", text[:200])
                kept.append(r)
        crowds = Counter(shapes.values())
        matched = set(lexical or ())
        position = {r.paragraph_id: i for i, r in enumerate(kept)}
        junk = [r for r in kept if r.paragraph_id in rows and rows[r.paragraph_id].junk]
        real = [r for r in kept if not (r.paragraph_id in rows and rows[r.paragraph_id].junk)]
        crowded = [
            r
            for r in real
            if lexical is not None and r.paragraph_id not in matched and crowds[shapes.get(r.paragraph_id, "")] >= CROWD
        ]
        if crowded:  # after every paragraph BM25 matched, in their order
            crowd_ids = {r.paragraph_id for r in crowded}
            real = [r for r in real if r.paragraph_id not in crowd_ids] + crowded
        # Junk goes after the last real paragraph BM25 matched; below that it keeps its place.
        last = max((i for i, r in enumerate(real) if r.paragraph_id in matched), default=-1)
        tail = sorted(real[last + 1 :] + junk, key=lambda r: position[r.paragraph_id])
        ordered = real[: last + 1] + tail
        docs = {rows[r.paragraph_id].doc_id for r in ordered if r.paragraph_id in rows}
        if top_k is None or len(docs) < 2:
            return ordered
        cap = -(-top_k // 2)
        first: list[Ranked] = []
        later: list[Ranked] = []
        taken: Counter[int] = Counter()
        for r in ordered:
            doc = rows[r.paragraph_id].doc_id if r.paragraph_id in rows else -1
            (first if taken[doc] < cap or doc in pointed else later).append(r)
            taken[doc] += 1
        return first + later

    def rerank(self, query: str, candidates: list[Ranked]) -> list[Ranked]:
        """Reorder by the cross-encoder's score; the score replaces the fused one."""
        assert self.reranker is not None
        rows = self.store.paragraphs_by_id([c.paragraph_id for c in candidates])
        present = [c.paragraph_id for c in candidates if c.paragraph_id in rows]
        scores = self.reranker.scores(query, [rows[pid].text for pid in present])
        return sorted((Ranked(pid, s) for pid, s in zip(present, scores, strict=True)), key=lambda r: -r.score)

    def dense(self, query: str, depth: int, doc_ids: list[int] | None) -> list[int]:
        """Paragraph ids by the similarity of their passage's vector (`indexer.structure.passages`);
        vectors of replaced versions are skipped.

        A passage's rank reaches its paragraphs in the order of their own vectors' similarity
        (each pooled from the passage's pass, so read in its context; `Embedder.embed_passages`;
        one the model did not read comes last),
        or where a passage has none yet, in the order they match the query's words (BM25; reading
        order where none does): its best comes at its rank, its second after the best of the next
        SECOND_LAG passages, the rest of every passage after all passages' first two, so the top of
        the ranking covers many passages and still holds the paragraph a passage's match is about."""
        embedding = self.embedder.embed([query])[0]
        # Over-fetch: some vectors may belong to a version being replaced right now.
        hits = self.vectors.query(embedding, depth + 10, doc_ids)
        current = self.store.paragraph_ids_for_vectors([vid for vid, _ in hits])
        passages = [(vid, sorted(current[vid])) for vid, _ in hits if vid in current]  # ids in reading order
        shared = [vid for vid, members in passages if len(members) > 1]
        own = {
            vid: m
            for vid, m in self.vectors.member_vectors(shared, len(embedding)).items()
            if len(m) == len(current[vid])
        }
        words = [pid for vid in shared if vid not in own for pid in current[vid]]
        scores = self.store.keywords.scores(query, words) if words else {}
        ordered = [
            [members[k] for k in np.argsort(-(own[vid] @ embedding), kind="stable")]
            if vid in own
            else sorted(members, key=lambda pid: -scores.get(pid, 0.0))  # stable
            for vid, members in passages
        ]
        up_front: list[int] = []
        for i, members in enumerate(ordered):
            up_front += members[:1] + (ordered[i - SECOND_LAG][1:2] if i >= SECOND_LAG else [])
        up_front += [pid for members in ordered[max(len(ordered) - SECOND_LAG, 0) :] for pid in members[1:2]]
        rest = [pid for members in ordered for pid in members[2:]]
        led = self._with_led_tables([Ranked(pid, 0.0) for pid in up_front + rest])
        return [r.paragraph_id for r in led][:depth]

    def _with_led_tables(self, ranked: list[Ranked]) -> list[Ranked]:
        """Each short line that leads a table comes with its table right after it (`_tables_led`)."""
        led = self._tables_led([r.paragraph_id for r in ranked])
        if not led:
            return ranked
        out: list[Ranked] = []
        placed: set[int] = set()
        for r in ranked:
            if r.paragraph_id in placed:
                continue
            out.append(r)
            placed.add(r.paragraph_id)
            table = led.get(r.paragraph_id)
            if table is not None and table not in placed:
                out.append(Ranked(table, r.score))
                placed.add(table)
        return out

    def _tables_led(self, ids: list[int]) -> dict[int, int]:
        """Short lines that lead a table ("Consolidated Balance Sheets", "(In millions)"), each with
        the table right after it (or the picture of one: a statement scanned into a PDF is a figure
        with the words read from it): a line found by meaning is found for its table, which follows it.
        (Such a line is a passage of its own, read with its headings: it is what a query naming
        the table meets; measured in benchmarks/results/statements.md.)"""
        rows = self.store.paragraphs_by_id(
            [*ids, *(pid + 1 for pid in ids)]
        )  # a section's paragraphs are stored in order
        led: dict[int, int] = {}
        for pid in ids:
            line, table = rows.get(pid), rows.get(pid + 1)
            if (
                line is not None
                and table is not None
                and line.kind == "text"
                and line.n_tokens <= named.LEAD_TOKENS
                and table.kind in ("table", "figure")
                and (table.doc_id, table.sec_id, table.para_idx) == (line.doc_id, line.sec_id, line.para_idx + 1)
            ):
                led[pid] = pid + 1
        return led

"""Retrieval quality of deepread on the benchmark sets with questions, against a flat-chunk baseline.

Sets: FinanceBench and MMLongBench (PDFs parsed by MinerU; gold = evidence
pages), QASPER and SyllabusQA (text; gold = evidence paragraphs / answer
spans). For every question, one `retrieve(top_k=10)` call per configuration
and scope (the question's own document; for the text sets also the whole
collection); hit@k, section-hit@k and (QASPER) evidence recall@k for
k = 1, 3, 5, 10 are computed from that single ranked list. Configurations:
hybrid / dense / lexical search over an index embedded with heading context,
the same with a ±1 neighbour window, hybrid / dense over an index embedded
without it, and a flat-chunk baseline (fixed word windows of the file's text,
same model, cosine ranking in numpy). Metric definitions: ../shared/bench/README.md.

    python -m benchmarks.retrieval [--sets financebench,mmlongbench,qasper,syllabusqa] [--limit N]
                                   [--bench PATH] [--out DIR] [--work DIR]
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import hashlib
import json
import logging
import math
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
import pypdfium2

from indexer.store.embedder import Embedder
from indexer.library import Library, LibraryConfig
from indexer.search.rerank import Reranker
from indexer.search.hybrid import SearchMode
from indexer.store.database import ParagraphRow

HERE = Path(__file__).resolve().parent
DEFAULT_BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"
DEFAULT_OUT = HERE / "results"
MODELS_DIR = Path("/tmp/dr-models")

KS = (1, 3, 5, 10)
TOP_K = max(KS)
MIN_RECALL = 0.8  # a unit "contains" a gold span when it holds ≥ 80% of the span's tokens
CHUNK_WORDS = 600  # ≈ 800 tokens of indexer.tokens.count_tokens on English prose
CHUNK_STEP = 300  # 300 words of overlap ≈ 400 tokens
SCOPES = ("single", "collection")
ALL = "all questions"
BASELINE = "flat chunks 800/400"
WORDS = "words@5"  # mean words of text in the top 5: how much a reader gets for hit@5

_WORD_RE = re.compile(r"\w+")


# --- fuzzy matching ----------------------------------------------------------------------


def bag(text: str) -> Counter[str]:
    """Lower-cased word tokens as a multiset."""
    return Counter(_WORD_RE.findall(text.lower()))


def covers(unit: Counter[str], gold: Counter[str]) -> bool:
    """True when `unit` holds at least MIN_RECALL of `gold`'s tokens (multiset recall)."""
    total = sum(gold.values())
    found = sum(min(n, unit.get(token, 0)) for token, n in gold.items())
    return total > 0 and found >= MIN_RECALL * total


# --- data sets -----------------------------------------------------------------------------


@dataclass
class Question:
    qid: str
    doc: str  # file name inside the corpus folder
    text: str
    golds: list[Counter[str]]  # token bags of the gold spans (SyllabusQA) or evidence paragraphs (QASPER)
    pages: frozenset[int] = frozenset()  # gold evidence pages, 1-based (FinanceBench, MMLongBench)
    subsets: tuple[str, ...] = ()  # extra tables this question is counted in (e.g. text evidence)


@dataclass
class Corpus:
    name: str
    folder: Path
    questions: list[Question]
    available: int  # usable questions before --limit
    with_recall: bool  # report evidence recall@k (QASPER)
    paged: bool = False  # gold = pages: match units by page, the baseline reads the PDF text layer
    scopes: tuple[str, ...] = SCOPES


def clean(text: str) -> str:
    return " ".join(text.split())


def qasper_markdown(paper: dict) -> str:
    """One QASPER paper as Markdown: `#` title, abstract, `A ::: B` sections as nested headings.

    A heading missing from the source (`A ::: B` without a preceding `A`) is
    written once so the tree keeps its shape; a section with an empty name
    gets no heading (its paragraphs continue the previous section).
    """
    out = [f"# {clean(paper['title'])}", clean(paper["abstract"])]
    open_path: list[str] = []
    full_text = paper["full_text"]
    for name, paragraphs in zip(full_text["section_name"], full_text["paragraphs"], strict=True):
        parts = [part.strip() for part in (name or "").split(":::")]
        if parts[-1]:
            common = 0
            while common < min(len(parts), len(open_path)) and parts[common] == open_path[common]:
                common += 1
            out.extend("#" * (depth + 2) + " " + parts[depth] for depth in range(common, len(parts)) if parts[depth])
            open_path = parts
        out.extend(p for p in map(clean, paragraphs) if p)
    return "\n\n".join(part for part in out if part) + "\n"


def qasper_evidence(annotations: list[dict]) -> list[str]:
    """Distinct gold evidence paragraphs over all annotators (figures/tables and empties dropped)."""
    seen: dict[str, None] = {}
    for annotation in annotations:
        for evidence in annotation["evidence"]:
            text = clean(evidence)
            if text and not text.startswith("FLOAT SELECTED"):
                seen.setdefault(text, None)
    return list(seen)


def load_qasper(bench: Path, workdir: Path) -> Corpus:
    """Write each paper as `<id>.md` under `workdir`; questions with usable evidence."""
    folder = workdir / "qasper-md"
    folder.mkdir(parents=True, exist_ok=True)
    questions: list[Question] = []
    for line in (bench / "qasper" / "qasper_train_sample10_hf_format.jsonl").read_text().splitlines():
        paper = json.loads(line)
        doc = f"{paper['id']}.md"
        (folder / doc).write_text(qasper_markdown(paper), encoding="utf-8")
        qas = paper["qas"]
        for qid, text, answers in zip(qas["question_id"], qas["question"], qas["answers"], strict=True):
            golds = [b for b in map(bag, qasper_evidence(answers["answer"])) if b]
            if golds:
                questions.append(Question(qid, doc, text, golds))
    return Corpus("QASPER", folder, questions, len(questions), with_recall=True)


def load_syllabusqa(bench: Path) -> Corpus:
    """The syllabi as plain text (indexed in place, read-only); questions with at least one span."""
    root = bench / "syllabusqa"
    questions: list[Question] = []
    for item in json.loads((root / "questions_val.json").read_text()):
        spans = [item.get(f"answer_span_{i}") or "" for i in range(1, 6)]
        golds = [b for b in map(bag, spans) if b]
        if golds:
            questions.append(Question(item["id"], f"{item['syllabus_name']}.txt", item["question"], golds))
    return Corpus("SyllabusQA", root / "syllabi" / "text", questions, len(questions), with_recall=False)


def load_financebench(bench: Path) -> Corpus:
    """SEC filings as PDF; gold = the evidence pages (0-based in the source)."""
    root = bench / "financebench"
    questions: list[Question] = []
    for line in (root / "questions.jsonl").read_text().splitlines():
        item = json.loads(line)
        evidence = ast.literal_eval(item["evidence"]) if isinstance(item["evidence"], str) else item["evidence"]
        pages = frozenset(int(e["evidence_page_num"]) + 1 for e in evidence)
        if pages:
            questions.append(Question(item["financebench_id"], f"{item['doc_name']}.pdf", item["question"], [], pages))
    return Corpus("FinanceBench", root / "pdfs", questions, len(questions), False, paged=True, scopes=("single",))


TEXT_EVIDENCE = "text-evidence questions"


def load_mmlongbench(bench: Path) -> Corpus:
    """Long PDFs; gold = the evidence pages (1-based); unanswerable questions (no pages) are skipped.

    Questions whose evidence includes plain text are also reported on their own:
    charts and figures are out of reach of any text index.
    """
    root = bench / "mmlongbench"
    questions: list[Question] = []
    for n, item in enumerate(json.loads((root / "questions.json").read_text())):
        pages = frozenset(int(p) for p in ast.literal_eval(item["evidence_pages"] or "[]"))
        if pages:
            subsets = (TEXT_EVIDENCE,) if "Pure-text" in item["evidence_sources"] else ()
            questions.append(Question(f"mmlb-{n}", item["doc_id"], item["question"], [], pages, subsets))
    return Corpus("MMLongBench", root / "pdfs", questions, len(questions), False, paged=True, scopes=("single",))


def spread(items: Sequence[Question], limit: int | None) -> list[Question]:
    """At most `limit` items, evenly spaced (deterministic)."""
    if not limit or len(items) <= limit:
        return list(items)
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


# --- rankers -------------------------------------------------------------------------------


@dataclass
class Unit:
    """One ranked result: its own tokens and pages, and those of the section it lies in."""

    tokens: Counter[str]
    section: Counter[str]
    words: int  # whitespace words of the unit's text
    pages: frozenset[int] = frozenset()
    section_pages: frozenset[int] = frozenset()  # the section's page span (first to last page)


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
        self.doc_ids = {d.relpath: d.doc_id for d in lib.store.documents() if d.n_paras > 0}
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
            units.append(Unit(bag(text), section, len(text.split()), pages, span))
        return units, elapsed

    def passage(self, doc_id: int, sec_id: int, para_idx: int) -> list[ParagraphRow]:
        """What is read for one hit: the hit, its window, or the section around it up to `read_tokens`."""
        if not self.read_tokens:
            return self.lib.store.paragraphs(doc_id, sec_id, para_idx - self.window, para_idx + self.window)
        rows = self.lib.store.paragraphs(doc_id, sec_id, 0, 10**6)
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
            rows = self.lib.store.paragraphs(doc_id, sec_id, 0, 10**6)
            pages = [page for r in rows for page in row_pages(r)]
            span = frozenset(range(min(pages), max(pages) + 1)) if pages else frozenset()
            self._sections[key] = (bag("\n".join(r.text for r in rows)), span)
        return self._sections[key]

    def units_of(self, doc: str) -> Iterable[Unit]:
        doc_id = self.doc_ids.get(doc)
        if doc_id is None:
            return
        for section in self.lib.store.sections(doc_id):
            tokens, span = self.section(doc_id, section.sec_id)
            for row in self.lib.store.paragraphs(doc_id, section.sec_id, 0, 10**6):
                pages = frozenset(row_pages(row))
                yield Unit(bag(row.text), tokens, len(row.text.split()), pages, span)


def row_pages(row: ParagraphRow) -> range:
    """Every page a paragraph runs on (a table continued over a page break has several)."""
    if row.page is None:
        return range(0)
    return range(row.page, (row.page_end or row.page) + 1)


Page = tuple[int | None, str]  # (1-based page or None for text files, text)


def word_windows(pages: list[Page], size: int = CHUNK_WORDS, step: int = CHUNK_STEP) -> list[tuple[str, frozenset[int]]]:
    """Overlapping windows of whitespace words with the pages they span; the last one ends at the text's end."""
    words = [(word, page) for page, text in pages for word in text.split()]
    if not words:
        return []
    starts = [0] if len(words) <= size else list(range(0, len(words) - size, step)) + [len(words) - size]
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
        return Unit(self.bags[i], self.bags[i], len(self.texts[i].split()), self.pages[i], self.pages[i])

    def units_of(self, doc: str) -> Iterable[Unit]:
        return (self.unit(i) for i in np.flatnonzero(self.docs == doc))


# --- scoring -------------------------------------------------------------------------------


@dataclass
class Outcome:
    """First rank (1-based) at which each gold is found, by unit and by section; None = not in top k."""

    unit: list[int | None]
    section: list[int | None]
    words: list[int]  # words of the unit at each rank


def finders(q: Question) -> tuple[list[Callable[[Unit], bool]], list[Callable[[Unit], bool]]]:
    """For each gold: does a unit hold it, does the unit's section hold it (by page or by tokens)."""
    if q.pages:
        pages = sorted(q.pages)
        return (
            [lambda u, p=p: p in u.pages for p in pages],
            [lambda u, p=p: p in u.section_pages for p in pages],
        )
    return (
        [lambda u, g=g: covers(u.tokens, g) for g in q.golds],
        [lambda u, g=g: covers(u.section, g) for g in q.golds],
    )


def first_ranks(q: Question, units: list[Unit]) -> Outcome:
    def first(found: list[Callable[[Unit], bool]]) -> list[int | None]:
        return [next((rank for rank, u in enumerate(units, start=1) if f(u)), None) for f in found]

    in_unit, in_section = finders(q)
    return Outcome(first(in_unit), first(in_section), [u.words for u in units])


def within(rank: int | None, k: int) -> bool:
    return rank is not None and rank <= k


def summarize(outcomes: list[Outcome], with_recall: bool) -> dict[str, float]:
    """Mean hit@k, section-hit@k (and recall@k) over questions, as fractions."""
    scores: dict[str, float] = {}
    if not outcomes:
        return scores
    for k in KS:
        scores[f"hit@{k}"] = statistics.fmean(any(within(r, k) for r in o.unit) for o in outcomes)
    for k in KS:
        scores[f"sec@{k}"] = statistics.fmean(any(within(r, k) for r in o.section) for o in outcomes)
    if with_recall:
        for k in KS:
            scores[f"recall@{k}"] = statistics.fmean(
                statistics.fmean(within(r, k) for r in o.unit) for o in outcomes
            )
    scores[WORDS] = statistics.fmean(sum(o.words[:5]) for o in outcomes)
    return scores


@dataclass
class EqualReading:
    """Locate-then-read given, question by question, the words the baseline's top 5 chunks hold."""

    baseline_hit5: float
    baseline_words: float
    read_hit5: float
    read_words: float
    hit: float  # gold in the passages read within the baseline's words
    words: float  # mean words read within that budget
    passages: float  # mean passages read within that budget


def equal_reading(reader: list[Outcome], baseline: list[Outcome]) -> EqualReading:
    """Ranked passages are read in order while their words fit the baseline's words@5 (at least one)."""
    hits: list[bool] = []
    words: list[int] = []
    passages: list[int] = []
    for ours, base in zip(reader, baseline, strict=True):
        budget, used, n = sum(base.words[:5]), 0, 0
        for w in ours.words:
            if n and used + w > budget:
                break
            used, n = used + w, n + 1
        hits.append(any(within(r, n) for r in ours.unit))
        words.append(used)
        passages.append(n)
    summary = summarize(reader, False), summarize(baseline, False)
    return EqualReading(
        baseline_hit5=summary[1]["hit@5"], baseline_words=summary[1][WORDS],
        read_hit5=summary[0]["hit@5"], read_words=summary[0][WORDS],
        hit=statistics.fmean(hits), words=statistics.fmean(words), passages=statistics.fmean(passages),
    )


@dataclass
class Reach:
    """What the segmentation alone allows, single-document scope."""

    ceiling: float  # share of questions for which some unit of the document contains a gold
    random_hit5: float  # expected hit@5 of five units drawn at random from the document


def reach(ranker: Ranker, questions: list[Question]) -> Reach:
    by_doc: dict[str, list[Unit]] = {}
    reachable: list[bool] = []
    chance: list[float] = []
    for q in questions:
        units = by_doc.setdefault(q.doc, list(ranker.units_of(q.doc)))
        in_unit, _ = finders(q)
        matching = sum(any(f(u) for f in in_unit) for u in units)
        reachable.append(matching > 0)
        draws = min(5, len(units))
        chance.append(1 - math.comb(len(units) - matching, draws) / math.comb(len(units), draws) if units else 0.0)
    return Reach(statistics.fmean(reachable), statistics.fmean(chance)) if questions else Reach(0.0, 0.0)


# --- running -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    name: str
    heading_context: bool
    mode: SearchMode
    window: int = 0  # neighbours read on each side of a hit
    read_tokens: int = 0  # read each hit's section (or the part around the hit) up to this many tokens


READ_TOKENS = 800  # the baseline's chunk size: equal reading per result
READ_CONFIG = f"hybrid + heading ctx, read section ≤{READ_TOKENS} tokens"

LIBRARY_CONFIGS = (
    Config("hybrid + heading ctx", True, "hybrid"),
    Config(READ_CONFIG, True, "hybrid", read_tokens=READ_TOKENS),
    Config("hybrid + heading ctx, window ±1", True, "hybrid", window=1),
    Config("dense + heading ctx", True, "dense"),
    Config("lexical (BM25)", True, "lexical"),
    Config("hybrid, no ctx", False, "hybrid"),
    Config("dense, no ctx", False, "dense"),
)


@dataclass
class Run:
    """Scores and latencies of one configuration on one scope and question subset."""

    config: str
    scope: str
    subset: str
    scores: dict[str, float]
    latencies_ms: list[float]
    outcomes: list[Outcome] = field(default_factory=list, repr=False)  # per question of the subset


@dataclass
class IndexSpeed:
    name: str
    seconds: float
    units: int
    unit_name: str = "paragraphs"
    pages: int = 0
    embedded: int | None = None  # units embedded in this run (the rest came from a kept index or cache)


@dataclass
class StructureStats:
    documents: int
    failed: dict[str, str]  # relpath → reason
    sections: int
    paragraphs: int
    pages: int
    tokens_median: float
    tokens_p95: float
    tokens_max: int
    short_share: float  # paragraphs under 8 tokens
    flat_docs: set[str]  # documents (relpaths) with no section besides the root


@dataclass
class CorpusReport:
    corpus: Corpus
    runs: list[Run] = field(default_factory=list)
    speeds: list[IndexSpeed] = field(default_factory=list)
    structure: StructureStats | None = None
    reach: dict[str, Reach] = field(default_factory=dict)
    chunks: int = 0


def subsets(corpus: Corpus) -> dict[str, list[int]]:
    """Question indices per reported subset: all questions, then each tagged subset."""
    groups: dict[str, list[int]] = {ALL: list(range(len(corpus.questions)))}
    for i, q in enumerate(corpus.questions):
        for name in q.subsets:
            groups.setdefault(name, []).append(i)
    return groups


def evaluate(ranker: Ranker, corpus: Corpus, config: str) -> list[Run]:
    runs: list[Run] = []
    for scope in corpus.scopes:
        outcomes: list[Outcome] = []
        latencies: list[float] = []
        for q in corpus.questions:
            units, seconds = ranker.rank(q.text, q.doc if scope == "single" else None)
            outcomes.append(first_ranks(q, units))
            latencies.append(seconds * 1000)
        for subset, members in subsets(corpus).items():
            chosen = [outcomes[i] for i in members]
            runs.append(Run(config, scope, subset, summarize(chosen, corpus.with_recall), latencies, chosen))
        log(f"  {corpus.name} {config} [{scope}]: hit@5 {runs[-1].scores['hit@5']:.3f} ({runs[-1].subset})")
    return runs


def structure_stats(lib: Library) -> StructureStats:
    docs = lib.store.documents()
    ready = [d for d in docs if d.n_paras > 0]
    lengths: list[int] = []
    sections = pages = 0
    flat: set[str] = set()
    for d in ready:
        rows = lib.store.sections(d.doc_id)
        sections += len(rows)
        pages += d.n_pages or 0
        if len(rows) <= 1:
            flat.add(d.relpath)
        for s in rows:
            lengths.extend(p.n_tokens for p in lib.store.paragraphs(d.doc_id, s.sec_id, 0, 10**6))
    lengths.sort()
    return StructureStats(
        documents=len(ready),
        failed={d.relpath: d.reason or "" for d in docs if d.status == "failed"},
        sections=sections,
        paragraphs=len(lengths),
        pages=pages,
        tokens_median=statistics.median(lengths) if lengths else 0,
        tokens_p95=lengths[int(0.95 * (len(lengths) - 1))] if lengths else 0,
        tokens_max=lengths[-1] if lengths else 0,
        short_share=sum(n < 8 for n in lengths) / len(lengths) if lengths else 0.0,
        flat_docs=flat,
    )


def run_library(
    corpus: Corpus, work: Path, report: CorpusReport, ablate_context: bool, reranker: Reranker | None
) -> None:
    """Index (with and without heading context) and evaluate every library configuration.

    An index kept in `work` from an earlier run is brought up to date: every file
    is parsed again (MinerU results come from the shared parse cache) and only
    paragraphs whose embedded text changed are embedded again.
    """
    for context in (True, False) if ablate_context else (True,):
        data_dir = work / f"{corpus.name.lower()}-ctx{int(context)}"
        config = LibraryConfig(
            roots=[corpus.folder], data_dir=data_dir, models_dir=MODELS_DIR,
            heading_context=context, search_mode="hybrid", token_budget=100_000,
            parse_cache_dir=work / "parse-cache", parse_timeout_s=1800,
        )
        with Library(config) as lib:
            lib.store.forget_file_facts()
            start = time.perf_counter()
            done = lib.reconcile()
            seconds = time.perf_counter() - start
            stats = structure_stats(lib)
            label = "heading ctx" if context else "no ctx"
            report.speeds.append(
                IndexSpeed(f"library index, {label}", seconds, stats.paragraphs, pages=stats.pages, embedded=done.embedded)
            )
            log(f"  {corpus.name}: indexed {stats.paragraphs} paragraphs ({label}) in {seconds:.1f}s")
            if context:
                report.structure = stats
            ranker = LibraryRanker(lib)
            missing = {q.doc for q in corpus.questions} - set(ranker.doc_ids) - set(stats.failed)
            if missing:
                raise SystemExit(f"{corpus.name}: documents not indexed: {sorted(missing)}")
            if context:
                report.reach["library paragraphs"] = reach(ranker, corpus.questions)
            for cfg in LIBRARY_CONFIGS:
                if cfg.heading_context == context:
                    lib.use_search(cfg.mode)
                    report.runs.extend(evaluate(LibraryRanker(lib, cfg.window, cfg.read_tokens), corpus, cfg.name))
            if context and reranker is not None:
                lib.use_search("hybrid", reranker)
                report.runs.extend(evaluate(LibraryRanker(lib), corpus, f"hybrid + heading ctx + {reranker.name}"))


def run_baseline(corpus: Corpus, embedder: Embedder, work: Path, report: CorpusReport) -> None:
    files = {p.relative_to(corpus.folder).as_posix(): p for p in sorted(corpus.folder.rglob("*")) if p.is_file()}
    ranker = ChunkRanker(embedder, files, work / "baseline")
    report.chunks = len(ranker.texts)
    report.speeds.append(
        IndexSpeed(BASELINE, ranker.embed_seconds, len(ranker.texts), "chunks", embedded=ranker.embedded)
    )
    log(f"  {corpus.name}: embedded {len(ranker.texts)} chunks in {ranker.embed_seconds:.1f}s")
    report.reach[BASELINE] = reach(ranker, corpus.questions)
    report.runs.extend(evaluate(ranker, corpus, BASELINE))


def run_corpus(
    corpus: Corpus, work: Path, embedder: Embedder, ablate_context: bool, reranker: Reranker | None
) -> CorpusReport:
    report = CorpusReport(corpus)
    log(f"{corpus.name}: {len(corpus.questions)} of {corpus.available} questions")
    run_library(corpus, work, report, ablate_context, reranker)
    run_baseline(corpus, embedder, work, report)
    return report


# --- reporting -----------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else 0.0


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    rule = "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"
    lines = ["| " + " | ".join(header) + " |", rule]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return "\n".join(lines)


def quality_tables(report: CorpusReport) -> str:
    metrics = [f"hit@{k}" for k in KS] + [f"sec@{k}" for k in KS]
    if report.corpus.with_recall:
        metrics += [f"recall@{k}" for k in KS]
    parts: list[str] = []
    for scope in report.corpus.scopes:
        title = "single document (scoped to the question's document)" if scope == "single" else "whole collection"
        for subset, members in subsets(report.corpus).items():
            rows = [
                [r.config, *(f"{100 * r.scores[m]:.1f}" for m in metrics), f"{r.scores[WORDS]:.0f}"]
                for r in report.runs
                if r.scope == scope and r.subset == subset
            ]
            header = ["configuration", *metrics, WORDS]
            heading = f"#### {report.corpus.name} — {title}, {subset} ({len(members)})"
            parts.append(heading + "\n\n" + markdown_table(header, rows))
    return "\n\n".join(parts)


def equal_readings(report: CorpusReport) -> list[tuple[Run, EqualReading]]:
    """The read configuration against the baseline at equal words, per scope and subset."""
    pairs = []
    for run in report.runs:
        if run.config != READ_CONFIG:
            continue
        base = next(r for r in report.runs if r.config == BASELINE and r.scope == run.scope and r.subset == run.subset)
        pairs.append((run, equal_reading(run.outcomes, base.outcomes)))
    return pairs


def equal_reading_table(report: CorpusReport) -> str:
    rows = [
        [
            f"{run.scope}, {run.subset} ({len(run.outcomes)})",
            f"{100 * e.baseline_hit5:.1f}", f"{e.baseline_words:.0f}",
            f"{100 * e.read_hit5:.1f}", f"{e.read_words:.0f}",
            f"**{100 * e.hit:.1f}**", f"{e.words:.0f}", f"{e.passages:.1f}",
        ]
        for run, e in equal_readings(report)
    ]
    header = [
        "scope, questions", "flat chunks hit@5", "words", "read hit@5", "words",
        "read, baseline's words: hit", "words", "passages",
    ]
    return (
        f"#### {report.corpus.name} — equal reading\n\n"
        f"`read` is `{READ_CONFIG}`. Last three columns: for each question, its passages are read in rank "
        "order while they fit in the words of the baseline's top 5 chunks for that question.\n\n"
        + markdown_table(header, rows)
    )


def speed_table(report: CorpusReport) -> str:
    index_rows = [
        [
            s.name, f"{s.seconds:.1f}", f"{s.units} {s.unit_name}", str(s.embedded),
            f"{s.embedded / s.seconds:.1f}" if s.embedded and s.seconds else "–",
            f"{s.pages / s.seconds:.1f}" if s.pages and s.seconds and s.embedded == s.units else "–",
        ]
        for s in report.speeds
    ]
    header = ["index", "seconds", "size", "embedded now", "embedded/s", "pages/s (all embedded now)"]
    index = markdown_table(header, index_rows)
    latency_rows = []
    scopes = report.corpus.scopes
    for config in dict.fromkeys(r.config for r in report.runs):
        cells = [config]
        for scope in scopes:
            run = next(r for r in report.runs if r.config == config and r.scope == scope)
            cells.append(f"{percentile(run.latencies_ms, 0.5):.0f} / {percentile(run.latencies_ms, 0.95):.0f}")
        latency_rows.append(cells)
    latency = markdown_table(["configuration", *(f"{scope} p50 / p95 ms" for scope in scopes)], latency_rows)
    return f"#### {report.corpus.name} — speed\n\n{index}\n\n{latency}"


def corpus_section(report: CorpusReport) -> str:
    corpus, s = report.corpus, report.structure
    assert s is not None
    used = f"{len(corpus.questions)} of {corpus.available}"
    on_flat = sum(q.doc in s.flat_docs for q in corpus.questions)
    lines = [
        f"### {corpus.name}",
        "",
        f"- questions: {used} usable questions (single-document and collection scope use the same questions); "
        f"{on_flat} of them on a document without headings, where the section is the whole document",
        f"- documents: {s.documents} indexed ({len({q.doc for q in corpus.questions})} with questions); "
        + (f"{s.pages} pages, " if s.pages else "")
        + f"{s.sections} sections, {s.paragraphs} paragraphs ({len(s.flat_docs)} documents without any heading); "
        f"baseline: {report.chunks} chunks",
        f"- paragraph tokens: median {s.tokens_median:.0f}, p95 {s.tokens_p95:.0f}, max {s.tokens_max}; "
        f"{100 * s.short_share:.1f}% under 8 tokens",
        "- hit ceiling (some unit of the question's document contains a gold at all) / hit@5 of a random "
        "ranking (five units drawn at random from the question's document): "
        + ", ".join(f"{name} {100 * r.ceiling:.1f}% / {100 * r.random_hit5:.1f}%" for name, r in report.reach.items()),
    ]
    if s.failed:
        on_failed = sum(q.doc in s.failed for q in corpus.questions)
        lines.append(
            f"- failed documents ({on_failed} questions on them, misses for deepread; the baseline reads whatever text layer they have): "
            + "; ".join(f"{name}: {reason.split(' (')[0]}" for name, reason in s.failed.items())
        )
    return "\n\n".join(["\n".join(lines), quality_tables(report), equal_reading_table(report), speed_table(report)])


def peak_rss_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # kilobytes on Linux


def code_version() -> str:
    """The commit measured, marked when the library's files differ from it."""
    repo = HERE.parent

    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return ""

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--", "indexer", "pyproject.toml")
    return f"{commit} + uncommitted library changes" if dirty else commit


def render(
    reports: list[CorpusReport], started: dt.datetime, seconds: float, loads: tuple[float, float], version: str
) -> str:
    head = [
        "# Retrieval benchmark",
        "",
        f"Run {started:%Y-%m-%d %H:%M} UTC on commit {version}, {seconds / 60:.1f} min, by `benchmarks/retrieval.py` "
        f"(top_k={TOP_K}, no neighbour expansion; a unit contains a gold when it holds ≥ {MIN_RECALL:.0%} "
        "of the gold's word tokens). Numbers are percentages of questions; `sec@k` is section-hit@k, "
        "`recall@k` evidence recall@k, `words@5` the mean number of words in the top 5 results. "
        "Metric definitions: `../shared/bench/README.md`; method and caveats: `benchmarks/README.md`. "
        f"Machine load (1-min load average) at start {loads[0]:.1f}, at end {loads[1]:.1f} on {os.cpu_count()} CPUs: "
        "timings are only comparable between runs on an equally loaded machine. "
        f"Peak RSS: this process {peak_rss_mb(resource.RUSAGE_SELF):.0f} MB (model, indexes, baseline vectors), "
        f"MinerU parser processes {peak_rss_mb(resource.RUSAGE_CHILDREN):.0f} MB (largest one).",
    ]
    return "\n".join(head) + "\n\n" + "\n\n".join(corpus_section(r) for r in reports) + "\n"


def results_json(reports: list[CorpusReport], started: dt.datetime, seconds: float, version: str) -> dict:
    return {
        "started": started.isoformat(),
        "commit": version,
        "seconds": round(seconds, 1),
        "sets": {
            r.corpus.name: {
                "questions": len(r.corpus.questions),
                "available": r.corpus.available,
                "reach": {name: found.__dict__ for name, found in r.reach.items()},
                "runs": [
                    {
                        "config": run.config,
                        "scope": run.scope,
                        "subset": run.subset,
                        "scores": {k: round(v, 4) for k, v in run.scores.items()},
                        "latency_ms_p50": round(percentile(run.latencies_ms, 0.5), 1),
                        "latency_ms_p95": round(percentile(run.latencies_ms, 0.95), 1),
                    }
                    for run in r.runs
                ],
                "equal_reading": [
                    {"scope": run.scope, "subset": run.subset, **{k: round(v, 4) for k, v in e.__dict__.items()}}
                    for run, e in equal_readings(r)
                ],
                "index": [s.__dict__ for s in r.speeds],
            }
            for r in reports
        },
    }


PLOTTED = ("hybrid + heading ctx", READ_CONFIG, BASELINE)


def plot(reports: list[CorpusReport], path: Path) -> None:
    """hit@k and section-hit@k against k, single-document scope, one panel per set."""
    import matplotlib

    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(reports), figsize=(max(9.0, 4.2 * len(reports)), 4.6), squeeze=False)
    for ax, report in zip(axes[0], reports, strict=True):
        for config, color in zip(PLOTTED, ("tab:blue", "tab:green", "tab:gray"), strict=True):
            run = next(
                (r for r in report.runs if r.config == config and r.scope == "single" and r.subset == ALL), None
            )
            if run is None:
                continue
            label = "flat chunks" if config == BASELINE else config.replace("hybrid + heading ctx", "deepread")
            ax.plot(KS, [100 * run.scores[f"hit@{k}"] for k in KS], "o-", color=color, label=f"{label}: hit@k")
            if config != BASELINE:
                ax.plot(KS, [100 * run.scores[f"sec@{k}"] for k in KS], "s--", color=color, label=f"{label}: section-hit@k")
        ax.set_title(f"{report.corpus.name} ({len(report.corpus.questions)} q.)")
        ax.set_xlabel("k")
        ax.set_xticks(KS)
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("% of questions (scoped to the document)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.2, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- entry point ---------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", type=Path, default=DEFAULT_BENCH, help="benchmark data folder")
    parser.add_argument("--sets", default=",".join(LOADERS), help=f"comma-separated: {', '.join(LOADERS)}")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder for retrieval.md / retrieval.json")
    parser.add_argument("--limit", type=int, default=None, help="max questions per set (evenly spaced subset)")
    parser.add_argument(
        "--work", type=Path,
        help="keep indexes, MinerU parses and baseline vectors here between runs (default: a temporary folder)",
    )
    parser.add_argument(
        "--no-context-ablation", default="", metavar="SETS",
        help="comma-separated sets on which the second index (embedded without heading context) is skipped",
    )
    parser.add_argument(
        "--paragraph-vectors", action="store_true",
        help="ablation: one vector per paragraph instead of passages (a kept index is packed again and re-embedded; "
        "use its own --work dir)",
    )
    parser.add_argument("--reranker", help="also run with this fastembed cross-encoder (e.g. Xenova/ms-marco-MiniLM-L-6-v2)")
    parser.add_argument("--reranker-path", type=Path, help="local folder with the cross-encoder's ONNX and tokenizer")
    return parser.parse_args(argv)


LOADERS: dict[str, Callable[[Path, Path], Corpus]] = {
    "financebench": lambda bench, work: load_financebench(bench),
    "mmlongbench": lambda bench, work: load_mmlongbench(bench),
    "qasper": load_qasper,
    "syllabusqa": lambda bench, work: load_syllabusqa(bench),
}


def load_sets(names: list[str], bench: Path, work: Path, limit: int | None) -> list[Corpus]:
    corpora: list[Corpus] = []
    for name in names:
        if name not in LOADERS:
            raise SystemExit(f"unknown set {name!r}; choose from {', '.join(LOADERS)}")
        corpus = LOADERS[name](bench, work)
        corpus.questions = spread(corpus.questions, limit)
        corpora.append(corpus)
    return corpora


def write_results(
    reports: list[CorpusReport], out: Path, started: dt.datetime, seconds: float, loads: tuple[float, float],
    version: str,
) -> str:
    """Tables, numbers and plot of the sets done so far (rewritten after each set: a long run keeps its work)."""
    text = render(reports, started, seconds, loads, version)
    out.mkdir(parents=True, exist_ok=True)
    (out / "retrieval.md").write_text(text, encoding="utf-8")
    summary = results_json(reports, started, seconds, version)
    (out / "retrieval.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    plot(reports, out / "retrieval.png")
    return text


def one_vector_per_paragraph() -> None:
    """Passages of one paragraph each (a window of one token: every paragraph fills a passage;
    tables and figures stand alone, described as before), under their own index signature."""
    import indexer.library
    import indexer.structure.passages

    indexer.structure.passages.WINDOW_TOKENS = 1
    indexer.library.PASSAGE_VERSION = indexer.structure.passages.PASSAGE_VERSION = f"{indexer.structure.passages.PASSAGE_VERSION}-paragraphs"


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    if args.paragraph_vectors:
        one_vector_per_paragraph()
    started = dt.datetime.now(dt.timezone.utc)
    load_start = os.getloadavg()[0]
    version = code_version()
    clock = time.perf_counter()
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    skip_ablation = {s.strip() for s in args.no_context_ablation.split(",")}
    with tempfile.TemporaryDirectory(prefix="deepread-bench-") as tmp:
        work = args.work or Path(tmp)
        corpora = load_sets(names, args.bench, work, args.limit)
        embedder = Embedder(MODELS_DIR)
        reranker = Reranker(args.reranker, MODELS_DIR, args.reranker_path) if args.reranker else None
        reports: list[CorpusReport] = []
        for name, corpus in zip(names, corpora, strict=True):
            reports.append(run_corpus(corpus, work, embedder, name not in skip_ablation, reranker))
            seconds = time.perf_counter() - clock
            text = write_results(reports, args.out, started, seconds, (load_start, os.getloadavg()[0]), version)
    print(text)
    log(f"done in {seconds / 60:.1f} min; wrote {args.out / 'retrieval.md'}")


if __name__ == "__main__":
    main()

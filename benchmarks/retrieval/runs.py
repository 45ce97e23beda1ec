"""The configurations compared (hybrid / dense / lexical, with and without heading
context, a neighbour window, section reading, the flat-chunk baseline, the
paragraph-vectors ablation) and running them over one set: indexing, structure
statistics, and one `Run` of scores and latencies per configuration, scope and subset.

Kept apart from the report, which only formats the `CorpusReport`s built here.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import common
from benchmarks.common import log
from benchmarks.retrieval.metrics import Outcome, Reach, first_ranks, reach, summarize
from benchmarks.retrieval.rankers import ChunkRanker, LibraryRanker, Ranker
from benchmarks.retrieval.sets import Corpus
from benchmarks.retrieval.shared import ALL, BASELINE, MODELS_DIR
from indexer.library import Library, LibraryConfig
from indexer.search.hybrid import SearchMode
from indexer.search.rerank import Reranker
from indexer.store.embedder import Embedder

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
        first = runs[-len(subsets(corpus))].scores  # all questions
        log(
            f"  {corpus.name} {config} [{scope}]: hit@5 {first['hit@5']:.3f}, own file@1 {first['doc@1']:.3f}, "
            f"@10 {first['doc@10']:.3f}, page in 300/1,000/3,000 words {first['page@300w']:.3f}/"
            f"{first['page@1000w']:.3f}/{first['page@3000w']:.3f}"
        )
    return runs


def structure_stats(lib: Library) -> StructureStats:
    docs = common.open_index(lib).store.documents()
    ready = [d for d in docs if d.n_paras > 0]
    lengths: list[int] = []
    sections = pages = 0
    flat: set[str] = set()
    for d in ready:
        rows = common.open_index(lib).store.sections(d.doc_id)
        sections += len(rows)
        pages += d.n_pages or 0
        if len(rows) <= 1:
            flat.add(d.relpath)
        for s in rows:
            lengths.extend(p.n_tokens for p in common.open_index(lib).store.paragraphs(d.doc_id, s.sec_id, 0, 10**6))
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
            roots=[corpus.folder],
            data_dir=data_dir,
            models_dir=MODELS_DIR,
            heading_context=context,
            search_mode="hybrid",
            token_budget=100_000,
            parse_cache_dir=work / "parse-cache",
            parse_timeout_s=1800,
        )
        with Library(config) as lib:
            common.open_index(lib).store.forget_file_facts()
            start = time.perf_counter()
            done = lib.reconcile()
            seconds = time.perf_counter() - start
            stats = structure_stats(lib)
            label = "heading ctx" if context else "no ctx"
            report.speeds.append(
                IndexSpeed(
                    f"library index, {label}", seconds, stats.paragraphs, pages=stats.pages, embedded=done.embedded
                )
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
                    common.open_index(lib).use_search(cfg.mode)
                    report.runs.extend(evaluate(LibraryRanker(lib, cfg.window, cfg.read_tokens), corpus, cfg.name))
            if context and reranker is not None:
                common.open_index(lib).use_search("hybrid", reranker)
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


def one_vector_per_paragraph() -> None:
    """Passages of one paragraph each (a window of one token: every paragraph fills a passage;
    tables and figures stand alone, described as before), under their own index signature."""
    import indexer.store.upgrades
    import indexer.structure.passages

    indexer.structure.passages.WINDOW_TOKENS = 1
    version = f"{indexer.structure.passages.PASSAGE_VERSION}-paragraphs"
    indexer.store.upgrades.PASSAGE_VERSION = indexer.structure.passages.PASSAGE_VERSION = version

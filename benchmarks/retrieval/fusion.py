"""How the fusion of the dense and BM25 rankings should be weighted, on indexes kept by `benchmarks.retrieval`.

For each question, the dense and the lexical ranking are computed once (as
`HybridSearch` does), then fused offline with each variant: reciprocal rank
fusion with weights dense : lexical and its constant k. Scores as in
`benchmarks.retrieval` (hit@k, section-hit@k, recall@k on the hit paragraphs).

    python -m benchmarks.retrieval.fusion --work DIR [--sets qasper,syllabusqa]

DIR is a `python -m benchmarks.retrieval --work` folder (its indexes with heading context are used).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from benchmarks import common
from benchmarks.retrieval.metrics import Outcome, first_ranks, summarize
from benchmarks.retrieval.rankers import LibraryRanker, Unit, row_pages
from benchmarks.retrieval.report import markdown_table
from benchmarks.retrieval.sets import LOADERS, Corpus
from benchmarks.retrieval.shared import MODELS_DIR, TOP_K, bag
from indexer.library import Library, LibraryConfig
from indexer.search.hybrid import Ranked, rrf_fuse

Fuse = Callable[[list[int], list[int]], list[Ranked]]
VARIANTS: dict[str, Fuse] = {
    "dense only": lambda d, lex: rrf_fuse([d]),
    "BM25 only": lambda d, lex: rrf_fuse([lex]),
    "RRF 1:1, k=60 (default)": lambda d, lex: rrf_fuse([d, lex]),
    "RRF 1:1.5": lambda d, lex: rrf_fuse([d, lex], [1, 1.5]),
    "RRF 1:2": lambda d, lex: rrf_fuse([d, lex], [1, 2]),
    "RRF 1.5:1": lambda d, lex: rrf_fuse([d, lex], [1.5, 1]),
    "RRF 1:1, k=20": lambda d, lex: rrf_fuse([d, lex], k=20),
    "RRF 1:1, k=10": lambda d, lex: rrf_fuse([d, lex], k=10),
}
METRICS = ("hit@1", "hit@5", "sec@5", "hit@10")


def units(ranker: LibraryRanker, lib: Library, ids: list[int]) -> list[Unit]:
    rows = common.open_index(lib).store.paragraphs_by_id(ids)
    out = []
    for pid in ids:
        row = rows[pid]
        section, span = ranker.section(row.doc_id, row.sec_id)
        out.append(Unit(bag(row.text), section, len(row.text.split()), frozenset(row_pages(row)), span))
    return out


def sweep(name: str, bench: Path, work: Path) -> list[str]:
    """One table per scope the set is measured in."""
    corpus = LOADERS[name](bench, work)
    return [sweep_scope(corpus, work, scope) for scope in corpus.scopes]


def sweep_scope(corpus: Corpus, work: Path, scope: str) -> str:
    config = LibraryConfig(
        roots=[corpus.folder],
        data_dir=work / f"{corpus.name.lower()}-ctx1",
        models_dir=MODELS_DIR,
        parse_cache_dir=work / "parse-cache",
    )
    outcomes: dict[str, list[Outcome]] = {variant: [] for variant in VARIANTS}
    with Library(config) as lib:
        ranker = LibraryRanker(lib)
        depth = max(4 * TOP_K, 40)
        for q in corpus.questions:
            scoped = scope == "single"
            if scoped and q.doc not in ranker.doc_ids:  # failed to parse: a miss for every variant
                for found in outcomes.values():
                    found.append(first_ranks(q, []))
                continue
            doc_ids = [ranker.doc_ids[q.doc]] if scoped else None
            dense = common.open_index(lib).search.dense(q.text, depth, doc_ids)
            lexical = [pid for pid, _ in common.open_index(lib).store.keywords.search(q.text, depth, doc_ids)]
            for variant, fuse in VARIANTS.items():
                ranked = common.open_index(lib).search.arrange(fuse(dense, lexical))[:TOP_K]
                outcomes[variant].append(first_ranks(q, units(ranker, lib, [r.paragraph_id for r in ranked])))
    metrics = [*METRICS, "recall@5"] if corpus.with_recall else list(METRICS)
    rows = []
    for variant, found in outcomes.items():
        scores = summarize(found, corpus.with_recall)
        rows.append([variant, *(f"{100 * scores[m]:.1f}" for m in metrics)])
    title = f"#### {corpus.name}, {scope} scope ({len(corpus.questions)} questions)"
    return title + "\n\n" + markdown_table(["fusion", *metrics], rows)


def main() -> None:
    parser = common.script_parser(__doc__.split("\n\n")[0])
    common.add_work(parser, text="a benchmarks.retrieval --work folder", required=True)
    common.add_bench(parser)
    parser.add_argument("--sets", default="qasper,syllabusqa")
    common.add_out(parser, "fusion.md")
    args = common.parse_args(parser)
    parts = [
        table for name in args.sets.split(",") if name.strip() for table in sweep(name.strip(), args.bench, args.work)
    ]
    text = (
        "# Fusion variants\n\nBy `python -m benchmarks.retrieval.fusion` on the indexes of a "
        "`python -m benchmarks.retrieval --work` run; "
        "top 10 hit paragraphs, no reading step; percentages of questions.\n\n" + "\n\n".join(parts) + "\n"
    )
    common.write_result(args.out, text)
    print(text)


if __name__ == "__main__":
    main()

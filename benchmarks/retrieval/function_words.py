"""Keyword search with and without the query's function words, on the retrieval sets.

    python -m benchmarks.retrieval.function_words --bench DATA --work DIR [--sets financebench,qasper,syllabusqa]

What the change to `indexer.tokens.query_terms` (a query's function words do not score,
`indexer.languages`) does to BM25 alone, measured in one process on one index per set: the
"before" ranking uses the short hand list the project had (`BEFORE_STOPWORDS`), the "after" one
the code as it is. Keyword search needs no vectors, so the index is searched as soon as its
documents are structured (MinerU parses from `DIR/parse-cache`, shareable; the vectors lane
embeds meanwhile and is stopped at the end): a set as large as FinanceBench is measured in
minutes, not the hours its embedding takes on two cores. Same scoring as `benchmarks.retrieval`
(its `lexical (BM25)` configuration); writes `results/function-words.md`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks import common
from benchmarks.retrieval.rankers import LibraryRanker
from benchmarks.retrieval.runs import Run, evaluate
from benchmarks.retrieval.sets import LOADERS, load_sets
from benchmarks.retrieval.shared import ALL, MODELS_DIR
from indexer import tokens
from indexer.library import Library, LibraryConfig
from indexer.search import documents, named
from indexer.store import keywords

# The project's stop words until this change: a short English list, whatever the query's language.
BEFORE_STOPWORDS = frozenset(
    """a an and are as at be by for from has have how i in is it its of on or that the this
    to was were what when where which who why will with you your do does did can could
    would should about into than then there these those their they them we our""".split()
)


def before_query_terms(text: str) -> list[str]:
    """`query_terms` as it was: every lexical term but the short list, CJK as characters and bigrams."""
    seen: dict[str, None] = {}
    for term in tokens.lexical_terms(text):
        if term not in BEFORE_STOPWORDS and term not in seen:
            seen[term] = None
    return list(seen)


@contextmanager
def query_terms_as(function: Callable[[str], list[str]]) -> Iterator[None]:
    """Every module that makes a query's terms makes them with `function` meanwhile."""
    modules = (keywords, documents, named)
    kept = [m.query_terms for m in modules]
    for m in modules:
        m.query_terms = function  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for m, f in zip(modules, kept, strict=True):
            m.query_terms = f  # type: ignore[attr-defined]


def open_for_keywords(folder: Path, data_dir: Path, parse_cache: Path) -> Library:
    config = LibraryConfig(
        roots=[folder],
        data_dir=data_dir,
        models_dir=MODELS_DIR,
        search_mode="lexical",
        token_budget=100_000,
        parse_cache_dir=parse_cache,
        parse_timeout_s=1800,
        embed_threads=1,
    )
    lib = Library(config)
    lib.reconcile(wait=False)
    lib.finish_parses()  # every document structured; its vectors may still be coming
    return lib


def table(rows: list[tuple[str, str, Run, Run]]) -> str:
    lines = [
        "| set | scope | hit@1 | hit@5 | hit@10 | own document in top 10 (whole folder) |",
        "|---|---|---|---|---|---|",
    ]
    for name, scope, before, after in rows:
        cells = [f"{100 * before.scores[k]:.1f} → {100 * after.scores[k]:.1f}" for k in ("hit@1", "hit@5", "hit@10")]
        doc = f"{100 * before.scores['doc@10']:.1f} → {100 * after.scores['doc@10']:.1f}" if scope != "single" else "–"
        lines.append(f"| {name} | {scope} | {' | '.join(cells)} | {doc} |")
    return "\n".join(lines)


def main() -> None:
    parser = common.script_parser(__doc__.splitlines()[0])
    common.add_bench(parser)
    common.add_work(parser, text="indexes here; MinerU parses from WORK/parse-cache", required=True)
    parser.add_argument("--sets", default="financebench,qasper,syllabusqa", help=f"of {', '.join(LOADERS)}")
    parser.add_argument("--limit", type=int, default=None)
    common.add_out(parser, "function-words.md")
    args = common.parse_args(parser)
    rows: list[tuple[str, str, Run, Run]] = []
    for corpus in load_sets(args.sets.split(","), args.bench, args.work, args.limit):
        lib = open_for_keywords(corpus.folder, args.work / f"{corpus.name.lower()}-keywords", args.work / "parse-cache")
        try:
            with query_terms_as(before_query_terms):
                before = evaluate(LibraryRanker(lib), corpus, "lexical, short stop list")
            after = evaluate(LibraryRanker(lib), corpus, "lexical, the query language's function words")
        finally:
            lib.close()
        for b, a in zip(before, after, strict=True):
            if b.subset == ALL:
                rows.append((corpus.name, b.scope, b, a))
    command = f"python -m benchmarks.retrieval.function_words --sets {args.sets}" + (
        f" --limit {args.limit}" if args.limit else ""
    )
    report = f"# Function words in keyword search\n\n`{command}` ({time.strftime('%Y-%m-%d')})\n\n{table(rows)}\n"
    common.write_result(args.out, report)
    common.log(report)


if __name__ == "__main__":
    main()

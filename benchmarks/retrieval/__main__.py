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
                                   [--bench PATH] [--out DIR] [--work DIR] [--checkout CHECKOUT]
"""

from __future__ import annotations

import argparse
import datetime as dt
import logging
import os
import tempfile
import time
from pathlib import Path

from benchmarks import common
from benchmarks.retrieval.report import write_results
from benchmarks.retrieval.runs import CorpusReport, one_vector_per_paragraph, run_corpus
from benchmarks.retrieval.sets import LOADERS, load_sets
from benchmarks.retrieval.shared import MODELS_DIR
from indexer.search.rerank import Reranker
from indexer.store.embedder import Embedder

# --- entry point ---------------------------------------------------------------------------


def options(argv: list[str] | None) -> argparse.Namespace:
    parser = common.script_parser(__doc__.split("\n\n")[0])
    common.add_bench(parser)
    parser.add_argument("--sets", default=",".join(LOADERS), help=f"comma-separated: {', '.join(LOADERS)}")
    common.add_out(parser, text="folder for retrieval.md / retrieval.json")
    parser.add_argument("--limit", type=int, default=None, help="max questions per set (evenly spaced subset)")
    common.add_work(
        parser, text="keep indexes, MinerU parses and baseline vectors here between runs (default: a temporary folder)"
    )
    parser.add_argument(
        "--no-context-ablation",
        default="",
        metavar="SETS",
        help="comma-separated sets on which the second index (embedded without heading context) is skipped",
    )
    parser.add_argument(
        "--paragraph-vectors",
        action="store_true",
        help="ablation: one vector per paragraph instead of passages (a kept index is packed again and re-embedded; "
        "use its own --work dir)",
    )
    parser.add_argument(
        "--reranker", help="also run with this fastembed cross-encoder (e.g. Xenova/ms-marco-MiniLM-L-6-v2)"
    )
    parser.add_argument("--reranker-path", type=Path, help="local folder with the cross-encoder's ONNX and tokenizer")
    common.add_checkout(parser)
    return common.parse_args(parser, argv)


def main(argv: list[str] | None = None) -> None:
    args = options(argv)
    logging.basicConfig(level=logging.WARNING)
    if args.paragraph_vectors:
        one_vector_per_paragraph()
    started = dt.datetime.now(dt.UTC)
    load_start = os.getloadavg()[0]
    version = common.commit_stamp("indexer", "pyproject.toml")  # the library measured
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
    common.log(f"done in {seconds / 60:.1f} min; wrote {args.out / 'retrieval.md'}")


if __name__ == "__main__":
    main()

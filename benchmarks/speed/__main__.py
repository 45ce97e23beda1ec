"""Indexing and retrieval speed on a real Markdown tree (default: the Rust book).

    python -m benchmarks.speed [--folder PATH] [--runs 3] [--out benchmarks/results/speed.md]

Reports, for one folder: cold index time (empty data dir; parse + embed + store),
paragraphs embedded per second, the restart time of an unchanged folder
(reconcile that re-parses and re-embeds nothing), retrieve latency p50/p95 over
queries made from the folder's own headings, and peak RSS. Medians over `--runs`.
"""

from __future__ import annotations

import random
import shutil
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks import common
from indexer.library import Library, LibraryConfig


def main() -> None:
    parser = common.script_parser(__doc__)
    parser.add_argument("--folder", type=Path, default=common.DEFAULT_BENCH / "markdown" / "rust-book")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--queries", type=int, default=200)
    common.add_out(parser, "speed.md")
    args = common.parse_args(parser)

    work = Path(tempfile.mkdtemp(prefix="deepread-speed-"))
    models = work / "models"
    cold, warm, rates, p50s, p95s = [], [], [], [], []
    n_files = n_paras = 0
    try:
        for run in range(args.runs):
            data = work / f"data{run}"
            config = LibraryConfig(roots=[args.folder], data_dir=data, models_dir=models, token_budget=8000)
            library = Library(config)
            start = time.perf_counter()
            report = library.reconcile()
            elapsed = time.perf_counter() - start
            cold.append(elapsed)
            rates.append(report.embedded / elapsed)
            n_files = len(report.indexed)
            n_paras = sum(d.n_paras for d in common.open_index(library).store.documents())
            library.close()

            start = time.perf_counter()
            library = Library(config)  # a restart: open, load the model, reconcile an unchanged folder
            again = library.reconcile()
            warm.append(time.perf_counter() - start)
            assert again.embedded == 0 and not again.indexed, "an unchanged folder must not be re-indexed"

            queries = _queries(library, args.queries)
            latencies = []
            for q in queries:
                t = time.perf_counter()
                library.retrieve(q, top_k=5)
                latencies.append((time.perf_counter() - t) * 1000)
            latencies.sort()
            p50s.append(statistics.median(latencies))
            p95s.append(latencies[int(0.95 * (len(latencies) - 1))])
            library.close()
            shutil.rmtree(data)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    rows = [
        ("files / paragraphs", f"{n_files} / {n_paras}"),
        ("cold index (parse + embed + store), median", f"{statistics.median(cold):.1f} s"),
        ("paragraphs embedded per second", f"{statistics.median(rates):.0f}"),
        ("restart on the unchanged folder (open + model load + reconcile)", f"{statistics.median(warm):.2f} s"),
        ("restart vs cold index", f"{statistics.median(warm) / statistics.median(cold):.3f}×"),
        ("retrieve top_k=5 latency p50 / p95", f"{statistics.median(p50s):.1f} ms / {statistics.median(p95s):.1f} ms"),
        ("peak RSS of the benchmark process", f"{common.peak_mb():.0f} MB"),
    ]
    table = common.measure_table(
        f"Speed on `{args.folder.name}` ({date.today()}, {args.runs} runs, medians; 2-core machine)", rows
    )
    print(table)
    common.write_result(args.out, table + "\n")


def _queries(library: Library, n: int) -> list[str]:
    """Section titles of the folder itself: realistic, reproducible queries."""
    # Every section's title, as the store holds them (the map folds what does not fit its budget).
    titles = [
        r.title
        for d in common.open_index(library).store.documents()
        for r in common.open_index(library).store.sections(d.doc_id)
    ]
    random.Random(0).shuffle(titles)
    return titles[:n]


if __name__ == "__main__":
    main()

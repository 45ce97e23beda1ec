"""Retrieve and get_toc latency at a synthetic collection of up to 10,000 documents and
1,000,000 paragraphs, and start-up over 10,000 unchanged files.

    python -m benchmarks.scale [--bench PATH] [--sizes 10000,100000,1000000] [--distinct 5000]
                               [--queries 200] [--rounds 3] [--startup-files 10000]
                               [--out benchmarks/results/scale.md]

The real sets give 5k–80k paragraphs, and embedding 100k texts would take ~40 min
on the 2-core box, so the collection is synthetic, built from real material:

1. `--distinct` distinct paragraphs of the Markdown trees (rust-book, fastapi-docs) are
   sampled and embedded once, each with its real heading context.
2. Synthetic documents of `--doc-paragraphs` paragraphs in `--sections` sections take a
   run of consecutive sampled paragraphs (so a document stays on one topic), titled by
   the real headings; each text gets a numeric suffix (distinct rows for BM25) and each
   vector is its source's vector plus gaussian noise (`--noise` per dimension), re-normalised.
3. Documents are committed with `Indexer.add_structures` (the indexer's own commit, the
   vectors given instead of embedded), in batches of `BATCH_PASSAGES`, into a Library
   opened on an empty temporary folder, whose `reconcile()` is never called (it would
   remove documents without files).
   The collection grows through `--sizes`, measured at each. Documents sit in folders of
   `--folder-docs` (`synthetic/f012/doc-01234.md`), as a real folder of downloads would.

`Library.retrieve(top_k=5)` latency p50/p95 per search mode (hybrid, dense, lexical),
over the whole collection, scoped to one document and to one folder (`path=`), over `--queries` real headings;
the first size is built a second time as a baseline that is queried interleaved with
the growing collection, so the ratio survives the load of other jobs. Also: build time,
size on disk, peak RSS, and where a hybrid retrieve spends its time; `get_toc` latency (the
map's first page, a page in the middle, one folder, one document); and the time a restart takes
to find `--startup-files` real files unchanged (open the index, then reconcile the folder).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

from benchmarks import common
from benchmarks.scale.collection import _grow, _material, _open
from benchmarks.scale.measure import (
    SCOPES,
    _breakdown,
    _build_row,
    _first_retrieve_ms,
    _measure,
    _startup,
    _toc_latency,
)
from benchmarks.scale.report import _report, _startup_report, _toc_report


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_bench(parser)
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--folder-docs", type=int, default=100, help="documents per folder")
    parser.add_argument("--startup-files", type=int, default=10000, help="0: skip the start-up measurement")
    parser.add_argument("--distinct", type=int, default=5000)
    parser.add_argument("--doc-paragraphs", type=int, default=100)
    parser.add_argument("--sections", type=int, default=5)
    parser.add_argument("--noise", type=float, default=0.015)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    common.add_out(parser, "scale.md")
    args = common.parse_args(parser)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    assert all(s % args.doc_paragraphs == 0 for s in sizes), "sizes must be whole documents"

    load_start, commit = os.getloadavg(), common.commit_stamp()  # the code this process runs
    work = Path(tempfile.mkdtemp(prefix="deepread-scale-"))
    try:
        (work / "empty").mkdir()
        growing, baseline = _open(work, "data"), _open(work, "baseline")
        start = time.perf_counter()
        material = _material(growing, args.bench, args.distinct)
        embed_s = time.perf_counter() - start
        queries = material.headings[: args.queries]
        common.log(f"embedded {len(material.sources)} sources in {embed_s:.0f} s; building the baseline")
        _grow(baseline, material, sizes[0], args)
        builds, latencies, parts, tocs = [], {}, {}, {}
        for size in sizes:
            common.log(f"growing to {size} paragraphs")
            build_s, n_added = _grow(growing, material, size, args)
            first_ms = _first_retrieve_ms(growing, queries[0])
            latencies[size] = _measure([growing, baseline], queries, args.rounds)
            parts[size] = {scope: _breakdown(growing, queries, scope) for scope in SCOPES}
            builds.append(_build_row(growing, size, build_s, n_added, first_ms))
            tocs[size] = _toc_latency(growing, args.queries, args.rounds)
            common.log(f"{size}: hybrid whole p50 {latencies[size][('hybrid', 'whole')][0].p50:.1f} ms")
        growing.close()
        baseline.close()
        startup = _startup(work, args.startup_files, args.folder_docs, args.rounds) if args.startup_files else None
    finally:
        shutil.rmtree(work, ignore_errors=True)

    report = _report(args, sizes, material, embed_s, builds, latencies, parts, commit, load_start, os.getloadavg())
    report += _toc_report(sizes, tocs) + (_startup_report(args.startup_files, startup) if startup else "")
    print(report)
    common.write_result(args.out, report + "\n")


if __name__ == "__main__":
    main()

"""Where a whole-folder question lands: the document of its first hit, on kept indexes.

    python -m benchmarks.retrieval.landing --work DIR [--sets mmlongbench,financebench] [--bench DATA] [-v]

DIR is a `benchmarks.retrieval --work` folder whose indexes (with heading context) are opened as
the server opens them: a writer brings them up to this tree's structure first (parses come from
the cache; only paragraphs whose embedded text changed are embedded again). Each question is asked
of the whole folder, `retrieve(question, top_k=10)`, as `benchmarks.retrieval` asks it; reported:
the share whose first hit is in the question's own document (`own@1`, the figure
`benchmarks.retrieval` reports as "own file@1"), whose first three hits include it (`own@3`), and
whose ten do (`own@10`). `-v` prints each question whose first hit lands elsewhere, with the
document it landed in.
"""

from __future__ import annotations

from benchmarks import common
from benchmarks.retrieval.sets import LOADERS
from benchmarks.retrieval.shared import MODELS_DIR
from indexer.library import Library, LibraryConfig

TOP_K = 10


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_work(parser, text="a benchmarks.retrieval --work folder", required=True)
    parser.add_argument("--sets", default="mmlongbench,financebench")
    common.add_bench(parser)
    parser.add_argument("-v", "--verbose", action="store_true", help="print each question that lands elsewhere")
    common.add_label(parser, "", "what this run measures, for the results file")
    common.add_out(parser, "landing.md")
    args = common.parse_args(parser)
    lines = [
        f"{args.label or 'Landing'} ({common.commit_stamp('indexer')}): whole-folder questions, first hit's document",
        "",
    ]
    lines += ["| set | questions | own@1 | own@3 | own@10 |", "|---|---:|---:|---:|---:|"]
    for name in args.sets.split(","):
        corpus = LOADERS[name](args.bench, args.work)
        data = args.work / f"{corpus.name.lower()}-ctx1"
        if not (data / "index.sqlite3").exists():
            common.log(f"{corpus.name}: no index in {data} (run benchmarks.retrieval --work first)")
            continue
        config = LibraryConfig(
            roots=[corpus.folder],
            data_dir=data,
            models_dir=MODELS_DIR,
            token_budget=100_000,
            parse_cache_dir=args.work / "parse-cache",
            parse_timeout_s=1800,
        )
        with Library(config) as library:
            library.reconcile()
            common.log(f"{corpus.name}: brought up to date")
            ids = {d.relpath: d.doc_id for d in common.open_index(library).store.documents() if d.readable}
            titles = {d.doc_id: d.title for d in common.open_index(library).store.documents()}
            hits = [0, 0, 0]
            for q in corpus.questions:
                own = ids.get(q.doc)
                found = library.retrieve(q.text, top_k=TOP_K).results
                docs = [r.doc_id for r in found if r.is_hit]
                for k, n in enumerate((1, 3, TOP_K)):
                    hits[k] += own in docs[:n]
                if args.verbose and docs and docs[0] != own:
                    print(f"  {q.doc[:30]:30} ← {titles.get(docs[0], '?')[:40]!r:42} {q.text[:90]!r}")
        n = max(len(corpus.questions), 1)
        lines.append(
            f"| {corpus.name} | {len(corpus.questions)} | " + " | ".join(f"{100 * h / n:.1f}" for h in hits) + " |"
        )
    common.append_lines(
        args.out, "# Where whole-folder questions land (`python -m benchmarks.retrieval.landing`)\n", lines
    )


if __name__ == "__main__":
    main()

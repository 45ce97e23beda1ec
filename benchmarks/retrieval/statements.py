"""Does a direct query for a filing's income statement or balance sheet land on that statement?

    python -m benchmarks.retrieval.statements [--pdfs DIR] [--docs 12] [--parse-cache DIR] [--work DIR] [--index DIR]
                                              [--label now] [--checkout CHECKOUT]

Indexes the first `--docs` annual reports (`*10K*.pdf`, by name) of `--pdfs` and asks, scoped
to each, the queries below. A statement is the set of sections whose title names it ("Consolidated
Statements of Operations", "Balance Sheets", "Statements of Financial Position", …; the map shows
them as sections of their own); a query is a hit at k when one of its top k results is a table
paragraph of such a section (or a figure: a statement set as a picture in the PDF is a figure with the
words read from it; or a list: MinerU reads some statements' dotted leaders as list items). A filing whose map has no such section is counted apart. The script
uses only what every version of the library has, so it can score an older checkout too:
`python -m benchmarks.retrieval.statements --checkout CHECKOUT --label before`.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks import common
from indexer.library import Library, LibraryConfig

STATEMENTS = {
    "income statement": re.compile(
        r"\bstatements? of (?:consolidated )?(?:income|operations|earnings)\b|\bincome statements?\b", re.I
    ),
    "balance sheet": re.compile(
        r"\bbalance sheets?\b|\bstatements? of (?:consolidated )?financial (?:position|condition)\b", re.I
    ),
}
QUERIES = {
    "income statement": ["income statement", "consolidated statements of operations revenue net income"],
    "balance sheet": ["balance sheet", "total assets total liabilities and stockholders equity"],
}
KS = (1, 3, 5)
# What a statement's figures are stored as: a table, a picture with the words read from it, or a
# list, when MinerU reads dotted leaders ("Cash and cash equivalents …… $ 876,560") as list items.
STATEMENT_KINDS = ("table", "figure", "list")


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_pdfs(parser)
    parser.add_argument("--docs", type=int, default=12)
    common.add_parse_cache(parser)
    common.add_work(parser, text="keep the index here (default: a temporary folder)")
    parser.add_argument(
        "--index",
        type=Path,
        default=None,
        help="score an index already built on the --pdfs folder itself (e.g. benchmarks.retrieval's "
        "financebench-ctx1 in its --work dir) instead of building one",
    )
    common.add_label(parser, "now")
    common.add_out(parser, "statements.md")
    common.add_checkout(parser)
    args = common.parse_args(parser)

    work = args.work or Path(tempfile.mkdtemp(prefix="deepread-statements-"))
    if args.index is not None:
        folder, data_dir = args.pdfs, args.index
    else:
        folder, data_dir = work / "docs", work / "data"
        folder.mkdir(parents=True, exist_ok=True)
        for pdf in sorted(args.pdfs.glob("*10K*.pdf"))[: args.docs]:
            if not (folder / pdf.name).exists():
                shutil.copyfile(pdf, folder / pdf.name)
    config = LibraryConfig(
        roots=[folder],
        data_dir=data_dir,
        models_dir=work / "models",
        parse_cache_dir=args.parse_cache or work / "parse-cache",
        token_budget=100_000,
    )
    hits = {(kind, q, k): 0 for kind, qs in QUERIES.items() for q in qs for k in KS}
    asked = dict.fromkeys(QUERIES, 0)
    without = {kind: [] for kind in QUERIES}
    started = time.perf_counter()
    with Library(config) as library:
        if args.index is None:
            library.reconcile()
        indexed = time.perf_counter() - started
        annual = [d for d in common.open_index(library).store.documents() if d.readable and "10K" in d.relpath][
            : args.docs
        ]
        for doc in annual:
            for kind, pattern in STATEMENTS.items():
                gold = {
                    s.sec_id for s in common.open_index(library).store.sections(doc.doc_id) if pattern.search(s.title)
                }
                if not gold:
                    without[kind].append(doc.relpath)
                    continue
                asked[kind] += 1
                for query in QUERIES[kind]:
                    results = library.retrieve(query, top_k=max(KS), doc_ids=[doc.doc_id]).results
                    ranks = [r.rank for r in results if r.is_hit and r.kind in STATEMENT_KINDS and r.sec_id in gold]
                    for k in KS:
                        hits[(kind, query, k)] += bool(ranks and min(ranks) <= k)
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)

    lines = [
        f"| {args.label} | {kind} | “{query}” | {asked[kind]} | "
        + " | ".join(f"{100 * hits[(kind, query, k)] / max(asked[kind], 1):.0f}" for k in KS)
        + f" | {len(without[kind])} |"
        for kind, qs in QUERIES.items()
        for query in qs
    ]
    print(f"indexed in {indexed:.0f} s")
    print("\n".join(lines))
    for kind, paths in without.items():
        if paths:
            print(f"no {kind} section in: {', '.join(paths)}")
    common.append_result(
        args.out,
        f"# A direct query for a statement ({date.today()}, `python -m benchmarks.retrieval.statements`)\n\n"
        "Annual reports of FinanceBench, each query scoped to its filing; hit@k: a table (or figure, or list) paragraph of the "
        "statement's own section is among the top k results (percent of filings that have such a section).\n\n"
        "| code | statement | query | filings | hit@1 | hit@3 | hit@5 | filings without the section |\n"
        "|---|---|---|---|---|---|---|---|\n",
        "\n".join(lines) + "\n",
    )


if __name__ == "__main__":
    main()

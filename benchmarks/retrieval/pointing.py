"""Which documents whole-folder questions point to by name (`indexer.search.documents`).

    python -m benchmarks.retrieval.pointing --work DIR [--sets financebench,mmlongbench,qasper,syllabusqa] [--bench DATA] [-v]

DIR is a `benchmarks.retrieval --work` folder: its indexes with heading context are read (only
the documents' titles and stated details). For each question, asked of the whole folder, the
documents it points to hold its own (`own`), hold only others (`wrong`: its hits then crowd into
those), or there are none (`none`: it ranks across the folder). `-v` prints every wrong one.
Needs only the store, so it scores an older checkout's rule too (`--checkout CHECKOUT`).
"""

from __future__ import annotations

from benchmarks import common
from benchmarks.retrieval.sets import LOADERS
from indexer.search.documents import DocumentMatch
from indexer.store.database import Store


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_work(parser, text="a benchmarks.retrieval --work folder", required=True)
    parser.add_argument("--sets", default="financebench,mmlongbench,qasper,syllabusqa")
    common.add_bench(parser)
    parser.add_argument("-v", "--verbose", action="store_true", help="print each question pointed to a wrong document")
    common.add_checkout(parser)
    args = common.parse_args(parser)
    for name in args.sets.split(","):
        corpus = LOADERS[name](args.bench, args.work)
        index = args.work / f"{corpus.name.lower()}-ctx1" / "index.sqlite3"
        if not index.exists():
            common.log(f"{corpus.name}: no index in {index.parent} (run benchmarks.retrieval --work first)")
            continue
        store = Store(index)
        docs = {d.relpath: d for d in store.documents()}
        match = DocumentMatch(store)
        counts = {"own": 0, "wrong": 0, "none": 0}
        for q in corpus.questions:
            pointed = match.pointed(q.text, None)
            own = docs[q.doc].doc_id if q.doc in docs else None
            kind = "none" if not pointed else "own" if own in pointed else "wrong"
            counts[kind] += 1
            if kind == "wrong" and args.verbose:
                titles = [next(d.title for d in docs.values() if d.doc_id == p) for p in pointed]
                print(f"  {q.text[:100]!r} -> {titles}")
        store.close()
        print(
            f"{corpus.name}: {len(corpus.questions)} questions; pointed to their own document {counts['own']}, "
            f"to others only {counts['wrong']}, to none {counts['none']}"
        )


if __name__ == "__main__":
    main()

"""Where whole-folder questions land on files nobody here tuned for: the held-out title sets'
files (`benchmarks/titles/heldout.py`: other projects' public test files, court papers, forms,
papers, reports, office files, e-mails, in several languages) indexed as one folder, and
questions written blind by readers of each file (`labels/heldout-questions.jsonl`: the set, the
file, a question that names neither the file nor who issued it, its answer, a
verbatim excerpt of the passage that answers it, and `also`: another file that holds the same
passage, a page scanned and also set as text). The questions were written before any of them was
asked of the index.

    python -m benchmarks.retrieval.heldout --folder DIR [--cache DIR] [--work DIR] [-v]

DIR holds each set's files as `DIR/<set>/<file>`, as `benchmarks.titles.heldout` reads them;
only those folders are indexed. Each question is asked of the whole folder,
`retrieve(question, top_k=10)`, as `benchmarks.retrieval.landing` asks it; reported per set:
the share whose first hit is in the question's own file (`own@1`), whose first three hits
include it (`own@3`), and whose ten do (`own@10`). `-v` prints each question whose first hit
lands elsewhere, with the title of the file it landed in.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path

from benchmarks import common
from benchmarks.retrieval.shared import MODELS_DIR
from benchmarks.titles.heldout import ASKED as SETS  # the same files, labelled for titles there
from indexer.library import Library, LibraryConfig

QUESTIONS = Path(__file__).resolve().parent / "labels" / "heldout-questions.jsonl"
TOP_K = 10


def main() -> None:
    parser = common.script_parser(__doc__)
    parser.add_argument("--folder", type=Path, required=True, help="the files, as FOLDER/<set>/<file>")
    parser.add_argument("--cache", type=Path, help="MinerU's parse cache to reuse (default: a fresh one)")
    parser.add_argument("--work", type=Path, help="where the index is kept (default: a fresh folder)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each question that lands elsewhere")
    common.add_label(parser, "", "what this run measures, for the results file")
    common.add_out(parser, "landing.md")
    args = common.parse_args(parser)

    work = args.work or Path(tempfile.mkdtemp(prefix="deepread-heldout-landing-"))
    questions = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    config = LibraryConfig(
        roots=[args.folder],
        data_dir=work / "data",
        models_dir=MODELS_DIR,
        token_budget=100_000,
        parse_cache_dir=args.cache or work / "parse-cache",
        parse_timeout_s=1800,
        include=tuple(f"/{name}/" for name in SETS),
    )
    asked: Counter[str] = Counter()
    hits: dict[str, list[int]] = {name: [0, 0, 0] for name in SETS}
    with Library(config) as library:
        library.reconcile()
        library.finish_parses()
        library.wait_for_vectors()  # every paragraph searchable by meaning before the first question
        documents = list(common.open_index(library).store.documents())
        ids = {d.relpath: d.doc_id for d in documents if d.readable}
        titles = {d.doc_id: d.title for d in documents}
        common.log(f"{len(ids)} files indexed of {len(documents)}; {len(questions)} questions")
        for q in questions:
            # its own file, and a copy of what answers it (a page scanned and also set as text)
            own = {ids.get(path) for path in [f"{q['set']}/{q['file']}", *q.get("also", [])]} - {None}
            if not own:  # a file that failed to parse: its questions count as misses, said aloud
                common.log(f"{q['set']}/{q['file']} is not indexed: its question counts as a miss")
            asked[q["set"]] += 1
            found = library.retrieve(q["question"], top_k=TOP_K).results
            docs = [r.doc_id for r in found if r.is_hit]
            for k, n in enumerate((1, 3, TOP_K)):
                hits[q["set"]][k] += bool(own & set(docs[:n]))
            if args.verbose and (not docs or docs[0] not in own):
                landed = titles.get(docs[0], "?") if docs else "(nothing)"
                print(f"  {q['file'][:30]:30} ← {landed[:40]!r:42} {q['question'][:90]!r}")
    lines = [
        (
            f"{args.label or 'Held-out landing'} ({common.commit_stamp('indexer')}): whole-folder questions on "
            f"other projects' files ({len(ids)} files in one folder), first hit's file"
        ),
        "",
        "| set | questions | own@1 | own@3 | own@10 |",
        "|---|---:|---:|---:|---:|",
    ]
    total = [0, 0, 0]
    for name in SETS:
        n = asked[name]
        if n:
            lines.append(f"| {name} | {n} | " + " | ".join(f"{100 * h / n:.1f}" for h in hits[name]) + " |")
            total = [t + h for t, h in zip(total, hits[name], strict=True)]
    n = max(sum(asked.values()), 1)
    lines.append(f"| **all** | {sum(asked.values())} | " + " | ".join(f"**{100 * h / n:.1f}**" for h in total) + " |")
    common.append_lines(
        args.out, "# Where whole-folder questions land (`python -m benchmarks.retrieval.heldout`)\n", lines
    )


if __name__ == "__main__":
    main()

"""Does the agent get to see the evidence? MMLongBench questions answered by a chart, a figure
or a page's layout.

    python -m benchmarks.retrieval.images [--bench PATH] [--work DIR] [--parse-cache DIR]
                                          [--out benchmarks/results/images.md]

For every MMLongBench question whose evidence source is Chart, Figure or Layout: `retrieve`
the question in its document (top 5), then `read_section(images=true)` on each distinct
section the hits land in, as an agent following the tool descriptions would. Reported: the
share of questions where a hit cites a gold page (search found the place), where an image
of a gold page comes back (the agent sees the evidence), and the mean image tokens per
question. The index is kept in `--work`, so a second run only queries.
"""

from __future__ import annotations

import ast
import json
import statistics
from datetime import date
from pathlib import Path

from benchmarks import common
from indexer.library import Library, LibraryConfig

VISUAL = ("Chart", "Figure", "Layout")  # "Generalized-text (Layout)" in the questions


def _sources(question: dict) -> set[str]:
    """The question's visual evidence kinds, by their short names."""
    listed = ast.literal_eval(question["evidence_sources"] or "[]")
    return {kind for kind in VISUAL for source in listed if kind in source}


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_bench(parser)
    common.add_work(parser, Path("/tmp/deepread-images"))
    common.add_parse_cache(parser)
    common.add_out(parser, "images.md")
    args = common.parse_args(parser)

    root = args.bench / "mmlongbench"
    questions = [q for q in json.loads((root / "questions.json").read_text()) if _sources(q)]
    config = LibraryConfig(
        roots=[root / "pdfs"],
        data_dir=args.work / "index",
        models_dir=args.work / "models",
        parse_cache_dir=args.parse_cache,
    )
    with Library(config) as library:
        library.reconcile()
        ids = {d.path: d.doc_id for d in library.toc(max_depth=0).documents}
        rows = [ask(library, ids, q) for q in questions if q["doc_id"] in ids]
    by_source: dict[str, list[dict]] = {}
    for row in rows:
        for source in row["sources"]:
            by_source.setdefault(source, []).append(row)
    lines = [
        f"# Seeing the evidence ({date.today()}, `python -m benchmarks.retrieval.images`)",
        "",
        (
            f"MMLongBench questions whose evidence is a chart, a figure or a page's layout ({len(rows)} of "
            f"{len(questions)} in documents that indexed; a question may have several kinds). Per question: retrieve "
            "top 5 in its document, then read_section(images=true) on each section hit; view_page, which shows any "
            "page, is not counted."
        ),
        "",
        "| evidence | questions | a hit cites a gold page | an image of a gold page is returned | image tokens per question, mean |",
        "|---|---|---|---|---|",
    ]
    for name, group in [("all", rows), *sorted(by_source.items())]:
        lines.append(
            f"| {name} | {len(group)} | {_share(group, 'hit_page')} | {_share(group, 'image_page')} | "
            f"{statistics.mean(r['image_tokens'] for r in group):,.0f} |"
        )
    common.write_result(args.out, "\n".join(lines) + "\n")
    print("\n".join(lines))


def ask(library: Library, ids: dict[str, int], question: dict) -> dict:
    doc_id = ids[question["doc_id"]]
    gold = {int(p) for p in ast.literal_eval(question["evidence_pages"] or "[]")}
    hits = library.retrieve(question["question"][:1000], top_k=5, doc_ids=[doc_id]).results
    hit_pages = {p for h in hits if h.page is not None for p in range(h.page, (h.page_end or h.page) + 1)}
    image_pages: set[int] = set()
    tokens = 0
    for sec_id in dict.fromkeys(h.sec_id for h in hits):
        answer = library.read_section(doc_id, sec_id, images=True)
        image_pages.update(i.page for i in answer.images)
        tokens += sum(i.tokens for i in answer.images)
    return {
        "sources": _sources(question),
        "hit_page": bool(gold & hit_pages),
        "image_page": bool(gold & image_pages),
        "image_tokens": tokens,
    }


def _share(rows: list[dict], key: str) -> str:
    hits = sum(1 for r in rows if r[key])
    return f"{hits} ({hits / len(rows):.0%})" if rows else "–"


if __name__ == "__main__":
    main()

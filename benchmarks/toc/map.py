"""What the map costs and shows on FinanceBench's and MMLongBench's PDFs: one default
`get_toc(doc_id)` per PDF, and the first call every host makes, `get_toc()` over each set's folder.

    python -m benchmarks.toc.map [--work DIR] [--sets financebench,mmlongbench] [--out benchmarks/results/toc-map.md]

Each PDF is parsed as the server parses it (MinerU flash tier in its child process,
`structure.build`; parses cached by content hash in `--work`), stored in a scratch SQLite
store (no vectors: the map needs none), and answered by the same `TocBuilder` and
`render_toc` the tool uses, at the default budget (8,000 tokens). Reported per set: the
median and largest tokens of the answer, the share of documents whose every section of
depth ≤ 2 is listed in that one answer, and the share of sections listed. Then, over the
set's whole folder (and its first `--first` documents, a smaller folder), what a host reads on
its first call: the text's tokens and characters, the structured content's characters (hosts
that show or pass it read that instead), how many documents the text names, how many list at
least one of their top-level sections and how many top-level sections are listed of all there
are; and `get_toc(max_depth=0)`, the documents' lines alone.

It uses only `TocBuilder(store, display_path, budget).document(doc, max_depth)`,
`.all_documents(max_depth, path, page, docs)` and `render_toc`, which older versions have
too: run it on a checkout of an earlier commit (`--checkout CHECKOUT`, with `--work` pointing at
the same cache) for the before → after.
"""

from __future__ import annotations

import hashlib
import statistics
import tempfile
from datetime import date
from pathlib import Path

from benchmarks import common
from indexer.answers.toc import TocBuilder
from indexer.errors import ParseError
from indexer.models import DocumentStructure
from indexer.parse.formats import DocumentParser
from indexer.parse.mineru import MineruOptions
from indexer.store.database import DocumentRow, Store
from indexer.structure.sections import build
from indexer.tokens import count_tokens
from server.render import render_toc

BUDGET = 8000
WORK = Path(tempfile.gettempdir()) / "deepread-toc-map"  # the parse cache, shared with structure_check


def cached_parser(work: Path) -> DocumentParser:
    """The server's parser with its parse cache in `work` (shared by the benchmarks that read PDFs)."""
    options = {"cache_dir": work / "parse-cache", "home": work / "mineru"}
    try:
        return DocumentParser(MineruOptions(**options, work_dir=work / "tmp"))
    except TypeError:  # an earlier version, run for the "before"
        return DocumentParser(MineruOptions(**options))


def parse_pdf(documents: DocumentParser, pdf: Path) -> DocumentStructure:
    data = pdf.read_bytes()
    return build(documents.parse(pdf, data, hashlib.sha256(data).hexdigest()), pdf.stem)


def folder_map(store: Store, docs: list[DocumentRow] | None, name: str) -> str:
    """One row: the first call over a folder (all of `store`'s documents, or `docs`), and its
    documents' lines alone."""
    first = TocBuilder(store, lambda d: d.relpath, BUDGET).all_documents(None, None, 1, docs)
    text = render_toc(first)
    lines = render_toc(TocBuilder(store, lambda d: d.relpath, BUDGET).all_documents(0, None, 1, docs))
    shown = docs or [d for d in store.documents() if d.readable]
    tops = {d.doc_id: {s.sec_id for s in store.sections(d.doc_id) if s.parent == 0} for d in shown}
    listed = {d.doc_id: {s.sec_id for s in d.sections} & tops[d.doc_id] for d in first.documents}
    named = sum(1 for d in shown if f"({d.doc_id}) " in text)
    with_tops = sum(1 for d in shown if listed.get(d.doc_id) or not tops[d.doc_id])
    n_tops = sum(len(t) for t in tops.values())
    structured = first.model_dump_json()
    return (
        f"| {name} | {len(shown)} | {count_tokens(text):,} ({len(text):,}) | {len(structured):,} | "
        f"{named} | {with_tops} | {sum(len(t) for t in listed.values()):,} of {n_tops:,} | "
        f"{count_tokens(lines):,} ({len(lines):,}) |"
    )


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_bench(parser)
    parser.add_argument("--sets", default="financebench,mmlongbench")
    common.add_work(parser, WORK, "MinerU's parses are cached here (default: %(default)s)")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--first", type=int, default=30, help="also map a folder of the first N documents of a set")
    common.add_out(parser, "toc-map.md")
    common.add_checkout(parser)
    args = common.parse_args(parser)

    args.work.mkdir(parents=True, exist_ok=True)
    documents = cached_parser(args.work)
    lines = [
        f"# One default get_toc(doc_id) per PDF ({date.today()}, `python -m benchmarks.toc.map`)",
        "",
        f"Budget {BUDGET:,} tokens. *Depth ≤ 2 whole*: every section of depth 1 and 2 is listed.",
        "",
        "| set | documents | answer tokens, median / max | depth ≤ 2 whole | sections listed |",
        "|---|---|---|---|---|",
    ]
    detail: list[str] = []
    folders = [
        "",
        (
            "What a host reads on its first call, `get_toc()` over the folder: the text (tokens by "
            "`indexer.tokens.count_tokens`, characters) and the structured content (JSON characters)."
        ),
        (
            "*Named*: documents whose `(doc_id)` the text shows; *with sections*: documents listing at least "
            "one top-level section (or having none); *top-level listed*: sections right under a root listed, of all."
        ),
        "",
        (
            "| folder | documents | get_toc() tokens (chars) | structured chars | named | with sections | "
            "top-level listed | get_toc(max_depth=0) tokens (chars) |"
        ),
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in args.sets.split(","):
        pdfs = sorted((args.bench / name / "pdfs").glob("*.pdf"))
        if args.limit:
            pdfs = pdfs[: args.limit]
        tokens, whole, listed, total = [], 0, 0, 0
        with tempfile.TemporaryDirectory() as tmp:
            store = Store(Path(tmp) / "index.sqlite3")
            maps = TocBuilder(store, lambda d: d.relpath, BUDGET)
            for pdf in pdfs:
                try:
                    structure = parse_pdf(documents, pdf)
                except ParseError as exc:
                    detail.append(f"| {name} | {pdf.name} | failed: {exc} |")
                    continue
                doc_id = store.add_document(str(pdf.parent), pdf.name)
                store.replace_content(
                    doc_id, structure, [f"{doc_id}:{i}" for i in range(len(structure.paragraphs))], {}
                )
                toc = maps.document(store.document(doc_id), None)
                text = render_toc(toc)
                n = count_tokens(text)
                shown = {s.sec_id for s in toc.documents[0].sections}
                shallow = {s.sec_id for s in structure.sections if s.level <= 2}
                tokens.append(n)
                whole += shallow <= shown
                listed += len(shown)
                total += len(structure.sections)
                detail.append(
                    f"| {name} | {pdf.name} | {len(structure.sections)} sections, {n:,} tokens, "
                    f"{len(shown)} listed, depth ≤ 2 {'whole' if shallow <= shown else 'cut'} |"
                )
                print(detail[-1], flush=True)
            folders.append(folder_map(store, None, f"{name}, whole folder"))
            ready = [d for d in store.documents() if d.readable]
            if 0 < args.first < len(ready):
                folders.append(folder_map(store, ready[: args.first], f"{name}, first {args.first}"))
            print("\n".join(folders[-2:]), flush=True)
            store.close()
        if tokens:
            lines.append(
                f"| {name} | {len(tokens)} | {statistics.median(tokens):,.0f} / {max(tokens):,} | "
                f"{whole / len(tokens):.0%} | {listed / max(total, 1):.0%} ({listed:,} of {total:,}) |"
            )
    text = "\n".join([*lines, *folders, "", "| set | file | map |", "|---|---|---|", *detail]) + "\n"
    common.write_result(args.out, text)
    print("\n".join([*lines, *folders]))


if __name__ == "__main__":
    main()

"""What one default `get_toc(doc_id)` costs and shows, on every PDF of FinanceBench and MMLongBench.

    python -m benchmarks.toc_map [--work DIR] [--sets financebench,mmlongbench] [--out benchmarks/results/toc-map.md]

Each PDF is parsed as the server parses it (MinerU flash tier in its child process,
`structure.build`; parses cached by content hash in `--work`), stored in a scratch SQLite
store (no vectors: the map needs none), and answered by the same `TocBuilder` and
`render_toc` the tool uses, at the default budget (8,000 tokens). Reported per set: the
median and largest tokens of the answer, the share of documents whose every section of
depth ≤ 2 is listed in that one answer, and the share of sections listed.

It uses only `TocBuilder(store, display_path, budget).document(doc, max_depth)` and
`render_toc`, which older versions have too: run the same file in a checkout of an
earlier commit (with `--work` pointing at the same cache) for the before → after.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import tempfile
from datetime import date
from pathlib import Path

from indexer.answers.toc import TocBuilder
from indexer.errors import ParseError
from indexer.models import DocumentStructure
from indexer.parse.formats import DocumentParser
from indexer.parse.mineru import MineruOptions
from indexer.store.database import Store
from indexer.structure.sections import build
from indexer.tokens import count_tokens
from server.render import render_toc

REPO = Path(__file__).resolve().parents[1]
DEFAULT_BENCH = REPO.parent / "shared" / "bench"
BUDGET = 8000


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, default=DEFAULT_BENCH)
    parser.add_argument("--sets", default="financebench,mmlongbench")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "deepread-toc-map")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "toc-map.md")
    args = parser.parse_args()

    args.work.mkdir(parents=True, exist_ok=True)
    documents = cached_parser(args.work)
    lines = [
        f"# One default get_toc(doc_id) per PDF ({date.today()}, `python -m benchmarks.toc_map`)",
        "",
        f"Budget {BUDGET:,} tokens. *Depth ≤ 2 whole*: every section of depth 1 and 2 is listed.",
        "",
        "| set | documents | answer tokens, median / max | depth ≤ 2 whole | sections listed |",
        "|---|---|---|---|---|",
    ]
    detail: list[str] = []
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
            store.close()
        if tokens:
            lines.append(
                f"| {name} | {len(tokens)} | {statistics.median(tokens):,.0f} / {max(tokens):,} | "
                f"{whole / len(tokens):.0%} | {listed / max(total, 1):.0%} ({listed:,} of {total:,}) |"
            )
    text = "\n".join([*lines, "", "| set | file | map |", "|---|---|---|", *detail]) + "\n"
    args.out.write_text(text)
    print("\n".join(lines))


if __name__ == "__main__":
    main()

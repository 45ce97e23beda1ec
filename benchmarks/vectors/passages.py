"""What passages cost and hold: vectors per page, word pieces the model reads, against one
vector per paragraph and against the flat-chunk baseline, on real documents.

    python -m benchmarks.vectors.passages [--pdfs DIR] [--docs 12] [--parse-cache DIR] [--out FILE]

Parses the first `--docs` PDFs of `--pdfs` (by name) as the server does (MinerU, the parse
cache in `--parse-cache`, kept between runs when given), packs each document's paragraphs
into passages (`indexer.structure.passages`) and counts, with the model's own tokenizer: vectors,
vectors per page, word pieces the model reads (it stops at 256), passages it cannot read
whole, and the same for one vector per paragraph and for the flat-chunk baseline of
`benchmarks.retrieval` (600-word windows, step 300, of the PDF text layer).
"""

from __future__ import annotations

import hashlib
import statistics
import tempfile
from datetime import date
from pathlib import Path

from tokenizers import Tokenizer

from benchmarks import common
from benchmarks.retrieval.rankers import file_pages, word_windows
from indexer.parse.formats import DocumentParser
from indexer.parse.mineru import MineruOptions
from indexer.structure.passages import WINDOW_TOKENS, embedded_text, pack, stands_alone
from indexer.structure.sections import build
from indexer.titles.decide import title_from_name

TOKENIZER = common.REPO / "indexer" / "assets" / "all-MiniLM-L6-v2" / "tokenizer.json"
MODEL_PIECES = 256  # MiniLM's window, [CLS] and [SEP] included


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_pdfs(parser)
    parser.add_argument("--docs", type=int, default=12)
    common.add_parse_cache(parser)
    common.add_out(parser, "passages.md")
    args = common.parse_args(parser)

    scratch = Path(tempfile.mkdtemp(prefix="deepread-passages-"))
    cache = args.parse_cache or scratch / "cache"
    mineru = DocumentParser(MineruOptions(cache_dir=cache, home=scratch / "mineru", work_dir=scratch / "tmp"))
    tokenizer = Tokenizer.from_file(str(TOKENIZER))
    tokenizer.no_truncation()

    def pieces(texts: list[str]) -> list[int]:
        return [len(e.ids) for e in tokenizer.encode_batch(texts)] if texts else []

    totals = {"pages": 0, "paragraphs": 0, "passages": 0, "alone": 0, "chunks": 0}
    read = {"paragraphs": [], "passages": [], "chunks": []}  # word pieces of each vector's text
    for pdf in sorted(args.pdfs.glob("*.pdf"))[: args.docs]:
        data = pdf.read_bytes()
        structure = build(
            mineru.parse(pdf, data, hashlib.sha256(data).hexdigest()), fallback_title=title_from_name(pdf)
        )
        paths = structure.section_paths()
        paragraphs = structure.paragraphs
        passages = pack(paragraphs, paths, True)
        totals["pages"] += structure.n_pages or 0
        totals["paragraphs"] += len(paragraphs)
        totals["passages"] += len(passages)
        totals["alone"] += sum(1 for p in passages if len(p.members) == 1 and stands_alone(paragraphs[p.members[0]]))
        read["paragraphs"] += pieces([embedded_text(paths[p.sec_id], p.text, True) for p in paragraphs])
        read["passages"] += pieces([p.text for p in passages])
        chunks = [text for text, _ in word_windows(file_pages(pdf))]
        totals["chunks"] += len(chunks)
        read["chunks"] += pieces(chunks)

    pages = totals["pages"]
    rows = []
    for name, label in (
        ("paragraphs", "one vector per paragraph"),
        ("passages", "passages (now)"),
        ("chunks", "flat chunks 600 words"),
    ):
        counts = read[name]
        seen = sum(min(n, MODEL_PIECES) for n in counts)
        cut = sum(1 for n in counts if n > MODEL_PIECES)
        rows.append(
            f"| {label} | {len(counts):,} | {len(counts) / pages:.2f} | {statistics.median(counts):.0f} | "
            f"{seen:,} | {seen / pages:.0f} | {100 * cut / len(counts):.1f} % |"
        )
    ratio = len(read["passages"]) / len(read["chunks"])
    text = (
        f"\n## {date.today()}: {args.docs} PDFs of {args.pdfs.name if args.pdfs != common.DEFAULT_PDFS else 'FinanceBench'}, "
        f"{pages:,} pages, window {WINDOW_TOKENS} tokens\n\n"
        "| vectors | count | per page | median word pieces | word pieces read (≤ 256 each) | per page | "
        "read only in part (> 256) |\n|---|---|---|---|---|---|---|\n"
        + "\n".join(rows)
        + f"\n\nPassages per page ÷ flat chunks per page: {ratio:.2f}; passages that stand alone (long tables, "
        f"figures): {totals['alone']:,}; paragraphs per passage: {totals['paragraphs'] / totals['passages']:.2f}.\n"
    )
    print(text)
    common.append_result(
        args.out, "# Passages: vectors and what the model reads (`python -m benchmarks.vectors.passages`)\n", text
    )


if __name__ == "__main__":
    main()

"""What a vector per paragraph costs: passages embedded as before, and with their paragraphs' vectors.

    python -m benchmarks.vectors.paragraph_vectors --index DATA_DIR [--passages 1500] [--rounds 5]
                                                   [--out benchmarks/results/paragraph-vectors.md]

Reads the passages of an existing index (`--index`: a data dir, e.g. the one `benchmarks.retrieval
--work DIR` keeps for a set), the ones of several paragraphs, and times on the same sample
`Embedder.embed` (one vector per passage, the cost before paragraph vectors) against
`Embedder.embed_passages` (the same pass, plus the mean of each paragraph's token vectors),
in slices timed the two ways back to back so the machine's load falls on both alike. The median
slice's ratio is the cost (the issue allows 10 % more embedding time); also what the paragraph
vectors take in the copy.
"""

from __future__ import annotations

import random
import statistics
import time
from datetime import date
from pathlib import Path

import numpy as np

from benchmarks import common
from benchmarks.vectors.kept import index_passages
from indexer.store.embedder import DEFAULT_MODEL, Embedder
from indexer.structure.passages import Passage

CHUNK = 40  # passages timed the two ways back to back


def main() -> None:
    parser = common.script_parser(__doc__)
    parser.add_argument("--index", type=Path, required=True, help="an index's data dir (holds index.sqlite3)")
    parser.add_argument("--models", type=Path, default=None, help="models dir (default: beside the data dir)")
    parser.add_argument("--passages", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=5)
    common.add_out(parser, "paragraph-vectors.md")
    args = common.parse_args(parser)

    passages: list[Passage] = index_passages(args.index)  # packed with headings or not, as the index embeds
    shared = [p for p in passages if p.spans]
    sample = random.Random(0).sample(shared, min(args.passages, len(shared)))
    texts, spans = [p.text for p in sample], [p.spans for p in sample]
    embedder = Embedder(args.models or args.index.parent / "models", DEFAULT_MODEL)
    embedder.embed(texts[:32])  # warm up
    # Timed in slices of CHUNK passages, the two ways back to back (each first in turn): a busy
    # machine's load changes over minutes, and each slice's pair sees about the same load.
    before: list[float] = []
    after: list[float] = []
    members: list = []
    for round_ in range(args.rounds):
        for n, start_at in enumerate(range(0, len(texts), CHUNK)):
            piece, piece_spans = texts[start_at : start_at + CHUNK], spans[start_at : start_at + CHUNK]
            for which in ("before", "after") if (round_ + n) % 2 == 0 else ("after", "before"):
                start = time.perf_counter()
                if which == "before":
                    embedder.embed(piece)
                    before.append(time.perf_counter() - start)
                else:
                    members[start_at : start_at + CHUNK] = embedder.embed_passages(piece, piece_spans)[1]
                    after.append(time.perf_counter() - start)
    ratios = [a / b for a, b in zip(after, before, strict=True)]
    paragraphs = sum(len(s) for s in spans)
    unread = sum(int(np.isnan(m).any(axis=1).sum()) for m in members if m is not None)
    b, a = sum(before) / args.rounds, sum(after) / args.rounds
    lines = [
        f"# Paragraph vectors: their cost ({date.today()}, `python -m benchmarks.vectors.paragraph_vectors`)",
        "",
        (
            f"{len(sample):,} passages of several paragraphs ({paragraphs:,} paragraphs; {len(shared):,} of the index's "
            f"{len(passages):,} passages hold several) from `{args.index.name}`, bundled MiniLM int8, {args.rounds} rounds "
            f"in slices of {CHUNK} passages, the two ways back to back: seconds per round, and the median of the "
            f"{len(ratios)} slices' ratios (**{statistics.median(ratios):.3f}**; quartiles "
            f"{statistics.quantiles(ratios, n=4)[0]:.3f} – {statistics.quantiles(ratios, n=4)[2]:.3f})."
        ),
        "",
        "| embedding | seconds | passages/s | × passage vectors only |",
        "|---|---|---|---|",
        f"| passage vectors only (`embed`) | {b:.2f} | {len(sample) / b:.1f} | 1.00 |",
        f"| passage + paragraph vectors, one pass (`embed_passages`) | {a:.2f} | {len(sample) / a:.1f} | {statistics.median(ratios):.3f} |",
        "",
        (
            f"Kept: {paragraphs * embedder.dim * 2 / len(sample) / 1024:.1f} KiB of float16 paragraph vectors per passage "
            f"({embedder.dim * 2:,} bytes a paragraph), in the vectors' copy only."
        ),
        f"Paragraphs the model did not read (past its window; they rank after their passage's others): {unread:,} of {paragraphs:,}.",
    ]
    common.write_result(args.out, "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

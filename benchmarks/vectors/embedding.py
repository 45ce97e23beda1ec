"""Where embedding time goes: the same real paragraphs embedded with other batch sizes and threads.

    python -m benchmarks.vectors.embedding [--index DIR] [--paragraphs 2000] [--rounds 3]
                                           [--out benchmarks/results/embedding.md]

Reads `--paragraphs` paragraphs (with their heading paths, as the index embeds them) from an
existing index's store (`--index`, a data dir such as the one `benchmarks.retrieval.images` keeps), then
times `Embedder.embed` on them for each setting, interleaved round by round so the machine's
load falls on all alike. Paragraphs/s, median of `--rounds`, and the ratio to the default.
Then where the default's time goes: tokenisation alone (the model's own tokenizer), the
Chroma write of the vectors (a fresh collection), and how many paragraphs the model's 256
word pieces cut short (a long table is embedded as its start).
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks import common
from benchmarks.vectors.kept import index_passages
from indexer.store.embedder import DEFAULT_MODEL, Embedder
from indexer.store.vectors import VectorIndex

SETTINGS = [(16, None), (32, None), (64, None), (16, 1), (16, 2)]  # (batch size, ONNX threads); first = default


def main() -> None:
    parser = common.script_parser(__doc__)
    parser.add_argument("--index", type=Path, default=Path("/tmp/deepread-images/index"))
    parser.add_argument("--models", type=Path, default=None, help="models dir (default: next to the index)")
    parser.add_argument("--paragraphs", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    common.add_out(parser, "embedding.md")
    args = common.parse_args(parser)

    texts = [p.text for p in index_passages(args.index, with_context=True)]
    texts = random.Random(0).sample(texts, min(args.paragraphs, len(texts)))
    models = args.models or args.index.parent / "models"
    embedders = {threads: Embedder(models, DEFAULT_MODEL, threads=threads) for threads in {t for _, t in SETTINGS}}
    rates: dict[tuple[int, int | None], list[float]] = {s: [] for s in SETTINGS}
    for _ in range(args.rounds):
        for batch, threads in SETTINGS:
            start = time.perf_counter()
            embedders[threads].embed(texts, batch_size=batch)
            rates[(batch, threads)].append(len(texts) / (time.perf_counter() - start))
    base = statistics.median(rates[SETTINGS[0]])
    lines = [
        f"# Embedding throughput ({date.today()}, `python -m benchmarks.vectors.embedding`)",
        "",
        (
            f"{len(texts):,} real paragraphs (with heading paths) of the index in `{args.index}`, bundled MiniLM int8, "
            f"median of {args.rounds} interleaved rounds."
        ),
        "",
        "| batch size | ONNX threads | paragraphs/s | × default |",
        "|---|---|---|---|",
    ]
    for batch, threads in SETTINGS:
        rate = statistics.median(rates[(batch, threads)])
        lines.append(f"| {batch} | {threads or 'all cores'} | {rate:.1f} | {rate / base:.2f} |")
    lines += ["", *breakdown(embedders[None], texts, args.rounds, len(texts) / base)]
    common.write_result(args.out, "\n".join(lines) + "\n")
    print("\n".join(lines))


def breakdown(embedder: Embedder, texts: list[str], rounds: int, total_s: float) -> list[str]:
    """The default's time in parts: tokenising, and writing the vectors to Chroma."""
    tokenizer = embedder._model.model.tokenizer  # fastembed's own (a `tokenizers.Tokenizer`, truncating)
    limit = tokenizer.truncation["max_length"] if tokenizer.truncation else None
    tokenise, write = [], []
    vectors = embedder.embed(texts)
    for _ in range(rounds):
        start = time.perf_counter()
        encodings = tokenizer.encode_batch(texts)
        tokenise.append(time.perf_counter() - start)
        with tempfile.TemporaryDirectory() as tmp:
            index = VectorIndex("paragraphs", path=Path(tmp))
            start = time.perf_counter()
            index.add([f"p{i}" for i in range(len(texts))], [i % 50 for i in range(len(texts))], vectors)
            write.append(time.perf_counter() - start)
            del index
    lengths = [sum(e.attention_mask) for e in encodings]  # word pieces, not the padding to the batch's longest
    cut = sum(1 for n in lengths if limit and n >= limit)
    pieces = statistics.median(lengths)
    tok_s, write_s = statistics.median(tokenise), statistics.median(write)
    return [
        "Where the default's time goes (same paragraphs, median of the rounds):",
        "",
        "| part | seconds | share of embedding them |",
        "|---|---|---|",
        f"| embedding, all of it (tokenising + the model) | {total_s:.1f} | 1.00 |",
        f"| tokenising alone | {tok_s:.2f} | {tok_s / total_s:.3f} |",
        f"| writing the vectors to Chroma (not part of embedding) | {write_s:.2f} | {write_s / total_s:.3f} |",
        "",
        (
            f"Word pieces per paragraph, median: {pieces:.0f}; cut at the model's {limit}: {cut:,} of {len(texts):,} "
            f"({cut / len(texts):.1%})."
        ),
    ]


if __name__ == "__main__":
    main()

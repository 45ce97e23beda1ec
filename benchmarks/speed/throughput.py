"""How soon documents are usable: the first readable, all readable (keyword search), all embedded.

    python -m benchmarks.speed.throughput [--pdfs DIR] [--docs 12] [--parse-cache DIR] [--label now]
                                          [--parse-alone] [--flat-baseline] [--out benchmarks/results/throughput.md]
                                          [--checkout CHECKOUT]

Copies the first `--docs` PDFs of `--pdfs` (by name) into an empty folder and indexes it
with a fresh data dir: `Library.reconcile()` runs on a thread while this one reads the store
every 0.1 s. With `--parse-cache` pointing at a warm MinerU cache the parse is taken out
(what is left: layout repair, structure, store, embedding); without it, the parse is cold.
Reports the seconds until the first document is readable and found by keyword search, until
all are, and until semantic search covers all; pages/s for each; and, as the same-run
baseline, the time to embed the same paragraphs alone (same model, same process). Peak RSS.
With `--parse-alone` (cold runs), the files are first parsed alone, as the indexer does (its
parse lanes, a throwaway cache), and the time to all readable is also given as a ratio to it.
With `--flat-baseline`, the same process then times the flat-chunk baseline of
`benchmarks.retrieval` to a full index of the same files: text layer read by pypdfium2, cut
into 800-word windows (step 400), each embedded by the same model.
The script reads only what every version of the library has, so it can time an older
checkout too: `python -m benchmarks.speed.throughput --checkout CHECKOUT --label before`.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path

from benchmarks import common
from indexer.ingest.lanes import LANES
from indexer.library import Library, LibraryConfig
from indexer.parse.formats import DocumentParser
from indexer.parse.mineru import MineruOptions


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_pdfs(parser)
    parser.add_argument("--docs", type=int, default=12)
    common.add_parse_cache(parser, text="a warm MinerU parse cache (else: cold parse)")
    common.add_label(parser, "now")
    parser.add_argument(
        "--parse-alone", action="store_true", help="time the cold parse alone first (same-run baseline)"
    )
    parser.add_argument("--flat-baseline", action="store_true", help="time the flat-chunk baseline's full index after")
    common.add_out(parser, "throughput.md")
    common.add_checkout(parser)
    args = common.parse_args(parser)

    work = Path(tempfile.mkdtemp(prefix="deepread-throughput-"))
    try:
        folder = work / "docs"
        folder.mkdir()
        for pdf in sorted(args.pdfs.glob("*.pdf"))[: args.docs]:
            shutil.copyfile(pdf, folder / pdf.name)
        parse_alone = parse_only(folder, work / "parse-alone") if args.parse_alone and not args.parse_cache else None
        config = LibraryConfig(
            roots=[folder], data_dir=work / "data", models_dir=work / "models", parse_cache_dir=args.parse_cache
        )
        library = Library(config)
        row = measure(library, n_files=len(list(folder.iterdir())))
        flat = flat_index(folder, library) if args.flat_baseline else None
        library.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if parse_alone is not None:
        print(
            f"parse alone: {parse_alone:.1f} s; all readable: {row['readable']:.1f} s = {row['readable'] / parse_alone:.2f}x"
        )
    line = (
        f"| {args.label} | {'warm' if args.parse_cache else 'cold'} | {row['files']} | {row['pages']:,} | "
        f"{row['paragraphs']:,} ({row['vectors']:,} vectors) | {row['first']:.1f} | {row['readable']:.1f} | {row['embedded']:.1f} | "
        f"{row['pages'] / row['readable']:.1f} | {row['pages'] / row['embedded']:.1f} | {row['embed_alone']:.1f} | "
        f"{row['embedded'] / row['embed_alone']:.2f} | "
        + (f"{parse_alone:.1f} | {row['readable'] / parse_alone:.2f} | " if parse_alone else "– | – | ")
        + (
            f"{flat[1]:.1f} ({flat[0]:,} chunks; complete ÷ flat {row['embedded'] / flat[1]:.2f}) | "
            if flat
            else "– | "
        )
        + f"{row['rss_mb']:,.0f} |"
    )
    print(line)
    common.append_result(
        args.out,
        f"# Time until usable ({date.today()}, `python -m benchmarks.speed.throughput`)\n\n"
        "Seconds from the start of indexing until the first document is readable and found by keyword search, "
        "until all are, until semantic search covers all; embedding alone: the same paragraphs embedded in one "
        "call, same model, same process (the same-run baseline); parse alone (cold runs): the same files parsed "
        "and nothing else, before the run.\n\n"
        "| code | parse | files | pages | paragraphs | first readable s | all readable s | all embedded s | "
        "pages/s readable | pages/s embedded | embedding alone s | embedded ÷ alone | parse alone s | "
        "readable ÷ parse alone | flat-chunk baseline, full index s | peak RSS MB |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        line + "\n",
    )


def parse_only(folder: Path, scratch: Path) -> float:
    """Seconds to parse every file of `folder` cold, `LANES` at a time, and nothing else."""
    parser = DocumentParser(
        MineruOptions(cache_dir=scratch / "cache", home=scratch / "mineru", work_dir=scratch / "tmp")
    )

    def parse(path: Path) -> None:
        data = path.read_bytes()
        parser.parse(path, data, hashlib.sha256(data).hexdigest())

    start = time.perf_counter()
    with ThreadPoolExecutor(LANES) as lanes:
        list(lanes.map(parse, sorted(folder.iterdir())))
    elapsed = time.perf_counter() - start
    shutil.rmtree(scratch, ignore_errors=True)
    return elapsed


def flat_index(folder: Path, library: Library) -> tuple[int, float]:
    """The flat-chunk baseline's chunks, and seconds to read, cut and embed them (same model)."""
    from benchmarks.retrieval.rankers import file_pages, word_windows

    start = time.perf_counter()
    texts = [text for path in sorted(folder.iterdir()) for text, _ in word_windows(file_pages(path))]
    common.open_index(library).embedder.embed(texts)
    return len(texts), time.perf_counter() - start


def measure(library: Library, n_files: int) -> dict[str, float]:
    """Index on a thread; read the store every 0.1 s for what is readable and what is embedded."""
    done = threading.Event()
    thread = threading.Thread(target=lambda: (library.reconcile(), done.set()), daemon=True)
    start = time.perf_counter()
    thread.start()
    first = readable = None
    while not done.is_set():
        time.sleep(0.1)
        docs = [d for d in common.open_index(library).store.documents() if d.readable]
        now = time.perf_counter() - start
        if docs and first is None:
            first = now
        if len(docs) >= n_files and readable is None:
            readable = now
    embedded = time.perf_counter() - start
    thread.join()
    docs = [d for d in common.open_index(library).store.documents() if d.readable]
    texts = _embedded_texts(library, docs)
    began = time.perf_counter()
    common.open_index(library).embedder.embed(texts)
    alone = time.perf_counter() - began
    return {
        "files": len(docs),
        "pages": sum(d.n_pages or 0 for d in docs),
        "paragraphs": sum(d.n_paras for d in docs),
        "vectors": len(texts),
        "first": first or embedded,
        "readable": readable or embedded,
        "embedded": embedded,
        "embed_alone": alone,
        "rss_mb": common.peak_mb(),
    }


def _embedded_texts(library: Library, docs: list) -> list[str]:
    """What the model saw (passages, or paragraphs before them), read back from the store."""
    try:
        from indexer.structure.passages import vector_ids
    except ImportError:  # a checkout from before passages: one vector per paragraph
        from indexer.ingest.pipeline import embedded_text  # type: ignore[attr-defined]

        vector_ids = None
    texts = []
    for d in docs:
        paths: dict[int, list[str]] = {}
        rows = []
        for s in common.open_index(library).store.sections(d.doc_id):  # typed rows now, sqlite3.Row before
            sec_id, parent, title = (
                (s.sec_id, s.parent, s.title) if hasattr(s, "sec_id") else (s["sec_id"], s["parent"], s["title"])
            )
            paths[sec_id] = [*(paths.get(parent, []) if parent is not None else []), title]
            rows.extend(common.open_index(library).store.paragraphs(d.doc_id, sec_id, 0, 10**9))
        if vector_ids is not None:
            passages = vector_ids(d.doc_id, rows, paths, library.config.heading_context)[1].values()
            texts.extend(getattr(p, "text", p) for p in passages)  # (texts themselves before passages had spans)
        else:
            texts.extend(embedded_text(paths[p.sec_id], p.text, library.config.heading_context) for p in rows)
    return texts


if __name__ == "__main__":
    main()

"""Retrieve and get_toc latency at a synthetic collection of up to 10,000 documents and
1,000,000 paragraphs, and start-up over 10,000 unchanged files.

    python -m benchmarks.scale [--bench PATH] [--sizes 10000,100000,1000000] [--distinct 5000]
                               [--queries 200] [--rounds 3] [--startup-files 10000]
                               [--out benchmarks/results/scale.md]

The real sets give 5k–80k paragraphs, and embedding 100k texts would take ~40 min
on the 2-core box, so the collection is synthetic, built from real material:

1. `--distinct` distinct paragraphs of the Markdown trees (rust-book, fastapi-docs) are
   sampled and embedded once, each with its real heading context.
2. Synthetic documents of `--doc-paragraphs` paragraphs in `--sections` sections take a
   run of consecutive sampled paragraphs (so a document stays on one topic), titled by
   the real headings; each text gets a numeric suffix (distinct rows for BM25) and each
   vector is its source's vector plus gaussian noise (`--noise` per dimension), re-normalised.
3. Documents are committed with `Indexer.add_structures` (the indexer's own commit, the
   vectors given instead of embedded), in batches of `BATCH_PASSAGES`, into a Library
   opened on an empty temporary folder, whose `reconcile()` is never called (it would
   remove documents without files).
   The collection grows through `--sizes`, measured at each. Documents sit in folders of
   `--folder-docs` (`synthetic/f012/doc-01234.md`), as a real folder of downloads would.

`Library.retrieve(top_k=5)` latency p50/p95 per search mode (hybrid, dense, lexical),
over the whole collection, scoped to one document and to one folder (`path=`), over `--queries` real headings;
the first size is built a second time as a baseline that is queried interleaved with
the growing collection, so the ratio survives the load of other jobs. Also: build time,
size on disk, peak RSS, and where a hybrid retrieve spends its time; `get_toc` latency (the
map's first page, a page in the middle, one folder, one document); and the time a restart takes
to find `--startup-files` real files unchanged (open the index, then reconcile the folder).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np

from indexer.library import Library, LibraryConfig
from indexer.models import Block, DocumentStructure, ParsedDocument
from indexer.parse.formats import parse_text_file
from indexer.structure.passages import embedded_text
from indexer.ingest.pipeline import BATCH_PASSAGES
from indexer.search.hybrid import SearchMode
from indexer.structure.sections import MAX_TEXT_TOKENS, build

REPO = Path(__file__).resolve().parents[1]
DEFAULT_BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"
TREES = ("rust-book", "fastapi-docs")
MODES: tuple[SearchMode, ...] = ("hybrid", "dense", "lexical")
SCOPES = ("whole", "one doc", "folder")
SUFFIX_TOKENS = 3  # " [12]" counts as three tokens
# What a hybrid retrieve calls, timed inside the real call: label → (attribute of Library, method).
PARTS = {
    "query embedding": ("embedder", "embed"),
    "vector query (Chroma, or the copy for a scope)": ("vectors", "query"),
    "vec_id → paragraph (SQLite)": ("store", "paragraph_ids_for_vectors"),
    "FTS5 BM25": ("store", "lexical_search"),
}


@dataclass
class Source:
    """A real paragraph: its text, kind, section title and what the model saw."""

    text: str
    kind: str
    section: str
    embedded: str


@dataclass
class Material:
    sources: list[Source]
    vectors: np.ndarray  # unit vectors, one per source
    headings: list[str]  # distinct real section titles: the queries


@dataclass
class Latency:
    p50: float
    p95: float


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, default=DEFAULT_BENCH)
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--folder-docs", type=int, default=100, help="documents per folder")
    parser.add_argument("--startup-files", type=int, default=10000, help="0: skip the start-up measurement")
    parser.add_argument("--distinct", type=int, default=5000)
    parser.add_argument("--doc-paragraphs", type=int, default=100)
    parser.add_argument("--sections", type=int, default=5)
    parser.add_argument("--noise", type=float, default=0.015)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "scale.md")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    assert all(s % args.doc_paragraphs == 0 for s in sizes), "sizes must be whole documents"

    load_start, commit = os.getloadavg(), _commit_name()  # the code this process runs
    work = Path(tempfile.mkdtemp(prefix="deepread-scale-"))
    try:
        (work / "empty").mkdir()
        growing, baseline = _open(work, "data"), _open(work, "baseline")
        start = time.perf_counter()
        material = _material(growing, args.bench, args.distinct)
        embed_s = time.perf_counter() - start
        queries = material.headings[: args.queries]
        _log(f"embedded {len(material.sources)} sources in {embed_s:.0f} s; building the baseline")
        _grow(baseline, material, sizes[0], args)
        builds, latencies, parts, tocs = [], {}, {}, {}
        for size in sizes:
            _log(f"growing to {size} paragraphs")
            build_s, n_added = _grow(growing, material, size, args)
            first_ms = _first_retrieve_ms(growing, queries[0])
            latencies[size] = _measure([growing, baseline], queries, args.rounds)
            parts[size] = {scope: _breakdown(growing, queries, scope) for scope in SCOPES}
            builds.append(_build_row(growing, size, build_s, n_added, first_ms))
            tocs[size] = _toc_latency(growing, args.queries, args.rounds)
            _log(f"{size}: hybrid whole p50 {latencies[size][('hybrid', 'whole')][0].p50:.1f} ms")
        growing.close()
        baseline.close()
        startup = _startup(work, args.startup_files, args.folder_docs, args.rounds) if args.startup_files else None
    finally:
        shutil.rmtree(work, ignore_errors=True)

    report = _report(args, sizes, material, embed_s, builds, latencies, parts, commit, load_start, os.getloadavg())
    report += _toc_report(sizes, tocs) + (_startup_report(args.startup_files, startup) if startup else "")
    print(report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report + "\n")


def _open(work: Path, name: str) -> Library:
    """A Library over an empty root: reconcile is never called, so nothing is scanned or removed."""
    config = LibraryConfig(roots=[work / "empty"], data_dir=work / name, models_dir=work / "models")
    return Library(config)


def _log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- material ------------------------------------------------------------------------


def _material(library: Library, bench: Path, n: int) -> Material:
    """Real paragraphs (a sample, in reading order) with their real vectors, and real headings."""
    sources, headings = _read_trees(bench, library.config.heading_context)
    rng = random.Random(0)
    sample = sorted(rng.sample(range(len(sources)), min(n, len(sources))))
    chosen = [sources[i] for i in sample]
    vectors = library.embedder.embed([s.embedded for s in chosen])
    rng.shuffle(headings)
    return Material(chosen, vectors, headings)


def _read_trees(bench: Path, heading_context: bool) -> tuple[list[Source], list[str]]:
    """Every distinct paragraph and section title, parsed by the project's own Markdown path."""
    sources: dict[str, Source] = {}
    headings: dict[str, None] = {}
    for tree in TREES:
        for path in sorted((bench / "markdown" / tree).rglob("*.md")):
            structure = build(parse_text_file(path, 50_000_000), fallback_title=path.stem)
            paths = structure.section_paths()
            headings.update(dict.fromkeys(s.title for s in structure.sections[1:]))
            for p in structure.paragraphs:
                # With its suffix a text must stay under the split threshold: one block, one paragraph.
                if p.kind == "text" and p.n_tokens + SUFFIX_TOKENS > MAX_TEXT_TOKENS:
                    continue
                embedded = embedded_text(paths[p.sec_id], p.text, heading_context)
                sources.setdefault(p.text, Source(p.text, p.kind, paths[p.sec_id][-1], embedded))
    return list(sources.values()), list(headings)


# --- the synthetic collection ----------------------------------------------------------


def _grow(library: Library, material: Material, size: int, args: argparse.Namespace) -> tuple[float, int]:
    """Add documents until the library holds `size` paragraphs; (seconds, paragraphs added)."""
    start = time.perf_counter()
    have = len(library.store.documents())
    want = size // args.doc_paragraphs
    batch: list[int] = []
    for k in range(have, want):
        batch.append(k)
        if len(batch) * args.doc_paragraphs >= BATCH_PASSAGES or k == want - 1:
            _commit(library, material, batch, args)
            batch = []
    return time.perf_counter() - start, (want - have) * args.doc_paragraphs


def _commit(library: Library, material: Material, ks: list[int], args: argparse.Namespace) -> None:
    """A batch of synthetic documents, committed as parsed files are, with their vectors given."""
    built = [_document(k, material, args) for k in ks]
    documents = [(f"synthetic/f{k // args.folder_docs:03d}/doc-{k:05d}.md", structure) for k, (structure, _) in zip(ks, built)]
    library.indexer.add_structures(library.config.roots[0], documents, np.concatenate([v for _, v in built]))


def _document(k: int, material: Material, args: argparse.Namespace) -> tuple[DocumentStructure, np.ndarray]:
    """Synthetic document `k`: a run of real paragraphs under real headings, and noisy real vectors."""
    n = len(material.sources)
    start = random.Random(k).randrange(n)
    picks = [(start + i) % n for i in range(args.doc_paragraphs)]
    per_section = args.doc_paragraphs // args.sections
    title = f"{material.sources[picks[0]].section} ({k})"
    blocks = [Block("heading", title, level=1)]
    for i, pick in enumerate(picks):
        source = material.sources[pick]
        if i % per_section == 0 and i // per_section < args.sections:
            blocks.append(Block("heading", source.section, level=2))
        blocks.append(Block(source.kind, f"{source.text} [{k}]"))
    structure = build(ParsedDocument(blocks, title=title), fallback_title=title)
    assert len(structure.paragraphs) == len(picks)
    vectors = material.vectors[picks]
    noisy = vectors + np.random.default_rng(k).normal(0, args.noise, vectors.shape)
    return structure, (noisy / np.linalg.norm(noisy, axis=1, keepdims=True)).astype(np.float32)


# --- measuring -------------------------------------------------------------------------


def _first_retrieve_ms(library: Library, query: str) -> float:
    """The first query after a build: does Chroma index anything lazily?"""
    library.use_search("hybrid")
    start = time.perf_counter()
    library.retrieve(query, top_k=5)
    return (time.perf_counter() - start) * 1000


def _scopes(library: Library, n: int) -> dict[str, list[dict[str, object]]]:
    """Per scope, the scoping arguments of each query: none, one random document, one random folder."""
    docs = library.store.documents()
    folders = sorted({d.relpath.rsplit("/", 1)[0] for d in docs})
    rng = random.Random(1)
    return {
        "whole": [{}] * n,
        "one doc": [{"doc_ids": [rng.choice(docs).doc_id]} for _ in range(n)],
        "folder": [{"path": rng.choice(folders)} for _ in range(n)],
    }


def _measure(libraries: list[Library], queries: list[str], rounds: int) -> dict[tuple[str, str], list[Latency]]:
    """p50/p95 per (mode, scope) and library, medians over rounds; libraries take turns per query."""
    scopes = [_scopes(library, len(queries)) for library in libraries]
    out: dict[tuple[str, str], list[Latency]] = {}
    for mode in MODES:
        for library in libraries:
            library.use_search(mode)
        for scope in SCOPES:
            runs: list[list[list[float]]] = [[] for _ in libraries]
            for _ in range(rounds):
                times: list[list[float]] = [[] for _ in libraries]
                for i, query in enumerate(queries):
                    order = range(len(libraries)) if i % 2 == 0 else reversed(range(len(libraries)))
                    for j in order:  # alternate who goes first: the second may find caches warm
                        times[j].append(_retrieve_ms(libraries[j], query, scopes[j][scope][i]))
                for j in range(len(libraries)):
                    runs[j].append(times[j])
            out[(mode, scope)] = [_latency(r) for r in runs]
    return out


def _retrieve_ms(library: Library, query: str, scope: dict[str, object]) -> float:
    start = time.perf_counter()
    library.retrieve(query, top_k=5, **scope)  # type: ignore[arg-type]
    return (time.perf_counter() - start) * 1000


def _toc_latency(library: Library, n: int, rounds: int) -> dict[str, Latency]:
    """get_toc p50/p95: the map's first page, a random page, a random folder, a random document."""
    docs = library.store.documents()
    folders = sorted({d.relpath.rsplit("/", 1)[0] for d in docs})
    pages = library.toc().n_pages
    rng = random.Random(2)
    calls: dict[str, list[dict[str, object]]] = {
        "get_toc()": [{}] * n,
        f"get_toc(page=N), N ≤ {pages}": [{"page": rng.randint(1, pages)} for _ in range(n)],
        "get_toc(path=folder)": [{"path": rng.choice(folders)} for _ in range(n)],
        "get_toc(doc_id)": [{"doc_id": rng.choice(docs).doc_id} for _ in range(n)],
    }
    out = {}
    for label, arguments in calls.items():
        runs = []
        for _ in range(rounds):
            times = []
            for kwargs in arguments:
                start = time.perf_counter()
                library.toc(**kwargs)  # type: ignore[arg-type]
                times.append((time.perf_counter() - start) * 1000)
            runs.append(times)
        out[label] = _latency(runs)
    return out


def _startup(work: Path, n_files: int, per_folder: int, rounds: int) -> tuple[float, list[float], int]:
    """Index `n_files` small real Markdown files once, then time restarts that find them all
    unchanged: opening the index and reconciling the folder (what a server does before it
    answers). (first index s, restart seconds, peak RSS MB)."""
    root = work / "startup"
    for k in range(n_files):
        path = root / f"f{k // per_folder:03d}" / f"note-{k:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Note {k}\n\n## Summary\n\nWhat note {k} records, in a sentence or two.\n")
    config = LibraryConfig(roots=[root], data_dir=work / "startup-data", models_dir=work / "models")
    start = time.perf_counter()
    library = Library(config)
    library.reconcile()
    first = time.perf_counter() - start
    library.close()
    _log(f"indexed {n_files} files in {first:.0f} s; timing restarts")
    restarts = []
    for _ in range(rounds):
        start = time.perf_counter()
        library = Library(config)
        report = library.reconcile()
        restarts.append(time.perf_counter() - start)
        assert len(report.unchanged) == n_files, "every file unchanged"
        library.close()
    return first, restarts, int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def _toc_report(sizes: list[int], tocs: dict[int, dict[str, Latency]]) -> str:
    lines = ["", "", "get_toc latency (target p95 ≤ 300 ms at 10,000 documents):", "",
             "| paragraphs | documents | call | p50 | p95 |", "|---|---|---|---|---|"]
    for size in sizes:
        for label, latency in tocs[size].items():
            lines.append(f"| {size:,} | {size // 100:,} | `{label}` | {latency.p50:.1f} ms | {latency.p95:.1f} ms |")
    return "\n".join(lines)


def _startup_report(n_files: int, startup: tuple[float, list[float], int]) -> str:
    first, restarts, peak = startup
    return "\n".join([
        "", "", f"Start-up over {n_files:,} unchanged small Markdown files in folders of 100 (target ≤ 5 s): "
        f"first index {first:.0f} s; restart (open the index + reconcile, every file unchanged) median "
        f"{statistics.median(restarts):.1f} s over {len(restarts)} (all: {', '.join(f'{r:.1f}' for r in restarts)} s); "
        f"peak RSS of the whole run {peak:,} MB.",
    ])


def _latency(rounds: list[list[float]]) -> Latency:
    p50s = [statistics.median(r) for r in rounds]
    p95s = [sorted(r)[int(0.95 * (len(r) - 1))] for r in rounds]
    return Latency(statistics.median(p50s), statistics.median(p95s))


def _breakdown(library: Library, queries: list[str], scope: str) -> dict[str, float]:
    """Median ms per part of a hybrid retrieve, timed inside the real call; the rest is
    validation, fetching the hits and their windows, heading paths and fusion."""
    library.use_search("hybrid")
    spent: dict[str, list[float]] = {label: [] for label in PARTS}
    totals: list[float] = []
    with _timed(library, spent):
        for query, scoping in zip(queries, _scopes(library, len(queries))[scope]):
            for label in PARTS:
                spent[label].append(0.0)
            totals.append(_retrieve_ms(library, query, scoping))
    rest = [t - sum(spent[label][i] for label in PARTS) for i, t in enumerate(totals)]
    return {**{label: statistics.median(v) for label, v in spent.items()}, "rest": statistics.median(rest),
            "total": statistics.median(totals)}


@contextmanager
def _timed(library: Library, spent: dict[str, list[float]]) -> Iterator[None]:
    """Wrap the PARTS methods on their instances, adding each call's ms to the current query."""
    patched = []
    for label, (attribute, method) in PARTS.items():
        owner = getattr(library, attribute)
        setattr(owner, method, _stopwatch(getattr(owner, method), spent[label]))
        patched.append((owner, method))
    try:
        yield
    finally:
        for owner, method in patched:
            delattr(owner, method)  # the class method shows through again


def _stopwatch(function: Callable[..., object], log: list[float]) -> Callable[..., object]:
    def timed(*args: object, **kwargs: object) -> object:
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            log[-1] += (time.perf_counter() - start) * 1000

    return timed


def _build_row(library: Library, size: int, build_s: float, n_added: int, first_ms: float) -> list[str]:
    data = library.config.data_dir
    sqlite_mb = sum(f.stat().st_size for f in data.glob("index.sqlite3*")) / 1e6
    chroma_mb = sum(f.stat().st_size for f in (data / "chroma").rglob("*") if f.is_file()) / 1e6
    copy_mb = sum(f.stat().st_size for f in data.glob("vectors.sqlite3*")) / 1e6
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return [
        f"{size:,}", f"{len(library.store.documents()):,}",
        f"{n_added:,} in {build_s:.0f} s ({n_added / build_s:.0f}/s)",
        f"{sqlite_mb:.0f} / {chroma_mb:.0f} / {copy_mb:.0f} MB", f"{first_ms:.0f} ms", f"{peak_mb:.0f} MB", f"{os.getloadavg()[0]:.1f}",
    ]


# --- the report ------------------------------------------------------------------------


def _report(
    args: argparse.Namespace,
    sizes: list[int],
    material: Material,
    embed_s: float,
    builds: list[list[str]],
    latencies: dict[int, dict[tuple[str, str], list[Latency]]],
    parts: dict[int, dict[str, dict[str, float]]],
    commit: str,
    load_start: tuple[float, float, float],
    load_end: tuple[float, float, float],
) -> str:
    docs = args.doc_paragraphs
    lines = [
        f"Retrieve at scale ({date.today()}, commit {commit}, 2-core machine shared with other jobs; "
        f"load average 1/5/15 min {_load(load_start)} at start, {_load(load_end)} at end)",
        "",
        f"Synthetic collection: {len(material.sources):,} distinct real paragraphs of {' + '.join(TREES)} "
        f"parsed and embedded once, with their heading context ({embed_s:.0f} s); documents of {docs} paragraphs in "
        f"{args.sections} sections, each a run of consecutive sampled paragraphs under their real headings, "
        f"text + ` [k]`, vector = source vector + N(0, {args.noise}²) per dimension, re-normalised (cosine to the "
        f"source ≈ {1 / (1 + args.noise**2 * material.vectors.shape[1]) ** 0.5:.2f}). Written with "
        f"`Store.add_document`, `VectorIndex.ids_for_document/add`, `Store.replace_content` in batches of "
        f"{BATCH_PASSAGES}+ paragraphs (`Indexer.add_structures`), growing through the sizes; queried with "
        f"`Library.retrieve(top_k=5, before=0, after=0)` over {min(args.queries, len(material.headings))} real "
        f"headings; p50/p95 are medians over {args.rounds} rounds. *Baseline*: a separate {sizes[0]:,}-paragraph "
        "library (the same first documents) queried in turn with the growing one, query by query, so "
        "*× base* compares both under the same load. *One doc*: `doc_ids=[a random document]` per query; "
        f"*folder*: `path=` a random folder of {args.folder_docs} documents. Targets at 1,000,000 paragraphs: "
        "whole-collection hybrid p95 ≤ 150 ms, scoped p95 ≤ 100 ms.",
        "",
        "| paragraphs | documents | build (store + vectors) | SQLite / Chroma / vector copy on disk | first retrieve | "
        "peak RSS | load (1 min) |",
        "|---|---|---|---|---|---|---|",
        *(f"| {' | '.join(row)} |" for row in builds),
        "",
        f"| paragraphs | mode | scope | p50 | p95 | baseline p50 / p95 ({sizes[0]:,}) | × base p50 |",
        "|---|---|---|---|---|---|---|",
    ]
    for size in sizes:
        for (mode, scope), (grown, base) in latencies[size].items():
            lines.append(
                f"| {size:,} | {mode} | {scope} | {grown.p50:.1f} ms | {grown.p95:.1f} ms | "
                f"{base.p50:.1f} / {base.p95:.1f} ms | {grown.p50 / base.p50:.2f}× |"
            )
    labels = [*PARTS, "rest", "total"]
    lines += [
        "",
        "Where a hybrid retrieve spends its time (median ms per query, timed inside `Library.retrieve`; "
        "*rest* = validation, fusion, fetching hits, windows and heading paths):",
        "",
        f"| paragraphs | scope | {' | '.join(labels)} |",
        "|---|---|" + "---|" * len(labels),
    ]
    for size in sizes:
        for scope in SCOPES:
            lines.append(f"| {size:,} | {scope} | " + " | ".join(f"{parts[size][scope][k]:.1f}" for k in labels) + " |")
    return "\n".join(lines)


def _commit_name() -> str:
    """The checkout's commit, marked when the working tree differs from it."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO, capture_output=True, text=True
    )
    return head.stdout.strip() + (" + uncommitted changes" if dirty.stdout.strip() else "")


def _load(load: tuple[float, float, float]) -> str:
    return "/".join(f"{x:.1f}" for x in load)


if __name__ == "__main__":
    main()

"""The scale benchmark's timings: retrieve latency p50/p95 per search mode and scope (with
the baseline library queried in turn), where a hybrid retrieve spends its time,
get_toc latency, start-up over unchanged files, and each size's build row.

Kept apart from building the collection (`collection`) and from the report
(`report`), which only formats what is measured here.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchmarks import common
from benchmarks.common import log, peak_mb
from indexer.library import Library, LibraryConfig
from indexer.search.hybrid import SearchMode

MODES: tuple[SearchMode, ...] = ("hybrid", "dense", "lexical")
SCOPES = ("whole", "one doc", "folder")
# What a hybrid retrieve calls, timed inside the real call: label → (attribute of Library, method).
PARTS = {
    "query embedding": ("embedder", "embed"),
    "vector query (Chroma, or the copy for a scope)": ("vectors", "query"),
    "vec_id → paragraph (SQLite)": ("store", "paragraph_ids_for_vectors"),
    "FTS5 BM25": ("store", "lexical_search"),
}


@dataclass
class Latency:
    p50: float
    p95: float


# --- measuring -------------------------------------------------------------------------


def _first_retrieve_ms(library: Library, query: str) -> float:
    """The first query after a build: does Chroma index anything lazily?"""
    common.open_index(library).use_search("hybrid")
    start = time.perf_counter()
    library.retrieve(query, top_k=5)
    return (time.perf_counter() - start) * 1000


def _scopes(library: Library, n: int) -> dict[str, list[dict[str, object]]]:
    """Per scope, the scoping arguments of each query: none, one random document, one random folder."""
    docs = common.open_index(library).store.documents()
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
            common.open_index(library).use_search(mode)
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
    docs = common.open_index(library).store.documents()
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
    log(f"indexed {n_files} files in {first:.0f} s; timing restarts")
    restarts = []
    for _ in range(rounds):
        start = time.perf_counter()
        library = Library(config)
        report = library.reconcile()
        restarts.append(time.perf_counter() - start)
        assert len(report.unchanged) == n_files, "every file unchanged"
        library.close()
    return first, restarts, int(peak_mb())


def _latency(rounds: list[list[float]]) -> Latency:
    p50s = [statistics.median(r) for r in rounds]
    p95s = [sorted(r)[int(0.95 * (len(r) - 1))] for r in rounds]
    return Latency(statistics.median(p50s), statistics.median(p95s))


def _breakdown(library: Library, queries: list[str], scope: str) -> dict[str, float]:
    """Median ms per part of a hybrid retrieve, timed inside the real call; the rest is
    validation, fetching the hits and their windows, heading paths and fusion."""
    common.open_index(library).use_search("hybrid")
    spent: dict[str, list[float]] = {label: [] for label in PARTS}
    totals: list[float] = []
    with _timed(library, spent):
        for query, scoping in zip(queries, _scopes(library, len(queries))[scope], strict=True):
            for label in PARTS:
                spent[label].append(0.0)
            totals.append(_retrieve_ms(library, query, scoping))
    rest = [t - sum(spent[label][i] for label in PARTS) for i, t in enumerate(totals)]
    return {
        **{label: statistics.median(v) for label, v in spent.items()},
        "rest": statistics.median(rest),
        "total": statistics.median(totals),
    }


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
    return [
        f"{size:,}",
        f"{len(common.open_index(library).store.documents()):,}",
        f"{n_added:,} in {build_s:.0f} s ({n_added / build_s:.0f}/s)",
        f"{sqlite_mb:.0f} / {chroma_mb:.0f} / {copy_mb:.0f} MB",
        f"{first_ms:.0f} ms",
        f"{peak_mb():.0f} MB",
        f"{os.getloadavg()[0]:.1f}",
    ]

"""How long a damaged index takes to come back: each of its files cut in half, then a server's open.

    python -m benchmarks.robustness.recovery [--pdfs DIR] [--parse-cache DIR] [--work DIR] [--keep 0.5]
                                             [--vectors-timeout 1800] [--out benchmarks/results/recovery.md]

The FinanceBench PDFs (`--pdfs`) are indexed once into `--work`/built (parses from the MinerU
cache `--parse-cache`, every vector embedded; kept between runs). Then, for each file of the
index (`index.sqlite3`: documents and BM25; `vectors.sqlite3`: the vectors' copy; `chroma/`:
Chroma's own SQLite file), a copy of the built data dir has that file cut to `--keep` of its
size, as a crash during a copy leaves it, and is opened as `deepread-mcp serve` opens it (a
`Library` and its background indexer, no watcher). Timed from the open:

- open: the checks at open and the rebuild of the damaged file (set aside, made again);
- listed and found: until the map lists every document as readable and a search scoped to each
  finds it (a phrase of one of its paragraphs, top 1);
- semantic whole: until every document has all its vectors again (Chroma refilled from the copy,
  or the passages the copy lost embedded again), at most `--vectors-timeout` seconds.

The same-run baselines: the same open of the sound data dir (what the checks cost), and a
re-index of the folder from the parse cache into an empty data dir (what the rebuild is
measured against), timed to listed and found.
"""

from __future__ import annotations

import os
import shutil
import statistics
import time
from datetime import date
from pathlib import Path

from benchmarks import common
from indexer.library import Library, LibraryConfig
from indexer.store.health import check

DEFAULT_CACHE = common.REPO.parent / "bench-work" / "parse-cache"
_SIDE = ("-wal", "-shm")  # SQLite's files set aside with the damaged one: not listed
DAMAGE = {"index.sqlite3": "index.sqlite3", "vectors.sqlite3": "vectors.sqlite3", "chroma": "chroma/chroma.sqlite3"}


def config(folder: Path, data: Path, models: Path, cache: Path) -> LibraryConfig:
    return LibraryConfig(roots=[folder], data_dir=data, models_dir=models, parse_cache_dir=cache)


def build(folder: Path, data: Path, models: Path, cache: Path) -> float | None:
    """The index every trial starts from (all parsed and embedded); seconds taken, None when kept."""
    if (data / "built").exists():
        return None
    started = time.monotonic()
    with Library(config(folder, data, models, cache)) as library:
        library.reconcile(wait=False)
        library.finish_parses()
        library.wait_for_vectors()
    (data / "built").touch()
    return time.monotonic() - started


def probes(data: Path, folder: Path, models: Path, cache: Path) -> dict[str, tuple[int, str]]:
    """Per readable document (by path), its doc_id and a phrase of its longest paragraph: what a
    search must find again. By path: a rebuild keeps the doc_ids the damaged file still gives,
    and gives new ones to the others."""
    with Library(config(folder, data, models, cache)) as library:
        found = {}
        for doc in common.open_index(library).store.documents():
            if doc.readable:
                rows = [r for r in common.open_index(library).store.document_paragraphs(doc.doc_id) if not r.junk]
                longest = max(rows, key=lambda r: len(r.text))
                found[doc.relpath] = (doc.doc_id, " ".join(longest.text.split()[:12]))
        return found


def trial(
    folder: Path, data: Path, models: Path, cache: Path, phrases: dict[str, tuple[int, str]], vectors_timeout: float
) -> dict[str, object]:
    """Open as `serve` does and time the way back: open, listed and found, semantic whole."""
    started = time.monotonic()
    library = Library(config(folder, data, models, cache))
    opened = time.monotonic() - started
    background = library.follower(watch=False)
    background.start()
    try:
        listed = None
        while listed is None:
            docs = {d.relpath: d.doc_id for d in common.open_index(library).store.documents() if d.readable}
            if set(phrases) <= set(docs) and all(_found(library, docs[path], p) for path, (_, p) in phrases.items()):
                listed = time.monotonic() - started
            else:
                time.sleep(1.0)
        whole = None
        embedded_before = library.status().embedded
        while time.monotonic() - started < vectors_timeout:
            status = library.status()
            if status.vectors_left is None and not status.embedding:
                whole = time.monotonic() - started
                break
            time.sleep(1.0)
        now = {d.relpath: d.doc_id for d in common.open_index(library).store.documents() if d.readable}
        kept = sum(now.get(path) == doc_id for path, (doc_id, _) in phrases.items())
        return {
            "open": opened,
            "listed": listed,
            "whole": whole,
            "embedded": library.status().embedded - embedded_before,
            "left": (left.paragraphs if (left := library.status().vectors_left) else 0),
            "ids_kept": kept,
            "aside": sorted(p.name for p in data.iterdir() if ".damaged-" in p.name and not p.name.endswith(_SIDE)),
        }
    finally:
        background.stop()
        library.close()


def _found(library: Library, doc_id: int, phrase: str) -> bool:
    results = library.retrieve(phrase, top_k=1, doc_ids=[doc_id]).results
    return bool(results) and results[0].doc_id == doc_id


def cut(path: Path, keep: float) -> None:
    with open(path, "r+b") as f:
        f.truncate(int(path.stat().st_size * keep))


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_pdfs(parser)
    common.add_parse_cache(parser, DEFAULT_CACHE)
    common.add_work(parser, Path("/tmp/deepread-recovery"))
    parser.add_argument("--keep", type=float, default=0.5, help="share of the damaged file kept")
    parser.add_argument("--vectors-timeout", type=float, default=1800.0)
    common.add_out(parser, "recovery.md")
    args = common.parse_args(parser)

    work, models, cache = args.work, args.work / "models", args.parse_cache
    built = work / "built"
    work.mkdir(parents=True, exist_ok=True)
    took = build(args.pdfs, built, models, cache)
    phrases = probes(built, args.pdfs, models, cache)
    sizes = {name: _size(built / name) for name in ("index.sqlite3", "vectors.sqlite3", "chroma")}
    checks = {name: _timed_check(built / rel) for name, rel in DAMAGE.items()}

    rows = []
    for case in ("sound", *DAMAGE, "re-index"):
        trial_dir = work / "trial"
        shutil.rmtree(trial_dir, ignore_errors=True)
        if case == "re-index":
            trial_dir.mkdir()
        else:
            shutil.copytree(built, trial_dir, symlinks=True)
            for side in ("index.lock", "owner.pid", "built"):
                (trial_dir / side).unlink(missing_ok=True)
            if case in DAMAGE:
                cut(trial_dir / DAMAGE[case], args.keep)
        load = os.getloadavg()[0]
        timeout = 0.0 if case == "re-index" else args.vectors_timeout
        result = trial(args.pdfs, trial_dir, models, cache, phrases, timeout)
        rows.append((case, load, result))
        print(case, result, flush=True)
    shutil.rmtree(work / "trial", ignore_errors=True)

    header = "# Recovery from a damaged index (`python -m benchmarks.robustness.recovery`)\n\n"
    text = [
        (
            f"\n## {date.today()}: {len(phrases)} documents of `{args.pdfs.name}/`, each file cut to {args.keep:.0%} "
            "of its size\n\n"
        ),
        f"Index sizes: {', '.join(f'{n} {s / 1e6:.0f} MB' for n, s in sizes.items())}"
        + (f"; built in {took:.0f} s (parses from the cache, every vector embedded)" if took else "")
        + ". The check at open of each sound file (quick_check within 1 s; Chroma's file by its header): "
        + ", ".join(f"{n} {t * 1000:.0f} ms" for n, t in checks.items())
        + ".\n\n",
        (
            "| data dir opened | load avg | open (s) | every document listed and found by search (s) | "
            "semantic search whole (s) | paragraphs embedded | doc_ids kept | set aside |\n"
        ),
        "|---|---:|---:|---:|---:|---:|---|---|\n",
    ]
    for case, load, r in rows:
        whole = f"{r['whole']:.0f}" if r["whole"] is not None else f"not within the limit ({r['left']:,} left)"
        if case == "re-index":
            whole = "(not waited for)"
        kept = "–" if case == "re-index" else f"{r['ids_kept']} of {len(phrases)}"
        name = {"sound": "sound (baseline)", "re-index": "empty: re-index from the parse cache (baseline)"}.get(
            case, f"{case} cut"
        )
        text.append(
            f"| {name} | {load:.1f} | {r['open']:.1f} | {r['listed']:.0f} | {whole} | {r['embedded']:,} | "
            f"{kept} | "
            f"{', '.join(r['aside']) or '–'} |\n"  # type: ignore[arg-type]
        )
    common.append_result(args.out, header, "".join(text))


def _size(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())


def _timed_check(path: Path) -> float:
    samples = []
    for _ in range(3):
        started = time.monotonic()
        check(path)
        samples.append(time.monotonic() - started)
    return statistics.median(samples)


if __name__ == "__main__":
    main()

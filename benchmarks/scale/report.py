"""The scale benchmark's Markdown report: build, retrieve latency and time-breakdown
tables, get_toc latency, start-up, and the commit and machine load of the run.

Kept apart from the measuring: nothing here times anything, it only formats results.
"""

from __future__ import annotations

import argparse
import statistics
from datetime import date

from benchmarks.scale.collection import TREES, Material
from benchmarks.scale.measure import PARTS, SCOPES, Latency
from indexer.ingest.reconcile import BATCH_PASSAGES

# --- the report ------------------------------------------------------------------------


def _toc_report(sizes: list[int], tocs: dict[int, dict[str, Latency]]) -> str:
    lines = [
        "",
        "",
        "get_toc latency (target p95 ≤ 300 ms at 10,000 documents):",
        "",
        "| paragraphs | documents | call | p50 | p95 |",
        "|---|---|---|---|---|",
    ]
    for size in sizes:
        for label, latency in tocs[size].items():
            lines.append(f"| {size:,} | {size // 100:,} | `{label}` | {latency.p50:.1f} ms | {latency.p95:.1f} ms |")
    return "\n".join(lines)


def _startup_report(n_files: int, startup: tuple[float, list[float], int]) -> str:
    first, restarts, peak = startup
    return "\n".join(
        [
            "",
            "",
            (
                f"Start-up over {n_files:,} unchanged small Markdown files in folders of 100 (target ≤ 5 s): "
                f"first index {first:.0f} s; restart (open the index + reconcile, every file unchanged) median "
                f"{statistics.median(restarts):.1f} s over {len(restarts)} (all: {', '.join(f'{r:.1f}' for r in restarts)} s); "
                f"peak RSS of the whole run {peak:,} MB."
            ),
        ]
    )


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
        (
            f"Retrieve at scale ({date.today()}, commit {commit}, 2-core machine shared with other jobs; "
            f"load average 1/5/15 min {_load(load_start)} at start, {_load(load_end)} at end)"
        ),
        "",
        (
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
            "whole-collection hybrid p95 ≤ 150 ms, scoped p95 ≤ 100 ms."
        ),
        "",
        (
            "| paragraphs | documents | build (store + vectors) | SQLite / Chroma / vector copy on disk | first retrieve | "
            "peak RSS | load (1 min) |"
        ),
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
        (
            "Where a hybrid retrieve spends its time (median ms per query, timed inside `Library.retrieve`; "
            "*rest* = validation, fusion, fetching hits, windows and heading paths):"
        ),
        "",
        f"| paragraphs | scope | {' | '.join(labels)} |",
        "|---|---|" + "---|" * len(labels),
    ]
    for size in sizes:
        for scope in SCOPES:
            lines.append(f"| {size:,} | {scope} | " + " | ".join(f"{parts[size][scope][k]:.1f}" for k in labels) + " |")
    return "\n".join(lines)


def _load(load: tuple[float, float, float]) -> str:
    return "/".join(f"{x:.1f}" for x in load)

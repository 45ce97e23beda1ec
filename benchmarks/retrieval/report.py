"""The retrieval benchmark's output: `retrieval.md` (quality, equal-reading and speed
tables per set, with the run's commit, load and peak memory), `retrieval.json` (the
same numbers) and `retrieval.png` (hit@k and section-hit@k against k).

Kept apart from the runs: nothing here measures, it only formats finished reports.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

from benchmarks.common import log, peak_mb
from benchmarks.retrieval.metrics import EqualReading, equal_reading
from benchmarks.retrieval.runs import READ_CONFIG, CorpusReport, Run, subsets
from benchmarks.retrieval.shared import ALL, BASELINE, DOC_KS, KS, MIN_RECALL, READ_WORDS, TOP_K, WORDS

# --- reporting -----------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    rule = "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"
    lines = ["| " + " | ".join(header) + " |", rule]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return "\n".join(lines)


def quality_tables(report: CorpusReport) -> str:
    metrics = [f"hit@{k}" for k in KS] + [f"sec@{k}" for k in KS]
    if report.corpus.with_recall:
        metrics += [f"recall@{k}" for k in KS]
    parts: list[str] = []
    for scope in report.corpus.scopes:
        title = "single document (scoped to the question's document)" if scope == "single" else "whole collection"
        for subset, members in subsets(report.corpus).items():
            rows = [
                [r.config, *(f"{100 * r.scores[m]:.1f}" for m in metrics), f"{r.scores[WORDS]:.0f}"]
                for r in report.runs
                if r.scope == scope and r.subset == subset
            ]
            header = ["configuration", *metrics, WORDS]
            heading = f"#### {report.corpus.name} — {title}, {subset} ({len(members)})"
            parts.append(heading + "\n\n" + markdown_table(header, rows))
    return "\n\n".join(parts)


def equal_readings(report: CorpusReport) -> list[tuple[Run, EqualReading]]:
    """The read configuration against the baseline at equal words, per scope and subset."""
    pairs = []
    for run in report.runs:
        if run.config != READ_CONFIG:
            continue
        base = next(r for r in report.runs if r.config == BASELINE and r.scope == run.scope and r.subset == run.subset)
        pairs.append((run, equal_reading(run.outcomes, base.outcomes)))
    return pairs


def equal_reading_table(report: CorpusReport) -> str:
    rows = [
        [
            f"{run.scope}, {run.subset} ({len(run.outcomes)})",
            f"{100 * e.baseline_hit5:.1f}",
            f"{e.baseline_words:.0f}",
            f"{100 * e.read_hit5:.1f}",
            f"{e.read_words:.0f}",
            f"**{100 * e.hit:.1f}**",
            f"{e.words:.0f}",
            f"{e.passages:.1f}",
        ]
        for run, e in equal_readings(report)
    ]
    header = [
        "scope, questions",
        "flat chunks hit@5",
        "words",
        "read hit@5",
        "words",
        "read, baseline's words: hit",
        "words",
        "passages",
    ]
    return (
        f"#### {report.corpus.name} — equal reading\n\n"
        f"`read` is `{READ_CONFIG}`. Last three columns: for each question, its passages are read in rank "
        "order while they fit in the words of the baseline's top 5 chunks for that question.\n\n"
        + markdown_table(header, rows)
    )


def speed_table(report: CorpusReport) -> str:
    index_rows = [
        [
            s.name,
            f"{s.seconds:.1f}",
            f"{s.units} {s.unit_name}",
            str(s.embedded),
            f"{s.embedded / s.seconds:.1f}" if s.embedded and s.seconds else "–",
            f"{s.pages / s.seconds:.1f}" if s.pages and s.seconds and s.embedded == s.units else "–",
        ]
        for s in report.speeds
    ]
    header = ["index", "seconds", "size", "embedded now", "embedded/s", "pages/s (all embedded now)"]
    index = markdown_table(header, index_rows)
    latency_rows = []
    scopes = report.corpus.scopes
    for config in dict.fromkeys(r.config for r in report.runs):
        cells = [config]
        for scope in scopes:
            run = next(r for r in report.runs if r.config == config and r.scope == scope)
            cells.append(f"{percentile(run.latencies_ms, 0.5):.0f} / {percentile(run.latencies_ms, 0.95):.0f}")
        latency_rows.append(cells)
    latency = markdown_table(["configuration", *(f"{scope} p50 / p95 ms" for scope in scopes)], latency_rows)
    return f"#### {report.corpus.name} — speed\n\n{index}\n\n{latency}"


def corpus_section(report: CorpusReport) -> str:
    corpus, s = report.corpus, report.structure
    assert s is not None
    used = f"{len(corpus.questions)} of {corpus.available}"
    on_flat = sum(q.doc in s.flat_docs for q in corpus.questions)
    lines = [
        f"### {corpus.name}",
        "",
        (
            f"- questions: {used} usable questions (single-document and collection scope use the same questions); "
            f"{on_flat} of them on a document without headings, where the section is the whole document"
        ),
        f"- documents: {s.documents} indexed ({len({q.doc for q in corpus.questions})} with questions); "
        + (f"{s.pages} pages, " if s.pages else "")
        + f"{s.sections} sections, {s.paragraphs} paragraphs ({len(s.flat_docs)} documents without any heading); "
        f"baseline: {report.chunks} chunks",
        (
            f"- paragraph tokens: median {s.tokens_median:.0f}, p95 {s.tokens_p95:.0f}, max {s.tokens_max}; "
            f"{100 * s.short_share:.1f}% under 8 tokens"
        ),
        "- hit ceiling (some unit of the question's document contains a gold at all) / hit@5 of a random "
        "ranking (five units drawn at random from the question's document): "
        + ", ".join(f"{name} {100 * r.ceiling:.1f}% / {100 * r.random_hit5:.1f}%" for name, r in report.reach.items()),
    ]
    if s.failed:
        on_failed = sum(q.doc in s.failed for q in corpus.questions)
        lines.append(
            f"- failed documents ({on_failed} questions on them, misses for deepread; the baseline reads whatever text layer they have): "
            + "; ".join(f"{name}: {reason.split(' (')[0]}" for name, reason in s.failed.items())
        )
    tables = [quality_tables(report), *([landing_table(report)] if corpus.paged else []), equal_reading_table(report)]
    return "\n\n".join(["\n".join(lines), *tables, speed_table(report)])


def landing_table(report: CorpusReport) -> str:
    """Where the first hits land (the question's own file among the first 1 / 10, whole collection)
    and whether the evidence is read within 300 / 1,000 / 3,000 words, hits read whole in rank order."""
    rows = []
    for run in report.runs:
        if run.subset != ALL:
            continue
        docs = [f"{100 * run.scores[f'doc@{k}']:.1f}" if run.scope != "single" else "" for k in DOC_KS]
        reads = [f"{100 * run.scores[f'page@{w}w']:.1f}" for w in READ_WORDS]
        rows.append([f"{run.config} [{run.scope}]", *docs, *reads])
    header = [
        "configuration [scope]",
        *(f"own file@{k}" for k in DOC_KS),
        *(f"page in {w:,} words" for w in READ_WORDS),
    ]
    return f"#### {report.corpus.name} — landing and reading\n\n" + markdown_table(header, rows)


def render(
    reports: list[CorpusReport], started: dt.datetime, seconds: float, loads: tuple[float, float], version: str
) -> str:
    head = [
        "# Retrieval benchmark",
        "",
        (
            f"Run {started:%Y-%m-%d %H:%M} UTC on commit {version}, {seconds / 60:.1f} min, by `python -m benchmarks.retrieval` "
            f"(top_k={TOP_K}, no neighbour expansion; a unit contains a gold when it holds ≥ {MIN_RECALL:.0%} "
            "of the gold's word tokens). Numbers are percentages of questions; `sec@k` is section-hit@k, "
            "`recall@k` evidence recall@k, `words@5` the mean number of words in the top 5 results. "
            "Metric definitions: `../shared/bench/README.md`; method and caveats: `benchmarks/README.md`. "
            f"Machine load (1-min load average) at start {loads[0]:.1f}, at end {loads[1]:.1f} on {os.cpu_count()} CPUs: "
            "timings are only comparable between runs on an equally loaded machine. "
            f"Peak RSS: this process {peak_mb():.0f} MB (model, indexes, baseline vectors), "
            f"MinerU parser processes {peak_mb(children=True):.0f} MB (largest one)."
        ),
    ]
    return "\n".join(head) + "\n\n" + "\n\n".join(corpus_section(r) for r in reports) + "\n"


def results_json(reports: list[CorpusReport], started: dt.datetime, seconds: float, version: str) -> dict:
    return {
        "started": started.isoformat(),
        "commit": version,
        "seconds": round(seconds, 1),
        "sets": {
            r.corpus.name: {
                "questions": len(r.corpus.questions),
                "available": r.corpus.available,
                "reach": {name: found.__dict__ for name, found in r.reach.items()},
                "runs": [
                    {
                        "config": run.config,
                        "scope": run.scope,
                        "subset": run.subset,
                        "scores": {k: round(v, 4) for k, v in run.scores.items()},
                        "latency_ms_p50": round(percentile(run.latencies_ms, 0.5), 1),
                        "latency_ms_p95": round(percentile(run.latencies_ms, 0.95), 1),
                    }
                    for run in r.runs
                ],
                "equal_reading": [
                    {"scope": run.scope, "subset": run.subset, **{k: round(v, 4) for k, v in e.__dict__.items()}}
                    for run, e in equal_readings(r)
                ],
                "index": [s.__dict__ for s in r.speeds],
            }
            for r in reports
        },
    }


PLOTTED = ("hybrid + heading ctx", READ_CONFIG, BASELINE)


def plot(reports: list[CorpusReport], path: Path) -> None:
    """hit@k and section-hit@k against k, single-document scope, one panel per set."""
    import matplotlib

    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(reports), figsize=(max(9.0, 4.2 * len(reports)), 4.6), squeeze=False)
    for ax, report in zip(axes[0], reports, strict=True):
        for config, color in zip(PLOTTED, ("tab:blue", "tab:green", "tab:gray"), strict=True):
            run = next((r for r in report.runs if r.config == config and r.scope == "single" and r.subset == ALL), None)
            if run is None:
                continue
            label = "flat chunks" if config == BASELINE else config.replace("hybrid + heading ctx", "deepread")
            ax.plot(KS, [100 * run.scores[f"hit@{k}"] for k in KS], "o-", color=color, label=f"{label}: hit@k")
            if config != BASELINE:
                ax.plot(
                    KS, [100 * run.scores[f"sec@{k}"] for k in KS], "s--", color=color, label=f"{label}: section-hit@k"
                )
        ax.set_title(f"{report.corpus.name} ({len(report.corpus.questions)} q.)")
        ax.set_xlabel("k")
        ax.set_xticks(KS)
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("% of questions (scoped to the document)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.2, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_results(
    reports: list[CorpusReport],
    out: Path,
    started: dt.datetime,
    seconds: float,
    loads: tuple[float, float],
    version: str,
) -> str:
    """Tables, numbers and plot of the sets done so far (rewritten after each set: a long run keeps its work)."""
    text = render(reports, started, seconds, loads, version)
    out.mkdir(parents=True, exist_ok=True)
    (out / "retrieval.md").write_text(text, encoding="utf-8")
    summary = results_json(reports, started, seconds, version)
    (out / "retrieval.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    try:
        plot(reports, out / "retrieval.png")
    except ImportError:  # matplotlib is not among the project's dependencies: the tables are the result
        log("matplotlib is not installed: retrieval.png not drawn (pip install matplotlib)")
    return text

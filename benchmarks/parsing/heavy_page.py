"""What one heavy page costs a parse: a generated worst case, with and without its fallback.

    python -m benchmarks.parsing.heavy_page [--paths 200000] [--runs 3] [--out benchmarks/results/heavy-page.md]

The PDF (drawn with fpdf2, as the tests draw theirs) has a page of text, a page of `--paths`
short vector strokes with one line of text (a detailed map), and another page of text. It is
parsed cold (a fresh parse cache each run) by the server's own MinerU child, once with heavy
pages read from their text layer (`indexer.parse.heavy_pages`, the default) and once with the
fallback off (`heavy_page_objects=0`: MinerU reads every page, as before it existed), in
alternation, each run in a process of its own so that the parser child's peak memory
(`RUSAGE_CHILDREN`) is that run's alone. Reported: median clock time and peak RSS of the
parser child per arm, and their ratios.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import random
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks import common
from indexer.parse.heavy_pages import HEAVY_PAGE_OBJECTS
from indexer.parse.mineru import MineruOptions, MineruParser


def make_pdf(path: Path, paths: int) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    for title, body in (("Water access brief", "Wells now serve most villages in the valley. "), ("District map", "")):
        pdf.add_page()
        pdf.multi_cell(0, 8, title, new_x="LMARGIN", new_y="NEXT")
        if body:
            pdf.multi_cell(0, 6, body * 8, new_x="LMARGIN", new_y="NEXT")
    rnd = random.Random(1)
    for _ in range(paths):
        x, y = rnd.uniform(10, 200), rnd.uniform(40, 280)
        pdf.line(x, y, x + rnd.uniform(-3, 3), y + rnd.uniform(-3, 3))
    pdf.add_page()
    pdf.multi_cell(0, 6, "Recommendations: budgets should follow the number of working pumps. " * 6)
    pdf.output(str(path))


def _parse(path: str, limit: int, queue: multiprocessing.Queue) -> None:
    with tempfile.TemporaryDirectory(prefix="deepread-heavy-") as work:
        options = MineruOptions(cache_dir=Path(work, "cache"), home=Path(work, "mineru"), heavy_page_objects=limit)
        data = Path(path).read_bytes()
        start = time.monotonic()
        parsed = MineruParser(options).parse(Path(path), hashlib.sha256(data).hexdigest())
        seconds = time.monotonic() - start
    queue.put((seconds, common.peak_mb(children=True), len(parsed.blocks)))


def run_arm(path: Path, limit: int) -> tuple[float, float, int]:
    """One cold parse in a fresh process: (clock seconds, parser child's peak RSS in MB, blocks)."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_parse, args=(str(path), limit, queue))
    process.start()
    result = queue.get()
    process.join()
    return result


def main() -> None:
    parser = common.script_parser(__doc__)
    parser.add_argument("--paths", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=3)
    common.add_out(parser, "heavy-page.md")
    args = common.parse_args(parser)
    with tempfile.TemporaryDirectory(prefix="deepread-heavy-pdf-") as folder:
        pdf = Path(folder, "map.pdf")
        make_pdf(pdf, args.paths)
        arms: dict[str, list[tuple[float, float, int]]] = {"fallback off (before)": [], "fallback on (after)": []}
        for run in range(args.runs):
            for name, limit in (("fallback off (before)", 0), ("fallback on (after)", HEAVY_PAGE_OBJECTS)):
                arms[name].append(run_arm(pdf, limit))
                print(f"run {run + 1}: {name}: {arms[name][-1]}", flush=True)
        size_mb = pdf.stat().st_size / 1e6
    medians = {
        name: (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), runs[0][2])
        for name, runs in arms.items()
    }
    (before_s, before_mb, _), (after_s, after_mb, _) = medians.values()
    lines = [
        (
            f"One page of {args.paths:,} vector strokes between two pages of text ({size_mb:.1f} MB), parsed cold "
            f"{args.runs}× per arm in alternation ({date.today()}, {os.cpu_count()} cores, commit {common.commit_stamp()})"
        ),
        "",
        "| arm | median clock (s) | median peak RSS of the parser child (MB) | blocks |",
        "|---|---:|---:|---:|",
        *[f"| {name} | {s:.1f} | {mb:.0f} | {blocks} |" for name, (s, mb, blocks) in medians.items()],
        f"| after ÷ before | {after_s / before_s:.2f} | {after_mb / before_mb:.2f} | |",
    ]
    common.append_lines(args.out, "# A heavy page (`python -m benchmarks.parsing.heavy_page`)\n", lines)


if __name__ == "__main__":
    main()

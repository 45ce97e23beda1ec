"""How live the index is: save → searchable, and a restart over an unchanged folder.

    python -m benchmarks.speed.live [--files 1000] [--saves 10] [--out benchmarks/results/live.md]

1. Builds a folder of `--files` small Markdown files (3 paragraphs each), indexes it,
   then measures a restart: open the library (lock, SQLite, Chroma, model load) and
   reconcile the unchanged folder (stat only: nothing re-parsed or re-embedded).
   The cold index of the same folder is the baseline of the ratio.
2. With the background worker and a real watchdog observer running, saves one small
   file `--saves` times and measures the time until `retrieve` finds the new text.
Medians are reported; this 2-core machine is noisy.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks import common
from indexer.library import Library, LibraryConfig


def main() -> None:
    parser = common.script_parser(__doc__)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--saves", type=int, default=10)
    parser.add_argument("--restarts", type=int, default=5)
    common.add_out(parser, "live.md")
    args = common.parse_args(parser)

    work = Path(tempfile.mkdtemp(prefix="deepread-live-"))
    try:
        folder = work / "docs"
        for i in range(args.files):
            path = folder / f"part{i // 100}" / f"note{i:04d}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(
                f"# Note {i}\n\nFirst paragraph of note {i}.\n\nSecond paragraph, item {i * 3}.\n\n"
                f"## Details\n\nDetail {i} in a subsection."
            )
        config = LibraryConfig(roots=[folder], data_dir=work / "data", models_dir=work / "models")

        library = Library(config)
        start = time.perf_counter()
        library.reconcile()
        cold = time.perf_counter() - start
        library.close()

        restarts = []
        for _ in range(args.restarts):
            start = time.perf_counter()
            library = Library(config)
            report = library.reconcile()
            restarts.append(time.perf_counter() - start)
            assert report.embedded == 0 and not report.indexed
            library.close()

        library = Library(config)
        background = library.follower(debounce=0.3)
        background.start()
        background.wait_idle(120)
        latencies = []
        for n in range(args.saves):
            word = f"zanzibar{n}"
            start = time.perf_counter()
            (folder / "live.md").write_text(f"# Live\n\nThe harbour master mentions {word} today.")
            while not any(word in r.text for r in library.retrieve(word, top_k=1).results):
                time.sleep(0.01)
            latencies.append(time.perf_counter() - start)
            time.sleep(0.5)
        background.stop()
        library.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    restart = statistics.median(restarts)
    rows = [
        (f"cold index of {args.files} files (baseline)", f"{cold:.1f} s"),
        (
            f"restart on the unchanged folder, median of {args.restarts}",
            f"{restart:.2f} s ({restart / cold:.3f}× cold)",
        ),
        (f"save → searchable (debounce 0.3 s), median of {args.saves}", f"{statistics.median(latencies):.2f} s"),
        ("save → searchable, worst", f"{max(latencies):.2f} s"),
    ]
    table = common.measure_table(f"Live folder ({date.today()}, 2-core machine)", rows)
    print(table)
    common.write_result(args.out, table + "\n")


if __name__ == "__main__":
    main()

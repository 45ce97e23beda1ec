"""One index, two processes: a reader's latency while the writer indexes, and the takeover.

    python -m benchmarks.robustness.shared_index [--files 300] [--out benchmarks/results/shared-index.md]

A folder of `--files` generated Markdown files (3 paragraphs each, no data set needed) is
served by `deepread-mcp serve` in a process of its own, which writes the index. This process
opens the same index as a reader (`indexer.service.open_index`) and, while the writer parses and
embeds, asks `retrieve` (top 5, whole collection) and `get_toc` in a loop; the same queries
once the writer is done are the baseline, in the same process. Then the writer is killed
(SIGKILL) and the reader's background worker takes over: reported are the time until it
writes, and until a file saved after the kill is found by `retrieve`.
"""

from __future__ import annotations

import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks import common
from indexer.library import Library, LibraryConfig

WORDS = "river otter heron marsh willow stone bridge lantern harbour meadow orchard cedar falcon tide".split()


def make_folder(folder: Path, files: int) -> None:
    rnd = random.Random(3)
    for i in range(files):
        paragraphs = [" ".join(rnd.choice(WORDS) for _ in range(40)) + "." for _ in range(3)]
        (folder / f"note-{i:04}.md").write_text(f"# Note {i}\n\n" + "\n\n".join(paragraphs) + "\n")


def timed(library: Library, rnd: random.Random) -> tuple[float, float]:
    """Milliseconds of one retrieve and one get_toc."""
    start = time.perf_counter()
    library.retrieve(" ".join(rnd.sample(WORDS, 3)), top_k=5)
    middle = time.perf_counter()
    library.toc(max_depth=0)
    return (middle - start) * 1000, (time.perf_counter() - middle) * 1000


def summary(samples: list[float]) -> str:
    ordered = sorted(samples)
    if not ordered:
        return "–"
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"{statistics.median(ordered):.0f} / {p95:.0f}"


def main() -> None:
    parser = common.script_parser(__doc__)
    parser.add_argument("--files", type=int, default=300)
    common.add_out(parser, "shared-index.md")
    args = common.parse_args(parser)
    with tempfile.TemporaryDirectory(prefix="deepread-shared-") as work:
        folder, data = Path(work, "docs"), Path(work, "data")
        folder.mkdir()
        make_folder(folder, args.files)
        writer = subprocess.Popen(
            [sys.executable, "-m", "server", "serve", str(folder), "--data-dir", str(data)],
            cwd=common.REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        try:
            while not (data / "owner.pid").exists() or (data / "owner.pid").read_text() != str(writer.pid):
                time.sleep(0.1)
            reader = Library(LibraryConfig(roots=[folder], data_dir=data, models_dir=Path(work, "models")))
            assert not reader.writer
            background = reader.follower(debounce=0.3)
            background.start()
            rnd = random.Random(5)
            during: list[tuple[float, float]] = []
            started = time.monotonic()
            while True:
                docs = common.open_index(reader).store.documents()
                busy = len(docs) < args.files or any(d.status != "ready" or not d.embedded for d in docs)
                if not busy:
                    break
                during.append(timed(reader, rnd))
            indexed_s = time.monotonic() - started
            after = [timed(reader, rnd) for _ in range(max(len(during), 30))]

            writer.send_signal(signal.SIGKILL)
            writer.wait(10)
            killed = time.monotonic()
            while not reader.writer:
                time.sleep(0.02)
            took_over = time.monotonic() - killed
            (folder / "late.md").write_text("# Late\n\nA kingfisher dives from the alder branch.\n")
            while not any(
                r.text.startswith("A kingfisher") for r in reader.retrieve("kingfisher alder", top_k=3).results
            ):
                time.sleep(0.05)
            found = time.monotonic() - killed
            background.stop()
            reader.close()
        finally:
            if writer.poll() is None:
                writer.kill()
            writer.wait(10)
    lines = [
        (
            f"{args.files} generated Markdown files served by one `deepread-mcp serve` (the writer), read by a second "
            f"process ({date.today()}, {os.cpu_count()} cores; the writer took {indexed_s:.0f} s to parse and embed them)"
        ),
        "",
        "| reader, while the writer indexes / after | retrieve p50 / p95 (ms) | get_toc p50 / p95 (ms) | queries |",
        "|---|---:|---:|---:|",
        f"| while the writer indexes | {summary([r for r, _ in during])} | {summary([t for _, t in during])} | {len(during)} |",
        f"| after (baseline, same process) | {summary([r for r, _ in after])} | {summary([t for _, t in after])} | {len(after)} |",
        "",
        (
            f"After SIGKILL of the writer: the reader writes {took_over:.2f} s later; a file saved after the kill is "
            f"found by `retrieve` {found:.2f} s after it."
        ),
    ]
    common.append_lines(
        args.out, "# One index, two processes (`python -m benchmarks.robustness.shared_index`)\n", lines
    )


if __name__ == "__main__":
    main()

"""The parse time limit on a busy machine: clock time against the parser's own CPU time.

    python -m benchmarks.parsing.loaded [--bench ../shared/bench] [--files 3] [--hogs 4]
                                        [--out benchmarks/results/loaded.md]

Each PDF (the `--files` of median size in MMLongBench: reports, decks, manuals) is parsed
cold by the server's own MinerU child twice: on a quiet machine, and with `--hogs` processes
spinning on the cores (another build, a video call). Reported per file: the clock time and
the CPU time the parser and its workers used, against the limit `time_limit` gives that file.
A limit on the clock fails a file once load stretches its parse past the limit; the limit on
CPU time (what `indexer.parse.mineru` enforces) does not move with load.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import resource
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks import common
from indexer.errors import ParseError
from indexer.parse.mineru import DEFAULT_TIMEOUT_S, MineruOptions, MineruParser, time_limit


def _spin() -> None:
    while True:
        pass


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def parse_once(path: Path, work: Path) -> tuple[float, float, str]:
    """Clock and CPU seconds of one cold parse (a fresh cache), and its outcome."""
    parser = MineruParser(MineruOptions(cache_dir=work / "cache", home=work / "mineru", timeout_s=DEFAULT_TIMEOUT_S))
    data = path.read_bytes()
    cpu, start = _children_cpu(), time.monotonic()
    try:
        parsed = parser.parse(path, hashlib.sha256(data).hexdigest())
        outcome = f"{parsed.n_pages} pages"
    except ParseError as exc:
        outcome = f"failed: {exc}"[:80]
    return time.monotonic() - start, _children_cpu() - cpu, outcome


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_bench(parser)
    parser.add_argument("--files", type=int, default=3)
    parser.add_argument("--hogs", type=int, default=2 * (os.cpu_count() or 2))
    common.add_out(parser, "loaded.md")
    args = common.parse_args(parser)

    ranked = sorted((args.bench / "mmlongbench" / "pdfs").glob("*.pdf"), key=lambda p: p.stat().st_size)
    middle = max(0, len(ranked) // 2 - args.files // 2)  # parses of a few seconds barely feel the load: median files
    pdfs = ranked[middle : middle + args.files]
    rows = []
    for pdf in pdfs:
        limit = time_limit(pdf.stat().st_size, DEFAULT_TIMEOUT_S)
        with tempfile.TemporaryDirectory(prefix="deepread-loaded-") as quiet_dir:
            quiet = parse_once(pdf, Path(quiet_dir))
        hogs = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.hogs)]
        for hog in hogs:
            hog.start()
        try:
            with tempfile.TemporaryDirectory(prefix="deepread-loaded-") as busy_dir:
                busy = parse_once(pdf, Path(busy_dir))
        finally:
            for hog in hogs:
                hog.kill()
                hog.join()
        rows.append((pdf, limit, quiet, busy))
        print(pdf.name, f"limit {limit:.0f}", "quiet", quiet, "busy", busy, flush=True)

    lines = [
        (
            f"Parse time on a busy machine ({date.today()}, {os.cpu_count()} cores; busy = {args.hogs} processes "
            "spinning; the MMLongBench PDFs of median size, cold)"
        ),
        "",
        (
            "| file size | limit before pages are counted (s) | quiet: clock / CPU (s) | busy: clock / CPU (s) "
            "| clock ÷ quiet | CPU ÷ quiet | busy outcome |"
        ),
        "|---|---|---|---|---|---|---|",
    ]
    for pdf, limit, quiet, busy in rows:
        lines.append(
            f"| {pdf.stat().st_size / 1e6:.1f} MB | {limit:.0f} | {quiet[0]:.1f} / {quiet[1]:.1f} | "
            f"{busy[0]:.1f} / {busy[1]:.1f} | {busy[0] / quiet[0]:.2f} | {busy[1] / max(quiet[1], 1e-9):.2f} | {busy[2]} |"
        )
    common.append_lines(
        args.out, "# The parse time limit on a busy machine (`python -m benchmarks.parsing.loaded`)\n", lines
    )


if __name__ == "__main__":
    main()

"""How long a person waits for `deepread-mcp toc|search|read` on a folder already indexed.

    python -m benchmarks.speed.cli [--pdfs DATA/financebench/pdfs] [--work DIR] [--parse-cache DIR]
                                   [--before CHECKOUT] [--runs 5] [--out benchmarks/results/cli-speed.md]

The folder (`--pdfs`, indexed in place: the script only reads it) is indexed once into
`--work/data` as the server indexes it, with the parse cache `--parse-cache` (a warm one: nothing
is parsed again); a rerun finds it unchanged. Then each command runs `--runs` times as a
person runs it, a fresh `python -m server` process, after one unmeasured run (Python writes its
bytecode cache then, as it does on a user's first run): `toc -f F` (the whole map), `toc -f F
--doc 1`, `search -f F QUERY`, `read -f F 1 0`, each with `--data-dir`. Two cases: nothing else
holds the index (what a person sees after `index`), and a process holds its write lock (a
server at rest; here this script takes the lock, so the index does not change meanwhile).
Reported: the median wall time and the median CPU time (user + system of the process) of each;
the CPU time is what an idle machine's wall time comes to, and what a loaded machine cannot
inflate. With `--before CHECKOUT` (an earlier commit's tree, e.g. `git archive`d into a folder)
the same commands of that code run first, in the same process, on the same index.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

from benchmarks import common

QUERY = "total revenue for the fiscal year"


def build(folder: Path, data: Path, parse_cache: Path | None) -> str:
    """Index `folder` into `data` once (parses from `parse_cache`), every vector in; a rerun finds it unchanged."""
    from indexer.library import Library, LibraryConfig

    config = LibraryConfig(
        roots=[folder],
        data_dir=data,
        models_dir=data / "models",  # where `--data-dir` puts them: the CLI opens the same index
        mineru_home=data / "mineru",
        parse_cache_dir=parse_cache,
    )
    start = time.perf_counter()
    with Library(config) as library:
        report = library.reconcile()
        docs = [d for d in common.open_index(library).store.documents() if d.readable]
        pages = sum(d.n_pages or 0 for d in docs)
        paragraphs = sum(d.n_paras for d in docs)
    took = time.perf_counter() - start
    print(f"index: {len(report.indexed)} indexed, {len(report.unchanged)} unchanged in {took:.0f} s", flush=True)
    return f"{len(docs)} documents, {pages:,} pages, {paragraphs:,} paragraphs"


def timed(code: Path, argv: list[str]) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Wall and CPU seconds of one `python -m server ARGV` run from `code`'s tree."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith("DEEPREAD_")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "server", *argv], cwd=code, env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed in {code}: {done.stderr[-2000:]}")
    return wall, cpu, done


def measure(code: Path, argv: list[str], runs: int) -> tuple[float, float, str]:
    """Median wall and CPU seconds of `runs` runs after one unmeasured; the last run's stderr."""
    timed(code, argv)
    samples = [timed(code, argv) for _ in range(runs)]
    return (
        statistics.median(s[0] for s in samples),
        statistics.median(s[1] for s in samples),
        samples[-1][2].stderr.strip(),
    )


CASES = {"free": "nothing else holds the index", "held": "a server holds it (its write lock)"}


@contextmanager
def lock_state(data: Path, case: str) -> Iterator[bool]:
    """The index's write lock as `case` wants it: "held" takes it (unless another process holds
    it: the same case); "free" yields False when another process holds it (the case is skipped)."""
    from filelock import FileLock, Timeout

    lock = FileLock(str(data / "index.lock"))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        yield case == "held"
        return
    try:
        if case == "free":
            lock.release()
        yield True
    finally:
        if lock.is_locked:
            lock.release()


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_pdfs(parser)
    common.add_work(parser, Path("/tmp/deepread-cli-speed"))
    common.add_parse_cache(parser, text="a warm MinerU parse cache")
    parser.add_argument("--before", type=Path, default=None, help="an earlier commit's tree, run first")
    common.add_label(parser, "now")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cases", default="free,held", help="free (nothing holds the index), held (a server does)")
    common.add_out(parser, "cli-speed.md")
    args = common.parse_args(parser)

    folder, data = args.pdfs.resolve(), args.work / "data"
    described = build(folder, data, args.parse_cache)
    scope = ["-f", str(folder), "--data-dir", str(data)]
    commands = {
        "toc (the map)": ["toc", *scope],
        "toc --doc 1": ["toc", *scope, "--doc", "1"],
        "search": ["search", QUERY, *scope],
        "read 1 0": ["read", "1", "0", *scope],
    }
    versions = [("before", args.before.resolve())] if args.before else []
    versions.append((args.label, common.REPO))
    rows = []
    for case in args.cases.split(","):
        for label, code in versions:
            with lock_state(data, case) as possible:
                if not possible:
                    print(f"skipped: {CASES[case]} (another process holds the index)", flush=True)
                    continue
                for name, argv in commands.items():
                    wall, cpu, stderr = measure(code, argv, args.runs)
                    said = stderr.splitlines()[-1][:70] if stderr else "nothing"
                    rows.append(f"| {CASES[case]} | {label} | `{name}` | {wall:.2f} | {cpu:.2f} | {said} |")
                    print(rows[-1], flush=True)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    common.append_result(
        args.out,
        f"# A query command on an indexed folder ({date.today()}, `python -m benchmarks.speed.cli`)\n\n"
        "A fresh `python -m server` process per run, bytecode cached; medians of the runs. CPU is user + "
        "system time of the process: on an idle machine its wall time comes close to it.\n",
        f"\n{described} ({folder.name}), {args.runs} runs each; {os.cpu_count()} cores, load average {load} "
        "(wall times include waiting for a core)\n\n"
        "| case | code | command | wall s | CPU s | stderr (last line) |\n|---|---|---|---:|---:|---|\n"
        + "\n".join(rows)
        + "\n",
    )


if __name__ == "__main__":
    main()

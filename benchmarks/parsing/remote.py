"""Pages per second parsed here, and through a MinerU server with one and with two workers.

    python -m benchmarks.parsing.remote [--bench ../shared/bench] [--files 6] [--out benchmarks/results/remote.md]

The same PDFs (the `--files` smallest FinanceBench filings: text PDFs, which the server parses;
a scan without model tiers is read by the local OCR either way) are parsed cold by the server's
own parser (`DocumentParser`, a fresh cache each time), `parse_jobs` files at once:

1. here, in the local child process, 2 at once (the default);
2. through `mineru-api --tier flash` (one worker, `--concurrency 1`), 2 at once;
3. through `mineru-router` in front of two such workers, 4 at once.

On this 2-core machine the workers share the cores the local parse uses, so the point is
the mechanism and its overhead, not a speed-up: with workers on other machines (GPUs), pages/s
grow with them. Servers are started on free ports in a temporary folder and stopped after.
"""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import date
from pathlib import Path

import httpx

from benchmarks import common
from indexer.errors import ParseError
from indexer.parse.formats import DocumentParser
from indexer.parse.mineru import MineruOptions

BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(f"{url}/v1/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"{url} did not start")


@contextmanager
def _servers(work: Path, workers: int) -> Iterator[str]:
    """`workers` flash-tier mineru-api processes, behind a mineru-router when more than one."""
    env = {**os.environ, "MINERU_MODEL_SOURCE": "local", "MINERU_HOME": str(work / "home"), "TMPDIR": str(work)}
    started: list[subprocess.Popen] = []
    try:
        urls = []
        for i in range(workers):
            port = _free_port()
            started.append(
                subprocess.Popen(
                    [
                        str(BIN / "mineru-api"),
                        "--host",
                        "127.0.0.1",
                        "--port",
                        str(port),
                        "--tier",
                        "flash",
                        "--concurrency",
                        "1",
                        "--upload-dir",
                        str(work / f"uploads-{i}"),
                    ],
                    cwd=work,
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
            urls.append(f"http://127.0.0.1:{port}")
            _wait(urls[-1], started[-1])
        if workers == 1:
            yield urls[0]
            return
        port = _free_port()
        upstreams = [arg for url in urls for arg in ("--upstream-url", url)]
        started.append(
            subprocess.Popen(
                [
                    str(BIN / "mineru-router"),
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(port),
                    "--local-gpus",
                    "none",
                    *upstreams,
                ],
                cwd=work,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        _wait(f"http://127.0.0.1:{port}", started[-1])
        yield f"http://127.0.0.1:{port}"
    finally:
        for process in started:
            process.kill()
            process.wait()


def parse_all(pdfs: list[Path], work: Path, jobs: int, url: str | None) -> tuple[float, int, int]:
    """(seconds, pages, failures) for parsing every PDF cold, `jobs` at once."""
    parser = DocumentParser(MineruOptions(cache_dir=work / "cache", home=work / "home", url=url))

    def one(pdf: Path) -> int:
        data = pdf.read_bytes()
        try:
            return parser.parse(pdf, data, hashlib.sha256(data).hexdigest()).n_pages or 0
        except ParseError as exc:
            print(f"{pdf.name}: {exc}", file=sys.stderr)
            return -1

    start = time.monotonic()
    with ThreadPoolExecutor(jobs) as pool:
        pages = list(pool.map(one, pdfs))
    return time.monotonic() - start, sum(p for p in pages if p > 0), sum(1 for p in pages if p < 0)


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_bench(parser)
    parser.add_argument("--files", type=int, default=6)
    common.add_out(parser, "remote.md")
    args = common.parse_args(parser)
    pdfs = sorted((args.bench / "financebench" / "pdfs").glob("*.pdf"), key=lambda p: p.stat().st_size)[: args.files]

    rows = []
    for label, workers, jobs in (
        ("here (local child)", 0, 2),
        ("mineru-api, 1 worker", 1, 2),
        ("mineru-router, 2 workers", 2, 4),
    ):
        with tempfile.TemporaryDirectory(prefix="deepread-remote-") as tmp:
            work = Path(tmp)
            if workers:
                with _servers(work, workers) as url:
                    seconds, pages, failed = parse_all(pdfs, work, jobs, url)
            else:
                seconds, pages, failed = parse_all(pdfs, work, jobs, None)
        rows.append((label, jobs, seconds, pages, failed))
        print(label, f"{seconds:.1f} s", pages, "pages", failed, "failed", flush=True)

    base = rows[0][3] / rows[0][2]
    lines = [
        (
            f"Pages per second through a MinerU server ({date.today()}, {os.cpu_count()} cores shared by the servers "
            f"and this process; the {len(pdfs)} smallest FinanceBench PDFs, flash tier, cold)"
        ),
        "",
        "| parsed by | files at once | seconds | pages | pages/s | ÷ here | failed |",
        "|---|---|---|---|---|---|---|",
        *(
            f"| {label} | {jobs} | {seconds:.1f} | {pages} | {pages / seconds:.1f} | {pages / seconds / base:.2f} | {failed} |"
            for label, jobs, seconds, pages, failed in rows
        ),
    ]
    common.append_lines(args.out, "# Parsing on a MinerU server (`python -m benchmarks.parsing.remote`)\n", lines)


if __name__ == "__main__":
    main()

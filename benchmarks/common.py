"""What every benchmark shares: where things are (the repository, the evaluation data set, the
results folder), the commit stamp of the code measured, peak memory, writing a results file,
progress on stderr, and the options most scripts take (`--bench`, `--pdfs`, `--work`,
`--parse-cache`, `--out`, `--label`, and `--checkout`, which runs a script on an earlier
checkout's library).

Nothing here imports the library (`indexer`, `server`): a script run with `--checkout` imports
this module before the checkout's library.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_BENCH = REPO.parent / "shared" / "bench"  # the evaluation data set: outside the repository, only read
DEFAULT_PDFS = DEFAULT_BENCH / "financebench" / "pdfs"
RESULTS = REPO / "benchmarks" / "results"
CHECKOUT_ENV = "DEEPREAD_BENCH_CHECKOUT"  # set in the process that runs a script on a checkout's library


# --- what a run records --------------------------------------------------------------------


def log(message: str) -> None:
    """A line of progress on stderr, with the time."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def code_root() -> Path:
    """The tree whose library this process imports: this repository, or the checkout of `--checkout`."""
    spec = importlib.util.find_spec("indexer")
    return Path(spec.origin).resolve().parents[1] if spec and spec.origin else REPO


def open_index(library: Any) -> Any:
    """The parts of a library a benchmark measures directly (its store, search, vectors, model):
    `library.index` (`indexer.service.open_index`), or the library itself in a checkout from before
    the library held its open index."""
    return getattr(library, "index", library)


def writing(library: Any) -> Any:
    """What the writer of a library runs (its vector lane `catchup`, its `reconciler`), in today's
    tree and in an older checkout's, where the library held them itself."""
    index = open_index(library)
    return index.writing if hasattr(index, "writing") else library


def reconciler(library: Any) -> Any:
    """The writer's reconciler (`indexer.ingest.reconcile.Reconciler`; `library.indexer` before)."""
    held = writing(library)
    return held.reconciler if hasattr(held, "reconciler") else held.indexer


def commit_stamp(*paths: str) -> str:
    """The commit of the library measured (short hash), marked when its tracked files (those under
    `paths`, when given) differ from it."""

    def git(*args: str) -> str:
        try:
            done = subprocess.run(["git", *args], cwd=code_root(), capture_output=True, text=True, check=True)
        except (OSError, subprocess.CalledProcessError):
            return ""
        return done.stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", *paths)
    return f"{head} + uncommitted changes" if dirty else head


def peak_mb(children: bool = False) -> float:
    """Peak RSS in MB of this process, or of the largest child process it has waited for
    (`ru_maxrss`, kilobytes on Linux)."""
    return resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF).ru_maxrss / 1024


def append_result(out: Path, header: str, text: str) -> None:
    """Append `text` to the results file `out`, starting it with `header` when it is new."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists():
        out.write_text(header)
    with out.open("a") as f:
        f.write(text)


def append_lines(out: Path, header: str, lines: list[str]) -> None:
    """Print `lines` and append them, after a blank line, to the results file `out` (`header` starts a new one)."""
    text = "\n".join(lines)
    print(text)
    append_result(out, header, "\n" + text + "\n")


def measure_table(title: str, rows: list[tuple[str, str]]) -> str:
    """A titled table of one measure and its value a row."""
    return "\n".join([title, "", "| measure | value |", "|---|---|", *(f"| {k} | {v} |" for k, v in rows)])


def write_result(out: Path, text: str) -> None:
    """Write the results file `out` (replacing what it held)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")


# --- the options ---------------------------------------------------------------------------


def script_parser(description: str) -> argparse.ArgumentParser:
    """A benchmark's options: `description` (its docstring) shown as written, the command as it is run."""
    spec = getattr(sys.modules["__main__"], "__spec__", None)
    prog = f"python -m {spec.name.removesuffix('.__main__')}" if spec else None
    return argparse.ArgumentParser(
        prog=prog, description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )


def add_bench(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bench", type=Path, default=DEFAULT_BENCH, help="the evaluation data set's folder (default: %(default)s)"
    )


def add_pdfs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pdfs", type=Path, default=DEFAULT_PDFS, help="a folder of PDFs (default: %(default)s)")


def add_work(
    parser: argparse.ArgumentParser, default: Path | None = None, text: str = "", required: bool = False
) -> None:
    """`--work`: a folder kept between runs; without a `default`, a temporary one (or none: `required`)."""
    text = text or f"keep what the run builds here (default: {default or 'a temporary folder'})"
    parser.add_argument("--work", type=Path, default=default, required=required, help=text)


def add_parse_cache(parser: argparse.ArgumentParser, default: Path | None = None, text: str = "") -> None:
    text = text or f"a MinerU parse cache to reuse (default: {default or 'a fresh one'})"
    parser.add_argument("--parse-cache", type=Path, default=default, help=text)


def add_out(parser: argparse.ArgumentParser, name: str = "", text: str = "the results file") -> None:
    """`--out`: the results file `name` in `benchmarks/results/` (no name: that folder)."""
    parser.add_argument("--out", type=Path, default=RESULTS / name, help=f"{text} (default: %(default)s)")


def add_label(parser: argparse.ArgumentParser, default: str, text: str = "") -> None:
    text = text or "what this run measures, as its results name it (before, now …)"
    parser.add_argument("--label", default=default, help=f"{text} (default: %(default)r)")


def add_checkout(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--checkout",
        type=Path,
        help="run on the library (indexer/, server/) of this checkout of another commit, for a before "
        "(git worktree add CHECKOUT COMMIT); the benchmark's own code stays this tree's",
    )


def parse_args(parser: argparse.ArgumentParser, argv: list[str] | None = None) -> argparse.Namespace:
    """The options; with `--checkout`, the script runs again on that checkout's library and this
    process exits with its status."""
    args = parser.parse_args(argv)
    checkout = getattr(args, "checkout", None)
    if checkout is not None and os.environ.get(CHECKOUT_ENV) != str(checkout.resolve()):
        raise SystemExit(run_on_checkout(checkout.resolve(), sys.argv[1:] if argv is None else argv))
    return args


def run_on_checkout(checkout: Path, argv: list[str]) -> int:
    """Run this script (`python -m …`) again with `argv` in a process that imports `indexer` and
    `server` from `checkout` and `benchmarks` from this tree: links to them in a temporary folder
    first on PYTHONPATH, and the current folder kept off the path (PYTHONSAFEPATH)."""
    spec = getattr(sys.modules["__main__"], "__spec__", None)
    if spec is None or not (checkout / "indexer").is_dir():
        raise SystemExit("--checkout takes a checkout (with indexer/) and a script run as python -m benchmarks.…")
    with tempfile.TemporaryDirectory(prefix="deepread-checkout-") as links:
        for name, target in (("indexer", checkout), ("server", checkout), ("benchmarks", REPO)):
            if (target / name).is_dir():
                Path(links, name).symlink_to(target / name, target_is_directory=True)
        path = os.pathsep.join(p for p in (links, os.environ.get("PYTHONPATH")) if p)
        env = {**os.environ, "PYTHONPATH": path, "PYTHONSAFEPATH": "1", CHECKOUT_ENV: str(checkout)}
        command = [sys.executable, "-m", spec.name.removesuffix(".__main__"), *argv]
        return subprocess.run(command, env=env, check=False).returncode

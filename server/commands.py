"""The one-shot commands a person runs in a terminal: `index`, `toc`, `search`, `read`.

Each brings the index in line with the folders first (with a progress bar on stderr), then
prints on stdout exactly the text the agent's tool would return.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from server.settings import Settings, explain

if TYPE_CHECKING:  # imported where used: a command starts without loading the index's libraries
    from indexer.ingest.pipeline import Progress, ReconcileReport
    from indexer.library import Library


def open_library(settings: Settings) -> Library:
    from indexer.library import Library

    return Library(settings.library_config())


SETTLE_ROUNDS = 30  # a one-shot command waits this many times SETTLE_S for files being written


def _reconcile_with_bar(library: Library, finish: bool = False) -> ReconcileReport:
    """Reconcile with a progress bar, read again the files caught mid-save; `finish`: also wait
    for the parses a reconcile leaves running, so that every file ends indexed or failed."""
    import time

    from tqdm import tqdm

    from indexer.ingest.pipeline import ReconcileReport
    from indexer.ingest.versions import SETTLE_S

    if not library.writer:
        print(
            f"deepread-mcp: another deepread-mcp process (pid {library.writer_pid()}) keeps this index up to date; "
            "answering from it as it is now",
            file=sys.stderr,
        )
        return ReconcileReport()
    bar = tqdm(total=0, unit="file", file=sys.stderr, disable=None, dynamic_ncols=True)

    def progress(p: Progress) -> None:
        bar.total = p.total
        bar.set_postfix_str(f"{p.action}: {p.path}"[-60:], refresh=False)
        bar.update(p.done - bar.n)

    try:
        report = library.reconcile(progress, wait=False)
        for _ in range(SETTLE_ROUNDS):  # files read mid-save: read again once they settle (no watcher here)
            if not report.deferred:
                break
            time.sleep(SETTLE_S)
            again = library.sync_paths(report.deferred, progress, wait=False)
            report.indexed += again.indexed
            report.failed += again.failed
            report.unchanged = [r for r in report.unchanged if r not in again.indexed + again.failed]
            report.deferred = again.deferred
        if finish:
            carried = library.finish_parses(progress)
            report.indexed += carried.indexed
            report.failed += carried.failed
    finally:
        bar.close()
    embedded = _wait_for_vectors(library)
    still = f"; {len(report.deferred)} still being written, indexed by a later run" if report.deferred else ""
    print(
        f"{len(report.indexed)} indexed, {len(report.unchanged)} unchanged, "
        f"{len(report.failed)} failed, {len(report.removed)} removed{still}; {embedded} paragraphs embedded",
        file=sys.stderr,
    )
    return report


def _wait_for_vectors(library: Library) -> int:
    """Documents are readable once parsed; show the vectors catching up (paragraphs, rate, ETA)."""
    from tqdm import tqdm

    if library.catchup is None:  # another process writes the index, and embeds
        return 0
    start = library.catchup.embedded
    if library.catchup.busy:
        bar = tqdm(total=0, unit="para", desc="embedding", file=sys.stderr, disable=None, dynamic_ncols=True)
        try:
            while not library.catchup.wait(0.5):
                left = library.vectors_left()
                done = library.catchup.embedded - start
                bar.total = done + (left.paragraphs if left else 0)
                bar.update(done - bar.n)
        finally:
            bar.close()
    library.pause.check()  # the vectors could not be written (a full disk): the command says so
    return library.catchup.embedded - start


def index(args: argparse.Namespace, settings: Settings) -> int:
    """Index once and tell the truth: every file ends indexed or failed (each failure printed
    with its reason), and the exit status says whether any failed (`INDEX_EXIT`)."""
    from indexer.answers.toc import failure, kept_note
    from server.render import render_toc

    with open_library(settings) as library:
        report = _reconcile_with_bar(library, finish=True)
        if not library.writer:
            _wait_for_writer(library)
        failed = 0
        for doc in library.store.documents():
            if doc.status == "failed":
                print(f"failed: {library.display_path(doc)} — {explain(failure(doc))}", file=sys.stderr)
            elif note := kept_note(doc):
                print(f"failed: {library.display_path(doc)} — {explain(note)}", file=sys.stderr)
            else:
                continue
            failed += 1
        print(f"index: {settings.index_dir()}", file=sys.stderr)
        print(render_toc(library.toc(max_depth=0)))
    return 1 if failed or report.deferred else 0


def _wait_for_writer(library: Library) -> None:
    """`index` beside a running server: wait until that process has indexed every file it knows."""
    import time

    while busy := [d for d in library.store.documents() if d.status in ("pending", "indexing")]:
        print(f"deepread-mcp: waiting for process {library.writer_pid()} to index {len(busy)} file(s)", file=sys.stderr)
        time.sleep(2.0)
        if library.take_over():  # the writer went away: finish the job here
            _reconcile_with_bar(library, finish=True)


INDEX_EXIT = """exit status: 0 every file is indexed; 1 a file failed (each is printed with its reason) or was
still being written after a minute; 2 the command or its settings are wrong."""


def toc(args: argparse.Namespace, settings: Settings) -> int:
    from server.render import render_toc

    with open_library(settings) as library:
        _reconcile_with_bar(library)
        print(render_toc(library.toc(args.doc_id, args.max_depth, args.sec_id, args.after, args.path, args.page)))
    return 0


def search(args: argparse.Namespace, settings: Settings) -> int:
    from server.render import render_retrieve

    with open_library(settings) as library:
        _reconcile_with_bar(library)
        found = library.retrieve(args.query, args.top_k, args.doc_ids, args.before, args.after, args.path)
        print(render_retrieve(found))
    return 0


def read(args: argparse.Namespace, settings: Settings) -> int:
    from server.render import render_section

    with open_library(settings) as library:
        _reconcile_with_bar(library)
        print(
            render_section(
                library.read_section(args.doc_id, args.sec_id, args.start_para, args.end_para, part=args.part)
            )
        )
    return 0

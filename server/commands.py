"""The one-shot commands a person runs in a terminal: `index`, `toc`, `search`, `read`.

`index` brings the index in line with the folders (with a progress bar on stderr). The queries
answer from the index as it is, opened to read: at once beside a server that keeps it, and
after bringing it in line only when no process follows the folders and a file changed since
(then, and only then, with the bar and its summary line). Each prints on stdout exactly the
text the agent's tool would return, the tool calls in its notes written as commands (`server.cli_text`).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from server.cli_text import Scope, told, told_map
from server.settings import Settings, explain

if TYPE_CHECKING:  # imported where used: a command starts without loading the index's libraries
    from indexer.ingest.reconcile import Progress, ReconcileReport
    from indexer.library import Library


def open_library(settings: Settings, write: bool = True) -> Library:
    from indexer.library import Library

    return Library(settings.library_config(), write=write)


def answering(settings: Settings) -> Library:
    """The index opened to answer a query (`indexer.service.open_index`): no model, no Chroma, no parser.
    When no other process follows the folders and a file changed since they were indexed, the
    index is brought in line first, as `index` would."""
    library = open_library(settings, write=False)
    try:
        if not library.status().written_elsewhere and library.changed_files() and library.take_over():
            _reconcile_with_bar(library)
    except BaseException:
        library.close()
        raise
    return library


SETTLE_ROUNDS = 30  # a one-shot command waits this many times SETTLE_S for files being written


def _reconcile_with_bar(library: Library, finish: bool = False) -> ReconcileReport:
    """Reconcile with a progress bar, read again the files caught mid-save; `finish`: also wait
    for the parses a reconcile leaves running, so that every file ends indexed or failed."""
    import time

    from tqdm import tqdm

    from indexer.ingest.reconcile import ReconcileReport
    from indexer.ingest.versions import SETTLE_S
    from server.render import counted

    status = library.status()
    if not status.writer:
        print(
            f"deepread-mcp: another deepread-mcp process (pid {status.writer_pid}) keeps this index up to date; "
            "answering from it as it is now",
            file=sys.stderr,
        )
        return ReconcileReport()
    before = (status.embedded, status.passages)  # the lane starts as soon as a file is in
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
    _wait_for_vectors(library, before[0])
    status = library.status()
    paragraphs, passages = status.embedded - before[0], status.passages - before[1]
    still = f"; {len(report.deferred)} still being written, indexed by a later run" if report.deferred else ""
    print(
        f"{len(report.indexed)} indexed, {len(report.unchanged)} unchanged, "
        f"{len(report.failed)} failed, {len(report.removed)} removed{still}; "
        f"{counted(passages, 'passage')} embedded for {counted(paragraphs, 'paragraph')}",
        file=sys.stderr,
    )
    return report


def _wait_for_vectors(library: Library, start: int) -> None:
    """Documents are readable once parsed; show the vectors catching up (paragraphs since
    `start`, rate, ETA)."""
    from tqdm import tqdm

    if not library.writer:  # another process writes the index, and embeds
        return
    if library.status().embedding:
        bar = tqdm(total=0, unit="para", desc="embedding", file=sys.stderr, disable=None, dynamic_ncols=True)
        try:
            while not library.wait_for_vectors(0.5):
                status = library.status()
                done = status.embedded - start
                bar.total = done + (status.vectors_left.paragraphs if status.vectors_left else 0)
                bar.update(done - bar.n)
        finally:
            bar.close()
    if (paused := library.status().paused) is not None:  # the vectors could not be written (a full disk)
        raise paused


def index(args: argparse.Namespace, settings: Settings) -> int:
    """Index once and tell the truth: every file ends indexed or failed (each failure printed
    with its reason), and the exit status says whether any failed (`INDEX_EXIT`)."""
    from server.render import render_toc

    with open_library(settings) as library:
        report = _reconcile_with_bar(library, finish=True)
        if not library.writer:
            _wait_for_writer(library)
        failed = library.failures()
        for path, reason in failed:
            print(f"failed: {path} — {explain(reason)}", file=sys.stderr)
        print(f"index: {settings.index_dir()}", file=sys.stderr)
        scope = _scope(args)
        print(told_map(render_toc(told(library.toc(max_depth=0), scope)), scope))
    return 1 if failed or report.deferred else 0


def _wait_for_writer(library: Library) -> None:
    """`index` beside a running server: wait until that process has indexed every file it knows."""
    import time

    while busy := library.busy_files():
        pid = library.status().writer_pid
        print(f"deepread-mcp: waiting for process {pid} to index {busy} file(s)", file=sys.stderr)
        time.sleep(2.0)
        if library.take_over():  # the writer went away: finish the job here
            _reconcile_with_bar(library, finish=True)


INDEX_EXIT = """exit status: 0 every file is indexed; 1 a file failed (each is printed with its reason) or was
still being written after a minute; 2 the command or its settings are wrong."""


def toc(args: argparse.Namespace, settings: Settings) -> int:
    from server.render import render_toc

    scope = _scope(args)
    with answering(settings) as library:
        if args.skipped:
            found = library.toc(skipped=True)
        else:
            found = library.toc(
                args.doc_id, args.max_depth, args.sec_id, args.after, args.path, args.page, False, *_filters(args)
            )
        print(told_map(render_toc(told(found, scope)), scope))
    return 0


def search(args: argparse.Namespace, settings: Settings) -> int:
    from server.render import render_retrieve

    with answering(settings) as library:
        found = library.retrieve(
            args.query, args.top_k, args.doc_ids, args.before, args.after, args.path, *_filters(args)
        )
        print(render_retrieve(told(found, _scope(args))))
    return 0


def _filters(args: argparse.Namespace) -> tuple[list[str] | None, str | None, str | None, str | None, str | None]:
    """--type, --modified-after/before and --dated-after/before, in the order the library takes them."""
    return (args.file_types, args.modified_after, args.modified_before, args.dated_after, args.dated_before)


def read(args: argparse.Namespace, settings: Settings) -> int:
    from server.render import render_section

    with answering(settings) as library:
        section = library.read_section(args.doc_id, args.sec_id, args.start_para, args.end_para, part=args.part)
        print(render_section(told(section, _scope(args))))
    return 0


def _scope(args: argparse.Namespace) -> Scope:
    """How the person named the index (`server.cli` sets it); a bare one when called without it."""
    return getattr(args, "scope", None) or Scope()

"""What a person keeps out of the index: a `.deepreadignore` at the folder's root, and the
settings' exclude and include patterns. Real files, real pathspec, the real store and model, and
a real watchdog observer for the ignore file edited while the folder is followed."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from indexer.ingest.rules import IGNORE_FILE, Rules
from indexer.library import Library
from indexer.service.follow import Follower
from server.render import render_toc
from tests.conftest import wait_for, write
from tests.indexer.conftest import following


def paths(library: Library) -> set[str]:
    return {d.path for d in library.toc().documents}


def skipped(library: Library) -> dict[str, str]:
    return {s.path: s.reason for s in library.toc(skipped=True).skipped}


def test_the_pattern_that_matched_is_the_reason(tmp_path: Path) -> None:
    write(tmp_path, IGNORE_FILE, "# drafts and builds\n\n*.log\nbuild/\n/private.md\n!keep.log\n")
    rules = Rules([tmp_path], exclude=["secret*"], include=[])
    assert rules.why(tmp_path, "a/run.log") == "ignored by .deepreadignore: *.log"
    assert rules.why(tmp_path, "keep.log") is None, "a `!` pattern takes a file back"
    assert rules.why(tmp_path, "build", is_dir=True) == "ignored by .deepreadignore: build/"
    assert rules.why(tmp_path, "build") is None, "`build/` is a folder, not a file of that name"
    assert rules.why(tmp_path, "private.md") == "ignored by .deepreadignore: /private.md"
    assert rules.why(tmp_path, "sub/private.md") is None, "a leading / anchors a pattern at the root"
    assert rules.why(tmp_path, "secrets/plan.md") == "excluded by the exclude patterns: secret*", "what lies in it"
    assert rules.why(tmp_path, "secrets", is_dir=True) == "excluded by the exclude patterns: secret*"
    assert rules.why_under(tmp_path, "a/build/x/notes.md") == ("a/build/", "ignored by .deepreadignore: build/")

    only = Rules([tmp_path], include=["*.pdf", "reports/**"])
    assert only.why(tmp_path, "reports/q1.md") is None and only.why(tmp_path, "scan.pdf") is None
    assert only.why(tmp_path, "notes.md") == "not matched by the include patterns: *.pdf, reports/**"
    assert only.why(tmp_path, "notes", is_dir=True) is None, "a folder may hold files the patterns match"


def test_what_the_ignore_file_names_is_not_indexed_and_is_listed_with_why(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    write(folder, "guide.md", "# Guide\n\nOtters swim in the river.")
    write(folder, "drafts/idea.md", "# Idea\n\nBeavers build dams.")
    write(folder, "drafts/deep/more.md", "# More\n\nHerons wait.")
    write(folder, "notes/todo.txt", "Buy a kayak.")
    write(folder, "notes/journal.md", "# Journal\n\nA quiet day.")
    write(folder, IGNORE_FILE, "drafts/\n*.txt\n")
    (folder / "drafts" / "locked").mkdir(mode=0o000)  # never opened: the folder above is not walked into
    try:
        library = open_library(folder)
        library.reconcile()
        assert paths(library) == {"guide.md", "notes/journal.md"}, "nor the ignore file itself"
        assert skipped(library) == {
            "drafts/": "ignored by .deepreadignore: drafts/",
            "notes/todo.txt": "ignored by .deepreadignore: *.txt",
        }
        toc = library.toc()
        assert toc.n_skipped == 2 and "2 file(s) here are not indexed" in (toc.hint or "")
        assert "Skipped: drafts/ — ignored by .deepreadignore: drafts/" in render_toc(library.toc(skipped=True))
        assert all("Beavers" not in r.text for r in library.retrieve("beavers build dams").results)
    finally:
        (folder / "drafts" / "locked").chmod(0o755)


def test_the_settings_patterns_exclude_and_include(folder: Path, open_library: Callable[..., Library]) -> None:
    write(folder, "reports/q1.md", "# Q1\n\nSales rose.")
    write(folder, "reports/scratch/tmp.md", "# Tmp\n\nScratch.")
    write(folder, "notes.md", "# Notes\n\nA note.")
    write(folder, "minutes.txt", "Minutes of the meeting.")
    library = open_library(folder, exclude=("scratch/",), include=("reports/**", "*.txt"))
    library.reconcile()
    assert paths(library) == {"reports/q1.md", "minutes.txt"}
    assert skipped(library) == {
        "notes.md": "not matched by the include patterns: reports/**, *.txt",
        "reports/scratch/": "excluded by the exclude patterns: scratch/",
    }
    text = render_toc(library.toc(skipped=True))
    assert "excluded by the exclude patterns (DEEPREAD_EXCLUDE): scratch/" in text, "the setting is named"
    assert library.changed_files() == 0, "a one-shot query's walk applies the same patterns"


def test_a_file_event_on_an_ignored_path_keeps_it_out(folder: Path, open_library: Callable[..., Library]) -> None:
    write(folder, IGNORE_FILE, "*.log.md\ntmp/\n")
    library = open_library(folder)
    library.reconcile()
    log = write(folder, "run.log.md", "# Run\n\nAll green.")
    inside = write(folder, "tmp/a/b.md", "# B\n\nbeta")
    library.sync_paths([log, inside, folder / "tmp"])  # what file events do
    assert paths(library) == set()
    assert skipped(library) == {
        "run.log.md": "ignored by .deepreadignore: *.log.md",
        "tmp/": "ignored by .deepreadignore: tmp/",
    }, "a file in a folder kept out is not listed on its own"


@pytest.fixture(params=["native", "poll"])
def live(
    request: pytest.FixtureRequest, folder: Path, open_library: Callable[..., Library]
) -> Iterator[tuple[Library, Follower]]:
    write(folder, "guide.md", "# Guide\n\nOtters swim in the river.")
    write(folder, "drafts/idea.md", "# Idea\n\nBeavers build dams across streams.")
    write(folder, "drafts/plan.md", "# Plan\n\nHerons fish at dawn.")
    library = open_library(folder)
    for background in following(library, poll=request.param == "poll"):
        yield library, background


def test_editing_the_ignore_file_while_serving_takes_files_out_and_brings_them_back(
    live: tuple[Library, Follower], folder: Path
) -> None:
    library, _ = live
    everything = {"guide.md", "drafts/idea.md", "drafts/plan.md"}
    assert paths(library) == everything
    plan_id = next(d.doc_id for d in library.toc().documents if d.path == "drafts/plan.md")

    ignore = write(folder, IGNORE_FILE, "drafts/\n")  # created
    wait_for(lambda: paths(library) == {"guide.md"})
    assert skipped(library) == {"drafts/": "ignored by .deepreadignore: drafts/"}
    assert all("Beavers" not in r.text for r in library.retrieve("beavers build dams", top_k=5).results)
    assert library.index.store.document(plan_id) is None, "removed from the index, not hidden"

    # Edited by an editor's atomic save: a temporary file renamed over it.
    tmp = folder / ".deepreadignore.swp"
    tmp.write_text("drafts/*\n!drafts/plan.md\n")
    os.replace(tmp, ignore)
    wait_for(lambda: paths(library) == {"guide.md", "drafts/plan.md"})
    assert skipped(library) == {"drafts/idea.md": "ignored by .deepreadignore: drafts/*"}

    write(folder, "drafts/new.md", "# New\n\nKingfishers dive.")  # a new file under a pattern stays out
    wait_for(lambda: "drafts/new.md" in skipped(library))
    assert paths(library) == {"guide.md", "drafts/plan.md"}

    ignore.unlink()  # deleted: everything comes back
    wait_for(lambda: paths(library) == everything | {"drafts/new.md"})
    assert skipped(library) == {}
    wait_for(lambda: any("Beavers" in r.text for r in library.retrieve("beavers build dams", top_k=5).results))

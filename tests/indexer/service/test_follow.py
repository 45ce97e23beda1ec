"""The index follows the folder: a real watchdog observer, real files, the real store and model."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from indexer.ingest.reconcile import ReconcileReport
from indexer.library import Library
from indexer.service import follow
from indexer.service.follow import Follower
from tests.conftest import wait_for, write
from tests.indexer.conftest import following


def paths(library: Library) -> dict[str, int]:
    return {d.path: d.doc_id for d in library.toc().documents}


@pytest.fixture(params=["native", "poll"])
def live(
    request: pytest.FixtureRequest, folder: Path, open_library: Callable[..., Library]
) -> Iterator[tuple[Library, Follower]]:
    write(folder, "start.md", "# Start\n\nThe first document mentions otters.")
    library = open_library(folder)
    for background in following(library, poll=request.param == "poll"):
        yield library, background


def test_create_edit_rename_delete_are_followed(live: tuple[Library, Follower], folder: Path) -> None:
    library, _ = live
    start_id = paths(library)["start.md"]

    write(folder, "new.md", "# New\n\nBadgers dig setts in woodland.")
    wait_for(lambda: "new.md" in paths(library))
    assert library.retrieve("badgers woodland", top_k=1).results[0].text.startswith("Badgers")

    write(folder, "start.md", "# Start\n\nThe first document now mentions beavers instead.")
    wait_for(lambda: "beavers" in library.read_section(start_id, 0).paragraphs[0].text)
    assert library.toc(start_id).documents[0].version == 2

    (folder / "start.md").rename(folder / "renamed.md")
    wait_for(lambda: "renamed.md" in paths(library) and "start.md" not in paths(library))
    assert paths(library)["renamed.md"] == start_id, "a rename keeps the doc_id"

    (folder / "new.md").unlink()
    wait_for(lambda: "new.md" not in paths(library))
    assert all("Badgers" not in r.text for r in library.retrieve("badgers woodland", top_k=5).results)


def test_atomic_editor_save_and_folder_moves(live: tuple[Library, Follower], folder: Path) -> None:
    library, _ = live
    start_id = paths(library)["start.md"]
    # An editor's atomic save: write a temp file, then rename it over the original.
    tmp = folder / ".start.md.swp"
    tmp.write_text("# Start\n\nSaved atomically: herons.")
    os.replace(tmp, folder / "start.md")
    wait_for(lambda: "herons" in library.read_section(start_id, 0).paragraphs[0].text)
    assert paths(library)["start.md"] == start_id

    write(folder, "sub/a.md", "# A\n\nalpha")
    write(folder, "sub/b.md", "# B\n\nbeta")
    wait_for(lambda: {"sub/a.md", "sub/b.md"} <= set(paths(library)))
    ids = paths(library)
    (folder / "sub").rename(folder / "moved")
    wait_for(lambda: {"moved/a.md", "moved/b.md"} <= set(paths(library)) and "sub/a.md" not in paths(library))
    assert paths(library)["moved/a.md"] == ids["sub/a.md"]
    shutil.rmtree(folder / "moved")
    wait_for(lambda: set(paths(library)) == {"start.md"})


def test_a_burst_of_writes_settles_to_the_final_state(live: tuple[Library, Follower], folder: Path) -> None:
    library, _ = live
    for round_ in range(4):
        for i in range(50):
            write(folder, f"burst/doc{i:02d}.md", f"# Doc {i}\n\nround {round_} of file {i}")
    (folder / "burst/doc07.md").unlink()

    def burst_texts() -> set[str]:
        docs = [doc_id for p, doc_id in paths(library).items() if p.startswith("burst/")]
        return {library.read_section(doc_id, 0).paragraphs[0].text for doc_id in docs}

    wait_for(lambda: burst_texts() == {f"round 3 of file {i}" for i in range(50) if i != 7}, timeout=120)
    assert len([p for p in paths(library) if p.startswith("burst/")]) == 49


def test_failed_file_is_retried_when_it_changes(live: tuple[Library, Follower], folder: Path) -> None:
    library, _ = live
    (folder / "bad.md").write_bytes(b"\x00\x01 not text")
    wait_for(lambda: [f.path for f in library.toc().failed] == ["bad.md"])
    write(folder, "bad.md", "# Fixed\n\nNow it is text about kestrels.")
    wait_for(lambda: "bad.md" in paths(library) and not library.toc().failed)
    assert library.retrieve("kestrels", top_k=1).results[0].text.endswith("kestrels.")


def test_editing_one_of_many_documents_reembeds_only_it(folder: Path, open_library: Callable[..., Library]) -> None:
    for i in range(100):
        # Two sections, so two passages: an edit to one re-embeds it alone.
        write(
            folder,
            f"d{i:03d}.md",
            f"# Doc {i}\n\nParagraph one of document {i}.\n\n## Two\n\nParagraph two of document {i}.",
        )
    library = open_library(folder)
    background = library.follower(debounce=0.3)
    background.start()
    try:
        assert background.wait_idle(300)
        assert background.totals.embedded == 200
        versions = {d.doc_id: d.version for d in library.toc().documents}
        write(folder, "d042.md", "# Doc 42\n\nParagraph one of document 42.\n\n## Two\n\nParagraph two, rewritten.")
        doc_42 = paths(library)["d042.md"]
        wait_for(lambda: "rewritten" in library.read_section(doc_42, 1).paragraphs[0].text)
        wait_for(lambda: background.totals.embedded > 200)  # totals are counted after the swap is visible
        assert background.totals.embedded == 201, "only the rewritten paragraph is embedded again"
        changed = {d.doc_id for d in library.toc().documents if d.version != versions[d.doc_id]}
        assert changed == {doc_42}
    finally:
        background.stop()


def test_a_reconcile_after_the_watcher_stopped_still_indexes(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    write(folder, "one.md", "# One\n\nBadgers dig at night.")
    library = open_library(folder)
    background = library.follower(watch=False)
    background.start()
    assert background.wait_idle(60)
    background.stop()  # sets the indexer's cancel flag
    write(folder, "two.md", "# Two\n\nHerons wait in the reeds.")
    assert library.reconcile().indexed == ["two.md"]
    assert "two.md" in paths(library)


def test_a_batch_that_failed_is_made_good_by_reconciling_the_folder(
    folder: Path, open_library: Callable[..., Library], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch that raised took its file events with it: the whole folder is reconciled soon after."""
    monkeypatch.setattr(follow, "RECHECK_S", 0.5, raising=False)
    write(folder, "one.md", "# One\n\nBadgers dig at night.")
    library = open_library(folder)
    writing = library.index.writing
    assert writing is not None
    sync_paths = writing.sync_paths
    failures: list[str] = []

    def failing_once(*args: object, **kwargs: object) -> ReconcileReport:
        if not failures:
            failures.append("a bug met in one batch")
            raise RuntimeError(failures[0])
        return sync_paths(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(writing, "sync_paths", failing_once)
    background = library.follower(debounce=0.05)
    background.start()
    try:
        assert background.wait_idle(60)
        write(folder, "two.md", "# Two\n\nHerons wait in the reeds.")
        wait_for(lambda: bool(failures) and "two.md" in paths(library))
    finally:
        background.stop()


def test_a_take_over_that_failed_is_tried_again(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(follow, "RECHECK_S", 0.2, raising=False)
    write(folder, "one.md", "# One\n\nBadgers dig at night.")
    first = open_library(folder, data_dir=tmp_path / "shared")
    first.reconcile()
    second = open_library(folder, data_dir=tmp_path / "shared")
    background = second.follower(debounce=0.05)
    background.start()
    take_over = second.index.take_over
    failures: list[str] = []

    def failing_once() -> bool:
        if not failures:
            failures.append("Chroma would not open")
            raise RuntimeError(failures[0])
        return take_over()

    try:
        assert background.wait_idle(60) and not second.writer
        monkeypatch.setattr(second.index, "take_over", failing_once)
        first.close()
        wait_for(lambda: second.writer)
        write(folder, "two.md", "# Two\n\nHerons wait in the reeds.")
        wait_for(lambda: "two.md" in paths(second))
        assert failures
    finally:
        background.stop()

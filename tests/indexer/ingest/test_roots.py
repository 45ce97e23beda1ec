"""One Library over several folders: paths in the map, which root a path belongs to, moves between roots.

Real files, the real store, Chroma and the offline MiniLM; the watcher test uses real watchdog.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from indexer.errors import InvalidArgument, NotFound, NotReady
from indexer.library import Library
from server.render import render_toc
from tests.conftest import wait_for, write

NARWHAL = "# Arctic Whales\n\nThe narwhal's spiral tusk is a tooth that can grow three metres long.\n"
CACTUS = "# Desert Plants\n\nA saguaro cactus stores rainwater in its pleated trunk.\n"
LIGHTHOUSE = "# Coastal Lights\n\nThe lighthouse keeper trimmed the lamp wick every evening.\n"


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    path = tmp_path / "x" / "docs"
    path.mkdir(parents=True)
    return path


@pytest.fixture
def docs2(tmp_path: Path) -> Path:
    """A sibling whose name starts with the other root's name."""
    path = tmp_path / "x" / "docs2"
    path.mkdir(parents=True)
    return path


def paths(library: Library) -> dict[str, int]:
    return {d.path: d.doc_id for d in library.toc().documents}


def hit_doc_ids(library: Library, query: str, top_k: int = 5) -> list[int]:
    return [r.doc_id for r in library.retrieve(query, top_k=top_k).results if r.is_hit]


# --- paths in the map ----------------------------------------------------------------------


def test_one_root_shows_paths_relative_to_it(docs: Path, open_library: Callable[..., Library]) -> None:
    write(docs, "whales.md", NARWHAL)
    write(docs, "sub/plants.md", CACTUS)
    lib = open_library(docs)
    lib.reconcile()
    assert set(paths(lib)) == {"whales.md", "sub/plants.md"}
    text = render_toc(lib.toc())
    assert "docs/" not in text
    assert f"({paths(lib)['whales.md']}) whales.md — Arctic Whales" in text


def test_several_roots_prefix_each_path_with_its_folder_name(
    docs: Path, docs2: Path, open_library: Callable[..., Library]
) -> None:
    write(docs, "whales.md", NARWHAL)
    write(docs, "sub/plants.md", CACTUS)
    write(docs2, "lights.md", LIGHTHOUSE)
    write(docs2, "empty.md", "")  # fails: no text
    lib = open_library(docs, docs2)
    lib.reconcile()
    ids = paths(lib)
    assert set(ids) == {"docs/whales.md", "docs/sub/plants.md", "docs2/lights.md"}
    text = render_toc(lib.toc())
    assert f"({ids['docs/whales.md']}) docs/whales.md — Arctic Whales" in text
    assert f"({ids['docs2/lights.md']}) docs2/lights.md — Coastal Lights" in text
    # One document's map and the failed list use the same paths.
    assert lib.toc(ids["docs/sub/plants.md"]).documents[0].path == "docs/sub/plants.md"
    [failed] = lib.toc().failed
    assert failed.path == "docs2/empty.md"
    assert f"Failed: ({failed.doc_id}) docs2/empty.md — " in text
    with pytest.raises(NotReady, match=r"\(docs2/empty\.md\) failed to index"):
        lib.read_section(failed.doc_id, 0)
    # The store keeps the root itself and the path under it.
    rows = {(d.root, d.relpath) for d in lib.index.store.documents()}
    assert (str(docs), "sub/plants.md") in rows and (str(docs2), "lights.md") in rows


# --- which root a path belongs to -----------------------------------------------------------


def test_root_of_picks_the_root_a_path_lies_under(
    tmp_path: Path, docs: Path, docs2: Path, open_library: Callable[..., Library]
) -> None:
    lib = open_library(docs, docs2, data_dir=docs / "index")  # the index inside a served folder
    root_of = lib.index.writing.reconciler.folders.root_of
    x = docs.parent
    assert root_of(docs / "a.md") == docs
    assert root_of(docs / "deep" / "er" / "a.md") == docs
    assert root_of(docs) == docs
    assert root_of(docs2 / "a.md") == docs2, "docs2 is not under docs, though its name starts with it"
    assert root_of(docs2) == docs2
    outsiders = [x, x / "a.md", x / "docs3" / "a.md", x / "docs.md", x / "docs2-old" / "a.md", tmp_path / "docs"]
    for outside in outsiders:
        assert root_of(outside) is None, outside
    assert root_of(docs / ".git" / "a.md") is None, "hidden folders are not served"
    assert root_of(docs2 / ".hidden.md") is None
    assert root_of(docs / "index" / "index.sqlite3") is None, "the data dir is not served"
    assert root_of(docs / "indexes" / "a.md") == docs, "only the data dir itself is excluded"


def test_the_order_of_the_roots_does_not_change_which_root_owns_a_path(
    tmp_path: Path, docs: Path, docs2: Path, open_library: Callable[..., Library]
) -> None:
    first = open_library(docs2, docs, data_dir=tmp_path / "data-a")
    second = open_library(docs, docs2, data_dir=tmp_path / "data-b")
    for lib in (first, second):
        assert lib.index.writing.reconciler.folders.root_of(docs / "a.md") == docs
        assert lib.index.writing.reconciler.folders.root_of(docs2 / "a.md") == docs2


def test_file_events_are_indexed_under_the_right_root(
    docs: Path, docs2: Path, open_library: Callable[..., Library]
) -> None:
    lib = open_library(docs, docs2)
    lib.reconcile()
    assert paths(lib) == {}
    new = [write(docs2, "whales.md", NARWHAL), write(docs, "plants.md", CACTUS), docs.parent / "stray.md"]
    write(docs.parent, "stray.md", LIGHTHOUSE)  # beside the roots: not served
    report = lib.sync_paths(new)
    assert sorted(report.indexed) == ["plants.md", "whales.md"]
    ids = paths(lib)
    assert set(ids) == {"docs2/whales.md", "docs/plants.md"}
    assert hit_doc_ids(lib, "narwhal tusk", 1) == [ids["docs2/whales.md"]]
    assert hit_doc_ids(lib, "saguaro cactus", 1) == [ids["docs/plants.md"]]


# --- moves between roots ---------------------------------------------------------------------


@pytest.mark.parametrize("how", ["sync_paths", "reconcile"])
@pytest.mark.parametrize("destination", ["whales.md", "archive/old-whales.md"])
def test_a_file_moved_to_the_other_root_is_indexed_once_under_it(
    docs: Path, docs2: Path, open_library: Callable[..., Library], how: str, destination: str
) -> None:
    source = write(docs, "whales.md", NARWHAL)
    write(docs, "plants.md", CACTUS)
    write(docs2, "lights.md", LIGHTHOUSE)
    lib = open_library(docs, docs2)
    lib.reconcile()
    doc_id = paths(lib)["docs/whales.md"]

    target = docs2 / destination
    target.parent.mkdir(parents=True, exist_ok=True)
    os.rename(source, target)
    report = lib.sync_paths([source, target]) if how == "sync_paths" else lib.reconcile()

    assert report.indexed == [] and report.removed == [], "a move is recognised, not re-embedded"
    assert report.embedded == 0
    ids = paths(lib)
    assert set(ids) == {"docs/plants.md", f"docs2/{destination}", "docs2/lights.md"}
    assert ids[f"docs2/{destination}"] == doc_id, "a move keeps the doc_id"
    [row] = [d for d in lib.index.store.documents() if d.doc_id == doc_id]
    assert (row.root, row.relpath) == (str(docs2), destination)
    assert hit_doc_ids(lib, "how long is a narwhal tusk", 1) == [doc_id]
    assert [r.doc_id for r in lib.retrieve("narwhal spiral tusk tooth", top_k=5).results].count(doc_id) == 1
    assert lib.read_section(doc_id, 0).paragraphs[0].text.startswith("The narwhal's spiral tusk")
    assert len(lib.index.vectors.ids_for_document(doc_id)) == 1, "no vector left behind or doubled"
    assert lib.reconcile().indexed == [], "the next full pass agrees"


def test_a_file_moved_and_edited_is_a_new_document_under_the_other_root(
    docs: Path, docs2: Path, open_library: Callable[..., Library]
) -> None:
    source = write(docs, "whales.md", NARWHAL)
    lib = open_library(docs, docs2)
    lib.reconcile()
    old_id = paths(lib)["docs/whales.md"]

    target = docs2 / "whales.md"
    os.rename(source, target)
    target.write_text("# Arctic Whales\n\nBelugas are white whales that sing in shallow estuaries.\n", encoding="utf-8")
    report = lib.sync_paths([source, target])

    assert report.indexed == ["whales.md"] and report.removed == ["whales.md"]
    ids = paths(lib)
    assert list(ids) == ["docs2/whales.md"]
    new_id = ids["docs2/whales.md"]
    assert new_id != old_id
    with pytest.raises(NotFound):
        lib.toc(old_id)
    assert lib.index.vectors.ids_for_document(old_id) == set()
    assert {r.doc_id for r in lib.retrieve("narwhal tusk", top_k=5).results} == {new_id}
    assert hit_doc_ids(lib, "white whales singing", 1) == [new_id]


def test_a_file_moved_over_a_file_of_the_other_root_replaces_it(
    docs: Path, docs2: Path, open_library: Callable[..., Library]
) -> None:
    source = write(docs, "notes.md", NARWHAL)
    write(docs2, "notes.md", CACTUS)
    lib = open_library(docs, docs2)
    lib.reconcile()
    ids = paths(lib)
    os.replace(source, docs2 / "notes.md")
    lib.sync_paths([source, docs2 / "notes.md"])

    after = paths(lib)
    assert list(after) == ["docs2/notes.md"]
    kept = after["docs2/notes.md"]
    assert kept == ids["docs2/notes.md"], "the file at that path keeps its id and gets the new content"
    assert lib.toc(kept).documents[0].title == "Arctic Whales"
    assert lib.toc(kept).documents[0].version == 2
    assert set(hit_doc_ids(lib, "saguaro cactus")) <= {kept}
    assert "saguaro" not in " ".join(r.text for r in lib.retrieve("saguaro cactus", top_k=5).results)


# --- the same path in both roots ---------------------------------------------------------------


def test_the_same_relative_path_in_both_roots_is_two_documents(
    docs: Path, docs2: Path, open_library: Callable[..., Library]
) -> None:
    write(docs, "guide/readme.md", NARWHAL)
    write(docs2, "guide/readme.md", CACTUS)
    lib = open_library(docs, docs2)
    lib.reconcile()
    ids = paths(lib)
    assert set(ids) == {"docs/guide/readme.md", "docs2/guide/readme.md"}
    first, second = ids["docs/guide/readme.md"], ids["docs2/guide/readme.md"]
    assert first != second
    assert hit_doc_ids(lib, "narwhal tusk", 1) == [first]
    assert hit_doc_ids(lib, "saguaro cactus", 1) == [second]

    # Editing one leaves the other alone.
    write(docs2, "guide/readme.md", LIGHTHOUSE)
    assert lib.sync_paths([docs2 / "guide" / "readme.md"]).indexed == ["guide/readme.md"]
    versions = {d.doc_id: d.version for d in lib.toc().documents}
    assert versions == {first: 1, second: 2}
    assert hit_doc_ids(lib, "lighthouse keeper lamp", 1) == [second]

    # Deleting one (a whole folder) removes only it.
    (docs / "guide" / "readme.md").unlink()
    (docs / "guide").rmdir()
    assert lib.sync_paths([docs / "guide"]).removed == ["guide/readme.md"]
    assert paths(lib) == {"docs2/guide/readme.md": second}


def test_identical_files_in_both_roots_are_one_document(
    docs: Path, docs2: Path, open_library: Callable[..., Library]
) -> None:
    write(docs, "same.md", NARWHAL)
    write(docs2, "same.md", NARWHAL)
    lib = open_library(docs, docs2)
    lib.reconcile()
    (doc,) = lib.toc().documents
    assert (doc.path, doc.copies) == ("docs/same.md", ["docs2/same.md"]), "one document, its copy listed"
    assert hit_doc_ids(lib, "narwhal tusk", 5) == [doc.doc_id], "its one paragraph found once"
    (docs / "same.md").unlink()
    report = lib.reconcile()
    assert report.removed == ["same.md"]
    assert paths(lib) == {"docs2/same.md": doc.doc_id}, "the document lives on under its copy's path, same id"
    assert hit_doc_ids(lib, "narwhal tusk", 5)[0] == doc.doc_id


# --- the watcher across roots ------------------------------------------------------------------


@pytest.fixture(params=["native", "poll"])
def watched(
    request: pytest.FixtureRequest, docs: Path, docs2: Path, open_library: Callable[..., Library]
) -> Iterator[Library]:
    write(docs, "whales.md", NARWHAL)
    library = open_library(docs, docs2)
    background = library.follower(poll=request.param == "poll", debounce=0.3)
    assert background.watcher is not None
    background.watcher._poll_interval = 0.5  # keep the polling variant quick
    background.start()
    assert background.wait_idle(60)
    yield library
    background.stop()


def test_the_watcher_follows_a_move_between_roots(watched: Library, docs: Path, docs2: Path) -> None:
    assert list(paths(watched)) == ["docs/whales.md"]
    os.rename(docs / "whales.md", docs2 / "whales.md")
    wait_for(lambda: list(paths(watched)) == ["docs2/whales.md"])
    doc_id = paths(watched)["docs2/whales.md"]
    assert hit_doc_ids(watched, "narwhal tusk", 5) == [doc_id]
    write(docs2, "lights.md", LIGHTHOUSE)
    wait_for(lambda: "docs2/lights.md" in paths(watched))
    assert hit_doc_ids(watched, "lighthouse keeper", 1) == [paths(watched)["docs2/lights.md"]]


# --- roots that are easy to get wrong --------------------------------------------------------------


def test_roots_with_the_same_folder_name_are_told_apart(tmp_path: Path, open_library: Callable[..., Library]) -> None:
    first, second = tmp_path / "work" / "notes", tmp_path / "home" / "notes"
    write(first, "todo.md", NARWHAL)
    write(second, "todo.md", CACTUS)
    lib = open_library(first, second)
    lib.reconcile()
    assert len(lib.toc().documents) == 2
    assert len(paths(lib)) == 2, [d.path for d in lib.toc().documents]


def test_nested_roots_are_refused_with_the_root_to_serve(docs: Path, open_library: Callable[..., Library]) -> None:
    """A root inside another would index each of its files twice, under two names."""
    inner = docs / "inner"
    write(inner, "whales.md", NARWHAL)
    with pytest.raises(InvalidArgument, match=r"inside .*docs, which is served already: serve .*docs alone"):
        open_library(docs, inner)


def test_paths_under_a_root_given_through_a_link_are_synced(
    tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    lib = open_library(link)  # the watcher reports paths under `link`, as it was configured
    lib.reconcile()
    write(link, "whales.md", NARWHAL)
    assert lib.sync_paths([link / "whales.md"]).indexed == ["whales.md"]


def test_a_served_folder_is_a_path_to_scope_by(tmp_path: Path, open_library: Callable[..., Library]) -> None:
    first, second = tmp_path / "home" / "notes", tmp_path / "work" / "notes"
    write(first, "plans/garden.md", "# Garden\n\nPlant the beans in May.\n")
    write(second, "plans/budget.md", "# Budget\n\nPlant and equipment cost more in May.\n")
    lib = open_library(first, second)
    lib.reconcile()
    assert [d.path for d in lib.toc(path="work/notes").documents] == ["work/notes/plans/budget.md"]
    found = lib.retrieve("plant in May", path="home/notes/plans")
    assert [r.section_path[0] for r in found.results] == ["Garden"]
    assert "Searched the 1 document(s) under home/notes/plans/." in (found.hint or "")
    assert [d.path for d in lib.toc(path="work").documents] == ["work/notes/plans/budget.md"]

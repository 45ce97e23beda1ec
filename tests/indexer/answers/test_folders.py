"""A folder of many documents: the map lists every one in a bounded number of calls, by page
and by sub-folder, and search can be scoped to a sub-folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from indexer.errors import InvalidArgument, NotFound
from indexer.library import Library
from indexer.tokens import count_tokens
from server.render import render_retrieve, render_toc
from tests.conftest import write

TEAMS = ["finance", "legal", "ops", "research", "sales"]
BUDGET = 2000


@pytest.fixture
def memos(folder: Path, open_library: Callable[..., Library]) -> Library:
    """250 one-page memos in five team folders (50 each), titled by their first heading, and
    the board's three minutes."""
    for t, team in enumerate(TEAMS):
        for i in range(50):
            topic = f"{team} memo {i}: the {['budget', 'contract', 'rota', 'survey', 'pipeline'][t]} for week {i}"
            write(
                folder, f"{team}/2024/memo-{i:03d}.md", f"# {topic.capitalize()}\n\n## Summary\n\nNotes on {topic}.\n"
            )
    for i in range(3):
        write(folder, f"board/minutes-{i}.md", f"# Board minutes {i}\n\n## Decisions\n\nThe board approved plan {i}.\n")
    (folder / "broken.md").write_bytes(b"\x00\x01 not text")  # a failure listed on page 1
    library = open_library(folder, token_budget=BUDGET)
    library.reconcile()
    return library


def test_every_document_is_listed_in_a_few_pages_each_within_the_budget(memos: Library) -> None:
    first = memos.toc()
    assert first.compact and first.n_documents == 253 and first.page == 1
    assert [(f.path, f.documents) for f in first.folders] == [("board/", 3)] + [(f"{team}/", 50) for team in TEAMS]
    text = render_toc(first)
    assert text.startswith("Folders: board/ — 3 documents; finance/ — 50 documents; legal/ — 50 documents")
    assert "\n(1) board/minutes-0.md — Board minutes 0 | " in text
    assert "\n(5) finance/2024/memo-000.md — Finance memo 0: the budget for week 0 | " in text
    assert "Failed: (4) broken.md — " in text
    assert f"Page 1 of {first.n_pages} lists documents 1–{len(first.documents)}; get_toc(page=2) lists the next" in text

    seen = [d.doc_id for d in first.documents]
    for page in range(2, first.n_pages + 1):
        toc = memos.toc(page=page)
        assert count_tokens(render_toc(toc)) <= BUDGET and not toc.failed and not toc.folders
        seen += [d.doc_id for d in toc.documents]
    assert sorted(seen) == [i for i in range(1, 255) if i != 4], "every document once"
    assert first.n_pages <= 10
    assert "this is the last page" in (toc.hint or "")
    with pytest.raises(InvalidArgument, match=f"has {first.n_pages} pages of documents"):
        memos.toc(page=first.n_pages + 1)


def test_a_sub_folder_is_shown_with_its_sections_and_searched_alone(memos: Library) -> None:
    legal = memos.toc(path="./legal")  # as a host may write it
    assert legal.path == "legal" and legal.n_documents == 50 and count_tokens(render_toc(legal)) <= BUDGET
    assert {d.path.split("/")[0] for d in legal.documents} == {"legal"} and legal.folders[0].path == "legal/2024/"
    assert 'get_toc(path="legal/", page=2) lists the next' in (legal.hint or "")
    board = memos.toc(path="board/")
    assert not board.compact and [d.title for d in board.documents] == [f"Board minutes {i}" for i in range(3)]
    assert all(s.title == "Decisions" for d in board.documents for s in d.sections if s.sec_id), (
        "sections where they fit"
    )

    found = memos.retrieve("budget for week 7", top_k=3, path="legal/")
    assert found.results and all(memos.toc(r.doc_id).documents[0].path.startswith("legal/") for r in found.results)
    assert render_retrieve(found).count("Searched the 50 document(s) under legal/.") == 1
    everywhere = memos.retrieve("budget for week 7", top_k=1)
    assert everywhere.results[0].section_path[0].startswith("Finance memo 7")


def test_an_unknown_folder_names_the_real_ones(memos: Library) -> None:
    with pytest.raises(NotFound, match=r"no document under 'hr/'; .* the top folders board/, finance/, legal/"):
        memos.toc(path="hr/")
    with pytest.raises(NotFound, match="no document under 'hr'"):
        memos.retrieve("budget", path="hr")
    with pytest.raises(InvalidArgument, match="none of doc_ids is under legal/"):
        memos.retrieve("budget", doc_ids=[1], path="legal")
    assert memos.retrieve("contract", doc_ids=[60, 61]).hint == "Searched doc_ids 60, 61."
    found = memos.retrieve("budget", doc_ids=[1, 60], path="legal")  # one in it, one not
    assert {r.doc_id for r in found.results} == {60} and found.ignored == ["doc 1 is not under legal/"]


def test_a_small_folder_fits_one_page(folder: Path, open_library: Callable[..., Library]) -> None:
    write(folder, "a.md", "# Alpha\n\nOne.\n")
    library = open_library(folder)
    library.reconcile()
    toc = library.toc()
    assert not toc.compact and toc.n_pages == 1 and not toc.folders
    with pytest.raises(InvalidArgument, match="fits in one page"):
        library.toc(page=2)

"""retrieve on real documents (real SQLite, Chroma, the offline MiniLM): coordinates, windows, scopes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from indexer.errors import InvalidArgument, NotFound
from indexer.library import Library
from tests.indexer.conftest import doc_id


def test_retrieve_returns_coordinates_paths_and_exact_codes(library: Library) -> None:
    result = library.retrieve("how often should I water the garden", top_k=3)
    top = result.results[0]
    assert (top.sec_id, top.section_path) == (2, ["Gardening Guide", "Watering"])
    assert top.is_hit and top.rank == 1 and top.score and top.score > 0
    assert [r.rank for r in result.results] == [1, 2, 3]

    code = library.retrieve("INV-2024-0042", top_k=1).results[0]
    assert code.doc_id == doc_id(library, "billing/invoice.md") and "INV-2024-0042" in code.text

    table = library.retrieve("price of a spade", top_k=1).results[0]
    assert table.kind == "table" and "seeds" in table.text and "spade" in table.text, "tables stay whole"


def test_retrieve_windows_stay_in_the_section_and_deduplicate(library: Library) -> None:
    guide = doc_id(library, "guide.md")
    result = library.retrieve("compost in autumn worms", top_k=3, doc_ids=[guide], before=2, after=2)
    coords = [(r.doc_id, r.sec_id, r.para_idx) for r in result.results]
    assert len(coords) == len(set(coords)), "no paragraph twice"
    assert all(r.doc_id == guide for r in result.results)
    first_hit = result.results[[r.is_hit for r in result.results].index(True)]
    window = [r for r in result.results if r.sec_id == first_hit.sec_id]
    assert [r.para_idx for r in window] == sorted(r.para_idx for r in window)
    soil = [r for r in result.results if r.sec_id == 1]
    assert [r.para_idx for r in soil] == [0, 1, 2], "the window covers the section and never crosses into another"
    neighbours = [r for r in result.results if not r.is_hit]
    assert all(r.rank is None and r.score is None for r in neighbours)


def test_retrieve_doc_filter_and_errors(library: Library) -> None:
    notes = doc_id(library, "notes.txt")
    assert {r.doc_id for r in library.retrieve("compost", top_k=5, doc_ids=[notes]).results} == {notes}
    with pytest.raises(InvalidArgument, match="empty"):
        library.retrieve("   ")
    with pytest.raises(InvalidArgument, match="top_k must be between 1 and 50"):
        library.retrieve("soil", top_k=0)
    with pytest.raises(InvalidArgument, match="before must be between 0 and 10"):
        library.retrieve("soil", before=11)
    with pytest.raises(NotFound, match="there is no document 999; valid doc_ids are"):
        library.retrieve("soil", doc_ids=[999])
    with pytest.raises(NotFound, match=r"none of doc_ids can be searched: there is no document 998; .*999"):
        library.retrieve("soil", doc_ids=[999, 998])


def test_unknown_doc_ids_among_known_ones_are_ignored_and_named(library: Library) -> None:
    notes = doc_id(library, "notes.txt")
    result = library.retrieve("compost", top_k=5, doc_ids=[notes, 999])
    assert result.results and {r.doc_id for r in result.results} == {notes}, "the known document is searched"
    assert result.ignored == [
        f"there is no document 999; valid doc_ids are {', '.join(map(str, sorted(d.doc_id for d in library.toc().documents)))}"
    ]
    assert (result.hint or "").startswith(f"Searched doc_ids {notes}; ignored: there is no document 999")


def test_a_paragraph_repeated_on_every_page_is_one_hit(folder: Path, open_library: Callable[..., Library]) -> None:
    note = "Source: survey of 1,526 adults aged 65 and older, July to September 2013."
    chapters = "".join(
        f"## Chapter {i}\n\nFinding {i} about internet use by older adults.\n\n{note}\n\n" for i in range(6)
    )
    (folder / "report.md").write_text("# Report\n\n" + chapters)
    lib = open_library(folder)
    lib.reconcile()
    hits = [r for r in lib.retrieve("survey of adults aged 65 and older", top_k=5).results if r.is_hit]
    assert [h.text for h in hits].count(note) == 1
    assert len(hits) == 5, "the freed places go to other paragraphs"


def test_the_first_hit_from_each_document_says_which_document_it_is_in(library: Library) -> None:
    """Over the whole folder a path that starts at a section ("… > Item 7 > …") does not say which
    filing a hit is in: the first result from each document carries its title as the map shows
    it, in place of the path's root; scoped to one document, no result does."""
    from server.render import render_retrieve

    result = library.retrieve("compost soil water", top_k=8)
    titles = {d.doc_id: d.title for d in library.toc().documents}
    firsts: dict[int, str | None] = {}
    for r in result.results:
        firsts.setdefault(r.doc_id, r.document)
    assert len(firsts) > 1 and firsts == {doc: titles[doc] for doc in firsts}
    assert sum(r.document is not None for r in result.results) == len(firsts), "once per document"
    shown = render_retrieve(result)
    assert all(f"| {titles[doc]}" in shown for doc in firsts)
    guide = doc_id(library, "guide.md")
    assert all(r.document is None for r in library.retrieve("compost", top_k=3, doc_ids=[guide]).results)


def test_a_name_no_document_holds_is_said_before_the_hits(library: Library) -> None:
    """A question that writes a name the folder does not hold (a company it has no filing of, a
    misspelt name) still gets hits for its other words; the caution says the name is in no
    document, so a host checks the spelling or the map instead of reading on."""
    from server.render import render_retrieve

    result = library.retrieve("How often does Contoso water the garden with Fabrikam tools?", top_k=3)
    assert result.results and '"Contoso" or "Fabrikam"' in (result.caution or "")
    shown = render_retrieve(result)
    assert shown.index("No document searched contains") < shown.index("#1 ")
    held = library.retrieve("How often should I water the garden in Spring?", top_k=3)
    assert held.caution is None, "no name written, or every name held"
    guide = doc_id(library, "guide.md")
    assert "INV" not in (library.retrieve("Where is INV-2024-0042?", top_k=1).caution or "")
    scoped = library.retrieve("Does the Invoice cover compost?", top_k=1, doc_ids=[guide])
    assert '"Invoice"' in (scoped.caution or ""), "held elsewhere in the folder, not in the document searched"

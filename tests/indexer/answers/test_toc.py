"""The map (`get_toc`) of real documents: coordinates and sizes, folding, the token budget."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from indexer.answers.toc import FIRST_MAP_SHARE, TocBuilder
from indexer.library import Library
from indexer.tokens import count_tokens
from server.render import render_toc
from tests.conftest import write
from tests.indexer.conftest import doc_id


def test_toc_lists_documents_with_coordinates_and_sizes(library: Library) -> None:
    toc = library.toc()
    assert [d.path for d in toc.documents] == ["billing/invoice.md", "guide.md", "notes.txt"]
    guide = toc.documents[1]
    assert guide.title == "Gardening Guide" and guide.status == "ready"
    assert [(s.sec_id, s.title, s.level, s.parent, s.children) for s in guide.sections] == [
        (0, "Gardening Guide", 0, None, [1, 2, 3]),
        (1, "Soil", 1, 0, []),
        (2, "Watering", 1, 0, []),
        (3, "Pests", 1, 0, [4, 5]),
        (4, "Slugs", 2, 3, []),
        (5, "Aphids", 2, 3, []),
    ]
    assert guide.sections[1].n_paras == 3
    assert guide.n_paras == sum(s.n_paras for s in guide.sections)
    assert not toc.truncated and toc.pending == [] and toc.failed == []


def test_at_depth_zero_each_document_is_one_line_with_what_it_holds(library: Library) -> None:
    text = render_toc(library.toc(max_depth=0))
    guide, notes = doc_id(library, "guide.md"), doc_id(library, "notes.txt")
    lines = text.splitlines()
    assert len(lines) == 4 and lines[-1].startswith("Note: "), text  # no root line "[0] (opening text)"
    assert lines[1] == f"({guide}) guide.md — Gardening Guide | 101 tokens | +5 sections"
    assert "get_toc(doc_id=D) shows a document's sections" in lines[-1], "the note says how to open one"
    assert any(line.endswith(f"read_section(doc_id={notes}, sec_id=0) reads it") for line in lines), text


def test_a_small_document_is_never_folded_while_a_larger_one_is_open(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """Whatever the budget: the larger paper opens its one wide branch only once the small note,
    whose five sections cost more than that branch's one line, is open (each lists its top-level
    sections first, as far as its share of the map allows)."""
    write(
        folder, "numbered.md", "# Numbered\n\n" + "\n\n".join(f"## {i} Rule number {i}\n\nText." for i in range(1, 6))
    )
    parts = "\n\n".join(f"### Part {p}\n\nIntro {p}.\n\n#### Topic {p}.1\n\nText." for p in range(30))
    write(folder, "paper.md", "# A long paper\n\n## Body\n\n" + parts)
    lib = open_library(folder)
    lib.reconcile()
    small_open = False
    for budget in range(300, 5000, 40):
        toc = TocBuilder(lib.index.store, lib.display_path, budget).all_documents(None)
        if toc.compact:  # too small a budget for the two documents' lines
            continue
        small, large = sorted(toc.documents, key=lambda d: d.n_sections)
        large_open = any(s.level > 1 for s in large.sections)
        small_open = not any(s.hidden for s in small.sections)
        assert small_open or not large_open, budget
        assert count_tokens(render_toc(toc)) <= budget * FIRST_MAP_SHARE, "the first map keeps to its share"
    assert small_open and large_open


def test_toc_is_cut_to_the_budget_and_says_how_to_get_the_rest(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    body = "\n\n".join(f"## Heading number {i}\n\ntext {i}" for i in range(300))
    write(folder, "big.md", "# Big\n\n" + body)
    lib = open_library(folder, token_budget=1000)
    lib.reconcile()
    doc = lib.toc().documents[0].doc_id
    toc = lib.toc(doc_id=doc)
    assert toc.truncated
    listed = toc.documents[0].sections
    assert listed[0].sec_id == 0 and 10 < len(listed) < 301
    last = listed[-1].sec_id
    assert f"{300 - last:,} more sub-section(s) after [{last}]" in toc.hint
    assert f"get_toc(doc_id={doc}, sec_id=0, after={last})" in toc.hint
    assert count_tokens(render_toc(toc)) <= 1000
    # Paging on lists the next ones, and every heading is reached.
    seen = [s.sec_id for s in listed[1:]]
    while last < 300:
        page = lib.toc(doc_id=doc, sec_id=0, after=last)
        assert count_tokens(render_toc(page)) <= 1000
        ids = [s.sec_id for s in page.documents[0].sections if s.sec_id != 0]
        assert ids[0] == last + 1
        seen.extend(ids)
        last = ids[-1]
    assert seen == list(range(1, 301))
    # In the map of the folder the big one lists the headings its share allows and counts the rest.
    write(folder, "small.md", "# Small\n\n## One\n\ntext")
    lib.reconcile()
    both = lib.toc()
    big = next(d for d in both.documents if d.doc_id == doc)
    shown = [s.sec_id for s in big.sections[1:]]
    assert shown and big.sections[0].hidden == 300 - len(shown)
    text = render_toc(both)
    assert f"({doc}) big.md — Big | 600 tokens\n  [1] Heading number 0\n" in text
    assert f"\n  +{300 - len(shown)} more sections\n" in text and count_tokens(text) <= 1000 * 0.3


@pytest.mark.slow
def test_budgets_hold_on_deep_long_headings_and_small_budgets(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """Six levels of ~300-character headings, many hits, wide windows, the smallest budget."""
    long = "Consolidated statement of things, (continued): " * 6
    parts = []
    for i in range(60):
        parts.append("\n".join(f"{'#' * (d + 1)} {d}.{i} {long}" for d in range(6)))
        parts.append("\n\n".join(f"Paragraph {j} of part {i} about revenue, margins and cash." * 4 for j in range(3)))
    write(folder, "deep.md", "\n\n".join(parts))
    from indexer.tokens import count_tokens
    from server.render import render_retrieve, render_section

    for budget in (8000, 500):  # one index, reopened with the smallest budget
        lib = open_library(folder, token_budget=budget, data_dir=folder.parent / "deep-data")
        lib.reconcile()
        doc = lib.toc().documents[0].doc_id
        for top_k, window in ((50, 0), (50, 10), (1, 10)):
            result = lib.retrieve("revenue margins cash", top_k=top_k, before=window, after=window)
            assert count_tokens(render_retrieve(result)) <= budget, (budget, top_k, window)
            assert any(r.is_hit for r in result.results)
        deep = max(r.sec_id for r in lib.index.store.sections(doc))
        for sec_id in (0, 1, 2, 3, 4, deep):
            toc = lib.toc(doc, sec_id=sec_id)
            assert count_tokens(render_toc(toc)) <= budget, (budget, sec_id)
            top = next(s for s in toc.documents[0].sections if s.sec_id == sec_id)
            assert top.hidden == 0, "the section asked for is never folded back onto the same call"
        assert count_tokens(render_section(lib.read_section(doc, 6))) <= budget
        lib.close()

"""The Library end to end on real files: real SQLite, real Chroma, the real offline MiniLM."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from indexer.errors import IndexLocked, InvalidArgument, NotFound, NotReady
from indexer.library import Library
from indexer.toc import TocBuilder
from indexer.tokens import count_tokens
from server.render import render_toc
from tests.conftest import write

GUIDE = """# Gardening Guide

A short guide to a small vegetable garden.

## Soil

Good soil is loose, dark and full of organic matter.

Test the pH every spring; most vegetables like 6.0 to 7.0.

Add compost in autumn so worms can work it in over winter.

## Watering

Water deeply twice a week rather than a little every day.

Morning watering reduces fungal disease on leaves.

## Pests

### Slugs

Slugs eat seedlings at night; beer traps and copper tape keep them away.

### Aphids

Aphids cluster under leaves. Ladybirds eat them; a soap spray also works.
"""

INVOICE = """# Invoice policy

Invoices use the code INV-2024-0042 format.

| item | price |
|------|-------|
| seeds | 4.50 |
| spade | 21.00 |
"""


@pytest.fixture
def library(folder: Path, open_library: Callable[..., Library]) -> Library:
    write(folder, "guide.md", GUIDE)
    write(folder, "billing/invoice.md", INVOICE)
    write(folder, "notes.txt", "SHOPPING\n\nBuy more compost and a watering can.\n")
    lib = open_library(folder)
    report = lib.reconcile()
    assert sorted(report.indexed) == ["billing/invoice.md", "guide.md", "notes.txt"]
    return lib


def doc_id(lib: Library, path: str) -> int:
    return next(d.doc_id for d in lib.toc().documents if d.path == path)


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


def test_a_small_document_is_never_folded_while_a_larger_one_is_open(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """Whatever the budget: the larger paper opens its one wide branch only once the small note,
    whose five sections cost more than that branch's one line, is open."""
    write(folder, "numbered.md", "# Numbered\n\n" + "\n\n".join(f"## {i} Rule number {i}\n\nText." for i in range(1, 6)))
    parts = "\n\n".join(f"### Part {p}\n\nIntro {p}.\n\n#### Topic {p}.1\n\nText." for p in range(30))
    write(folder, "paper.md", "# A long paper\n\n## Body\n\n" + parts)
    lib = open_library(folder)
    lib.reconcile()
    small_open = False
    for budget in range(300, 1400, 20):
        toc = TocBuilder(lib.store, lib.display_path, budget).all_documents(None)
        if toc.compact:  # too small a budget for the two documents' lines
            continue
        small, large = sorted(toc.documents, key=lambda d: d.n_sections)
        large_open = any(s.sec_id != 0 for s in large.sections)
        small_open = not any(s.hidden for s in small.sections)
        assert small_open or not large_open, budget
        assert count_tokens(render_toc(toc)) <= budget
    assert small_open and large_open


def test_toc_is_cut_to_the_budget_and_says_how_to_get_the_rest(folder: Path, open_library: Callable[..., Library]) -> None:
    body = "\n\n".join(f"## Heading number {i}\n\ntext {i}" for i in range(300))
    write(folder, "big.md", "# Big\n\n" + body)
    lib = open_library(folder, token_budget=1000)
    lib.reconcile()
    toc = lib.toc()
    assert toc.truncated
    doc = toc.documents[0].doc_id
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
    # With two documents the big one is folded, its size and the call that opens it shown.
    write(folder, "small.md", "# Small\n\n## One\n\ntext")
    lib.reconcile()
    both = lib.toc()
    big = next(d for d in both.documents if d.doc_id == doc)
    assert len(big.sections) == 1 and big.sections[0].hidden == 300
    assert f"+300 sections: get_toc(doc_id={doc}, sec_id=0)" in render_toc(both)


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
    with pytest.raises(NotFound, match="none of doc_ids can be searched: there is no document 998; .*999"):
        library.retrieve("soil", doc_ids=[999, 998])


def test_unknown_doc_ids_among_known_ones_are_ignored_and_named(library: Library) -> None:
    notes = doc_id(library, "notes.txt")
    result = library.retrieve("compost", top_k=5, doc_ids=[notes, 999])
    assert result.results and {r.doc_id for r in result.results} == {notes}, "the known document is searched"
    assert result.ignored == [f"there is no document 999; valid doc_ids are {', '.join(map(str, sorted(d.doc_id for d in library.toc().documents)))}"]
    assert (result.hint or "").startswith(f"Searched doc_ids {notes}; ignored: there is no document 999")


def test_read_section_reads_in_order_and_clips(library: Library) -> None:
    guide = doc_id(library, "guide.md")
    whole = library.read_section(guide, 1)
    assert [p.para_idx for p in whole.paragraphs] == [0, 1, 2]
    assert whole.paragraphs[1].text.startswith("Test the pH")
    assert (whole.start_para, whole.end_para, whole.next_start_para) == (0, 2, None)

    part = library.read_section(guide, 1, start_para=1, end_para=99)
    assert [p.para_idx for p in part.paragraphs] == [1, 2] and part.end_para == 2

    head = library.read_section(guide, 1, start_para=0, end_para=0)
    assert head.next_start_para == 1 and "start_para=1" in (head.hint or "")

    parent = library.read_section(guide, 3)
    assert parent.paragraphs == [] and "[4, 5]" in (parent.hint or "")


def test_read_section_errors_say_what_is_valid(library: Library) -> None:
    guide = doc_id(library, "guide.md")
    with pytest.raises(NotFound, match=f"doc {guide} has no section 42; its sections are 0–5"):
        library.read_section(guide, 42)
    with pytest.raises(InvalidArgument, match="paragraphs 0–2"):
        library.read_section(guide, 1, start_para=7)
    with pytest.raises(InvalidArgument, match="end_para ≥ start_para"):
        library.read_section(guide, 1, start_para=2, end_para=1)
    with pytest.raises(NotFound, match="no document 777"):
        library.read_section(777, 0)


def test_read_section_token_budget_continues_exactly(folder: Path, open_library: Callable[..., Library]) -> None:
    paragraphs = [f"Paragraph {i}: " + "word " * 150 for i in range(12)]
    write(folder, "long.md", "# Long\n\n" + "\n\n".join(paragraphs))
    lib = open_library(folder, token_budget=600)
    lib.reconcile()
    doc = lib.toc().documents[0].doc_id
    seen: list[int] = []
    start = 0
    for _ in range(20):
        part = lib.read_section(doc, 0, start_para=start)
        assert sum(len(p.text.split()) for p in part.paragraphs) <= 600
        seen += [p.para_idx for p in part.paragraphs]
        if part.next_start_para is None:
            break
        assert f"start_para={part.next_start_para}" in (part.hint or "")
        start = part.next_start_para
    assert seen == list(range(12)), "continuing from next_start_para reads every paragraph once, in order"


def test_failed_documents_are_reported_and_the_rest_works(folder: Path, open_library: Callable[..., Library]) -> None:
    write(folder, "good.md", "# Good\n\nThe lighthouse keeper logs the weather.")
    (folder / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (folder / "empty.txt").write_text("")
    lib = open_library(folder)
    report = lib.reconcile()
    assert sorted(report.failed) == ["binary.md", "empty.txt"]
    toc = lib.toc()
    reasons = {f.path: f.reason for f in toc.failed}
    assert "binary" in reasons["binary.md"] and reasons["empty.txt"] == "file is empty"
    assert [d.path for d in toc.documents] == ["good.md"]
    failed_id = lib.store.document_at(str(folder.resolve()), "binary.md").doc_id  # type: ignore[union-attr]
    with pytest.raises(NotReady, match="failed to index: binary"):
        lib.read_section(failed_id, 0)
    assert lib.retrieve("lighthouse weather").results[0].text.startswith("The lighthouse")


def test_ids_are_stable_unchanged_files_are_not_reembedded_and_ids_never_reused(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    write(folder, "a.md", "# A\n\nAlpha text.\n\n## More\n\nSecond alpha paragraph.")  # two passages
    write(folder, "b.md", "# B\n\nBeta text.")
    data = tmp_path / "data"
    lib = open_library(folder, data_dir=data)
    first = lib.reconcile()
    assert first.embedded == 3
    ids = {d.path: d.doc_id for d in lib.toc().documents}
    lib.close()

    (folder / "b.md").unlink()
    write(folder, "a.md", "# A\n\nAlpha text.\n\n## More\n\nSecond alpha paragraph, edited.")
    write(folder, "c.md", "# C\n\nGamma text.")
    lib = open_library(folder, data_dir=data)
    report = lib.reconcile()
    assert report.removed == ["b.md"] and sorted(report.indexed) == ["a.md", "c.md"]
    assert report.embedded == 2, "only the edited paragraph of a.md and the new c.md paragraph are embedded"
    now = {d.path: d.doc_id for d in lib.toc().documents}
    assert now["a.md"] == ids["a.md"]
    assert now["c.md"] not in ids.values(), "a deleted document's id is never reused"
    assert "edited" in lib.read_section(now["a.md"], 1).paragraphs[0].text
    assert lib.reconcile().embedded == 0 and lib.vectors.count() == 3


def test_a_moved_file_keeps_its_id(folder: Path, open_library: Callable[..., Library], tmp_path: Path) -> None:
    write(folder, "old/name.md", "# Report\n\nQuarterly numbers.")
    lib = open_library(folder, data_dir=tmp_path / "data")
    lib.reconcile()
    original = lib.toc().documents[0].doc_id
    (folder / "new").mkdir()
    (folder / "old/name.md").rename(folder / "new/renamed.md")
    report = lib.reconcile()
    assert report.embedded == 0 and report.removed == []
    assert [(d.doc_id, d.path) for d in lib.toc().documents] == [(original, "new/renamed.md")]


def test_hidden_temp_and_unsupported_files_are_ignored(folder: Path, open_library: Callable[..., Library]) -> None:
    write(folder, "real.md", "# Real\n\ntext")
    for name in (".hidden.md", ".git/notes.md", "~$draft.md", ".#lock.md", "x.md.swp", "y.tmp", "z.pdfx", "img.png"):
        write(folder, name, "# junk\n\njunk")
    lib = open_library(folder)
    lib.reconcile()
    assert [d.path for d in lib.toc().documents] == ["real.md"]


def test_symlinks_out_of_the_folder_are_not_followed(folder: Path, tmp_path: Path, open_library: Callable[..., Library]) -> None:
    outside = tmp_path / "outside"
    write(outside, "secret.md", "# Secret\n\nkeep out")
    (folder / "link.md").symlink_to(outside / "secret.md")
    (folder / "linkdir").symlink_to(outside, target_is_directory=True)
    write(folder, "inside.md", "# Inside\n\nhello")
    (folder / "alias.md").symlink_to(folder / "inside.md")
    lib = open_library(folder)
    lib.reconcile()
    # A link to a file inside the folder is that file: indexed once, under its own name.
    assert sorted(d.path for d in lib.toc().documents) == ["inside.md"]


def test_second_process_on_the_same_data_dir_is_refused(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    write(folder, "a.md", "# A\n\ntext")
    open_library(folder, data_dir=tmp_path / "shared")
    with pytest.raises(IndexLocked, match="in use by another deepread-mcp process"):
        open_library(folder, data_dir=tmp_path / "shared")


def test_changing_the_embedded_text_rebuilds_vectors(folder: Path, tmp_path: Path, open_library: Callable[..., Library]) -> None:
    write(folder, "a.md", "# A\n\nAlpha.\n\n## Sub\n\nBeta.")
    lib = open_library(folder, data_dir=tmp_path / "d", heading_context=True)
    lib.reconcile()
    before = lib.store.vec_ids(1)
    lib.close()
    lib = open_library(folder, data_dir=tmp_path / "d", heading_context=False)
    assert lib.read_section(1, 1).paragraphs[0].text == "Beta.", "readable while its vectors are made again"
    assert [r.text for r in lib.retrieve("beta").results] == ["Beta."], "and found by its words"
    report = lib.reconcile()
    assert report.indexed == [], "the file is not parsed again: its stored paragraphs are packed anew"
    assert report.embedded == 2 and lib.vectors.count() == 2 and lib.store.vec_ids(1).isdisjoint(before)


@pytest.mark.slow
def test_readers_never_see_a_mix_of_versions(folder: Path, open_library: Callable[..., Library]) -> None:
    """While one thread keeps replacing a document, every answer holds exactly one version."""
    import re
    import threading

    def content(version: int) -> str:
        sections = "\n\n".join(
            f"## Part {s}\n\n" + "\n\n".join(f"Lantern v{version} part {s} line {p}." for p in range(4)) for s in range(3)
        )
        return f"# Lanterns\n\n{sections}"

    path = write(folder, "lanterns.md", content(1))
    lib = open_library(folder)
    lib.reconcile()
    doc = lib.toc().documents[0].doc_id
    errors: list[str] = []
    done = threading.Event()

    def writer() -> None:
        for version in range(2, 41):
            path.write_text(content(version))
            lib.sync_paths([path])
        done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    reads = 0
    while not done.is_set() or reads < 20:
        reads += 1
        result = lib.retrieve("lantern part line", top_k=6, before=3, after=3)
        for r in result.results:
            if f"Lantern v{r.doc_version} " not in r.text:
                errors.append(f"retrieve: {r.text!r} labelled version {r.doc_version}")
        section = lib.read_section(doc, 2)
        seen = {re.search(r"v(\d+)", p.text).group(1) for p in section.paragraphs}  # type: ignore[union-attr]
        if seen != {str(section.version)} or len(section.paragraphs) != 4:
            errors.append(f"read_section: versions {seen} in version {section.version}")
    thread.join()
    assert not errors, errors[:5]
    assert lib.read_section(doc, 1).version == 40


def test_a_data_dir_inside_the_folder_is_not_indexed(folder: Path, open_library: Callable[..., Library]) -> None:
    write(folder, "real.md", "# Real\n\nOnly this.")
    lib = open_library(folder, data_dir=folder / "index-data")
    write(folder / "index-data", "looks-like-a-doc.md", "# Not a document\n\ntext")
    lib.reconcile()
    assert [d.path for d in lib.toc().documents] == ["real.md"]
    assert lib.sync_paths([folder / "index-data" / "looks-like-a-doc.md"]).indexed == []


def test_a_paragraph_repeated_on_every_page_is_one_hit(folder: Path, open_library: Callable[..., Library]) -> None:
    note = "Source: survey of 1,526 adults aged 65 and older, July to September 2013."
    chapters = "".join(f"## Chapter {i}\n\nFinding {i} about internet use by older adults.\n\n{note}\n\n" for i in range(6))
    (folder / "report.md").write_text("# Report\n\n" + chapters)
    lib = open_library(folder)
    lib.reconcile()
    hits = [r for r in lib.retrieve("survey of adults aged 65 and older", top_k=5).results if r.is_hit]
    assert [h.text for h in hits].count(note) == 1
    assert len(hits) == 5, "the freed places go to other paragraphs"


@pytest.mark.slow
def test_budgets_hold_on_deep_long_headings_and_small_budgets(folder: Path, open_library: Callable[..., Library]) -> None:
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
        deep = max(r.sec_id for r in lib.store.sections(doc))
        for sec_id in (0, 1, 2, 3, 4, deep):
            toc = lib.toc(doc, sec_id=sec_id)
            assert count_tokens(render_toc(toc)) <= budget, (budget, sec_id)
            top = next(s for s in toc.documents[0].sections if s.sec_id == sec_id)
            assert top.hidden == 0, "the section asked for is never folded back onto the same call"
        assert count_tokens(render_section(lib.read_section(doc, 6))) <= budget
        lib.close()

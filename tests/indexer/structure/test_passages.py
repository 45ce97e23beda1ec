"""Passages: paragraphs packed for dense search, and how a passage's rank reaches its paragraphs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from indexer.library import Library
from indexer.parse.markdown import parse_markdown
from indexer.structure.passages import WINDOW_TOKENS, describe, pack, table_rows
from indexer.structure.sections import build
from indexer.tokens import count_tokens
from tests.conftest import write

STATEMENT = (
    "Consolidated Statements of Income (in millions, except per share data)\n"
    "| | 2022 | 2021 |\n|---|---|---|\n"
    + "\n".join(
        f"| {label} | $ {1000 + i * 37:,}.{i} | $ {900 + i * 31:,}.{i} |"
        for i, label in enumerate(
            [
                "Revenue",
                "Cost of revenue",
                "Gross profit",
                "Research and development",
                "Sales and marketing",
                "General and administrative",
                "Operating income",
                "Interest expense",
                "Income before taxes",
                "Provision for income taxes",
                "Net income",
                "Basic net income per share",
                "Diluted net income per share",
            ]
            * 3
        )
    )
)


def _structure(markdown: str):
    return build(parse_markdown(markdown), fallback_title="doc")


def test_a_section_of_short_paragraphs_is_one_passage_and_no_passage_crosses_a_heading() -> None:
    structure = _structure(
        "# Guide\n\nFirst short paragraph.\n\nSecond short paragraph.\n\nThird one.\n\n## Next\n\nAnother section."
    )
    passages = pack(structure.paragraphs, structure.section_paths(), True)
    assert [[structure.paragraphs[i].text for i in p.members] for p in passages] == [
        ["First short paragraph.", "Second short paragraph.", "Third one."],
        ["Another section."],
    ]
    assert passages[1].text == "Guide > Next: Another section.", "the heading path gives a passage its topic"


def test_a_long_section_is_cut_into_passages_of_about_equal_size_within_the_window() -> None:
    body = "\n\n".join(f"Sentence number {i} says something about kestrels and their hunting." for i in range(40))
    structure = _structure(f"# Birds\n\n{body}")
    passages = pack(structure.paragraphs, structure.section_paths(), True)
    sizes = [count_tokens(p.text) for p in passages]
    assert len(passages) > 1
    assert max(sizes) <= WINDOW_TOKENS and max(sizes) - min(sizes) <= 30, sizes
    assert [i for p in passages for i in p.members] == list(range(40)), "every paragraph, in order, once"


def test_a_long_table_stands_alone_described_by_its_caption_heads_labels_and_units() -> None:
    structure = _structure(
        f"# Annual report\n\n## Item 8\n\nThe statements follow.\n\n{STATEMENT}\n\nNotes follow the statements."
    )
    passages = pack(structure.paragraphs, structure.section_paths(), True)
    assert [len(p.members) for p in passages] == [2, 1, 1], "prose and the title line, the table alone, prose"
    text = passages[1].text
    assert text.startswith("Annual report > Item 8: Consolidated Statements of Income"), "the line before is its title"
    for words in ("Columns: 2022 | 2021", "Revenue; Cost of revenue; Gross profit", "Net income", "in millions"):
        assert words in text, words
    assert "1,037" not in text, "the figures are left out"
    assert count_tokens(text) < count_tokens(STATEMENT) / 3


def test_tables_are_read_from_html_and_from_pipes() -> None:
    html = "Table 2: Sales<table><tr><th>Region</th><th>2023</th></tr><tr><td>North &amp; East</td><td>12</td></tr></table>"
    assert table_rows(html) == ("Table 2: Sales", [["Region", "2023"], ["North & East", "12"]])
    described = describe(type("P", (), {"kind": "table", "text": html, "sec_id": 0, "n_tokens": 30})())
    assert described == "Table 2: Sales\nColumns: Region | 2023\nRows: North & East"


def test_a_dense_hit_lands_on_the_paragraph_of_its_passage_that_answers(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    write(
        folder,
        "herons.md",
        "# Herons\n\nHerons nest in colonies called heronries.\n\nThey eat fish, frogs and insects.\n\n"
        "The grey heron lives across Europe and Asia.\n\n## Other birds\n\nSparrows are small.",
    )
    lib = open_library(folder)
    lib.reconcile()
    doc = lib.toc().documents[0]
    assert lib.index.vectors.count() == 2 and len(lib.index.store.vec_ids(doc.doc_id)) == 2, "one vector per passage"
    lib.index.use_search("dense")
    top = lib.retrieve("where does the grey heron live", top_k=1).results[0]
    assert (top.sec_id, top.para_idx) == (0, 2) and top.text.startswith("The grey heron")
    top = lib.retrieve("what do they feed on", top_k=2).results
    assert top[0].text.startswith("They eat fish"), (
        "no word matches: the paragraph's own vector (read in its passage) does"
    )


def test_a_line_leading_a_table_brings_the_table_right_after_it(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """A statement's section often opens with a line ("(In millions, except par value)") that,
    read with its headings, is what a query naming the statement meets: its table follows it."""
    rows = "\n".join(
        f"| {label} | {i * 37 + 100:,} | {i * 41 + 90:,} |"
        for i, label in enumerate(
            [
                "Cash and cash equivalents",
                "Short-term investments",
                "Trade receivables",
                "Prepaid expenses",
                "Property",
                "Goodwill",
                "Other assets",
                "Total assets",
                "Accounts payable",
                "Accrued expenses",
                "Debt",
                "Total liabilities",
                "Common stock",
                "Retained earnings",
                "Total stockholders' equity",
            ]
            * 3
        )
    )
    table = "| | 2022 | 2021 |\n|---|---|---|\n" + rows
    write(
        folder,
        "annual.md",
        "# Annual report\n\n## Item 7. Discussion\n\nOur balance sheet remained strong and our balance sheet ratios "
        "improved as we repaid debt.\n\n## Item 8. Financial statements\n\n### Consolidated Balance Sheets\n\n"
        f"(In millions, except par value)\n\n{table}\n\n### Consolidated Statements of Income\n\n(In millions)\n\n"
        + table.replace("Total assets", "Revenue"),
    )
    lib = open_library(folder)
    lib.reconcile()
    results = lib.retrieve("balance sheet", top_k=3).results
    where = [(r.section_path[-1], r.kind) for r in results]
    line = where.index(("Consolidated Balance Sheets", "text"))
    assert where[line + 1] == ("Consolidated Balance Sheets", "table"), where


def test_a_new_packing_embeds_only_the_passages_whose_text_changed(
    folder: Path, open_library: Callable[..., Library], monkeypatch, caplog
) -> None:
    """Vector ids name the text embedded: after an upgrade that packs passages differently, a
    passage packed as before keeps its vector, and only new texts are embedded."""
    import logging

    import indexer.store.upgrades as upgrades_module

    write(folder, "a.md", "# A\n\nAlpha one.\n\nAlpha two.\n\n## B\n\nBeta one.")
    lib = open_library(folder)
    lib.reconcile()
    assert lib.wait_for_vectors(60)
    before = set(lib.index.vectors._collection.get(include=[])["ids"])
    data_dir = lib.config.data_dir
    lib.close()

    monkeypatch.setattr(upgrades_module, "PASSAGE_VERSION", "a later one")
    with caplog.at_level(logging.INFO, logger="indexer.ingest.catchup"):
        lib = open_library(folder, data_dir=data_dir)
        lib.reconcile()
        assert lib.wait_for_vectors(60)
    assert set(lib.index.vectors._collection.get(include=[])["ids"]) == before
    assert any("(0 passages embedded)" in r.getMessage() for r in caplog.records), caplog.text
    assert lib.retrieve("alpha", top_k=1).results[0].text == "Alpha one."


def test_a_passage_s_second_paragraph_follows_the_best_of_the_next_two_passages(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """The top of a dense ranking covers several passages before it gives any passage's second
    paragraph: the best of the first three passages, then the first passage's second."""
    write(
        folder,
        "birds.md",
        "# Birds\n\n## Owls\n\nOwls hunt small birds at night.\n\nOwls fly on silent feathers.\n\n"
        "## Hawks\n\nHawks hunt small birds by day.\n\nHawks soar on warm air.\n\n"
        "## Falcons\n\nFalcons hunt small birds in a dive.\n\nFalcons nest on cliffs.\n",
    )
    lib = open_library(folder)
    lib.reconcile()
    lib.index.use_search("dense")
    top = lib.retrieve("birds of prey hunting small birds", top_k=6).results
    sections = [r.sec_id for r in top]
    assert len(set(sections[:3])) == 3 and [r.para_idx for r in top[:3]] == [0, 0, 0], sections
    assert (top[3].sec_id, top[3].para_idx) == (sections[0], 1), "then the first passage's second paragraph"
    assert sorted((r.sec_id, r.para_idx) for r in top[4:]) == sorted((s, 1) for s in sections[1:3])

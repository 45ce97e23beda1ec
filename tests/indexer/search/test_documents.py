"""Documents as a retrieval unit: a whole-folder question that names a document lands in it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from indexer.library import Library
from tests.conftest import write
from tests.indexer.conftest import doc_id

REPORT = """# {name} — Annual Report {year}

## Operations

The company opened two new plants and hired three hundred people during the year.

## Investment

Capital expenditure was {capex} million dollars, spent mostly on new production lines and warehouses.
"""


def test_a_question_naming_a_document_lands_in_it_and_one_naming_none_ranks_all(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    for name, year, capex in (
        ("Contoso", 2030, 410),
        ("Contoso", 2031, 520),
        ("Fabrikam", 2031, 130),
        ("Fabrikam", 2030, 90),
    ):
        write(folder, f"r{name[0]}{year}.md", REPORT.format(name=name, year=year, capex=capex))
    write(folder, "garden.md", "# Garden Guide\n\nWater the roses in the evening.\n")
    lib = open_library(folder)
    lib.reconcile()

    named = lib.retrieve("How much did Contoso spend on capital expenditure in 2031?", top_k=5).results
    assert named[0].doc_id == doc_id(lib, "rC2031.md") and "520" in named[0].text
    assert lib.index.search.documents.pointed("Contoso capital expenditure 2031", None) == [doc_id(lib, "rC2031.md")]
    # A question that names no document ranks across all of them.
    assert lib.index.search.documents.pointed("How much was spent on capital expenditure?", None) == []
    unnamed = lib.retrieve("How much was spent on capital expenditure?", top_k=8).results
    assert len({r.doc_id for r in unnamed if r.is_hit}) >= 3
    # Words every description holds ("Annual Report") point nowhere.
    assert lib.index.search.documents.pointed("annual report capital expenditure", None) == []
    # A topic asked about in lower case names no document, though a title holds it, nor does a year
    # alone; two words of a description do name it. A sentence's capitalised first word is a name
    # when a title holds it ("Garden …"), not when none does ("Summarize …"); "U.S." is no "s".
    garden = [doc_id(lib, "garden.md")]
    assert lib.index.search.documents.pointed("How should the roses be watered in the garden?", None) == []
    assert lib.index.search.documents.pointed("what does the garden guide say about roses?", None) == garden
    assert lib.index.search.documents.pointed("Garden roses: when are they watered?", None) == garden
    assert lib.index.search.documents.pointed("Summarize what Contoso spent in 2031", None) == [
        doc_id(lib, "rC2031.md")
    ]
    assert lib.index.search.documents.pointed("What did U.S. plants cost?", None) == []
    assert lib.index.search.documents.pointed("What was spent in 2031?", None) == []
    assert lib.index.search.documents.pointed("What did the Garden Guide say about roses?", None) == [
        doc_id(lib, "garden.md")
    ]
    assert lib.index.search.documents.pointed("What did FABRIKAM spend in 2030?", None) == [doc_id(lib, "rF2030.md")]


def test_a_whole_folder_question_naming_a_document_and_its_section_gets_that_section_first(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    for name, year, capex in (
        ("Contoso", 2030, 410),
        ("Contoso", 2031, 520),
        ("Fabrikam", 2031, 130),
        ("Fabrikam", 2030, 90),
    ):
        write(folder, f"r{name[0]}{year}.md", REPORT.format(name=name, year=year, capex=capex))
    lib = open_library(folder)
    lib.reconcile()
    first = lib.retrieve("Fabrikam 2030 investment", top_k=3).results[0]
    assert (first.doc_id, first.section_path[-1]) == (
        doc_id(lib, "rF2030.md"),
        "Investment",
    ) and "90 million" in first.text


def test_a_word_of_single_characters_points_only_where_it_is_written_whole(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """ "Q2" names a description that writes "Q2", not one holding a "Q" and a "2" apart."""
    write(folder, "filing.md", "# Northwind — Form 10-Q, quarter ended July 2, 2031\n\nRevenue rose.\n")
    write(folder, "release.md", "# Contoso Q2 2031 results\n\nRevenue fell.\n")
    write(folder, "plan.md", "# Fabrikam strategy\n\nRevenue held.\n")
    write(folder, "maker.md", "# 3M Company overview\n\nRevenue grew.\n")
    lib = open_library(folder)
    lib.reconcile()
    assert lib.index.search.documents.pointed("What did revenue do in Q2?", None) == [doc_id(lib, "release.md")]
    assert lib.index.search.documents.pointed("How did 3M revenue grow?", None) == [doc_id(lib, "maker.md")]


def test_a_year_written_by_its_last_two_digits_points_to_that_years_documents(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """ "FY21" is fiscal 2021, not a day of a month a description dates ("Form 8-K, May 21, 2031")."""
    write(folder, "annual.md", "# Contoso — Form 10-K, fiscal year ended December 31, 2021\n\nPlants grew.\n")
    write(folder, "current.md", "# Fabrikam — Form 8-K, May 21, 2031\n\nA director resigned.\n")
    write(folder, "older.md", "# Contoso — Form 10-K, fiscal year ended December 31, 2019\n\nPlants shrank.\n")
    write(folder, "plan.md", "# Northwind strategy\n\nRevenue held.\n")
    lib = open_library(folder)
    lib.reconcile()
    assert lib.index.search.documents.pointed("Did Contoso grow its plants between FY20 and FY21?", None) == [
        doc_id(lib, "annual.md")
    ]


def test_a_question_over_several_years_points_to_the_latest_years_document(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """A report of 2031 sets 2030 beside it; the report of 2030 cannot tell of 2031."""
    for name, year, capex in (("Contoso", 2030, 410), ("Contoso", 2031, 520), ("Fabrikam", 2031, 130)):
        write(folder, f"r{name[0]}{year}.md", REPORT.format(name=name, year=year, capex=capex))
    write(folder, "garden.md", "# Garden Guide\n\nWater the roses in the evening.\n")
    lib = open_library(folder)
    lib.reconcile()
    latest = [doc_id(lib, "rC2031.md")]
    assert lib.index.search.documents.pointed("How did Contoso's capex change from 2030 to 2031?", None) == latest
    assert lib.index.search.documents.pointed("Contoso capex FY2030 - FY2031", None) == latest
    assert lib.index.search.documents.pointed("What did Contoso spend in 2030?", None) == [doc_id(lib, "rC2030.md")]


def test_a_name_only_one_documents_text_holds_points_to_it(folder: Path, open_library: Callable[..., Library]) -> None:
    """No description names it, but one document's text does: "TRUCS" points there; a word many
    documents hold, or a question shouted in capitals, points nowhere."""
    write(folder, "storage.md", "# Object Storage\n\nThe service has passed TRUCS level-2 certification.\n")
    for name in ("Backup", "Network", "Compute"):
        write(folder, f"{name.lower()}.md", f"# {name} Service\n\nThe {name.lower()} service is certified.\n")
    lib = open_library(folder)
    lib.reconcile()
    documents = lib.index.search.documents
    assert documents.pointed("What does the system that passed TRUCS offer?", None) == [doc_id(lib, "storage.md")]
    assert documents.pointed("Which Service is certified?", None) == []
    assert documents.pointed("WHAT DOES THE SYSTEM THAT PASSED TRUCS OFFER?", None) == []


@pytest.mark.slow
def test_a_question_about_slides_points_to_the_decks(folder: Path, open_library: Callable[..., Library]) -> None:
    """A deck is a paged document of few words a page; a whole-folder question that asks about
    slides and names no document is searched in the decks first."""
    from fpdf import FPDF

    deck = FPDF(orientation="landscape")
    for n, (title, point) in enumerate(
        (("Rollout plan", "Pilot in March"), ("Budget", "Hiring freeze lifted"), ("Risks", "Supplier delays"))
    ):
        deck.add_page()
        deck.set_font("Helvetica", style="B", size=32)
        deck.cell(0, 20, title, new_x="LMARGIN", new_y="NEXT")
        deck.set_font("Helvetica", size=20)
        deck.cell(0, 14, f"{point}, step {n + 1}", new_x="LMARGIN", new_y="NEXT")
    deck.output(str(folder / "quarterly-review.pdf"))
    prose = "The supplier delays slowed the rollout of the pilot, and the budget was revised twice. " * 30
    for name in ("operations", "finance", "outlook"):
        report = FPDF()
        for _ in range(2):
            report.add_page()
            report.set_font("Helvetica", size=11)
            report.multi_cell(0, 6, f"{name.title()} report. {prose}")
        report.output(str(folder / f"{name}.pdf"))
    lib = open_library(folder)
    lib.reconcile()
    lib.finish_parses()

    deck_id = doc_id(lib, "quarterly-review.pdf")
    assert lib.index.search.documents.pointed("What risks does the presentation list for the rollout?", None) == [
        deck_id
    ]
    assert lib.index.search.documents.pointed("Which slide mentions supplier delays?", None) == [deck_id]
    assert lib.index.search.documents.pointed("What slowed the rollout of the pilot?", None) == [], "no slide asked"
    found = lib.retrieve("Which slide mentions supplier delays?", top_k=3).results
    assert found[0].doc_id == deck_id, [(r.doc_id, r.text[:40]) for r in found]


def test_a_name_points_only_to_documents_whose_text_holds_it_and_a_measure_named_apart_does_not_count(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    write(folder, "deck.md", "# Tea Markets in India\n\nExports of tea rose by a tenth over the year.\n")
    write(folder, "leaf.md", "# Annual Report 2031\n\nNorthwind Leaf India Limited sold tobacco in six states.\n")
    write(folder, "garden.md", "# Garden Guide\n\nWater the roses in the evening.\n")
    write(folder, "contoso.md", REPORT.format(name="Contoso", year=2031, capex=520))
    terms = (
        "# Notes\n\nThese notes define the terms used.\n\n## Terms\n\nEBITDA is earnings before interest and taxes.\n"
    )
    write(folder, "spare.md", terms)
    lib = open_library(folder)
    lib.reconcile()
    pointed = lib.index.search.documents.pointed
    # "India" points to the deck by its title, but the deck never names Northwind Leaf: no pointing.
    assert pointed("What did NORTHWIND LEAF INDIA LIMITED sell?", None) == []
    # "EBITDA" and "USD", written apart from the name, say what is asked, not which document.
    asked = "What was Contoso's capital expenditure in 2031? Give its EBITDA in USD."
    assert pointed(asked, None) == [doc_id(lib, "contoso.md")]


SURVEY = """# Northwind Survey

## Findings

How many providers offer storage in the cloud, does China have? The ones of largest size count their centers by the hundred, with data kept in each, and China's cloud market grows.
"""
PROFILE = """# Fabrikam

## About us

Fabrikam, founded in 1999 as a small shop for office software, is China's largest cloud provider: 28 data centers, first in sales.
"""
GARDEN = "# Garden Guide\n\n" + "\n\n".join(
    [
        "Water the roses in the evening.",
        "Prune the apple trees in winter.",
        "Sow beans in May.",
        "Mulch keeps the soil moist.",
    ]
)


def test_a_whole_folder_question_lands_where_its_words_are_said_together(
    folder: Path, open_library: Callable[..., Library], monkeypatch: pytest.MonkeyPatch
) -> None:
    write(folder, "survey.md", SURVEY)
    write(folder, "profile.md", PROFILE)
    write(folder, "garden.md", GARDEN)
    lib = open_library(folder)
    lib.reconcile()
    question = "How many data centers does China's largest cloud provider have?"
    # The survey uses the question's words more, and reads like it; the profile says what it asks.
    assert lib.retrieve(question, top_k=3).results[0].doc_id == doc_id(lib, "profile.md")
    scoped = lib.retrieve(question, top_k=3, doc_ids=[doc_id(lib, "survey.md"), doc_id(lib, "profile.md")]).results
    assert scoped[0].doc_id == doc_id(lib, "profile.md"), "over several documents as over the folder"
    monkeypatch.setattr(type(lib.index.search), "_near", lambda self, query, candidates: [])
    assert lib.retrieve(question, top_k=3).results[0].doc_id == doc_id(lib, "survey.md"), "without it, the survey"

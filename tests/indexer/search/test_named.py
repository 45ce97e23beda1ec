"""The section a scoped query names (`indexer.search.named`): found by its title, in any of its names,
and given first, its substance within the results asked for."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from indexer.library import Library
from tests.conftest import write


def _table(labels: list[str]) -> str:
    rows = "\n".join(f"| {label} | {i * 37 + 100:,} | {i * 41 + 90:,} |" for i, label in enumerate(labels))
    return "| | 2022 | 2021 |\n|---|---|---|\n" + rows


def test_a_scoped_query_that_names_a_section_gets_its_opening_first(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """ "balance sheet" names "Acme Corp Consolidated Balance Sheets (in millions)" (the company's
    name and the parentheses do not count), not the sections that only talk about balance sheets;
    its table comes first, its short leading line next. Over the whole folder the rule does not apply."""
    table = _table(["Cash", "Receivables", "Total assets"])
    talk = "The balance sheet stayed strong; balance sheet ratios improved and balance sheet risk fell."
    write(
        folder,
        "acme.md",
        "# Acme Corp annual report\n\n## Off-Balance Sheet Arrangements\n\n" + talk + "\n\n"
        "## Balance Sheet Hedging of Foreign Currency Assets\n\n" + talk + "\n\n"
        f"## Acme Corp Consolidated Balance Sheets (in millions)\n\nDecember 31\n\n{table}\n\nSee the notes.",
    )
    lib = open_library(folder)
    lib.reconcile()
    doc = lib.toc().documents[0].doc_id
    results = lib.retrieve("balance sheet", top_k=3, doc_ids=[doc]).results
    assert [(r.section_path[-1], r.kind) for r in results[:2]] == [
        ("Acme Corp Consolidated Balance Sheets (in millions)", "table"),
        ("Acme Corp Consolidated Balance Sheets (in millions)", "text"),
    ]
    only = lib.retrieve("balance sheet", top_k=1, doc_ids=[doc]).results
    assert [r.kind for r in only] == ["table"], "asked for one: the section's substance, not its leading line"
    assert lib.index.search._named("balance sheet", None, []) == [], "not over the whole folder"
    assert lib.index.search._named("hedging foreign currency assets", [doc], []) != [], "four of the title's six words"
    assert lib.index.search._named("foreign currency", [doc], []) == [], "two of six are too few"
    assert lib.index.search._named("balance sheet risk", [doc], []) == [], "a word no title holds names nothing"
    assert lib.index.search._named("Where does the balance sheet show the risk?", [doc], []) != [], (
        "a question names it"
    )


def test_a_statement_is_named_by_any_of_its_standard_names_past_the_words_its_titles_share(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """ "income statement" names "… Consolidated Statements of Operations", "balance sheet" names
    "… Statements of Financial Position": the standard names of a financial statement are one
    name. The leading words every statement's title shares ("Initech Holdings and Subsidiaries
    Consolidated") do not tell them apart, so they do not count against the query's share."""
    lead = "Initech Holdings and Subsidiaries Consolidated"
    talk = "Our balance sheet stayed strong and income statement trends were favourable."
    write(
        folder,
        "annual.md",
        "# Annual report 2022\n\n## Off-Balance Sheet Arrangements\n\n" + talk + "\n\n"
        "## Income Statement Trends\n\n" + talk + "\n\n"
        f"## {lead} Statements of Operations\n\n(In millions, except per share data)\n\nYears ended December 31\n\n"
        f"2022 2021\n\n{_table(['Revenue', 'Cost of revenue', 'Net income'])}\n\n"
        f"## {lead} Statements of Financial Position\n\nDecember 31\n\n"
        # MinerU sometimes reads a statement's first row label as a heading of its own.
        f"## Assets\n\n{_table(['Cash', 'Receivables', 'Total assets'])}\n\n"
        f"## {lead} Statements of Cash Flows\n\n{_table(['Net income', 'Depreciation', 'Net cash'])}\n",
    )
    lib = open_library(folder)
    lib.reconcile()
    doc = lib.toc().documents[0].doc_id

    income = lib.retrieve("income statement", top_k=3, doc_ids=[doc]).results
    assert [(r.section_path[-1], r.kind, r.text.split("\n")[0]) for r in income] == [
        (f"{lead} Statements of Operations", "table", "| | 2022 | 2021 |"),
        (f"{lead} Statements of Operations", "text", "Years ended December 31"),
        (f"{lead} Statements of Operations", "text", "2022 2021"),
    ], "the table first, then the two lines just before it that label it"

    balance = lib.retrieve("balance sheet", top_k=2, doc_ids=[doc]).results
    assert [(r.section_path[-1], r.kind) for r in balance] == [
        ("Assets", "table"),
        (f"{lead} Statements of Financial Position", "text"),
    ], "a section of one short line goes on into the table that follows it"

    cash = lib.retrieve("cash flow statement", top_k=1, doc_ids=[doc]).results
    assert [(r.section_path[-1], r.kind) for r in cash] == [(f"{lead} Statements of Cash Flows", "table")]
    assert lib.index.search._named("statement", [doc], []) == [], "one word of a two-word title is not most of it"

    # A longer question that names statements gets them first, in the order it names them.
    asked = "What was the ratio of net cash to total assets in 2022? Use the cash flow statement and the balance sheet."
    both = lib.retrieve(asked, top_k=6, doc_ids=[doc]).results
    assert [(r.section_path[-1], r.kind) for r in both[:3]] == [
        (f"{lead} Statements of Cash Flows", "table"),
        ("Assets", "table"),
        (f"{lead} Statements of Financial Position", "text"),
    ]
    # Its words must stand together, small words included, in one sentence, and not joined to another.
    named_in = lib.index.search.names.statements_named
    assert named_in("Which statement describes the operations of the company?", [doc]) == []
    assert (
        named_in("What was the net income on the statement of cash flows?", [doc])
        == named_in("Use the cash flow statement.", [doc])
        != []
    )
    assert named_in("What are the company's off-balance sheet arrangements?", [doc]) == []
    assert named_in("What was the cash balance? Sheet metal prices rose.", [doc]) == []


def test_a_new_version_of_a_document_is_named_by_its_new_titles(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """Title words are kept per document version: a saved edit that renames a section is seen."""
    write(folder, "notes.md", "# Notes\n\n## Shipping Schedule\n\nBoats leave at nine.\n\n## Menu\n\nSoup and bread.\n")
    lib = open_library(folder)
    lib.reconcile()
    doc = lib.toc().documents[0].doc_id
    assert lib.retrieve("shipping schedule", top_k=1, doc_ids=[doc]).results[0].text == "Boats leave at nine."
    write(folder, "notes.md", "# Notes\n\n## Ferry Timetable\n\nBoats leave at nine.\n\n## Menu\n\nSoup and bread.\n")
    lib.reconcile()
    assert lib.index.search._named("shipping schedule", [doc], []) == []
    assert lib.index.search._named("ferry timetable", [doc], []) != []


def test_a_question_gets_the_statement_itself_and_the_statements_its_measure_is_read_from(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """A statement is a titled table: a section that only talks ("Off-Balance Sheet Arrangements")
    is none, a title with more after the name ("Key Balance Sheet Data") gives way to one the name
    ends (the company's name before it does not count), and a note that restates a statement
    comes after it. A measure read from statements ("quick ratio", "EBITDA") names them."""
    talk = "Our balance sheet stayed strong and we hold no balance sheet risk beyond our guarantees."
    lead = "Globex Corp and Subsidiaries Consolidated"
    write(
        folder,
        "annual.md",
        "# Annual report 2022\n\n## Off-Balance Sheet Arrangements\n\n" + talk + "\n\n"
        f"## Key Balance Sheet Data\n\n{_table(['Working capital', 'Total debt'])}\n\n"
        f"## {lead} Statements of Operations\n\n{_table(['Revenue', 'Operating income'])}\n\n"
        f"## {lead} Balance Sheets\n\n{_table(['Cash', 'Total current assets'])}\n\n"
        f"## {lead} Statements of Cash Flows\n\n{_table(['Depreciation', 'Capital spending'])}\n\n"
        "## Note 2 Adoption of New Standards\n\nThe new standard changed our statements as follows.\n\n"
        f"### Consolidated Balance Sheets\n\n{_table(['Cash as restated', 'Leases'])}\n",
    )
    lib = open_library(folder)
    lib.reconcile()
    doc = lib.toc().documents[0].doc_id
    titles = {s.sec_id: s.title for s in lib.index.store.sections(doc)}
    named_in = lib.index.search.names.statements_named

    def said(question: str) -> list[str]:
        return [titles[sec_id] for _, sec_id in named_in(question, [doc])]

    sheet, income = f"{lead} Balance Sheets", f"{lead} Statements of Operations"
    cash = f"{lead} Statements of Cash Flows"
    assert said("What was the largest liability in Globex's balance sheet?") == [sheet]
    assert said("Has the quick ratio improved or declined between 2021 and 2022?") == [sheet]
    assert said("What was the EBITDA in 2022? Use the P&L statement.") == [income, cash]
    assert said("Does Globex have an improving operating margin profile?") == [income]
    assert said("What is the free cash flow, and what drove working capital?") == [cash, sheet]
    assert said("What drove the change in revenue?") == [], "no statement named, no measure asked"
    top = lib.retrieve("Has Globex's quick ratio improved?", top_k=2, doc_ids=[doc]).results
    assert [(r.section_path[-1], r.kind) for r in top[:1]] == [(sheet, "table")]
    assert said("What was the Adjusted EBITDA in 2022?") == [], "an adjusted measure has its own reconciliation"
    assert said("Is Globex a capital-intensive business?") == [income, sheet]
    keyword = lib.retrieve("balance sheet", top_k=1, doc_ids=[doc]).results
    assert [(r.section_path[-1], r.kind) for r in keyword] == [(sheet, "table")], "a statement's name alone: the same"

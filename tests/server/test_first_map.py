"""The first call every host makes, `get_toc()` over a folder, through the MCP client: every
document's line and its top-level sections (the largest first when not all fit), folded with
counts, in a small share of the budget, with the calls that open a document or a section; the
map of one document keeps its sizes and fuller folding; the tool text and the prompt lead there."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from mcp import Client

from indexer.answers.toc import FIRST_MAP_SHARE
from indexer.library import Library
from indexer.tokens import count_tokens
from server.app import build_server
from tests.conftest import write

pytestmark = pytest.mark.anyio
BUDGET = 8000
SMALL_BUDGET = 5000  # 32 documents' top-level sections do not all fit its share
COMPANIES = [f"{name} {kind}" for name in ("Acme", "Borealis", "Cobalt", "Dunmore") for kind in ("Foods", "Rail")]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def filing(company: str, year: int) -> str:
    """An annual report laid out as filings are: a cover, four parts, signatures and exhibits;
    Part II (the discussion and the statements) holds most of the text."""
    said = f"{company} reported steady results for {year}."
    out = [f"# {company} — Annual report {year}\n\nCover page of the {year} report.\n"]
    out.append(f"## Forward-Looking Statements\n\n{said}\n")
    out.append("## PART I\n")
    out += [f"### {item}\n\n{said}\n" for item in ("Item 1. Business", "Item 1A. Risk Factors", "Item 2. Properties")]
    out.append("## PART II\n")
    out.append(f"### Item 7. Discussion and Analysis\n\n{said * 8}\n")
    out += [f"#### {topic}\n\n{said * 6}\n" for topic in ("Revenue", "Costs", "Liquidity")]
    out.append("### Item 8. Financial Statements\n")
    out += [f"#### {s}\n\n{said * 10}\n" for s in ("Balance Sheets", "Statements of Income", "Cash Flows")]
    out.append(f"## PART III\n\n### Item 10. Directors\n\n{said}\n")
    out.append(f"## PART IV\n\n### Item 15. Exhibits\n\n{said}\n")
    out.append("## SIGNATURES\n\nSigned.\n")
    out += [f"### Exhibit {i}\n\nExhibit {i}.\n" for i in range(1, 4)]
    return "\n".join(out)


@pytest.fixture
async def filings(folder: Path, open_library: Callable[..., Library]) -> AsyncIterator[Client]:
    """32 annual reports: too many for every document's top-level sections in the first map."""
    for company in COMPANIES:
        for year in range(2020, 2024):
            write(folder, f"{company.replace(' ', '_').lower()}_{year}.md", filing(company, year))
    library = open_library(folder, token_budget=SMALL_BUDGET)
    library.reconcile()
    async with Client(build_server(library)) as client:
        yield client


async def test_the_first_map_names_every_document_and_its_largest_sections_in_a_small_share(
    filings: Client,
) -> None:
    first = await filings.call_tool("get_toc", {})
    text, toc = first.content[0].text, first.structured_content
    assert count_tokens(text) <= SMALL_BUDGET * FIRST_MAP_SHARE, "a small share of the budget"
    assert len(toc["documents"]) == 32 and not toc["compact"] and toc["brief"]
    lines = text.splitlines()
    for doc in toc["documents"]:
        assert f"({doc['doc_id']}) {doc['path']} — {doc['title']} | " in text, "every document's line"
        root, *tops = doc["sections"]
        titles = [s["title"] for s in tops]
        assert "PART II" in titles and "SIGNATURES" not in titles, "the largest part first, back matter last"
        assert all(s["level"] == 1 and s["parent"] == 0 for s in tops), "top-level sections before deeper ones"
        # Every section is counted once: listed, or in the +N of a listed one (the root's: those not listed).
        assert len(tops) + sum(s["hidden"] for s in doc["sections"]) == doc["n_sections"] - 1
        if root["hidden"]:
            at = lines.index(next(line for line in lines if line.startswith(f"({doc['doc_id']}) ")))
            assert lines[at + len(tops) + 1] == f"  +{root['hidden']} more sections"
    assert any(len(d["sections"]) > 2 for d in toc["documents"]), "documents list more than one section"
    sections = [line for line in lines if line.startswith("  [")]
    assert "  [6] PART II +8" in sections
    assert not any(" tokens" in line or "p." in line or "get_toc(" in line for line in sections), (
        "no sizes, pages or calls repeated on every line: the document's own map has them"
    )
    assert set(toc["documents"][0]) >= {"doc_id", "path", "title", "n_pages", "n_sections", "sections"}
    assert set(toc["documents"][0]["sections"][0]) >= {"sec_id", "title", "level", "parent", "children", "hidden"}
    note = lines[-1]
    assert note.startswith("Note: ") and "get_toc(doc_id=D)" in note and "read_section(doc_id=D, sec_id=S)" in note

    # The document chosen: its own map, with sizes and the fuller folding.
    doc = toc["documents"][0]["doc_id"]
    one = (await filings.call_tool("get_toc", {"doc_id": doc})).content[0].text
    assert re.search(r"\n      \[\d+\] Item 8\. Financial Statements \| 0 tokens\n", one), one
    assert re.search(r"\n        \[\d+\] Balance Sheets \| \d+ tokens\n", one), "every section with its size"

    # Asked for depth, every document's sections to that depth, in up to the whole budget.
    deep = await filings.call_tool("get_toc", {"max_depth": 2})
    assert SMALL_BUDGET * FIRST_MAP_SHARE < count_tokens(deep.content[0].text) <= SMALL_BUDGET
    assert "] Item 8. Financial Statements" in deep.content[0].text


async def test_a_small_folder_is_mapped_whole_and_the_tool_text_leads_there(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    write(folder, "acme.md", filing("Acme Foods", 2023))
    write(folder, "notes.txt", "MEETING NOTES\n\nThe board met on Tuesday.\n")
    library = open_library(folder, token_budget=BUDGET)
    library.reconcile()
    async with Client(build_server(library)) as client:
        first = await client.call_tool("get_toc", {})
        text = first.content[0].text
        acme = next(d for d in first.structured_content["documents"] if d["path"] == "acme.md")
        assert not any(s["hidden"] for s in acme["sections"]), "a small folder shows every section"
        assert "\n    [11] Item 8. Financial Statements\n      [12] Balance Sheets\n" in text
        assert re.search(
            r"\(\d+\) notes\.txt — Meeting Notes \| \d+ tokens \| read_section\(doc_id=\d+, sec_id=0\)", text
        )
        assert count_tokens(text) <= BUDGET * FIRST_MAP_SHARE

        tool = next(t for t in (await client.list_tools()).tools if t.name == "get_toc")
        assert "call this first, with no arguments" in (tool.description or "")
        assert "Then get_toc(doc_id=D) shows the document you chose" in (tool.description or "")
        prompt = await client.get_prompt("locate_then_read", {"question": "What did Acme report?"})
        guide = prompt.messages[0].content.text  # type: ignore[union-attr]
        assert "Choose the document, then call get_toc(doc_id=N)" in guide
        assert text in guide, "the prompt carries the same first map"


async def test_thirty_documents_of_several_kinds_fit_the_first_map_with_their_kinds_and_years(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """The first map of 30 documents keeps within 10,000 characters, and says of each document the
    kind and year its card gives where they tell it from the others (issue: know each document)."""
    for n in range(10):
        write(
            folder,
            f"papers/study-{n}.md",
            f"# Patience in Herons, part {n}\n\nPublished March {2020 + n % 4}.\n\n## Abstract\n\n"
            f"We show that herons wait {n + 2} minutes longer in cold water.\n\n## Method\n\nWe watched.\n\n"
            "## References\n\n[1] A paper.\n",
        )
        write(folder, f"manuals/kettle-{n}.md", f"# Kettle {n} User Manual\n\nFill the kettle {n} to the line.\n")
        write(folder, f"notes/note-{n}.md", f"# Note {n}\n\nThe spring order arrived on day {n}.\n")
    library = open_library(folder)
    library.reconcile()
    async with Client(build_server(library)) as client:
        first = await client.call_tool("get_toc", {})
    text, toc = first.content[0].text, first.structured_content
    assert len(toc["documents"]) == 30 and len(text) <= 10_000, len(text)
    tags = {d["path"]: d["tag"] for d in toc["documents"]}
    assert tags["papers/study-1.md"] == "paper, 2021" and "| paper, 2021 |" in text
    assert tags["manuals/kettle-1.md"] is None, "its title says it is a manual"
    assert all(d["kind"] for d in toc["documents"]), "the card's kind in the structured content"

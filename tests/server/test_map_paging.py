"""The map through the MCP layer: a document too big for one answer is folded per branch, every
folded branch names the call that opens it, and that call (then `after=` for a long sibling
list) reaches every section; lines are compact (the document id once, no id lists)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from mcp import Client

from indexer.library import Library
from indexer.tokens import count_tokens
from server.app import build_server
from server.render import render_toc
from tests.conftest import write

pytestmark = pytest.mark.anyio
BUDGET = 1500


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def report() -> str:
    """A report of 3 parts: the second has 60 exhibits, each with two sub-sections."""
    out = ["# Annual Report\n\nIntroduction to the year.\n"]
    out.append("## Part One\n\nThe business.\n\n### Overview\n\nWhat we do.\n")
    out.append("## Part Two\n\nExhibits follow.\n")
    for i in range(60):
        out.append(f"### Exhibit {i}\n\nExhibit {i} text.\n\n#### Terms {i}\n\nTerms.\n\n#### Schedule {i}\n\nDates.\n")
    out.append("## Part Three\n\nThe outlook.\n")
    return "\n".join(out)


@pytest.fixture
async def client(folder: Path, open_library: Callable[..., Library]) -> AsyncIterator[Client]:
    write(folder, "report.md", report())
    library = open_library(folder, token_budget=BUDGET)
    library.reconcile()
    async with Client(build_server(library)) as c:
        yield c


async def test_a_folded_branch_opens_with_the_call_it_names_and_pages_on(client: Client) -> None:
    whole = await client.call_tool("get_toc", {"doc_id": 1})
    text = whole.content[0].text
    assert count_tokens(text) <= BUDGET
    assert "Part One" in text and "Part Three" in text, "the top of the tree survives the folding"
    assert "children" not in text and "(1) [" not in text, "compact: the doc id once, no id lists"
    part_two = next(s for s in whole.structured_content["documents"][0]["sections"] if s["title"] == "Part Two")
    call = re.search(rf"\[{part_two['sec_id']}\] Part Two .*\+(\d+) sections: get_toc\(doc_id=1, sec_id=(\d+)\)", text)
    assert call and int(call.group(2)) == part_two["sec_id"] and int(call.group(1)) == 180

    seen: set[str] = set()
    arguments = {"doc_id": 1, "sec_id": part_two["sec_id"]}
    pages = 0
    for _ in range(10):  # the subtree, then `after=` while the note offers more
        pages += 1
        page = await client.call_tool("get_toc", arguments)
        assert not page.is_error and count_tokens(page.content[0].text) <= BUDGET
        seen.update(s["title"] for s in page.structured_content["documents"][0]["sections"])
        more = re.search(
            rf"get_toc\(doc_id=1, sec_id={part_two['sec_id']}, after=(\d+)\)", page.structured_content["hint"] or ""
        )
        if more is None:
            break
        arguments = {**arguments, "after": int(more.group(1))}
    assert {f"Exhibit {i}" for i in range(60)} <= seen, "every exhibit is reached by paging"
    assert pages > 1, "the 60 exhibits did not fit one answer: `after=` was used"

    exhibit = next(s for s in page.structured_content["documents"][0]["sections"] if s["title"].startswith("Exhibit"))
    deeper = await client.call_tool("get_toc", {"doc_id": 1, "sec_id": exhibit["sec_id"]})
    titles = [s["title"] for s in deeper.structured_content["documents"][0]["sections"]]
    number = exhibit["title"].split()[-1]
    assert f"Terms {number}" in titles and f"Schedule {number}" in titles, "two calls reach any heading"


def test_the_body_opens_before_the_back_matter(folder: Path, open_library: Callable[..., Library]) -> None:
    """A filing's exhibits after its signatures are many small sections; the budget goes to the
    body's branches first (Item 7's sub-sections), the exhibits stay folded behind one mark."""
    body = ["# Annual Report\n\nThe year.\n", "## Item 7. Discussion\n\nOverview of results.\n"]
    body += [f"### Topic {i}\n\nTopic {i} in a long sentence about revenue and costs.\n" for i in range(25)]
    body.append("## SIGNATURES\n\nSigned.\n")
    body += [f"### Exhibit {i}\n\nText.\n" for i in range(20)]  # a cheaper group than the topics
    write(folder, "filing.md", "\n".join(body))
    library = open_library(folder, token_budget=1100)  # room for one of the two groups
    library.reconcile()
    text = render_toc(library.toc(doc_id=1))
    assert "[2] Topic 0" in text and "[26] Topic 24" in text and "Exhibit 0" not in text
    assert re.search(r"\] SIGNATURES \| .* \+20 sections: get_toc\(doc_id=1, sec_id=\d+\)", text)

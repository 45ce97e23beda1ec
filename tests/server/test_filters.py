"""The filters through the MCP layer and the command line: get_toc and retrieve keep the documents
of the types, times and dates asked; a filtered map keeps the first map's share of the budget and
its pages name the filters in the call for the next; nothing left is an error that says what there
is. The real server over a real Library, driven by the official MCP client in-process."""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from mcp import Client

from indexer.answers.toc import FIRST_MAP_SHARE
from indexer.library import Library
from indexer.tokens import count_tokens
from server import cli
from server.app import build_server
from tests.conftest import write

pytestmark = pytest.mark.anyio
BUDGET = 2000
N_TXT, N_MD = 40, 8
JAN_2023 = 1672574400  # 2023-01-01 12:00 UTC


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def make_folder(folder: Path) -> None:
    """Many short notes (.txt, dated by the month they state) and a few manuals (.md, older files)."""
    for i in range(N_TXT):
        path = write(folder, f"notes/note-{i:02}.txt", f"FIELD NOTE {i}\n\nMarch {2000 + i}\n\nOtters seen: {i}.")
        os.utime(path, (JAN_2023 + i * 86_400, JAN_2023 + i * 86_400))
    for i in range(N_MD):
        path = write(folder, f"manual-{i}.md", f"# Manual {i}\n\nVersion 1.{i}\n\nPaddle quietly past otters.")
        os.utime(path, (JAN_2023 - 400 * 86_400, JAN_2023 - 400 * 86_400))


@pytest.fixture
async def client(folder: Path, open_library: Callable[..., Library]) -> AsyncIterator[Client]:
    make_folder(folder)
    library = open_library(folder, token_budget=BUDGET)
    library.reconcile()
    async with Client(build_server(library)) as c:
        yield c


async def test_a_filtered_map_keeps_its_budget_and_pages_with_the_filters(client: Client) -> None:
    seen: set[str] = set()
    arguments: dict = {"file_types": ["TXT"]}
    for page in range(1, 10):
        answer = await client.call_tool("get_toc", arguments)
        text, toc = answer.content[0].text, answer.structured_content
        assert not answer.is_error, text
        assert count_tokens(text) <= BUDGET, "every page within the budget"
        assert toc["hint"].startswith(f"Filtered to the documents of type .txt: {N_TXT} of {N_TXT + N_MD}.")
        seen.update(d["path"] for d in toc["documents"])
        following = re.search(r"get_toc\((file_types=\[\"txt\"\], page=(\d+))\) lists the next", toc["hint"])
        if following is None:
            break
        assert int(following.group(2)) == page + 1, "the call for the next page keeps the filter"
        arguments = {"file_types": ["txt"], "page": page + 1}
    assert page > 1, "the notes did not fit one answer"
    assert seen == {f"notes/note-{i:02}.txt" for i in range(N_TXT)}, "every note, and no manual"

    manuals = await client.call_tool("get_toc", {"file_types": ["md"], "modified_before": "2022-12-31"})
    text = manuals.content[0].text
    assert count_tokens(text) <= BUDGET * FIRST_MAP_SHARE, "the first map's share, filter note included"
    assert {d["path"] for d in manuals.structured_content["documents"]} == {f"manual-{i}.md" for i in range(N_MD)}


async def test_search_and_errors_through_the_client(client: Client) -> None:
    hits = await client.call_tool(
        "retrieve", {"query": "otters seen", "top_k": 20, "dated_after": "2030-01-01", "dated_before": "2034-12-31"}
    )
    assert not hits.is_error, hits.content[0].text
    found = {r["doc_id"] for r in hits.structured_content["results"]}
    assert len(found) == 5, "the notes dated March 2030 to March 2034"
    assert "Searched the 5 document(s) dated 2030-01-01 to 2034-12-31, of 48 in the folder." in hits.content[0].text

    none = await client.call_tool("retrieve", {"query": "otters", "file_types": ["pdf"]})
    assert none.is_error
    assert none.content[0].text.endswith(
        "no document here is of type .pdf: the documents here are of type .txt (40), .md (8)"
    )
    late = await client.call_tool("get_toc", {"path": "notes/", "modified_after": "2024"})
    assert late.is_error and "no document under notes/ was modified on or after 2024: their files" in (
        late.content[0].text
    )
    bad = await client.call_tool("get_toc", {"file_types": "pdf"})
    assert bad.is_error and "file_types: input should be a valid list" in bad.content[0].text


def test_the_commands_take_the_same_filters(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library], capsys: pytest.CaptureFixture[str]
) -> None:
    make_folder(folder)
    data = ["--data-dir", str(tmp_path / "data")]
    open_library(folder, data_dir=tmp_path / "data").reconcile()  # stays open: the commands read beside it
    assert (
        cli.main(["toc", str(folder), *data, "--type", "md", "--type", ".MD", "--modified-before", "2022-12-31"]) == 0
    )
    out = capsys.readouterr().out
    assert "manual-0.md — Manual 0" in out
    assert (
        "note-" not in out and f"Filtered to the documents of type .md, modified 2022-12-31 or earlier: {N_MD}" in out
    )

    assert cli.main(["search", str(folder), "otters seen", *data, "--dated-after", "2039", "-k", "3"]) == 0
    out = capsys.readouterr().out
    assert "Otters seen: 39." in out and "Searched the 1 document(s) dated 2039 or later" in out

    assert cli.main(["toc", str(folder), *data, "--type", "pdf"]) == 1
    assert "no document here is of type .pdf" in capsys.readouterr().err

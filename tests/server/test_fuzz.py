"""Bad tool calls through the MCP layer: each is answered with an error that says what is
valid (never a bare "Error executing tool"), and the server keeps answering.

The real server (`build_server`) over a real Library, driven by the official MCP client
in-process; the arguments are the kinds a confused or hostile client sends.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from mcp import Client

from indexer.library import Library
from server.app import build_server
from tests.conftest import write

pytestmark = pytest.mark.anyio

BIG = 2**70  # beyond SQLite's 64-bit integers


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client(folder: Path, open_library: Callable[..., Library]) -> AsyncIterator[Client]:
    write(folder, "guide.md", "# Guide\n\n## Soil\n\nLoam holds water.\n\n## Pests\n\nSlugs eat lettuce at night.\n")
    library = open_library(folder)
    library.reconcile()
    async with Client(build_server(library)) as c:
        yield c


CASES: list[tuple[str, dict, str]] = [
    ("read_section", {"doc_id": BIG, "sec_id": 0}, "less than or equal to"),
    ("read_section", {"doc_id": 1, "sec_id": BIG}, "less than or equal to"),
    ("read_section", {"doc_id": 1, "sec_id": 0, "start_para": BIG}, "less than or equal to"),
    ("read_section", {"doc_id": -1, "sec_id": 0}, "greater than or equal to 0"),
    ("read_section", {"doc_id": 1}, "sec_id"),
    ("read_section", {"doc_id": "one", "sec_id": 0}, "valid integer"),
    ("read_section", {"doc_id": 1, "sec_id": 99}, "doc 1 has no section 99; its sections are 0–2"),
    ("read_section", {"doc_id": 1, "sec_id": 1, "start_para": 9}, "section 1 has paragraphs 0–0"),
    ("get_toc", {"doc_id": BIG}, "less than or equal to"),
    ("get_toc", {"doc_id": 2147483647}, "there is no document 2147483647; valid doc_ids are 1"),
    ("get_toc", {"doc_id": 1, "sec_id": 42}, "doc 1 has no section 42"),
    ("get_toc", {"sec_id": 1}, "sec_id needs a doc_id"),
    ("get_toc", {"max_depth": -3}, "greater than or equal to 0"),
    ("retrieve", {"query": "slugs", "doc_ids": []}, "at least 1 item"),
    ("retrieve", {"query": "slugs", "doc_ids": [BIG]}, "less than or equal to"),
    ("retrieve", {"query": "slugs", "doc_ids": [7]}, "there is no document 7"),
    ("retrieve", {"query": "?!.,;:…"}, "no letters or digits"),
    ("retrieve", {"query": "\x00\x00\x00"}, "query is empty"),
    ("retrieve", {"query": "🙂🙃🎉"}, "no letters or digits"),
    ("retrieve", {"query": "x" * 5000}, "at most 2000 characters"),
    ("retrieve", {"query": None}, "valid string"),
    ("retrieve", {}, "query"),
    ("retrieve", {"query": "slugs", "top_k": 0}, "greater than or equal to 1"),
    ("retrieve", {"query": "slugs", "before": 99}, "less than or equal to 10"),
    (
        "retrieve",
        {"query": "slugs", "top_k": 500},
        "retrieve: top_k: input should be less than or equal to 50 (got 500). It takes query (text), top_k (integer 1–50, optional)",
    ),
    (
        "read_section",
        {"sec_id": 0},
        "read_section: doc_id is required. It takes doc_id (integer ≥ 0), sec_id (integer ≥ 0)",
    ),
    ("delete_everything", {}, "there is no tool 'delete_everything'; the tools are get_toc, retrieve, read_section"),
    # An argument the tool does not take is named, with the ones it does, rather than dropped.
    (
        "get_toc",
        {"doc": 1},
        "get_toc: there is no argument 'doc' (did you mean doc_id?). It takes doc_id (integer ≥ 0, optional), ",
    ),
    ("retrieve", {"query": "slugs", "top_n": 3}, "retrieve: there is no argument 'top_n' (did you mean top_k?)."),
    ("read_section", {"doc_id": 1, "sec_id": 0, "ctx": {}}, "there is no argument 'ctx'. It takes doc_id"),
    ("view_page", {"doc_id": 1, "page": 1, "zoom": 2, "dpi": 300}, "no argument 'zoom'; there is no argument 'dpi'"),
]


@pytest.mark.parametrize(("tool", "args", "message"), CASES, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(CASES)])
async def test_bad_calls_say_what_is_valid(client: Client, tool: str, args: dict, message: str) -> None:
    result = await client.call_tool(tool, args)
    text = result.content[0].text
    assert result.is_error, text
    assert message in text, text
    assert text.strip() != f"Error executing tool {tool}"
    assert "pydantic" not in text and "type=" not in text, "no validation library's report"
    assert not (await client.call_tool("get_toc", {})).is_error


async def test_random_arguments_never_break_the_server(client: Client) -> None:
    rng = random.Random(7)
    values = [None, -1, 0, 1, 2, BIG, -BIG, 3.5, "", " ", "1", "x" * 3000, "\x00", "🙂", [], [1], [BIG], {}, True]
    fields = [
        "doc_id",
        "sec_id",
        "start_para",
        "end_para",
        "version",
        "max_depth",
        "after",
        "query",
        "top_k",
        "doc_ids",
        "before",
        "after",
        "images",
        "unknown",
    ]
    for _ in range(150):
        tool = rng.choice(["get_toc", "retrieve", "read_section"])
        args = {rng.choice(fields): rng.choice(values) for _ in range(rng.randint(0, 4))}
        result = await client.call_tool(tool, args)
        text = result.content[0].text
        if result.is_error:
            assert text.strip() != f"Error executing tool {tool}" and len(text) > 20, (tool, args, text)
            assert "internal error" not in text, (tool, args, text)
    ok = await client.call_tool("retrieve", {"query": "slugs lettuce"})
    assert not ok.is_error and "Slugs eat lettuce" in ok.content[0].text

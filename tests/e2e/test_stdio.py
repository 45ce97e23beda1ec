"""The server as a host runs it: a subprocess over stdio, driven by the official MCP client."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import write

pytestmark = pytest.mark.anyio

MANUAL = """# Espresso Machine Manual

Read this manual before first use.

## 1 Setup

Fill the tank with fresh water.

Insert the portafilter and lock it to the right.

Switch on and wait for the ready light.

## 2 Brewing

### 2.1 Single shot

Use 9 grams of coffee and extract for 25 seconds.

### 2.2 Double shot

Use 18 grams of coffee and extract for 28 seconds.

## 3 Cleaning

Descale every 3 months with citric acid; error code E-17 means the tank is empty.
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client(tmp_path: Path, models_dir: Path) -> AsyncIterator[Client]:
    docs = tmp_path / "docs"
    write(docs, "manual.md", MANUAL)
    write(docs, "faq.txt", "FREQUENTLY ASKED\n\nThe warranty lasts two years from purchase.\n")
    (docs / "broken.md").write_bytes(b"\x00\x00\x00garbage")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "server", "serve", str(docs), "--data-dir", str(tmp_path / "data")],
        env={"DEEPREAD_LOG_LEVEL": "INFO", "PATH": "/usr/bin:/bin"},
        cwd=str(Path(__file__).resolve().parents[2]),
    )
    async with Client(params) as c:
        await wait_until_indexed(c)
        yield c


async def wait_until_indexed(c: Client, timeout: float = 60) -> None:
    with anyio.fail_after(timeout):
        while True:
            toc = (await c.call_tool("get_toc", {})).structured_content
            listed = not toc["pending"] and len(toc["documents"]) + len(toc["failed"]) == 3
            if listed and all(d["semantic"] for d in toc["documents"]):  # semantic search caught up too
                return
            await anyio.sleep(0.2)


async def test_tools_are_listed_read_only_with_schemas(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {"get_toc", "retrieve", "read_section", "view_page"}
    for tool in tools.values():
        assert tool.annotations and tool.annotations.read_only_hint
        assert tool.output_schema and tool.description
    assert tools["retrieve"].input_schema["properties"]["top_k"]["maximum"] == 50


async def test_get_toc_text_and_structure(client: Client) -> None:
    result = await client.call_tool("get_toc", {})
    toc = result.structured_content
    assert [d["path"] for d in toc["documents"]] == ["faq.txt", "manual.md"]
    assert [(f["path"], f["reason"]) for f in toc["failed"]] == [
        ("broken.md", "binary content in a text file (NUL bytes); is the extension wrong?")
    ]
    manual = toc["documents"][1]
    assert [(s["sec_id"], s["title"], s["level"], s["children"]) for s in manual["sections"]] == [
        (0, "Espresso Machine Manual", 0, [1, 2, 5]),
        (1, "1 Setup", 1, []),
        (2, "2 Brewing", 1, [3, 4]),
        (3, "2.1 Single shot", 2, []),
        (4, "2.2 Double shot", 2, []),
        (5, "3 Cleaning", 1, []),
    ]
    text = result.content[0].text
    doc = manual["doc_id"]
    # The document id once, on the document's line; sections indented by depth, no id lists;
    # in the map of the folder no sizes (the document's own map has them).
    assert f"({doc}) manual.md — Espresso Machine Manual | 74 tokens\n  [1] 1 Setup\n  [2] 2 Brewing\n" in text
    assert "\n    [3] 2.1 Single shot\n" in text
    assert "children" not in text and f"({doc}) [" not in text
    assert "Failed: (1) broken.md — binary content" in text

    one = await client.call_tool("get_toc", {"doc_id": doc})
    assert [d["doc_id"] for d in one.structured_content["documents"]] == [doc]
    assert "\n      [3] 2.1 Single shot | 11 tokens\n" in one.content[0].text


async def test_retrieve_then_read_section(client: Client) -> None:
    toc = (await client.call_tool("get_toc", {})).structured_content
    manual = next(d["doc_id"] for d in toc["documents"] if d["path"] == "manual.md")

    result = await client.call_tool("retrieve", {"query": "error code E-17", "top_k": 2, "before": 1, "after": 1})
    hits = result.structured_content["results"]
    top = hits[0]
    assert (top["doc_id"], top["sec_id"], top["para_idx"], top["is_hit"], top["rank"]) == (manual, 5, 0, True, 1)
    assert top["section_path"] == ["Espresso Machine Manual", "3 Cleaning"]
    assert "#1 score=" in result.content[0].text and f"({manual}, 5, 0) v1" in result.content[0].text

    scoped = await client.call_tool("retrieve", {"query": "warranty", "doc_ids": [manual]})
    assert {r["doc_id"] for r in scoped.structured_content["results"]} == {manual}
    by_file = await client.call_tool("retrieve", {"query": "warranty", "path": "faq.txt"})
    assert [r["section_path"][0] for r in by_file.structured_content["results"]] == ["Frequently Asked"]
    assert "Searched faq.txt." in by_file.content[0].text

    setup = await client.call_tool("read_section", {"doc_id": manual, "sec_id": 1, "start_para": 1, "end_para": 50})
    section = setup.structured_content
    assert [p["para_idx"] for p in section["paragraphs"]] == [1, 2]
    assert section["paragraphs"][0]["text"].startswith("Insert the portafilter")
    assert (section["end_para"], section["next_start_para"]) == (2, None)
    assert setup.content[0].text.startswith(f"({manual}) [1] 1 Setup | level 1 | paragraphs 1–2 of 0–2 | v1")


async def test_errors_say_what_is_valid(client: Client) -> None:
    toc = (await client.call_tool("get_toc", {})).structured_content
    manual = next(d["doc_id"] for d in toc["documents"] if d["path"] == "manual.md")
    cases = [
        ("read_section", {"doc_id": 99, "sec_id": 0}, "there is no document 99; valid doc_ids are"),
        ("read_section", {"doc_id": manual, "sec_id": 9}, f"doc {manual} has no section 9; its sections are 0–5"),
        ("read_section", {"doc_id": manual, "sec_id": 1, "start_para": 5}, "section 1 has paragraphs 0–2"),
        ("retrieve", {"query": "  "}, "query is empty"),
        ("retrieve", {"query": "x", "doc_ids": [99]}, "there is no document 99"),
        ("retrieve", {"query": "x", "top_k": 500}, "less than or equal to 50"),
        ("get_toc", {"doc_id": 99}, "there is no document 99"),
        ("get_toc", {"path": "nowhere/"}, "no document under 'nowhere/'; paths are as get_toc shows them"),
        ("get_toc", {"page": 2}, "page=2: the map fits in one page"),
        ("retrieve", {"query": "x", "path": "nowhere"}, "no document under 'nowhere'"),
    ]
    for tool, args, message in cases:
        result = await client.call_tool(tool, args)
        assert result.is_error, (tool, args)
        assert message in result.content[0].text, result.content[0].text
    # The server is still fine after all of that.
    assert not (await client.call_tool("get_toc", {})).is_error


async def test_prompt_carries_guidance_and_toc(client: Client) -> None:
    prompts = (await client.list_prompts()).prompts
    assert [p.name for p in prompts] == ["locate_then_read"]
    result = await client.get_prompt("locate_then_read", {"question": "How long for a double shot?"})
    text = result.messages[0].content.text
    assert "read_section" in text and "Espresso Machine Manual" in text and "double shot" in text

"""Chinese and Japanese documents as a host meets them: the server over stdio, the official MCP client."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import write
from tests.indexer.search.languages_fixtures import CHINESE, JAPANESE, NOTES

pytestmark = pytest.mark.anyio
# The Markdown files end with one more newline: identical bytes would be one document (its copies listed).
FILES = {"zh.txt": CHINESE, "zh.md": CHINESE + "\n", "ja.txt": JAPANESE, "ja.md": JAPANESE + "\n", "notes.md": NOTES}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[Client]:
    docs = tmp_path / "docs"
    for name, text in FILES.items():
        write(docs, name, text)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "server", "serve", str(docs), "--data-dir", str(tmp_path / "data")],
        env={"DEEPREAD_LOG_LEVEL": "INFO", "PATH": "/usr/bin:/bin"},
        cwd=str(Path(__file__).resolve().parents[2]),
    )
    async with Client(params) as c:
        with anyio.fail_after(120):
            while True:
                toc = (await c.call_tool("get_toc", {})).structured_content
                if len(toc["documents"]) == len(FILES) and all(d["semantic"] for d in toc["documents"]):
                    break
                await anyio.sleep(0.2)
        yield c


async def test_cjk_chapters_are_found_in_their_language_and_another_language_is_flagged(client: Client) -> None:
    toc = (await client.call_tool("get_toc", {})).structured_content
    ids = {d["path"]: d["doc_id"] for d in toc["documents"]}
    for name, chapters in (("zh.txt", "第三章 装备清单"), ("zh.md", "第三章 装备清单"), ("ja.txt", "第3章 持ち物")):
        doc = await client.call_tool("get_toc", {"doc_id": ids[name]})
        assert chapters in doc.content[0].text, doc.content[0].text

    for query, chapter in (("保护眼睛", "第三章 装备清单"), ("目を守る", "第3章 持ち物")):
        found = await client.call_tool("retrieve", {"query": query, "top_k": 2})
        top = found.structured_content["results"][0]
        assert top["section_path"][-1] == chapter, found.content[0].text
        caution = found.structured_content["caution"]  # the folder's English notes cannot be found by it
        assert caution.startswith("This query is in ") and "1 of the 5 documents searched is in English" in caution

    crossing = await client.call_tool(
        "retrieve", {"query": "what should a rower wear to protect the eyes", "doc_ids": [ids["zh.txt"]]}
    )
    caution = crossing.structured_content["caution"]
    assert caution and "This query is in English and the documents searched are in Chinese" in caution
    assert caution in crossing.content[0].text, "the host reads it before the hits"

"""A live folder as an agent sees it over stdio, restarts, and a kill -9 in the middle of indexing."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from indexer.library import Library
from tests.conftest import REPO, write

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.slow,
]  # servers, kill -9 and live folders: `pytest -m "not slow"` skips them


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def serve(docs: Path, data: Path) -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "server", "serve", str(docs), "--data-dir", str(data)],
        env={"PATH": "/usr/bin:/bin"},
        cwd=str(REPO),
    )
    async with Client(params) as client:
        yield client


async def toc(client: Client) -> dict:
    return (await client.call_tool("get_toc", {})).structured_content


async def until(check: Callable[[], object], timeout: float = 30) -> None:
    with anyio.fail_after(timeout):
        while not await check():  # type: ignore[misc]
            await anyio.sleep(0.2)


def doc_paths(t: dict) -> dict[str, dict]:
    return {d["path"]: d for d in t["documents"]}


async def test_changes_are_searchable_within_seconds_and_restart_reindexes_nothing(tmp_path: Path) -> None:
    docs, data = tmp_path / "docs", tmp_path / "data"
    for i in range(5):
        write(docs, f"note{i}.md", f"# Note {i}\n\nA note about topic number {i}.")
    async with serve(docs, data) as client:
        await until(lambda: _ready(client, 5))

        started = time.monotonic()
        write(docs, "fresh.md", "# Fresh\n\nThe quartermaster counts the lanterns.")

        async def searchable() -> bool:
            hits = (
                await client.call_tool("retrieve", {"query": "quartermaster lanterns", "top_k": 1})
            ).structured_content
            return bool(hits["results"]) and "quartermaster" in hits["results"][0]["text"]

        await until(searchable)
        save_to_searchable = time.monotonic() - started
        assert save_to_searchable < 10

        fresh = doc_paths(await toc(client))["fresh.md"]
        write(docs, "fresh.md", "# Fresh\n\nThe quartermaster counts the lanterns twice.")

        async def edited() -> bool:
            return doc_paths(await toc(client))["fresh.md"]["version"] == fresh["version"] + 1

        await until(edited)
        stale = await client.call_tool(
            "read_section", {"doc_id": fresh["doc_id"], "sec_id": 0, "version": fresh["version"]}
        )
        assert "changed since version 1 (now version 2)" in stale.content[0].text
        assert "twice" in stale.structured_content["paragraphs"][0]["text"]

        (docs / "fresh.md").rename(docs / "renamed.md")
        await until(lambda: _has(client, "renamed.md", "fresh.md"))
        assert doc_paths(await toc(client))["renamed.md"]["doc_id"] == fresh["doc_id"]

        (docs / "note0.md").unlink()
        await until(lambda: _has(client, None, "note0.md"))
        before_restart = {p: (d["doc_id"], d["version"]) for p, d in doc_paths(await toc(client)).items()}

    async with serve(docs, data) as client:
        await until(lambda: _ready(client, 5))
        after = {p: (d["doc_id"], d["version"]) for p, d in doc_paths(await toc(client)).items()}
        assert after == before_restart, "a restart re-indexes nothing: same ids, same versions"


async def _ready(client: Client, n: int) -> bool:
    t = await toc(client)
    return not t["pending"] and len(t["documents"]) == n


async def _has(client: Client, present: str | None, absent: str) -> bool:
    found = doc_paths(await toc(client))
    return (present is None or present in found) and absent not in found


def test_kill_9_during_indexing_leaves_a_consistent_store(tmp_path: Path, open_library: Callable[..., Library]) -> None:
    docs, data = tmp_path / "docs", tmp_path / "data"
    for i in range(60):
        body = "\n\n".join(f"Paragraph {j} of document {i} about subject {i * 7 + j}." for j in range(12))
        write(docs, f"doc{i:02d}.md", f"# Document {i}\n\n{body}")
    proc = subprocess.Popen(
        [sys.executable, "-m", "server", "index", str(docs), "--data-dir", str(data)],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    db = data / "index.sqlite3"
    deadline = time.monotonic() + 120
    ready = 0
    while time.monotonic() < deadline and ready < 8:
        time.sleep(0.2)
        if db.exists():
            try:
                with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as conn:
                    ready = conn.execute("SELECT count(*) FROM documents WHERE status = 'ready'").fetchone()[0]
            except sqlite3.OperationalError:
                pass
    assert proc.poll() is None, "indexing finished before the kill; make the folder larger"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
        waiting = conn.execute("SELECT count(*) FROM documents WHERE status = 'ready' AND embedded = 0").fetchone()[0]
    assert waiting > 0, "the kill caught documents committed (readable) but not yet embedded"

    library = open_library(docs, data_dir=data)  # the next start embeds what the kill left
    report = library.reconcile()
    assert len(report.unchanged) >= 8, "what was indexed before the kill is kept"
    assert len(report.indexed) + len(report.unchanged) == 60 and not report.failed
    documents = library.index.store.documents()
    assert all(d.status == "ready" and d.n_paras == 12 for d in documents)
    referenced = {vid for d in documents for vid in library.index.store.vec_ids(d.doc_id)}
    in_chroma = {vid for d in documents for vid in library.index.vectors.ids_for_document(d.doc_id)}
    assert referenced == in_chroma, "every paragraph has its vector and no vector is orphaned"
    assert library.index.vectors.count() == len(referenced)
    hit = library.retrieve("subject 300", top_k=1, doc_ids=[documents[42].doc_id]).results[0]
    assert hit.text == "Paragraph 6 of document 42 about subject 300."


async def test_tool_calls_during_indexing_report_progress(tmp_path: Path) -> None:
    docs, data = tmp_path / "docs", tmp_path / "data"
    for i in range(40):
        body = "\n\n".join(f"Paragraph {j} of file {i}." for j in range(10))
        write(docs, f"f{i:02d}.md", f"# File {i}\n\n{body}")
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    async with serve(docs, data) as client:
        with anyio.fail_after(60):
            while not updates:
                result = await client.call_tool("get_toc", {}, progress_callback=on_progress)
                assert not result.is_error
                if result.structured_content["documents"] and not result.structured_content["pending"]:
                    break  # indexing finished before any call caught it
                await anyio.sleep(0.1)
        toc_while_indexing = result.structured_content
    assert updates, "a call made while indexing reports progress"
    done, total, message = updates[0]
    assert message, "every update says what is under way"
    if message.startswith("indexing: scanning"):  # caught before the files were counted: no total yet
        assert total is None and done == 0
    elif message.startswith("indexing"):
        assert total == 40 and 0 <= done < 40
    else:  # caught while the vectors catch up, after the files were all read
        assert message.startswith("semantic search catching up") and total is not None and 0 <= done < total
    assert re.search(
        r"Scanning the folder|Indexing in progress|Semantic search is catching up", toc_while_indexing["hint"] or ""
    ), "get_toc says what is still under way"


def _group_members(pgid: int) -> list[int]:
    """Live processes in a process group (from /proc: the fifth field of stat)."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(entry.name))
    return members


def _parser_child(data: Path) -> int | None:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if "indexer.parse.mineru_worker" in cmdline and str(data) in cmdline:
                return int(entry.name)
    return None


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
def test_kill_9_of_the_server_takes_its_parser_child_along(
    tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    from fpdf import FPDF

    docs, data = tmp_path / "docs", tmp_path / "data"
    docs.mkdir()
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    for page in range(500):  # long enough that the parse is under way when the server dies
        pdf.add_page()
        pdf.multi_cell(0, 6, f"Page {page}. " + "The committee reviewed the quarterly results. " * 40)
    pdf.output(str(docs / "long.pdf"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "server", "index", str(docs), "--data-dir", str(data)],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        child = None
        while child is None and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
            child = _parser_child(data)
        assert child is not None, "the parser child never started"
        time.sleep(1.5)  # let it start its own workers
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 5  # the parse itself would take a minute more
        while _group_members(child) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _group_members(child), "no parser process outlives the server"
    finally:
        if proc.poll() is None:
            proc.kill()
    assert any((data / "tmp").iterdir()), "the killed server left its parse folder behind"
    open_library(docs, data_dir=data)
    assert not (data / "tmp").exists(), "the next start removes it"

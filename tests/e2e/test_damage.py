"""A damaged file of the index never stops the server: real CLI, real MCP client, real files cut.

Each SQLite file of the index (the documents and BM25, the vectors' copy, Chroma's own) is cut
to half its size, as a crash during a copy or a sync tool leaves it. `serve` starts all the same,
the map lists every document under its old doc_id and search finds them, the damaged file is
kept aside and the map's note says what happened. Damage a reading process meets while a server
writes the index is rebuilt by that server, which goes on answering, and the reader follows.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import REPO, write

pytestmark = pytest.mark.slow

NOTES = {
    "otters.md": "# Otters\n\n## Rivers\n\nOtters swim in the river at dusk and eat crayfish.\n",
    "herons.md": "# Herons\n\n## Marshes\n\nHerons wait in the shallows before dawn.\n",
    "cedars.md": "# Cedars\n\n## Forests\n\nCedars keep their needles through the winter.\n",
}
DAMAGED = {"index": "index.sqlite3", "copy": "vectors.sqlite3", "chroma": "chroma/chroma.sqlite3"}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", *args], cwd=REPO, capture_output=True, text=True, timeout=600, check=False
    )


def cut(path: Path, keep: float = 0.5) -> None:
    """What a crash during a copy leaves: the file's first part only."""
    with open(path, "r+b") as f:
        f.truncate(int(path.stat().st_size * keep))


def indexed(tmp_path: Path) -> tuple[Path, Path, dict[str, int]]:
    """A folder indexed by the CLI: (folder, data dir, doc_id of each path)."""
    docs, data = tmp_path / "docs", tmp_path / "data"
    for name, text in NOTES.items():
        write(docs, name, text)
    done = cli("index", str(docs), "--data-dir", str(data))
    assert done.returncode == 0, done.stderr
    return docs, data, ids(done.stdout)


def ids(toc: str) -> dict[str, int]:
    """`(7) otters.md — …` lines → {"otters.md": 7}."""
    found = {}
    for line in toc.splitlines():
        if line.startswith("(") and ") " in line:
            number, rest = line[1:].split(") ", 1)
            found[rest.split(" — ")[0]] = int(number)
    return found


def server(docs: Path, data: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "server", "serve", str(docs), "--data-dir", str(data)],
        cwd=str(REPO),
        env={**os.environ, "DEEPREAD_LOG_LEVEL": "INFO"},
    )


async def map_until(client: Client, ready: set[str], timeout: float = 240, hint: str = "") -> dict:
    """get_toc until every path of `ready` is listed as readable (and the note says `hint`); the last map."""
    with anyio.fail_after(timeout):
        while True:
            toc = (await client.call_tool("get_toc", {"max_depth": 0})).structured_content
            assert toc is not None
            if ready <= {d["path"] for d in toc["documents"] if d["status"] == "ready"} and hint in (toc["hint"] or ""):
                return toc
            await anyio.sleep(0.3)


@pytest.mark.parametrize("kind", sorted(DAMAGED))
def test_serve_starts_on_a_damaged_file_and_rebuilds_it(tmp_path: Path, kind: str) -> None:
    docs, data, before = indexed(tmp_path)
    cut(data / DAMAGED[kind])

    async def host() -> None:
        async with Client(server(docs, data)) as client:
            toc = await map_until(client, set(NOTES))
            assert {d["path"]: d["doc_id"] for d in toc["documents"]} == before, "every doc_id a host holds stays"
            assert "was damaged" in toc["hint"] and "kept as" in toc["hint"], toc["hint"]
            if kind == "index":
                assert "doc_ids are as before" in toc["hint"]
            hit = (await client.call_tool("retrieve", {"query": "what do otters eat", "top_k": 1})).structured_content
            assert hit is not None and "crayfish" in hit["results"][0]["text"]
            assert hit["results"][0]["doc_id"] == before["otters.md"]

    anyio.run(host)
    name = Path(DAMAGED[kind]).name if kind != "chroma" else "chroma"  # Chroma's whole folder is set aside
    kept = [p.name for p in data.iterdir() if p.name.startswith(f"{name}.damaged-")]
    assert kept, f"the damaged {name} is kept aside, never deleted"


def test_the_cli_answers_from_a_rebuilt_index(tmp_path: Path) -> None:
    """`search` on a cut index.sqlite3 (where it once ended in a traceback): rebuilt, then answered."""
    docs, data, before = indexed(tmp_path)
    cut(data / "index.sqlite3")
    search = cli("search", "what do otters eat", "-k", "1", "-f", str(docs), "--data-dir", str(data))
    assert search.returncode == 0 and "Traceback" not in search.stderr, search.stderr
    assert f"({before['otters.md']}, " in search.stdout and "crayfish" in search.stdout
    toc = cli("toc", "--depth", "0", "-f", str(docs), "--data-dir", str(data))
    assert ids(toc.stdout) == before and "doc_ids are as before" in toc.stdout


def test_damage_a_reader_meets_is_rebuilt_by_the_server_that_writes(tmp_path: Path) -> None:
    """A server writes the index; the file is cut under it; a CLI search (a reader beside the
    server) meets the damage and reports it; the server rebuilds the file without stopping, keeps
    every doc_id, and the reader's next answer comes from the new file."""
    docs, data, before = indexed(tmp_path)

    async def host() -> None:
        async with Client(server(docs, data)) as writer:
            await map_until(writer, set(NOTES))
            cut(data / "index.sqlite3", 0.3)
            search = await anyio.to_thread.run_sync(
                lambda: cli("search", "herons wait", "-k", "1", "-f", str(docs), "--data-dir", str(data))
            )
            assert "Traceback" not in search.stderr, search.stderr
            # The server kept answering, and rebuilds within seconds of the report.
            toc = await map_until(writer, set(NOTES), timeout=60, hint="The index was rebuilt")
            assert {d["path"]: d["doc_id"] for d in toc["documents"]} == before
            again = await anyio.to_thread.run_sync(
                lambda: cli("search", "herons wait", "-k", "1", "-f", str(docs), "--data-dir", str(data))
            )
            assert again.returncode == 0 and "shallows before dawn" in again.stdout, again.stderr
            assert f"({before['herons.md']}, " in again.stdout

    anyio.run(host)
    assert any(p.name.startswith("index.sqlite3.damaged-") for p in data.iterdir())

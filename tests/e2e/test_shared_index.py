"""Many hosts, one folder: two stdio servers and the CLI on one index at once, real processes.

The first server writes (parses, embeds, follows the folder); the second and the CLI read the
same index and see the writer's changes; after kill -9 of the writer, the second takes over
writing and indexes a file added afterwards.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import REPO, write

pytestmark = pytest.mark.slow


def paths(toc: dict) -> list[str]:
    return sorted(d["path"] for d in toc["documents"] if d["status"] == "ready")


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", *args], cwd=REPO, capture_output=True, text=True, timeout=300, check=False
    )


def test_two_servers_and_the_cli_share_an_index_and_the_survivor_takes_over(tmp_path: Path) -> None:
    docs, data = tmp_path / "docs", tmp_path / "data"
    write(docs, "otters.md", "# Otters\n\nOtters swim in the river at dusk.")
    serve = [sys.executable, "-m", "server", "serve", str(docs), "--data-dir", str(data)]
    env = {**os.environ, "DEEPREAD_LOG_LEVEL": "INFO"}
    writer = subprocess.Popen(
        serve, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    try:
        deadline = time.monotonic() + 120
        while not (data / "owner.pid").exists() or (data / "owner.pid").read_text() != str(writer.pid):
            assert time.monotonic() < deadline and writer.poll() is None, "the first server writes"
            time.sleep(0.2)
        params = StdioServerParameters(command=sys.executable, args=serve[1:], cwd=str(REPO), env=env)

        async def host() -> dict[str, float]:
            measured: dict[str, float] = {}
            async with Client(params) as second:

                async def toc() -> dict:
                    return (await second.call_tool("get_toc", {})).structured_content  # type: ignore[return-value]

                async def until(condition, timeout: float = 60) -> None:
                    with anyio.fail_after(timeout):
                        while not condition(await toc()):
                            await anyio.sleep(0.2)

                await until(lambda t: paths(t) == ["otters.md"], timeout=120)  # the writer indexed it; we read it
                search = await anyio.to_thread.run_sync(
                    lambda: cli("search", "where do otters swim", "-k", "1", "-f", str(docs), "--data-dir", str(data))
                )
                assert search.returncode == 0 and "Otters swim" in search.stdout, search.stderr
                assert search.stderr == "", "the CLI reads the live index at once: no reconcile, no summary line"

                write(docs, "badgers.md", "# Badgers\n\nBadgers dig setts in the wood.")
                started = time.monotonic()
                await until(lambda t: "badgers.md" in paths(t))
                measured["reader sees a new file"] = time.monotonic() - started
                hit = (await second.call_tool("retrieve", {"query": "badgers dig", "top_k": 1})).structured_content
                assert hit["results"][0]["text"].startswith("Badgers")  # type: ignore[index]

                writer.send_signal(signal.SIGKILL)
                writer.wait(10)
                killed = time.monotonic()
                write(docs, "cranes.md", "# Cranes\n\nCranes nest in the marsh.")
                await until(lambda t: "cranes.md" in paths(t))
                measured["kill -9 to a new file indexed"] = time.monotonic() - killed
                hit = (
                    await second.call_tool("retrieve", {"query": "where cranes nest", "top_k": 1})
                ).structured_content
                assert hit["results"][0]["text"].startswith("Cranes")  # type: ignore[index]
                assert paths(await toc()) == ["badgers.md", "cranes.md", "otters.md"], "nothing lost or doubled"
            return measured

        measured = anyio.run(host)
        print(measured)
        assert measured["kill -9 to a new file indexed"] < 30
    finally:
        if writer.poll() is None:
            writer.kill()
        writer.wait(10)

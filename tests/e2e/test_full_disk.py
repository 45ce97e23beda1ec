"""A full disk or a read-only data dir: one clear line, nothing lost, and freeing space is all it takes.

The data dir is a small tmpfs of its own, mounted in a user namespace (`unshare --user
--map-root-user --mount`: no root needed), and filled by writing a file until the kernel says
ENOSPC: the real error, at the real writes of SQLite, Chroma and Python. The real CLI runs as a
subprocess; the server is driven by the real MCP client.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import REPO, write

pytestmark = pytest.mark.slow

SIZE_MB = 48  # room for the model (23 MB) and a small index


def _namespaces() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        [
            "unshare",
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            "mount -t tmpfs tmpfs /mnt 2>/dev/null || mount -t tmpfs tmpfs /tmp",
        ],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


needs_namespaces = pytest.mark.skipif(not _namespaces(), reason="unprivileged user and mount namespaces unavailable")


def in_small_disk(data: Path, script: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """Run a shell script with `data` a tmpfs of SIZE_MB, seen by the script alone."""
    data.mkdir(parents=True, exist_ok=True)
    mount = f"mount -t tmpfs -o size={SIZE_MB}m tmpfs {shlex.quote(str(data))}"
    return subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-euc", f"{mount}\n{script}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def deepread(*args: str, out: Path) -> str:
    """A shell line running the CLI, its output in `out`.{stdout,stderr,status}."""
    command = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "server", *args])
    return f"{command} >{out}.stdout 2>{out}.stderr && echo 0 >{out}.status || echo $? >{out}.status"


def result(out: Path) -> tuple[int, str, str]:
    return int(Path(f"{out}.status").read_text()), Path(f"{out}.stdout").read_text(), Path(f"{out}.stderr").read_text()


def fill(path: Path) -> str:
    return f"dd if=/dev/zero of={shlex.quote(str(path))} bs=64k 2>/dev/null || true"


@needs_namespaces
def test_index_on_a_full_disk_says_so_in_one_line_and_finishes_once_space_is_freed(tmp_path: Path) -> None:
    docs, data, out = tmp_path / "docs", tmp_path / "data", tmp_path / "out"
    out.mkdir()
    write(docs, "otters.md", "# Otters\n\nOtters swim in the river at dusk.\n")
    later = tmp_path / "later"
    write(later, "herons.md", "# Herons\n\nHerons wait in the shallows before dawn.\n")
    write(later, "cedars.md", "# Cedars\n\nCedars keep their needles through the winter.\n")
    index = ["index", str(docs), "--data-dir", str(data)]
    script = "\n".join(
        [
            deepread(*index, out=out / "first"),
            f"cp {shlex.quote(str(later))}/* {shlex.quote(str(docs))}/",
            fill(data / "filler"),
            deepread(*index, out=out / "full"),
            deepread("toc", "-f", str(docs), "--data-dir", str(data), out=out / "toc"),
            f"rm {shlex.quote(str(data / 'filler'))}",
            deepread(*index, out=out / "freed"),
        ]
    )
    ran = in_small_disk(data, script)
    assert ran.returncode == 0, ran.stderr

    status, _, stderr = result(out / "first")
    assert status == 0, stderr
    status, stdout, stderr = result(out / "full")
    assert status == 1
    assert "Traceback" not in stderr
    (line,) = [line for line in stderr.splitlines() if line.startswith("deepread-mcp:")]
    assert f"cannot write the index ({data}" in line and "the disk is full, 0 bytes free there" in line, line
    assert "free some space and run the command again" in line
    status, _, stderr = result(out / "toc")
    assert status == 1 and "Traceback" not in stderr and "the disk is full" in stderr

    status, stdout, stderr = result(out / "freed")
    assert status == 0, stderr
    assert "(1) otters.md" in stdout, "what was indexed before kept its doc_id"
    assert "herons.md" in stdout and "cedars.md" in stdout


@needs_namespaces
def test_a_read_only_data_dir_is_one_line_for_index_and_serve(tmp_path: Path) -> None:
    docs, data, out = tmp_path / "docs", tmp_path / "data", tmp_path / "out"
    out.mkdir()
    write(docs, "otters.md", "# Otters\n\nOtters swim in the river at dusk.\n")
    write(tmp_path / "later", "herons.md", "# Herons\n\nHerons wait in the shallows.\n")
    script = "\n".join(
        [
            deepread("index", str(docs), "--data-dir", str(data), out=out / "first"),
            f"cp {shlex.quote(str(tmp_path / 'later' / 'herons.md'))} {shlex.quote(str(docs))}/",
            f"mount -o remount,ro {shlex.quote(str(data))}",
            deepread("index", str(docs), "--data-dir", str(data), out=out / "index"),
            deepread("serve", str(docs), "--data-dir", str(data), out=out / "serve") + " </dev/null",
        ]
    )
    ran = in_small_disk(data, script)
    assert ran.returncode == 0, ran.stderr
    assert result(out / "first")[0] == 0
    for command in ("index", "serve"):
        status, stdout, stderr = result(out / command)
        assert status == 1, (command, stderr)
        assert stdout == "" and "Traceback" not in stderr, (command, stderr)
        lines = [line for line in stderr.splitlines() if line.startswith("deepread-mcp:")]
        assert len(lines) == 1 and "the folder is read-only" in lines[0], (command, stderr)


@needs_namespaces
def test_serving_on_a_full_disk_keeps_answering_and_resumes_once_space_is_freed(tmp_path: Path) -> None:
    """The server's data dir fills up while it serves: reads keep answering, the map says indexing
    is paused for want of space, and deleting the filler is all it takes for the new file to be
    indexed. The filler is written and removed inside the server's namespace by a helper loop
    driven by files in `control` (outside the tmpfs, seen by both)."""
    docs, data, control = tmp_path / "docs", tmp_path / "data", tmp_path / "control"
    control.mkdir()
    data.mkdir()
    write(docs, "otters.md", "# Otters\n\n## Rivers\n\nOtters swim in the river at dusk.\n")
    filler, ctl = shlex.quote(str(data / "filler")), shlex.quote(str(control))
    helper = (
        f"(while kill -0 $$ 2>/dev/null; do "
        f"if [ -e {ctl}/fill ]; then {fill(data / 'filler')}; rm {ctl}/fill; touch {ctl}/filled; fi; "
        f"if [ -e {ctl}/free ]; then rm -f {filler}; rm {ctl}/free; touch {ctl}/freed; fi; "
        f"sleep 0.1; done) &"
    )
    serve = " ".join(
        shlex.quote(a) for a in [sys.executable, "-m", "server", "serve", str(docs), "--data-dir", str(data)]
    )
    script = f"mount -t tmpfs -o size={SIZE_MB}m tmpfs {shlex.quote(str(data))}\n{helper}\nexec {serve}"
    params = StdioServerParameters(
        command="unshare",
        args=["--user", "--map-root-user", "--mount", "sh", "-euc", script],
        cwd=str(REPO),
        env={**os.environ, "DEEPREAD_LOG_LEVEL": "INFO"},
    )

    def signal(name: str, done: str) -> None:
        (control / name).touch()
        deadline = time.monotonic() + 60
        while not (control / done).exists():
            assert time.monotonic() < deadline, f"the helper did not {name}"
            time.sleep(0.1)

    async def host() -> None:
        async with Client(params) as client:

            async def toc() -> dict:
                return (await client.call_tool("get_toc", {"max_depth": 0})).structured_content  # type: ignore[return-value]

            async def until(condition, timeout: float = 240) -> dict:
                with anyio.fail_after(timeout):
                    while not condition(answer := await toc()):
                        await anyio.sleep(0.3)
                    return answer

            def ready(t: dict) -> set[str]:
                return {d["path"] for d in t["documents"] if d["status"] == "ready"}

            await until(lambda t: ready(t) == {"otters.md"} and "catching up" not in (t["hint"] or ""))
            await anyio.to_thread.run_sync(signal, "fill", "filled")
            write(docs, "herons.md", "# Herons\n\n## Marshes\n\nHerons wait in the shallows before dawn.\n")
            paused = await until(lambda t: "Indexing is paused" in (t["hint"] or ""))
            assert "the disk is full" in paused["hint"] and "once you free some space" in paused["hint"]
            hit = (await client.call_tool("retrieve", {"query": "where do otters swim", "top_k": 1})).structured_content
            assert hit is not None and hit["results"][0]["text"].startswith("Otters swim"), "reads keep answering"
            read = (await client.call_tool("read_section", {"doc_id": 1, "sec_id": 1})).structured_content
            assert read is not None and "dusk" in read["paragraphs"][0]["text"]

            await anyio.to_thread.run_sync(signal, "free", "freed")
            resumed = await until(lambda t: ready(t) == {"otters.md", "herons.md"})
            assert "Indexing is paused" not in (resumed["hint"] or "")
            with anyio.fail_after(120):
                while True:
                    hit = (
                        await client.call_tool("retrieve", {"query": "herons shallows", "top_k": 1})
                    ).structured_content
                    if hit and hit["results"] and hit["results"][0]["text"].startswith("Herons"):
                        break
                    await anyio.sleep(0.5)

    anyio.run(host)

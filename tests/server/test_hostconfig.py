"""`deepread-mcp config` prints a configuration that starts this installation's server as a
desktop host would: from another folder, with PATH=/usr/bin:/bin and nothing else, through the
official MCP client over stdio."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import REPO, write


def config(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", "config", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_printed_configuration_starts_the_server_under_a_bare_path(tmp_path: Path) -> None:
    docs = tmp_path / "my docs"
    write(docs, "notes.md", "# Notes\n\nThe heron waits in the shallows.")
    printed = config("my docs", cwd=tmp_path)  # a relative folder, made absolute
    assert printed.returncode == 0, printed.stderr
    server = json.loads(printed.stdout)["mcpServers"]["deepread"]
    assert Path(server["command"]).is_absolute() and server["args"] == ["serve", str(docs)]
    for host in ("Claude Desktop", "Claude Code", "Cursor", "VS Code"):
        assert host in printed.stderr, "each host's place or command is named"

    params = StdioServerParameters(
        command=server["command"],
        args=server["args"],
        cwd=str(tmp_path),
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home")},  # what a desktop host gives
    )

    async def talk() -> str:
        async with Client(params) as client:
            with anyio.fail_after(120):
                while True:
                    toc = await client.call_tool("get_toc", {})
                    text = toc.content[0].text  # type: ignore[union-attr]
                    if "notes.md" in text and "Still indexing" not in text:
                        return text
                    await anyio.sleep(0.5)

    assert "(1) notes.md — Notes" in anyio.run(talk)
    assert sorted(os.listdir(docs)) == ["notes.md"], "nothing is written into the folder"


@pytest.mark.parametrize("host", ["claude-code", "vscode"])
def test_one_host_gets_its_own_form(tmp_path: Path, host: str) -> None:
    printed = config(str(tmp_path), "--host", host)
    assert printed.returncode == 0, printed.stderr
    if host == "claude-code":
        assert printed.stdout.startswith("claude mcp add deepread -- /") and printed.stdout.rstrip().endswith(
            f"serve {tmp_path}"
        )
    else:
        entry = json.loads(printed.stdout)["servers"]["deepread"]
        assert entry["type"] == "stdio" and entry["args"] == ["serve", str(tmp_path)]


def test_a_missing_folder_is_refused(tmp_path: Path) -> None:
    printed = config(str(tmp_path / "nope"))
    assert printed.returncode == 2 and f"{tmp_path / 'nope'} does not exist" in printed.stderr


def test_commands_for_windows_and_macos_are_quoted_for_their_shells() -> None:
    """CI runs on Linux: the commands a person pastes on Windows and macOS are checked as rendered."""
    from server.hostconfig import add_command, where

    windows = [r"C:\Users\Ana Lee\deepread\.venv\Scripts\deepread-mcp.exe", "serve", r"C:\Users\Ana Lee\My Documents"]
    added = add_command("claude-code", windows, platform="win32")
    assert added == (
        r'claude mcp add deepread -- "C:\Users\Ana Lee\deepread\.venv\Scripts\deepread-mcp.exe" serve '
        r'"C:\Users\Ana Lee\My Documents"'
    )
    mac = ["/Users/ana/deepread/.venv/bin/deepread-mcp", "serve", "/Users/ana/My Documents"]
    assert add_command("claude-code", mac, platform="darwin") == (
        "claude mcp add deepread -- /Users/ana/deepread/.venv/bin/deepread-mcp serve '/Users/ana/My Documents'"
    )
    code = add_command("vscode", windows, platform="win32")
    assert code is not None and code.startswith('code --add-mcp "{')
    assert json.loads(code[len("code --add-mcp ") :].strip('"').replace('\\"', '"'))["args"] == windows[1:]
    assert r"%APPDATA%\Claude\claude_desktop_config.json" in where("claude-desktop", [], platform="win32")
    assert "~/Library/Application Support/Claude" in where("claude-desktop", [], platform="darwin")

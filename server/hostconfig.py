"""`deepread-mcp config`: a host configuration for *this* installation, ready to paste.

Desktop hosts start servers with a minimal PATH (often `/usr/bin:/bin`), so a bare
`deepread-mcp` is not found: the configuration names the executable by its absolute path (the
console script beside this interpreter, else the interpreter itself with `-m server`), and the
folders made absolute. Paths inside a virtualenv are kept as written, never resolved through
the venv's symlinks, which would leave the venv.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from server.cli_text import shell_line
from server.settings import Settings, folder_problem

HOSTS = ("claude-desktop", "claude-code", "cursor", "vscode")


def installed(name: str) -> Path | None:
    """The console script `name` of this installation (beside its interpreter: a venv's bin), by
    its absolute path; None when it is not there."""
    script = Path(os.path.abspath(sys.executable)).parent / name
    return script if script.is_file() and os.access(script, os.X_OK) else None


def command_line(folders: list[Path]) -> list[str]:
    """The argv that starts this installation's server on `folders`, absolute throughout."""
    script = installed("deepread-mcp")
    start = [str(script)] if script else [os.path.abspath(sys.executable), "-m", "server"]
    return [*start, "serve", *(str(f) for f in folders)]


def entry(folders: list[Path]) -> dict[str, object]:
    argv = command_line(folders)
    return {"command": argv[0], "args": argv[1:]}


def add_command(host: str, argv: list[str], platform: str = sys.platform) -> str | None:
    """The one command that adds the server `argv` starts to `host`, quoted for the shell of
    `platform` (Windows' or a POSIX one); None for a host that has none."""
    if host == "claude-code":
        return "claude mcp add deepread -- " + shell_line(argv, platform)
    if host == "vscode":
        vscode = {"name": "deepread", "type": "stdio", "command": argv[0], "args": argv[1:]}
        return "code --add-mcp " + shell_line([json.dumps(vscode)], platform)
    return None


def where(host: str, folders: list[Path], platform: str = sys.platform) -> str:
    """Where `host` keeps its MCP servers, or the one command that adds this one."""
    argv = command_line(folders)
    if host == "claude-code":
        return f"Claude Code: run\n  {add_command(host, argv, platform)}"
    if host == "cursor":
        return "Cursor: put the mcpServers entry in ~/.cursor/mcp.json (all projects) or .cursor/mcp.json (one)"
    if host == "vscode":
        return (
            'VS Code: put the entry under "servers" with "type": "stdio" in .vscode/mcp.json, or run\n'
            f"  {add_command(host, argv, platform)}"
        )
    places = {
        "darwin": "~/Library/Application Support/Claude/claude_desktop_config.json",
        "win32": r"%APPDATA%\Claude\claude_desktop_config.json",
    }
    place = places.get(platform, "~/.config/Claude/claude_desktop_config.json")
    return f"Claude Desktop: merge the mcpServers entry into {place}, then restart Claude Desktop"


def config(args: argparse.Namespace, settings: Settings) -> int:
    """The configuration on stdout (JSON, or Claude Code's command); where it goes on stderr."""
    folders = settings.folder_paths()  # absolute already
    if not folders:  # the current folder would be a guess (often a checkout)
        print(
            "deepread-mcp: name the folders to serve: deepread-mcp config FOLDER… (or set DEEPREAD_FOLDERS)",
            file=sys.stderr,
        )
        return 2
    if problem := folder_problem(folders):
        print(f"deepread-mcp: {problem}", file=sys.stderr)
        return 2
    if args.host == "claude-code":
        print(add_command("claude-code", command_line(folders)))
        return 0
    if args.host == "vscode":
        print(json.dumps({"servers": {"deepread": {"type": "stdio", **entry(folders)}}}, indent=2))
    else:
        print(json.dumps({"mcpServers": {"deepread": entry(folders)}}, indent=2))
    for host in [args.host] if args.host else HOSTS:
        print(where(host, folders), file=sys.stderr)
    return 0

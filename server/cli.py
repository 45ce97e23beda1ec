"""Command line: `deepread-mcp serve|index|toc|search|read|doctor|config`.

`serve` runs the MCP server (`server.serve`); `index` indexes folders once; `toc`, `search` and
`read` show a person exactly what the agent would see, from the index that exists (`server.indexes`
chooses it; `server.commands` prints the tools' texts, their calls written as commands by
`server.cli_text`); `doctor` checks the setup (`server.doctor`); `config` prints a host's
configuration (`server.hostconfig`). Every command takes folders the same way: named after the
command, or with `-f`. This module holds the arguments and the dispatch. Nothing here writes to
stdout while serving over stdio: stdout belongs to the protocol.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

from pydantic import ValidationError

from indexer.errors import DeepreadError
from indexer.store.space import write_failure
from server import __version__, commands, hostconfig, indexes
from server.cli_text import Scope, as_commands, shell_line
from server.doctor import doctor
from server.logs import setup_logging
from server.serve import serve
from server.settings import Settings, explain, folder_problem, unknown_variables

COMMANDS = ("serve", "index", "toc", "search", "read", "doctor", "config")
QUERIES = ("toc", "search", "read")  # answer from the index that exists; never index


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # `deepread-mcp read … | head`: the reader has all it wanted
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's flush at exit would meet the closed pipe again
        return 0


def _main(argv: list[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] not in COMMANDS and not argv[0].startswith("-"):
        argv.insert(0, "serve")  # `deepread-mcp ~/docs` serves ~/docs
    args = _parser().parse_args(argv)
    if not args.command:
        _parser().print_help(sys.stderr)
        return 2
    try:
        settings = _settings(args)
    except ValidationError as exc:  # pydantic's message names the bad field and value
        print(f"deepread-mcp: invalid settings: {exc}", file=sys.stderr)
        return 2
    for problem in unknown_variables(os.environ):
        print(f"deepread-mcp: warning: {problem}", file=sys.stderr)
    scope = args.scope = _scope(args)
    if args.command == "doctor":
        return doctor(args, settings)
    if args.command == "config":
        return hostconfig.config(args, settings)
    if args.command in QUERIES:
        chosen = indexes.choose(settings, args.command, scope)
        if isinstance(chosen, str):
            print(f"deepread-mcp: {chosen}", file=sys.stderr)
            return 2
        settings = chosen
    if not settings.folder_paths():
        print(f"deepread-mcp: give a folder to {args.command} (or set DEEPREAD_FOLDERS)", file=sys.stderr)
        return 2
    if unusable := folder_problem(settings.folder_paths()):
        print(f"deepread-mcp: {unusable}", file=sys.stderr)
        return 2
    try:
        setup_logging(settings, quiet=args.command != "serve")
        return COMMAND_HANDLERS[args.command](args, settings)
    except DeepreadError as exc:
        print(f"deepread-mcp: {explain(as_commands(str(exc), scope))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a full disk or a read-only data dir, wherever it was met: one line
        if (failure := write_failure(exc, settings.index_dir())) is None:
            raise
        print(f"deepread-mcp: {failure}", file=sys.stderr)
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="deepread-mcp",
        description="MCP server that lets an agent locate, then read, a folder of documents.",
    )
    parser.add_argument("--version", action="version", version=f"deepread-mcp {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", type=Path, help="where the index lives (default: user data dir)")
    common.add_argument("--model", dest="embedding_model", help="fastembed model name (default: bundled MiniLM)")
    common.add_argument("--chroma-url", help="use a Chroma server, e.g. http://localhost:8000")
    common.add_argument(
        "--mineru-url", help="parse on a MinerU server (mineru-api or mineru-router), e.g. http://gpu1:8000"
    )
    common.add_argument("--parse-jobs", type=int, help="files parsed at once (default 2; more with a MinerU server)")
    common.add_argument(
        "--token-budget",
        type=int,
        help=f"most tokens one answer may hold (default {Settings.model_fields['token_budget'].default})",
    )
    common.add_argument("--log-level", help="DEBUG, INFO, WARNING or ERROR")
    common.add_argument(
        "--exclude",
        action="append",
        metavar="PATTERN",
        help="keep files or folders matching this gitignore pattern out of the index (repeatable)",
    )
    common.add_argument(
        "--include",
        action="append",
        metavar="PATTERN",
        help="index only the files matching this gitignore pattern (repeatable)",
    )
    folders = argparse.ArgumentParser(add_help=False)  # every command takes folders the same way
    folders.add_argument(
        "-f",
        "--folder",
        dest="folder_flags",
        action="append",
        type=Path,
        default=[],
        metavar="FOLDER",
        help="a folder, as if named after the command (repeatable)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = sub.add_parser("serve", parents=[common, folders], help="run the MCP server on folders")
    serve.add_argument("folders", nargs="*", type=Path, metavar="FOLDER")
    serve.add_argument("--transport", choices=["stdio", "http"], help="stdio (default) or Streamable HTTP")
    serve.add_argument("--host", help="HTTP bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="HTTP port (default 8765)")
    serve.add_argument(
        "--token",
        help="bearer token HTTP clients must send (prefer DEEPREAD_TOKEN: flags show in `ps`); "
        "off loopback one is generated into the index dir when none is given",
    )
    serve.add_argument(
        "--allowed-host",
        dest="allowed_hosts",
        action="append",
        metavar="HOST",
        help="a Host name HTTP requests may use (repeatable; default: loopback, the bind host, this machine's names)",
    )
    serve.add_argument(
        "--insecure-no-token",
        action="store_const",
        const=True,
        help="serve HTTP off loopback without a token: anyone who reaches the port reads every document",
    )
    serve.add_argument("--poll", action="store_const", const=True, help="poll for changes (network drives, containers)")
    serve.add_argument("--no-watch", dest="watch", action="store_const", const=False, help="do not follow changes")

    index = sub.add_parser(
        "index",
        parents=[common, folders],
        help="index folders once, with a progress bar",
        epilog=commands.INDEX_EXIT,
    )
    index.add_argument("folders", nargs="*", type=Path, metavar="FOLDER")

    answers = (
        "Answers from the index `serve` or `index` keeps, and never indexes. Without a folder: "
        "DEEPREAD_FOLDERS, else the one folder indexed."
    )
    toc = sub.add_parser(
        "toc", parents=[common, folders], help="print the table of contents (get_toc)", description=answers
    )
    toc.add_argument("folders", nargs="*", type=Path, metavar="FOLDER")
    toc.add_argument("--doc", type=int, dest="doc_id", help="one document's TOC (folded to the budget)")
    toc.add_argument("--sec", type=int, dest="sec_id", help="with --doc: one section's subtree")
    toc.add_argument("--after", type=int, help="with --sec: its sub-sections after this one (paging)")
    toc.add_argument("--depth", type=int, dest="max_depth", help="deepest heading level to list")
    toc.add_argument("--path", help="only the documents under this folder (as the map shows paths)")
    toc.add_argument("--page", type=int, default=1, help="page of a map too large for one answer")
    toc.add_argument("--skipped", action="store_true", help="the files of the folders not indexed, and why")
    _filter_options(toc)

    search = sub.add_parser(
        "search", parents=[common, folders], help="search paragraphs (retrieve)", description=answers
    )
    search.add_argument("folders", nargs="*", type=Path, metavar="FOLDER")
    search.add_argument("query")
    search.add_argument("-k", "--top-k", type=int, default=5)
    search.add_argument("--doc", type=int, action="append", dest="doc_ids", help="limit to a document (repeatable)")
    search.add_argument("--path", help="limit to the documents under this folder")
    search.add_argument("--before", type=int, default=0)
    search.add_argument("--after", type=int, default=0)
    _filter_options(search)

    read = sub.add_parser("read", parents=[common, folders], help="read a section (read_section)", description=answers)
    read.add_argument("folders", nargs="*", type=Path, metavar="FOLDER")
    read.add_argument("doc_id", type=int)
    read.add_argument("sec_id", type=int)
    read.add_argument("--start", type=int, default=0, dest="start_para")
    read.add_argument("--end", type=int, default=None, dest="end_para")
    read.add_argument(
        "--part", type=int, default=None, help="part N of paragraph --start, when it is longer than the budget"
    )
    doctor = sub.add_parser(
        "doctor",
        parents=[common, folders],
        help="check the model, say which parser each format uses, and which files of the folders are not indexed",
    )
    doctor.add_argument("folders", nargs="*", type=Path, metavar="FOLDER")
    host_config = sub.add_parser(
        "config",
        parents=[folders],
        help="print a host configuration for this installation (absolute paths: works with a bare PATH)",
    )
    host_config.add_argument("folders", nargs="*", type=Path, metavar="FOLDER", help="folders to serve")
    host_config.add_argument("--host", choices=hostconfig.HOSTS, help="one host's form and place (default: all)")
    return parser


def _filter_options(command: argparse.ArgumentParser) -> None:
    """The filters `toc` and `search` share with get_toc and retrieve."""
    command.add_argument(
        "--type", action="append", dest="file_types", metavar="EXT", help="only files of this type: pdf (repeatable)"
    )
    for name, what in (("modified", "whose file was modified"), ("dated", "whose own stated date lies")):
        for side in ("after", "before"):
            command.add_argument(
                f"--{name}-{side}",
                dest=f"{name}_{side}",
                metavar="DATE",
                help=f"only documents {what} on or {side} this ISO date (or date-time)",
            )


def _settings(args: argparse.Namespace) -> Settings:
    overrides = {
        key: value
        for key in (
            "data_dir",
            "embedding_model",
            "chroma_url",
            "mineru_url",
            "parse_jobs",
            "token_budget",
            "log_level",
            "transport",
            "host",
            "port",
            "poll",
            "watch",
            "token",
            "allowed_hosts",
            "insecure_no_token",
            "exclude",
            "include",
        )
        if (value := getattr(args, key, None)) is not None
    }
    if folders := _folders(args):
        overrides["folders"] = [str(f) for f in folders]
    return Settings(**overrides)


def _folders(args: argparse.Namespace) -> list[Path]:
    """The folders named after the command, then those given with -f."""
    return [*getattr(args, "folders", []), *getattr(args, "folder_flags", [])]


# The options a printed command repeats: they choose the index, or shape its answers (pages of the map).
SCOPE_OPTIONS = {
    "data_dir": "--data-dir",
    "chroma_url": "--chroma-url",
    "embedding_model": "--model",
    "token_budget": "--token-budget",
}


def _scope(args: argparse.Namespace) -> Scope:
    """How the person named the index, for the commands printed back to them."""
    options = [
        part
        for key, flag in SCOPE_OPTIONS.items()
        if (value := getattr(args, key, None)) is not None
        for part in (flag, str(value))
    ]
    return Scope(program=invoked_as(sys.argv[0]), folders=[str(f) for f in _folders(args)], options=options)


def invoked_as(argv0: str) -> str:
    """The program as the person ran it, so that a command printed back runs as printed: its name
    when the shell finds it on PATH, else its path as typed (`.venv/bin/deepread-mcp`: the README's
    install puts nothing on PATH), or `python -m server`."""
    path = Path(argv0)
    if path.name == "__main__.py":
        return shell_line([sys.executable, "-m", "server"])
    on_path = shutil.which(path.name)
    if not argv0 or (on_path is not None and os.path.realpath(on_path) == os.path.realpath(argv0)):
        return path.name or "deepread-mcp"
    return shell_line([argv0])


COMMAND_HANDLERS = {
    "doctor": doctor,
    "serve": serve,
    "index": commands.index,
    "toc": commands.toc,
    "search": commands.search,
    "read": commands.read,
}

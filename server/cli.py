"""Command line: `deepread-mcp serve|index|toc|search|read|doctor|config`.

`serve` runs the MCP server (`server.serve`); the others show a person exactly what the agent
would see, printing the same text the tools return (`server.commands`), or check the setup
(`server.doctor`), or print a host's configuration (`server.hostconfig`). This module holds the
arguments and the dispatch. Nothing here writes to stdout while serving over stdio: stdout
belongs to the protocol.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from pydantic import ValidationError

from indexer.errors import DeepreadError
from indexer.store.space import write_failure
from server import __version__, commands, hostconfig
from server.doctor import doctor
from server.logs import setup_logging
from server.serve import serve
from server.settings import Settings, explain, folder_problem, unknown_variables

COMMANDS = ("serve", "index", "toc", "search", "read", "doctor", "config")


def main(argv: list[str] | None = None) -> int:
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
    if args.command == "doctor":
        return doctor(args, settings)
    if args.command == "config":
        return hostconfig.config(args, settings)
    if not settings.folder_paths():
        print("deepread-mcp: give a folder to serve (or set DEEPREAD_FOLDERS)", file=sys.stderr)
        return 2
    if unusable := folder_problem(settings.folder_paths()):
        print(f"deepread-mcp: {unusable}", file=sys.stderr)
        return 2
    try:
        setup_logging(settings, quiet=args.command != "serve")
        return COMMAND_HANDLERS[args.command](args, settings)
    except DeepreadError as exc:
        print(f"deepread-mcp: {explain(str(exc))}", file=sys.stderr)
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
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = sub.add_parser("serve", parents=[common], help="run the MCP server on folders")
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
        parents=[common],
        help="index folders once, with a progress bar",
        epilog=commands.INDEX_EXIT,
    )
    index.add_argument("folders", nargs="*", type=Path, metavar="FOLDER")

    folder_opt = argparse.ArgumentParser(add_help=False)
    folder_opt.add_argument(
        "-f",
        "--folder",
        dest="folders",
        action="append",
        type=Path,
        default=[],
        help="folder the index covers (repeatable; default: current folder)",
    )
    toc = sub.add_parser("toc", parents=[common, folder_opt], help="print the table of contents")
    toc.add_argument("--doc", type=int, dest="doc_id", help="one document's TOC (folded to the budget)")
    toc.add_argument("--sec", type=int, dest="sec_id", help="with --doc: one section's subtree")
    toc.add_argument("--after", type=int, help="with --sec: its sub-sections after this one (paging)")
    toc.add_argument("--depth", type=int, dest="max_depth", help="deepest heading level to list")
    toc.add_argument("--path", help="only the documents under this folder (as the map shows paths)")
    toc.add_argument("--page", type=int, default=1, help="page of a map too large for one answer")

    search = sub.add_parser("search", parents=[common, folder_opt], help="search paragraphs as retrieve does")
    search.add_argument("query")
    search.add_argument("-k", "--top-k", type=int, default=5)
    search.add_argument("--doc", type=int, action="append", dest="doc_ids", help="limit to a document (repeatable)")
    search.add_argument("--path", help="limit to the documents under this folder")
    search.add_argument("--before", type=int, default=0)
    search.add_argument("--after", type=int, default=0)

    read = sub.add_parser("read", parents=[common, folder_opt], help="read a section as read_section does")
    read.add_argument("doc_id", type=int)
    read.add_argument("sec_id", type=int)
    read.add_argument("--start", type=int, default=0, dest="start_para")
    read.add_argument("--end", type=int, default=None, dest="end_para")
    read.add_argument(
        "--part", type=int, default=None, help="part N of paragraph --start, when it is longer than the budget"
    )
    sub.add_parser(
        "doctor",
        parents=[common, folder_opt],
        help="check the model, say which parser each format uses, and which files of the folders are not indexed",
    )
    host_config = sub.add_parser(
        "config",
        help="print a host configuration for this installation (absolute paths: works with a bare PATH)",
    )
    host_config.add_argument("folders", nargs="*", type=Path, metavar="FOLDER", help="folders to serve (default: here)")
    host_config.add_argument("--host", choices=hostconfig.HOSTS, help="one host's form and place (default: all)")
    return parser


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
        )
        if (value := getattr(args, key, None)) is not None
    }
    if folders := getattr(args, "folders", None):
        overrides["folders"] = [str(f) for f in folders]
    settings = Settings(**overrides)
    if not settings.folders and args.command in ("toc", "search", "read"):  # neither flag nor DEEPREAD_FOLDERS
        settings = Settings(**overrides, folders=[str(Path.cwd())])
    return settings


COMMAND_HANDLERS = {
    "doctor": doctor,
    "serve": serve,
    "index": commands.index,
    "toc": commands.toc,
    "search": commands.search,
    "read": commands.read,
}

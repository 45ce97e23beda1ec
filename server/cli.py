"""Command line: `deepread-mcp serve|index|toc|search|read|doctor`.

`serve` runs the MCP server; the others show a person exactly what the agent
would see, printing the same text the tools return. Nothing here writes to
stdout while serving over stdio: stdout belongs to the protocol.
"""

from __future__ import annotations

import argparse
import errno
import logging
import logging.handlers
import os
import socket
import sys
from pathlib import Path

from pydantic import ValidationError

from indexer.errors import DeepreadError
from server import __version__
from server.settings import Settings, explain, unknown_variables

COMMANDS = ("serve", "index", "toc", "search", "read", "doctor")
log = logging.getLogger("deepread")


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
        return _doctor(args, settings)
    if not settings.folder_paths():
        print("deepread-mcp: give a folder to serve (or set DEEPREAD_FOLDERS)", file=sys.stderr)
        return 2
    for folder in settings.folder_paths():
        if not folder.is_dir():
            print(f"deepread-mcp: {folder} is not a folder", file=sys.stderr)
            return 2
    setup_logging(settings, quiet=args.command != "serve")
    try:
        return COMMAND_HANDLERS[args.command](args, settings)
    except DeepreadError as exc:
        print(f"deepread-mcp: {explain(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


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
        "--token-budget", type=int,
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
        "--token", help="bearer token HTTP clients must send (prefer DEEPREAD_TOKEN: flags show in `ps`); "
        "off loopback one is generated into the index dir when none is given",
    )
    serve.add_argument(
        "--allowed-host", dest="allowed_hosts", action="append", metavar="HOST",
        help="a Host name HTTP requests may use (repeatable; default: loopback, the bind host, this machine's names)",
    )
    serve.add_argument(
        "--insecure-no-token", action="store_const", const=True,
        help="serve HTTP off loopback without a token: anyone who reaches the port reads every document",
    )
    serve.add_argument("--poll", action="store_const", const=True, help="poll for changes (network drives, containers)")
    serve.add_argument("--no-watch", dest="watch", action="store_const", const=False, help="do not follow changes")

    index = sub.add_parser("index", parents=[common], help="index folders once, with a progress bar")
    index.add_argument("folders", nargs="*", type=Path, metavar="FOLDER")

    folder_opt = argparse.ArgumentParser(add_help=False)
    folder_opt.add_argument(
        "-f", "--folder", dest="folders", action="append", type=Path, default=[],
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
    read.add_argument("--part", type=int, default=None, help="part N of paragraph --start, when it is longer than the budget")
    sub.add_parser("doctor", parents=[common], help="check the model and say which parser each format uses")
    return parser


def _settings(args: argparse.Namespace) -> Settings:
    overrides = {
        key: value
        for key in (
            "data_dir", "embedding_model", "chroma_url", "mineru_url", "parse_jobs", "token_budget", "log_level",
            "transport", "host", "port", "poll", "watch", "token", "allowed_hosts", "insecure_no_token",
        )
        if (value := getattr(args, key, None)) is not None
    }
    if folders := getattr(args, "folders", None):
        overrides["folders"] = [str(f) for f in folders]
    settings = Settings(**overrides)
    if not settings.folders and args.command in ("toc", "search", "read"):  # neither flag nor DEEPREAD_FOLDERS
        settings = Settings(**overrides, folders=[str(Path.cwd())])
    return settings


def setup_logging(settings: Settings, quiet: bool) -> None:
    """Logs go to stderr and to `deepread.log` in the index dir; never to stdout."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()  # the log file's handle, when logging is set up again
    formatter = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setFormatter(formatter)
    stderr.setLevel(logging.ERROR if quiet else settings.log_level)
    root.addHandler(stderr)
    index_dir = settings.index_dir()
    index_dir.mkdir(parents=True, exist_ok=True)
    logfile = logging.handlers.RotatingFileHandler(index_dir / "deepread.log", maxBytes=5_000_000, backupCount=2)
    logfile.setFormatter(formatter)
    logfile.setLevel(settings.log_level)
    root.addHandler(logfile)
    root.setLevel(settings.log_level)
    for noisy in ("httpx", "chromadb", "onnxruntime", "fastembed", "urllib3"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    from indexer.background import BackgroundIndexer
    from server.app import build_server
    from server.http import resolve_token

    listening = _listen(settings) if settings.transport == "http" else None  # a port in use is told before anything starts
    token = resolve_token(settings) if listening is not None else None
    with _open(settings) as library:
        background = BackgroundIndexer(library, watch=settings.watch, poll=settings.poll)
        server = build_server(library, settings.log_level)
        setup_logging(settings, quiet=False)  # MCPServer() installs its own handler; put ours back
        log.info(
            "serving %s (index: %s; embedding on %s)", ", ".join(map(str, settings.folder_paths())), settings.index_dir(),
            ", ".join(library.embedder.providers) or "an unknown provider",
        )
        background.start()
        try:
            if listening is not None:
                _serve_http(server, settings, listening, token)
            else:
                if sys.stdin.isatty():
                    print(
                        "deepread-mcp speaks MCP on stdin/stdout: an agent host starts it (see README, mcp.json).\n"
                        "To look at the index yourself: deepread-mcp toc|search|read -f FOLDER. Ctrl-C stops.",
                        file=sys.stderr,
                    )
                server.run()
        finally:
            background.stop()
    return 0


def _listen(settings: Settings) -> socket.socket:
    """The HTTP port, bound and listening before the index opens: a port in use is an error at
    once, not a uvicorn log line after indexing started. Connections wait in its backlog until
    the server takes them."""
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((settings.host, settings.port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise DeepreadError(f"port {settings.port} is in use; choose another with --port") from None
        raise DeepreadError(
            f"cannot listen on {settings.host}:{settings.port}: {exc.strerror or exc}; choose another --host or --port"
        ) from None
    sock.listen(2048)
    return sock


def _serve_http(server, settings: Settings, listening: socket.socket, token: str | None) -> None:  # noqa: ANN001
    """Streamable HTTP behind the bearer-token check (server/http.py), on our own uvicorn so that
    its logs go where ours go (stderr and the log file; uvicorn's default sends access lines to stdout)."""
    import uvicorn

    from server.http import BearerTokenMiddleware, RefusalHintMiddleware, transport_security, url_host

    security = transport_security(settings)
    app = RefusalHintMiddleware(server.streamable_http_app(host=settings.host, transport_security=security))
    if token is not None:
        app = BearerTokenMiddleware(app, token)
    if security is not None:
        allowed = "any" if not security.enable_dns_rebinding_protection else ", ".join(security.allowed_hosts)
        log.info("HTTP requests may address Host: %s", allowed)
    log.info(
        "Streamable HTTP on http://%s:%d/mcp (%s)", url_host(settings.host), settings.port,
        "bearer token required" if token is not None else "no token",
    )
    config = uvicorn.Config(
        app, host=settings.host, port=settings.port, log_config=None, log_level=settings.log_level.lower(),
    )
    uvicorn.Server(config).run(sockets=[listening])


def _open(settings: Settings):  # noqa: ANN202
    from indexer.library import Library

    return Library(settings.library_config())


SETTLE_ROUNDS = 30  # a one-shot command waits this many times SETTLE_S for files being written


def _reconcile_with_bar(library) -> None:  # noqa: ANN001
    import time

    from tqdm import tqdm

    from indexer.ingest.pipeline import SETTLE_S

    bar = tqdm(total=0, unit="file", file=sys.stderr, disable=None, dynamic_ncols=True)

    def progress(p) -> None:  # noqa: ANN001
        bar.total = p.total
        bar.set_postfix_str(f"{p.action}: {p.path}"[-60:], refresh=False)
        bar.update(p.done - bar.n)

    try:
        report = library.reconcile(progress, wait=False)
        for _ in range(SETTLE_ROUNDS):  # files read mid-save: read again once they settle (no watcher here)
            if not report.deferred:
                break
            time.sleep(SETTLE_S)
            again = library.sync_paths(report.deferred, progress, wait=False)
            report.indexed += again.indexed
            report.failed += again.failed
            report.unchanged = [r for r in report.unchanged if r not in again.indexed + again.failed]
            report.deferred = again.deferred
    finally:
        bar.close()
    embedded = _wait_for_vectors(library)
    still = f"; {len(report.deferred)} still being written, indexed by a later run" if report.deferred else ""
    print(
        f"{len(report.indexed)} indexed, {len(report.unchanged)} unchanged, "
        f"{len(report.failed)} failed, {len(report.removed)} removed{still}; {embedded} paragraphs embedded",
        file=sys.stderr,
    )


def _wait_for_vectors(library) -> int:  # noqa: ANN001
    """Documents are readable once parsed; show the vectors catching up (paragraphs, rate, ETA)."""
    from tqdm import tqdm

    start = library.catchup.embedded
    if library.catchup.busy:
        bar = tqdm(total=0, unit="para", desc="embedding", file=sys.stderr, disable=None, dynamic_ncols=True)
        try:
            while not library.catchup.wait(0.5):
                left = library.vectors_left()
                done = library.catchup.embedded - start
                bar.total = done + (left.paragraphs if left else 0)
                bar.update(done - bar.n)
        finally:
            bar.close()
    return library.catchup.embedded - start


def _index(args: argparse.Namespace, settings: Settings) -> int:
    from server.render import render_toc

    with _open(settings) as library:
        _reconcile_with_bar(library)
        toc = library.toc(max_depth=0)
        for failed in toc.failed:
            print(f"failed: {failed.path} — {explain(failed.reason)}", file=sys.stderr)
        print(f"index: {settings.index_dir()}", file=sys.stderr)
        print(render_toc(toc))
    return 0


def _toc(args: argparse.Namespace, settings: Settings) -> int:
    from server.render import render_toc

    with _open(settings) as library:
        _reconcile_with_bar(library)
        print(render_toc(library.toc(args.doc_id, args.max_depth, args.sec_id, args.after, args.path, args.page)))
    return 0


def _search(args: argparse.Namespace, settings: Settings) -> int:
    from server.render import render_retrieve

    with _open(settings) as library:
        _reconcile_with_bar(library)
        found = library.retrieve(args.query, args.top_k, args.doc_ids, args.before, args.after, args.path)
        print(render_retrieve(found))
    return 0


def _read(args: argparse.Namespace, settings: Settings) -> int:
    from server.render import render_section

    with _open(settings) as library:
        _reconcile_with_bar(library)
        print(render_section(
            library.read_section(args.doc_id, args.sec_id, args.start_para, args.end_para, part=args.part)
        ))
    return 0


def _doctor(args: argparse.Namespace, settings: Settings) -> int:
    """What will parse what, offline, and how to do better."""
    from importlib.metadata import version

    from indexer.store.embedder import Embedder
    from indexer.errors import ModelUnavailable
    from indexer.parse.formats import TEXT_PARSERS
    from indexer.parse.mineru import MINERU_FORMATS, tier_status
    from indexer.parse.mineru_worker import best_tier

    ok = True
    try:
        embedder = Embedder(settings.models_dir(), settings.embedding_model)
        print(f"embedding model: {embedder.name} ({embedder.dim} dimensions) loads offline: ok")
        runs_on = ", ".join(p.removesuffix("ExecutionProvider") for p in embedder.providers) or "unknown"
        print(f"  runs on: {runs_on} (CUDA when onnxruntime-gpu is installed and a GPU is visible; see the README)")
    except ModelUnavailable as exc:
        ok = False
        print(f"embedding model: {exc}")
    if settings.mineru_url:
        ok = _check_mineru_server(settings) and ok
    home = settings.mineru_dir()
    tiers = tier_status(home)
    print(f"MinerU {version('mineru')}; its models and config live in {home}")
    for tier, state in tiers.items():
        found = "installed" if state["ready"] else f"not installed ({state['missing']} files missing)"
        print(f"  {tier} tier models: {found}")
    best = best_tier(tiers)
    print("formats:")
    print(f"  {' '.join(sorted(TEXT_PARSERS))}: built-in parser")
    if best == "flash":
        from indexer.parse import ocr

        problem = ocr.unavailable()
        scans = f"scanned PDFs are marked failed: {problem}" if problem else "scanned PDFs: RapidOCR, offline"
        print("  .pdf: MinerU flash tier (text layer only; heading depth from the PDF outline, numbering and"
              f" type size; {scans})")
    else:
        print(f"  .pdf: MinerU {best} tier (layout models, OCR for scans)")
    others = " ".join(sorted(s for s in MINERU_FORMATS if s != ".pdf"))
    print(f"  {others}: MinerU, read natively (no models needed)")
    if best == "flash":
        print("for better PDF layout, tables and OCR (needs internet once, about 0.8 GB):")
        print(f"  MINERU_HOME={home} mineru-kit models download --tier basic --source huggingface")
        print("  (or --tier standard for the vision-language model, about 2 GB more); then restart the server.")
    return 0 if ok else 1


def _check_mineru_server(settings: Settings) -> bool:
    """The MinerU server PDFs and office files are sent to: does it answer, and with which tiers."""
    from indexer.parse.remote import MineruClient, RemoteRejected, RemoteUnavailable

    key = settings.mineru_api_key.get_secret_value() if settings.mineru_api_key else None
    try:
        tier = MineruClient(settings.mineru_url or "", key, timeout_s=30).best_tier()
    except (RemoteUnavailable, RemoteRejected) as exc:
        print(f"MinerU server: {exc}; files it would parse are marked failed (retried when it is back)")
        return False
    print(f"MinerU server: {settings.mineru_url} answers; PDFs and office files are parsed there, {tier} tier")
    return True


COMMAND_HANDLERS = {"doctor": _doctor, "serve": _serve, "index": _index, "toc": _toc, "search": _search, "read": _read}

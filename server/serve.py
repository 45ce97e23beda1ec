"""`deepread-mcp serve`: the MCP server over stdio or Streamable HTTP, with the folder followed
in the background. Nothing here writes to stdout: under stdio it belongs to the protocol.
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from indexer.errors import DeepreadError
from server.commands import open_library
from server.logs import setup_logging, tell
from server.settings import Settings

if TYPE_CHECKING:
    from starlette.types import ASGIApp

log = logging.getLogger("deepread")


def serve(args: argparse.Namespace, settings: Settings) -> int:
    from server.app import build_server
    from server.http import resolve_token

    listening = (
        listen(settings) if settings.transport == "http" else None
    )  # a port in use is told before anything starts
    token = resolve_token(settings) if listening is not None else None
    with open_library(settings) as library:
        background = library.follower(watch=settings.watch, poll=settings.poll)
        server = build_server(library, settings.log_level)
        setup_logging(settings, quiet=False)  # MCPServer() installs its own handler; put ours back
        status = library.status()
        role = "writing it" if status.writer else f"reading it while process {status.writer_pid} writes it"
        log.info(
            "serving %s (index: %s, %s; embedding on %s)",
            ", ".join(map(str, settings.folder_paths())),
            settings.index_dir(),
            role,
            library.embedding_on(),
        )
        background.start()
        try:
            if listening is not None:
                serve_http(server, settings, listening, token)
            else:
                if sys.stdin.isatty():
                    tell(
                        "deepread-mcp speaks MCP on stdin/stdout: an agent host starts it (see README, mcp.json).\n"
                        "To look at the index yourself: deepread-mcp toc|search|read FOLDER. Ctrl-C stops."
                    )

                def stop() -> None:
                    background.stop(timeout=STOP_GRACE_S)
                    library.close()

                stop_on_interrupt(stop)
                server.run()
        finally:
            background.stop()
    return 0


STOP_GRACE_S = 1.5  # Ctrl-C: time to finish cleanly before the process ends regardless


def stop_on_interrupt(cleanup: Callable[[], object]) -> None:
    """Ctrl-C (SIGINT) ends a stdio server within 2 s. Python's KeyboardInterrupt would leave the
    MCP transport's thread blocked reading stdin until the next line; instead the background work
    gets STOP_GRACE_S to stop, and the process ends. Nothing is lost: every commit is an atomic
    SQLite transaction, which a kill -9 leaves consistent too, and the parser child dies with us."""

    def interrupted(signum: int, frame: object) -> None:
        log.info("interrupted: stopping")
        worker = threading.Thread(target=cleanup, daemon=True)
        worker.start()
        worker.join(STOP_GRACE_S)
        logging.shutdown()
        os._exit(130)

    signal.signal(signal.SIGINT, interrupted)


def listen(settings: Settings) -> socket.socket:
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


def serve_http(server, settings: Settings, listening: socket.socket, token: str | None) -> None:
    """Streamable HTTP behind the bearer-token check (server/http.py), on our own uvicorn so that
    its logs go where ours go (stderr and the log file; uvicorn's default sends access lines to stdout)."""
    import uvicorn

    from server.http import BearerTokenMiddleware, RefusalHintMiddleware, transport_security, url_host

    security = transport_security(settings)
    app: ASGIApp = RefusalHintMiddleware(server.streamable_http_app(host=settings.host, transport_security=security))
    if token is not None:
        app = BearerTokenMiddleware(app, token)
    if security is not None:
        allowed = "any" if not security.enable_dns_rebinding_protection else ", ".join(security.allowed_hosts)
        log.info("HTTP requests may address Host: %s", allowed)
    log.info(
        "Streamable HTTP on http://%s:%d/mcp (%s)",
        url_host(settings.host),
        settings.port,
        "bearer token required" if token is not None else "no token",
    )
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_config=None,
        log_level=settings.log_level.lower(),
    )
    uvicorn.Server(config).run(sockets=[listening])

"""Streamable HTTP that is safe to expose: a bearer token and a Host/Origin allow-list.

Bound to loopback, only this machine can connect; the SDK's Host/Origin checks stop web pages
from reaching the server through DNS rebinding, and a token is checked only when one is
configured. Bound to anything else, anyone on the network can reach the port and read every
document, so each request must carry `Authorization: Bearer <token>`: `DEEPREAD_TOKEN`, or one
generated on first use and kept (mode 0600) in the index dir as `http-token`. Host/Origin checks
stay on there too, against an allow-list (`DEEPREAD_ALLOWED_HOSTS`).
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import secrets
import socket
from pathlib import Path

from mcp.server.transport_security import TransportSecuritySettings
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.logs import tell
from server.settings import Settings

log = logging.getLogger("deepread")

TOKEN_FILE = "http-token"
SDK_LOOPBACK = ("127.0.0.1", "localhost", "::1")  # the hosts the SDK protects by itself
WILDCARDS = ("", "0.0.0.0", "::", "*")
UNAUTHORIZED = (
    "401 Unauthorized: a bearer token is required. Send 'Authorization: Bearer <token>', where the token is "
    "the server's DEEPREAD_TOKEN (--token), or else the one it generated into the http-token file of its "
    "index dir (its path is in the server's log).\n"
)


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 or localhost: only this machine can connect."""
    host = host.strip().strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    return host.strip().strip("[]") in WILDCARDS


def url_host(host: str) -> str:
    """An IPv6 literal in brackets, as it appears in URLs and Host headers."""
    host = host.strip().lower()
    try:
        return f"[{host.strip('[]')}]" if ipaddress.ip_address(host.strip("[]")).version == 6 else host
    except ValueError:
        return host


def _host_patterns(entry: str) -> list[str]:
    """`name` matches the name with any port or none; `name:port` only that port."""
    name = url_host(entry)
    has_port = name.rpartition("]")[2].startswith(":") if name.startswith("[") else ":" in name
    return [name] if has_port else [name, f"{name}:*"]


def default_allowed_hosts(bind_host: str) -> list[str]:
    """Loopback names, the bind address unless it is a wildcard, and this machine's names."""
    names = [*SDK_LOOPBACK]
    if not is_wildcard(bind_host):
        names.append(bind_host)
    names += [socket.gethostname(), socket.getfqdn()]
    return list(dict.fromkeys(n.lower() for n in names if n))


def transport_security(settings: Settings) -> TransportSecuritySettings | None:
    """The Host/Origin allow-list the SDK checks (DNS rebinding protection).

    None for the plain loopback addresses without an explicit list: the SDK then applies its own
    loopback checks, as it always has. `*` in the list turns the checks off (behind a proxy that
    rewrites Host, say); the token still applies."""
    names = settings.allowed_hosts
    if not names and settings.host.strip().lower() in SDK_LOOPBACK:
        return None
    names = names or default_allowed_hosts(settings.host)
    if "*" in names:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    hosts = list(dict.fromkeys(p for n in names for p in _host_patterns(n)))
    origins = [f"{scheme}://{h}" for scheme in ("http", "https") for h in hosts]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


def load_or_create_token(index_dir: Path) -> tuple[str, bool]:
    """The token saved in `index_dir/http-token`, or a new one saved there with mode 0600.

    Returns (token, created). Written through a private temp file and renamed, so the token is
    never readable by others, not even for a moment, and never half-written."""
    path = index_dir / TOKEN_FILE
    try:
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        token = ""
    if token:
        if os.name == "posix" and path.stat().st_mode & 0o077:
            path.chmod(0o600)
            log.warning("%s was readable by others; its mode is now 0600", path)
        return token, False
    token = secrets.token_urlsafe(32)
    index_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{TOKEN_FILE}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(token + "\n")
    os.replace(tmp, path)
    return token, True


def resolve_token(settings: Settings) -> str | None:
    """The token every request must carry, or None when none is asked for.

    A configured token (DEEPREAD_TOKEN, --token) always applies. Otherwise loopback needs none;
    off loopback one is generated once, printed once to stderr (never stdout, never the log
    file) and reused from the index dir afterwards, unless the user opted out explicitly."""
    if settings.token is not None:
        if settings.insecure_no_token:
            log.warning("a token is configured, so --insecure-no-token is ignored: requests must carry it")
        return settings.token.get_secret_value()
    if is_loopback(settings.host):
        return None
    if settings.insecure_no_token:
        log.warning(
            "SERVING WITHOUT A TOKEN on %s:%d (--insecure-no-token): anyone who can reach this port can read "
            "every document in %s. Bind to 127.0.0.1, or drop --insecure-no-token to require a bearer token.",
            url_host(settings.host),
            settings.port,
            ", ".join(map(str, settings.folder_paths())),
        )
        return None
    token, created = load_or_create_token(settings.index_dir())
    path = settings.index_dir() / TOKEN_FILE
    if created:
        tell(
            f"deepread-mcp: HTTP clients must send this header (token generated now, saved in {path}):\n"
            f"    Authorization: Bearer {token}"
        )
    else:
        log.info("HTTP clients must send 'Authorization: Bearer <token>' with the token in %s", path)
    return token


class BearerTokenMiddleware:
    """Refuses requests without `Authorization: Bearer <token>` before the MCP app sees them.

    Pure ASGI, not Starlette's BaseHTTPMiddleware, so the SSE streams the app answers with pass
    through unbuffered. `lifespan` passes untouched: the app's session manager starts and stops
    there. WebSocket handshakes are held to the same rule (the app has none; none slip past)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode()

    def _authorized(self, scope: Scope) -> bool:
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                scheme, _, credentials = value.strip().partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(credentials.strip(), self._token)
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and not self._authorized(scope):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            response = PlainTextResponse(UNAUTHORIZED, 401, headers={"WWW-Authenticate": 'Bearer realm="deepread-mcp"'})
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


class RefusalHintMiddleware:
    """Says which setting admits a refused Host or Origin: the SDK's own answers are a bare
    `421 Invalid Host header` and `403 Invalid Origin header`, which leave a user with the right
    token guessing. Pure ASGI, like the token check; every other answer passes untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {name.lower(): value.decode("latin-1") for name, value in scope.get("headers", ())}
        replaced: bytes | None = None

        async def hinted(message: Message) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start" and message["status"] in (421, 403):
                replaced = _refusal(message["status"], headers).encode()
                kept = [
                    (k, v)
                    for k, v in message.get("headers", [])
                    if k.lower() not in (b"content-length", b"content-type")
                ]
                kept += [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(replaced)).encode()),
                ]
                await send({**message, "headers": kept})
            elif message["type"] == "http.response.body" and replaced is not None:
                if not message.get("more_body"):
                    await send({"type": "http.response.body", "body": replaced})
            else:
                await send(message)

        await self.app(scope, receive, hinted)


def _refusal(status: int, headers: dict[bytes, str]) -> str:
    host = headers.get(b"host", "")
    if status == 421:
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        return (
            f"421 Misdirected Request: the Host '{host}' is not one this server answers to. Start it with "
            f"--allowed-host {name or 'NAME'} (or add it to DEEPREAD_ALLOWED_HOSTS, comma-separated).\n"
        )
    origin = headers.get(b"origin", "")
    origin_host = origin.split("://", 1)[-1].split("/", 1)[0]
    return (
        f"403 Forbidden: the Origin '{origin}' is not allowed. Origins must be http(s):// followed by an allowed "
        f"host: start the server with --allowed-host {origin_host.rsplit(':', 1)[0] or 'NAME'} "
        "(or add it to DEEPREAD_ALLOWED_HOSTS).\n"
    )

"""Streamable HTTP off loopback: every request carries the bearer token, and Host/Origin stay checked.

The servers bind 0.0.0.0 but the tests only ever connect to 127.0.0.1.
"""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from server.http import TOKEN_FILE, resolve_token, transport_security
from server.settings import Settings
from tests.conftest import REPO, free_port, wait_for, wait_for_port, write

DOC = "# Field Notes\n\n## Birds\n\nThe heron waits in the shallows at dawn.\n"
TOKEN = "test-token-4c1d8a0e-2f7b-4e55-9a3c"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@dataclass
class Served:
    port: int
    data: Path
    process: subprocess.Popen[bytes]
    stdout: Path
    stderr: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


def serve(tmp: Path, token: str | None) -> Served:
    """The real CLI on 0.0.0.0, with no DEEPREAD_* from the caller's environment but the token."""
    docs, data = tmp / "docs", tmp / "data"
    write(docs, "notes.md", DOC)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPREAD_")}
    if token is not None:
        env["DEEPREAD_TOKEN"] = token
    port = free_port()
    stdout, stderr = tmp / "stdout.txt", tmp / "stderr.txt"
    with stdout.open("wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "server",
                "serve",
                str(docs),
                "--transport",
                "http",
                "--host",
                "0.0.0.0",
                "--port",
                str(port),
                "--data-dir",
                str(data),
            ],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=err,
        )
    try:
        wait_for_port(port)
    except BaseException:
        stop(process)
        raise
    return Served(port, data, process, stdout, stderr)


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=30)


def post(served: Served, headers: dict[str, str]) -> httpx2.Response:
    return httpx2.post(served.url, json=INITIALIZE, headers={**MCP_HEADERS, **headers}, timeout=30)


def ask(url: str, token: str) -> tuple[list[str], str]:
    """Tool names and get_toc's text, through the SDK's client sending the token on every request."""

    async def run() -> tuple[list[str], str]:
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            tools = [tool.name for tool in (await client.list_tools()).tools]
            with anyio.fail_after(60):
                while not (toc := await client.call_tool("get_toc", {})).structured_content["documents"]:
                    await anyio.sleep(0.2)
            return tools, toc.content[0].text

    return anyio.run(run)


@pytest.fixture(autouse=True)
def _no_http_settings_from_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DEEPREAD_TOKEN", "DEEPREAD_ALLOWED_HOSTS", "DEEPREAD_INSECURE_NO_TOKEN", "DEEPREAD_HOST"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One server for the token and Host checks, its token given through DEEPREAD_TOKEN."""
    served = serve(tmp_path_factory.mktemp("http"), TOKEN)
    try:
        yield served
    finally:
        stop(served.process)


def test_no_token_is_refused(served: Served) -> None:
    response = post(served, {})
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert "bearer token is required" in response.text and "DEEPREAD_TOKEN" in response.text
    assert httpx2.get(f"http://127.0.0.1:{served.port}/", timeout=30).status_code == 401, "every path, not only /mcp"


@pytest.mark.parametrize(
    "authorization", [f"Bearer {TOKEN}x", f"Bearer {TOKEN[:-1]}", "Bearer", f"Basic {TOKEN}", TOKEN]
)
def test_wrong_token_is_refused(served: Served, authorization: str) -> None:
    response = post(served, {"Authorization": authorization})
    assert response.status_code == 401 and response.headers["www-authenticate"].startswith("Bearer")


def test_right_token_lists_tools_and_reads_the_toc(served: Served) -> None:
    tools, toc = ask(served.url, TOKEN)
    assert {"get_toc", "retrieve", "read_section"} <= set(tools)
    assert "notes.md — Field Notes" in toc
    assert post(served, {"Authorization": f"bearer {TOKEN}"}).status_code == 200, "the scheme is case-insensitive"


def test_foreign_host_or_origin_is_refused_even_with_the_token(served: Served) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert post(served, auth).status_code == 200
    host = post(served, {**auth, "Host": f"evil.example:{served.port}"})
    assert host.status_code == 421 and "--allowed-host evil.example" in host.text, host.text
    assert "DEEPREAD_ALLOWED_HOSTS" in host.text
    origin = post(served, {**auth, "Origin": "http://evil.example"})
    assert origin.status_code == 403 and "--allowed-host evil.example" in origin.text, origin.text
    assert post(served, {**auth, "Origin": f"http://localhost:{served.port}"}).status_code == 200


def test_the_given_token_is_never_echoed_nor_saved(served: Served) -> None:
    assert TOKEN not in served.stderr.read_text(), "a token the user gave is not printed back"
    assert not (served.data / TOKEN_FILE).exists(), "nothing is generated when DEEPREAD_TOKEN is set"
    assert served.stdout.read_bytes() == b"", "stdout stays clean"


def test_generated_token_is_saved_private_printed_once_and_works(tmp_path: Path) -> None:
    served = serve(tmp_path, token=None)
    try:
        path = served.data / TOKEN_FILE
        wait_for(path.exists)  # the port listens from the first moment; the token follows at once
        token = path.read_text().strip()
        assert len(token) >= 40
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert post(served, {}).status_code == 401
        tools, toc = ask(served.url, token)
        assert "get_toc" in tools and "notes.md" in toc
    finally:
        stop(served.process)
    assert served.stderr.read_text().count(token) == 1, "printed once, to stderr"
    assert token not in (served.data / "deepread.log").read_text(), "the log file never holds it"
    assert served.stdout.read_bytes() == b""


def test_later_starts_reuse_the_saved_token_and_log_only_its_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(folders=str(tmp_path), host="0.0.0.0", data_dir=tmp_path / "data")
    first = resolve_token(settings)
    assert first and capsys.readouterr().err.count(first) == 1
    with caplog.at_level(logging.INFO, logger="deepread"):
        assert resolve_token(settings) == first
    assert first not in capsys.readouterr().err and first not in caplog.text
    assert str(tmp_path / "data" / TOKEN_FILE) in caplog.text


def test_when_a_token_is_asked_for(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    def settings(**kw: object) -> Settings:
        return Settings(folders=str(tmp_path), data_dir=tmp_path / "data", **kw)  # type: ignore[arg-type]

    assert resolve_token(settings(host="127.0.0.1")) is None, "loopback: as before"
    assert resolve_token(settings(host="127.0.0.5")) is None
    assert resolve_token(settings(host="::1")) is None
    assert resolve_token(settings(host="localhost", token="abc")) == "abc", "a configured token applies on loopback too"
    with caplog.at_level(logging.WARNING, logger="deepread"):
        assert resolve_token(settings(host="0.0.0.0", insecure_no_token=True)) is None
    assert "WITHOUT A TOKEN" in caplog.text
    assert resolve_token(settings(host="0.0.0.0", token="abc", insecure_no_token=True)) == "abc"
    assert not (tmp_path / "data" / TOKEN_FILE).exists()


def test_host_allow_list(monkeypatch: pytest.MonkeyPatch) -> None:
    assert transport_security(Settings(host="127.0.0.1")) is None, "the SDK's own loopback checks"
    lan = transport_security(Settings(host="192.168.1.20"))
    assert lan is not None and lan.enable_dns_rebinding_protection
    assert {"127.0.0.1:*", "localhost:*", "[::1]:*", "192.168.1.20", "192.168.1.20:*"} <= set(lan.allowed_hosts)
    assert "https://192.168.1.20:*" in lan.allowed_origins and "http://localhost:*" in lan.allowed_origins
    wildcard = transport_security(Settings(host="0.0.0.0"))
    assert wildcard is not None and not any(h.startswith("0.0.0.0") for h in wildcard.allowed_hosts)
    monkeypatch.setenv("DEEPREAD_ALLOWED_HOSTS", "docs.example, fe80::1,box:8765")
    listed = transport_security(Settings(host="0.0.0.0"))
    assert listed is not None
    assert listed.allowed_hosts == ["docs.example", "docs.example:*", "[fe80::1]", "[fe80::1]:*", "box:8765"]
    assert Settings(allowed_hosts=["a,b", "c"]).allowed_hosts == ["a", "b", "c"], "repeated flags, each may list"
    monkeypatch.setenv("DEEPREAD_ALLOWED_HOSTS", "*")
    anything = transport_security(Settings(host="0.0.0.0"))
    assert anything is not None and not anything.enable_dns_rebinding_protection

"""Ctrl-C in a terminal stops `deepread-mcp serve` within 2 s, and the index it leaves opens again.

The server runs under a real pseudo-terminal (its controlling terminal, as in a shell), so the
Ctrl-C typed into it reaches it as the kernel's SIGINT, exactly as a person's would.
"""

from __future__ import annotations

import os
import pty
import select
import sys
import time
from pathlib import Path

from tests.conftest import REPO, write


def _read_until(fd: int, text: bytes, timeout: float) -> bytes:
    seen = b""
    deadline = time.monotonic() + timeout
    while text not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                seen += os.read(fd, 4096)
            except OSError:  # the child closed the terminal
                break
    return seen


def _exit_status(pid: int, timeout: float) -> int | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    return None


def test_ctrl_c_stops_serve_within_two_seconds(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    write(docs, "notes.md", "# Notes\n\nThe heron waits in the shallows.")
    data = tmp_path / "data"
    argv = [sys.executable, "-m", "server", "serve", str(docs), "--data-dir", str(data)]
    status: int | None = None
    pid, fd = pty.fork()
    if pid == 0:  # the child: its stdin, stdout and stderr are the terminal
        os.chdir(REPO)
        os.execv(sys.executable, argv)
    try:
        banner = _read_until(fd, b"Ctrl-C stops.", timeout=120)
        assert b"Ctrl-C stops." in banner, banner.decode(errors="replace")[-2000:]
        time.sleep(1.0)  # the server is reading stdin now, as it would for hours
        started = time.monotonic()
        os.write(fd, b"\x03")  # what the Ctrl-C key sends
        status = _exit_status(pid, timeout=10)
        took = time.monotonic() - started
    finally:
        if status is None:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)
    assert status is not None and took < 2.0, f"still running {took:.1f} s after Ctrl-C"
    assert status == 130

    from indexer.library import Library, LibraryConfig

    with Library(LibraryConfig(roots=[docs], data_dir=data, models_dir=tmp_path / "models")) as library:
        assert [d.path for d in library.toc().documents] == ["notes.md"], "the index opens again, consistent"

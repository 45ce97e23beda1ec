"""Shared fixtures: real files in tmp folders, the real offline model, real stores."""

from __future__ import annotations

import contextlib
import os
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from indexer.library import Library, LibraryConfig

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO.parent / "shared" / "bench"
# Other projects' test files (never committed here); DEEPREAD_CORPORA points to them from a worktree elsewhere.
CORPORA = Path(os.environ.get("DEEPREAD_CORPORA") or REPO.parent / "shared" / "corpora")


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One assembled copy of the bundled model for the whole run."""
    return tmp_path_factory.mktemp("models")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "docs"
    path.mkdir()
    return path


@pytest.fixture
def open_library(tmp_path: Path, models_dir: Path) -> Iterator[Callable[..., Library]]:
    """Open a real Library (SQLite, Chroma, MiniLM) on folders; closed after the test."""
    opened: list[Library] = []

    def _open(*roots: Path, data_dir: Path | None = None, **options: object) -> Library:
        config = LibraryConfig(
            roots=list(roots),
            data_dir=data_dir or tmp_path / "data",
            models_dir=models_dir,
            **options,  # type: ignore[arg-type]
        )
        library = Library(config)
        opened.append(library)
        return library

    yield _open
    for library in opened:
        with contextlib.suppress(Exception):  # a test may have closed it, or broken its store on purpose
            library.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, timeout: float = 60) -> None:
    """Until a server listens on 127.0.0.1:port."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise TimeoutError(f"nothing listens on port {port} after {timeout} s")


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def wait_for(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    """Until `condition()` holds; 30 s is a generous bound for a change on a loaded CI machine."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError("condition not met in time")

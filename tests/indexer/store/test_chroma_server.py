"""Vectors in a Chroma server (the user points DEEPREAD_CHROMA_URL at one) instead of the embedded store."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from indexer.library import Library
from tests.conftest import free_port, wait_for_port, write

CHROMA = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))


@pytest.fixture
def chroma_url(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    server = subprocess.Popen(
        [CHROMA, "run", "--path", str(tmp_path / "chroma-server"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_index_and_search_through_a_chroma_server(
    folder: Path, tmp_path: Path, chroma_url: str, open_library: Callable[..., Library]
) -> None:
    write(folder, "ships.md", "# Ships\n\n## Sails\n\nA schooner carries fore-and-aft sails on two masts.")
    write(folder, "trains.md", "# Trains\n\nA funicular climbs steep slopes with a cable.")
    library = open_library(folder, data_dir=tmp_path / "my index", chroma_url=chroma_url)
    assert library.reconcile().embedded == 2
    assert library.index.vectors.count() == 2
    top = library.retrieve("boat with two masts", top_k=1).results[0]
    assert top.section_path == ["Ships", "Sails"]
    library.index.search.mode = "dense"
    assert library.retrieve("railway up a mountain", top_k=1).results[0].text.startswith("A funicular")

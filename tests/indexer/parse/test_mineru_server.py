"""Parsing on a MinerU server: a real `mineru-api --tier flash` started on a free port."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from indexer.library import Library
from tests.conftest import free_port, write


def _pdf(path: Path, title: str, text: str) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", style="B", size=18)
    pdf.multi_cell(0, 10, title, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(6)
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, text)
    pdf.output(str(path))


@pytest.fixture
def mineru_api(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    """A flash-tier MinerU API server of its own (its uploads and temporary files under tmp_path)."""
    port = free_port()
    work = tmp_path / "mineru-api"
    (work / "tmp").mkdir(parents=True)
    env = {**os.environ, "MINERU_MODEL_SOURCE": "local", "MINERU_HOME": str(work / "home"), "TMPDIR": str(work / "tmp")}
    server = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "mineru-api"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--tier",
            "flash",
            "--upload-dir",
            str(work / "uploads"),
        ],
        cwd=work,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(f"{url}/v1/health", timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline and server.poll() is None, "mineru-api did not start"
        time.sleep(0.3)
    try:
        yield url, server
    finally:
        server.kill()
        server.wait()


@pytest.mark.slow
def test_a_pdf_is_parsed_on_the_server_and_indexed_as_a_local_parse_is(
    folder: Path, tmp_path: Path, mineru_api: tuple[str, subprocess.Popen], open_library: Callable[..., Library]
) -> None:
    url, _ = mineru_api
    _pdf(folder / "report.pdf", "Harbour Seal Survey", "Seal pups were counted on the sandbanks at low tide. " * 6)
    lib = open_library(folder, data_dir=tmp_path / "data", mineru_url=url)
    assert lib.reconcile().indexed == ["report.pdf"]
    (doc,) = lib.toc().documents
    assert doc.title == "Harbour Seal Survey" and doc.n_pages == 1
    assert lib.retrieve("seal pups sandbanks", top_k=1).results[0].text.startswith("Seal pups were counted")
    jobs = httpx.get(f"{url}/v1/parse/jobs").json()["data"]
    assert [j["status"] for j in jobs] == ["completed"], "parsed there, not here"
    (cached,) = (tmp_path / "data" / "parse-cache").glob("*.json.gz")
    raw = json.loads(gzip.decompress(cached.read_bytes()))
    assert (raw["tier"], raw["server"]) == ("flash", url), "the server's tier is recorded as a local one is"


@pytest.mark.slow
def test_a_server_gone_mid_folder_fails_its_files_as_may_pass_and_the_rest_is_indexed(
    folder: Path, tmp_path: Path, mineru_api: tuple[str, subprocess.Popen], open_library: Callable[..., Library]
) -> None:
    url, server = mineru_api
    _pdf(folder / "first.pdf", "Tide Tables", "High water at the harbour mouth comes an hour after the pier. " * 6)
    lib = open_library(folder, data_dir=tmp_path / "data", mineru_url=url)
    assert lib.reconcile().indexed == ["first.pdf"]
    server.kill()  # the server goes away
    server.wait()
    _pdf(folder / "second.pdf", "Buoy Colours", "Red buoys mark the port side of the channel. " * 6)
    write(folder, "notes.md", "# Notes\n\nThe ferry leaves at nine.\n")
    report = lib.reconcile()
    assert report.indexed == ["notes.md"] and report.failed == ["second.pdf"]
    toc = lib.toc()
    (failed,) = toc.failed
    assert failed.reason.startswith(f"the MinerU server at {url} cannot be reached")
    assert failed.retry == "this may pass: parsed again when the server is idle, with twice the time"
    assert {d.path for d in toc.documents} == {"first.pdf", "notes.md"}, "what was parsed stays readable"
    assert lib.retrieve("harbour mouth high water", top_k=1).results[0].text.startswith("High water")

"""Nothing a user does to a file loses it: failures that may pass heal by themselves, a save in
place never hides the last good version."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from indexer.library import Library
from indexer.parse.mineru import cpu_seconds
from tests.conftest import wait_for, write


def _pdf(path: Path, text: str) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, text)
    pdf.output(str(path))


@pytest.mark.slow
def test_a_new_version_over_its_time_limit_keeps_the_previous_one_until_it_parses(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    """The time limit fails an edit of a readable file: the host still reads and finds the last
    good version, told why and when the new one is tried again; the next start indexes it."""
    _pdf(folder / "terns.pdf", "Terns hover over the waves and plunge for sand eels. " * 6)
    data = tmp_path / "data"
    lib = open_library(folder, data_dir=data)
    lib.reconcile()
    _pdf(folder / "terns.pdf", "Terns nest on shingle beaches in noisy colonies every summer. " * 6)
    lib.index.writing.reconciler.versions.parser.mineru.options.timeout_s = (
        0.2  # a machine far too busy for the new version
    )
    assert lib.reconcile().failed == ["terns.pdf"]
    toc = lib.toc()
    assert not toc.failed and [d.path for d in toc.documents] == ["terns.pdf"]
    (doc,) = lib.toc(1).documents
    assert doc.version == 1 and doc.warnings[0].startswith("the file changed but its new version failed (")
    assert "this is the previous version; this may pass: parsed again when the server is idle" in doc.warnings[0]
    assert lib.retrieve("sand eels", top_k=1).results[0].text.startswith("Terns hover")
    lib.close()

    lib = open_library(folder, data_dir=data)  # the next start, with the usual limit
    assert lib.reconcile().indexed == ["terns.pdf"]
    (doc,) = lib.toc(1).documents
    assert doc.version == 2 and not doc.warnings
    assert lib.retrieve("shingle colonies", top_k=1).results[0].text.startswith("Terns nest")


@pytest.mark.slow
def test_a_failure_that_may_pass_is_retried_when_the_server_is_idle(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    _pdf(folder / "herons.pdf", "Herons wait in the shallows for fish at dawn. " * 6)
    lib = open_library(folder, parse_timeout_s=0.2)
    background = lib.follower(retry_after=0.5)
    background.start()
    try:
        wait_for(lambda: [f.path for f in lib.toc().failed] == ["herons.pdf"], timeout=120)
        lib.index.writing.reconciler.versions.parser.mineru.options.timeout_s = 900  # the machine is quiet again
        wait_for(lambda: [d.path for d in lib.toc().documents] == ["herons.pdf"], timeout=120)
        assert not lib.toc().failed, "parsed again without any change to the file"
    finally:
        background.stop()


def test_a_file_that_cannot_be_parsed_waits_for_a_change_and_says_so(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    (folder / "bad.md").write_bytes(b"\x00\x01 not text")
    lib = open_library(folder)
    lib.reconcile()
    toc = lib.toc()
    assert toc.failed[0].retry is None and "Editing or replacing a failed file retries it." in (toc.hint or "")
    (folder / "bad.md").touch()
    assert lib.reconcile().failed == [], "same bytes: not parsed again"


def test_a_save_that_truncates_first_never_hides_the_document(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """An editor or shell `>` empties the file, then writes it: a read in between keeps the last version."""
    path = write(folder, "notes.md", "# Notes\n\nThe otter holt is by the alder roots.\n")
    lib = open_library(folder)
    background = lib.follower(debounce=0.05)
    background.start()
    stop = threading.Event()

    def rewrite() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            with path.open("w") as f:  # truncate, then write, as `>` does
                f.flush()
                time.sleep(0.05)
                f.write(f"# Notes\n\nThe otter holt is by the alder roots. Visit {n}.\n")
            time.sleep(0.3)

    try:
        assert background.wait_idle(60)
        writer = threading.Thread(target=rewrite, daemon=True)
        writer.start()
        misses = 0
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            hits = lib.retrieve("otter holt alder", top_k=1).results
            misses += not (hits and hits[0].text.startswith("The otter holt"))
            assert not lib.toc().failed, "never failed as an empty file"
            time.sleep(0.05)
        stop.set()
        writer.join()
        assert misses == 0
        wait_for(lambda: "Visit" in lib.read_section(lib.toc().documents[0].doc_id, 0).paragraphs[-1].text)
    finally:
        stop.set()
        background.stop()


def test_a_file_that_stays_empty_is_empty(folder: Path, open_library: Callable[..., Library]) -> None:
    path = write(folder, "notes.md", "# Notes\n\nSome text.\n")
    lib = open_library(folder)
    background = lib.follower(debounce=0.05)
    background.start()
    try:
        assert background.wait_idle(60)
        path.write_text("")
        wait_for(lambda: [f.reason for f in lib.toc().failed] == ["file is empty"], timeout=30)
    finally:
        background.stop()


def test_cpu_seconds_reads_a_process_group() -> None:
    import os
    import subprocess
    import sys

    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.6: pass\ntime.sleep(5)",
        ],
        start_new_session=True,
    )
    try:
        wait_for(lambda: cpu_seconds(child.pid, default=-1) >= 0.5, timeout=20)
        assert cpu_seconds(os.getpid() + 10_000_000, default=-1) == -1, "no such group: the default"
    finally:
        child.kill()
        child.wait()


def test_a_giant_table_is_read_to_its_last_row_and_found_by_its_last_code(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    rows = "\n".join(f"| Store {i} | SKU-{i:06d} | {i * 7 % 1000} |" for i in range(20_000))
    write(folder, "stock.md", f"# Stock\n\nStock by store.\n\n| store | sku | units |\n|---|---|---|\n{rows}\n")
    lib = open_library(folder, token_budget=8000)
    lib.reconcile()
    doc = lib.toc().documents[0].doc_id
    blocks = lib.read_section(doc, 0)
    assert blocks.paragraphs[1].text.startswith("(rows 1–"), "blocks of rows, each saying which"
    assert "| store | sku | units |" in blocks.paragraphs[2].text, "the header is repeated in every block"
    seen: list[str] = []
    start: int | None = 0
    calls = 0
    while start is not None:
        part = lib.read_section(doc, 0, start_para=start)
        seen.extend(p.text for p in part.paragraphs)
        start, calls = part.next_start_para, calls + 1
        assert calls < 100
    text = "\n".join(seen)
    assert "| Store 19999 | SKU-019999 |" in text and "| Store 0 | SKU-000000 |" in text
    hits = lib.retrieve("SKU-019999", top_k=3).results
    assert any("SKU-019999" in h.text and h.kind == "table" for h in hits), "its last code is found"


def test_junk_text_is_kept_and_found_by_its_words_but_never_outranks_real_text(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    import base64
    import random

    rng = random.Random(7)
    letters = "abcdefghijklmnopqrstuvwxyz"
    noise = "\n\n".join(
        " ".join("".join(rng.choice(letters) for _ in range(rng.randint(3, 9))) for _ in range(60)) for _ in range(400)
    )
    write(folder, "noise.txt", noise + "\n\nlighthouse keeper ledger\n")
    write(folder, "blob.txt", base64.b64encode(rng.randbytes(60_000)).decode())
    write(folder, "keeper.md", "# Lighthouse\n\nThe lighthouse keeper writes the ledger every night at ten.\n")
    lib = open_library(folder)
    lib.reconcile()
    noise_doc = next(d for d in lib.index.store.documents() if d.relpath == "noise.txt")
    rows = lib.index.store.document_paragraphs(noise_doc.doc_id)
    assert sum(r.junk for r in rows) >= 0.95 * len(rows), "random letters are recognised"
    assert len(lib.index.vectors.ids_for_document(noise_doc.doc_id)) <= 0.02 * len(rows), "and not embedded"
    for query in ("lighthouse keeper ledger", "who writes the ledger", "night watch at the lighthouse"):
        hits = lib.retrieve(query, top_k=5).results
        assert hits[0].text.startswith("The lighthouse keeper"), (query, hits[0].text[:80])
    junk_row = next(r for r in rows if r.junk)
    word = max(junk_row.text.split(), key=len)  # a "word" only the noise holds is still found in it
    assert any(
        r.para_idx == junk_row.para_idx and r.doc_id == noise_doc.doc_id for r in lib.retrieve(word, top_k=3).results
    )


def test_one_documents_flood_cannot_push_out_another_documents_best_hit(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    flood = "\n\n".join(f"Heron sighting number {i} at the reed bed by the north pond." for i in range(300))
    write(folder, "log.md", f"# Sightings\n\n{flood}\n")
    write(folder, "guide.md", "# Guide\n\nThe grey heron nests in colonies near reed beds.\n")
    lib = open_library(folder)
    lib.reconcile()
    guide = next(d.doc_id for d in lib.index.store.documents() if d.relpath == "guide.md")
    for top_k in (2, 3, 5):  # the flood takes at most half (rounded up) while the guide has a candidate
        by_doc = [h.doc_id for h in lib.retrieve("heron reed bed", top_k=top_k).results]
        assert guide in by_doc, top_k


def test_a_paragraph_longer_than_the_budget_is_read_in_parts_to_its_end(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    from indexer.tokens import count_tokens
    from server.render import render_section

    items = "\n".join(f"- item {i}: the inventory line number {i} of the store" for i in range(300))
    write(folder, "list.md", f"# List\n\n{items}\n")
    lib = open_library(folder, token_budget=1000)
    lib.reconcile()
    doc = lib.toc().documents[0].doc_id
    first = lib.read_section(doc, 0)
    assert "this is part 1 of" in (first.hint or "") and "part=2) reads the next" in (first.hint or "")
    texts = [first.paragraphs[0].text]
    part = 2
    while True:
        answer = lib.read_section(doc, 0, start_para=0, part=part)
        assert count_tokens(render_section(answer)) <= 1000
        texts.append(answer.paragraphs[0].text)
        if answer.part == answer.n_parts:
            assert answer.next_start_para is None and "Last part" in (answer.hint or "")
            break
        part += 1
    assert " ".join(texts).split() == lib.index.store.paragraphs(doc, 0, 0, 0)[0].text.split(), (
        "every word, once, in order"
    )


def test_a_file_renamed_between_the_walk_and_its_read_keeps_its_document(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """A walk lists a file, which is renamed before it is read: no failure ('No such file') goes
    with its bytes to the new name, where it would stay, its size and time unchanged."""
    write(folder, "a.md", "# Kingfisher\n\nThe kingfisher dives from the alder branch.\n")
    lib = open_library(folder)
    lib.reconcile()
    doc_id = lib.toc().documents[0].doc_id
    root = folder.resolve()
    (folder / "a.md").rename(folder / "b.md")
    reconciler = lib.index.writing.reconciler  # type: ignore[union-attr]
    report = reconciler.sync({(str(root), "a.md"): root / "a.md"}, [])  # as listed a moment before
    assert report.deferred == [root / "a.md"] and not report.failed, "gone since listed: looked at again"
    lib.sync_paths([folder / "a.md", folder / "b.md"])  # the rename's event
    toc = lib.toc()
    assert [(d.doc_id, d.path, d.status) for d in toc.documents] == [(doc_id, "b.md", "ready")] and not toc.failed
    assert lib.retrieve("kingfisher alder", top_k=1).results[0].doc_id == doc_id


def test_a_file_that_failed_as_missing_is_read_once_it_is_there(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """A row an earlier version left failed with a missing file's reason, over a file that is there
    with the same size and time, is read again."""
    write(folder, "a.md", "# Kingfisher\n\nThe kingfisher dives from the alder branch.\n")
    lib = open_library(folder)
    lib.reconcile()
    doc_id = lib.toc().documents[0].doc_id
    lib.index.store.set_status(doc_id, "failed", "cannot read file: No such file or directory")
    lib.reconcile()
    assert [(d.doc_id, d.status) for d in lib.toc().documents] == [(doc_id, "ready")]

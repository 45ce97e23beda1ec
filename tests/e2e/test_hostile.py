"""A folder a hostile (or just unlucky) user could make: every entry gets an outcome with a
reason, the good files stay searchable, and no answer breaks its token budget.

Real files of every troublesome kind are generated (`benchmarks/robustness/hostile.py`: link loops, a
FIFO, a socket, a name that is not UTF-8, UTF-16, giant words and tables, 20,000 headings, a
zip bomb, bad PDFs) and indexed by the real Library (SQLite, Chroma, MiniLM, the MinerU child).
The same folder's peak memory is measured by `python -m benchmarks.robustness.hostile`.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from benchmarks.robustness.hostile import MB, make_hostile_folder
from indexer.errors import InvalidArgument
from indexer.library import Library
from indexer.tokens import count_tokens, lexical_terms
from server.render import render_retrieve, render_section, render_toc

pytestmark = pytest.mark.slow  # a minute of real indexing: `pytest -m "not slow"` skips it

BUDGET = 4000


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    sock = make_hostile_folder(folder)
    yield folder
    sock.close()


@pytest.fixture(scope="module")
def library(hostile: Path, tmp_path_factory: pytest.TempPathFactory) -> Library:
    from indexer.library import LibraryConfig

    config = LibraryConfig(
        roots=[hostile],
        data_dir=tmp_path_factory.mktemp("data"),
        models_dir=tmp_path_factory.mktemp("models"),
        token_budget=BUDGET,
        max_file_bytes=6 * MB,
    )
    lib = Library(config)
    started = time.monotonic()
    lib.reconcile()
    lib.indexing_seconds = time.monotonic() - started  # type: ignore[attr-defined]
    yield lib
    lib.close()


@pytest.mark.timeout(300)
def test_every_entry_has_an_outcome_and_the_good_files_are_searchable(library: Library) -> None:
    toc = library.toc()
    assert count_tokens(render_toc(toc)) <= BUDGET
    failed = {d.relpath: d.reason for d in library.index.store.documents() if d.status == "failed"}
    names = {d.relpath for d in library.index.store.documents() if d.readable}
    assert names == {
        "good.md",
        "notes.txt",
        "caf\\xe9.md",
        "utf16-bom.txt",
        "utf16-nobom.md",
        "one-bad-byte.md",
        "long-word.md",
        "giant-row.md",
        "headings.md",
        "only-headings.md",
        "large.md",
        "whole.pdf",
    }
    expected = {
        "loop-a.md": "symbolic link loop",
        "loop-b.md": "symbolic link loop",
        "dangling.md": "symbolic link to a missing file",
        "pipe.md": "named pipe (FIFO), not a regular file",
        "socket.md": "a socket, not a regular file",
        "oversized.md": "over the file size limit of 6 MB",
        "bomb.docx": "zip bomb",
        "locked.pdf": "encrypted PDF",
        "truncated.pdf": "not a readable PDF",
        "zero-pages.pdf": "the PDF has no pages",
        "binary.md": "binary content",
    }
    assert set(failed) == set(expected), failed
    for name, reason in expected.items():
        assert reason in failed[name], (name, failed[name])
    assert "alias.md" not in names, "a link to a file in the folder is that file, indexed once"
    assert "over the file size limit (DEEPREAD_MAX_FILE_MB) of 6 MB" in render_toc(toc), "the map names the setting"

    for query, path in [
        ("tomatoes watering", "good.md"),
        ("heron reed bed", "notes.txt"),
        ("onion soup bistro", "caf\\xe9.md"),
        ("relevé des comptes février", "utf16-bom.txt"),
        ("réunion du comité", "utf16-nobom.md"),
        ("crème brûlée tiède", "one-bad-byte.md"),
        ("zebrafinch", "long-word.md"),
        ("lantern festival season", "large.md"),
        ("quarterly revenue region", "whole.pdf"),
    ]:
        found = {library.index.store.document(r.doc_id).relpath for r in library.retrieve(query, top_k=10).results}
        assert path in found, (query, found)
    creme = next(d.doc_id for d in library.index.store.documents() if d.relpath == "one-bad-byte.md")
    brulee = library.retrieve("crème brûlée", top_k=1, doc_ids=[creme]).results[0]
    assert "crème brûlée est servie tiède" in brulee.text, "one bad byte does not turn the file into mojibake"


def test_a_restart_reads_nothing_again_and_never_blocks(library: Library) -> None:
    started = time.monotonic()
    report = library.reconcile()  # the FIFO is not opened again, the loop not followed
    assert time.monotonic() - started < 30
    assert not report.indexed


def test_headings_alone_are_a_readable_document(library: Library) -> None:
    doc = next(d for d in library.index.store.documents() if d.relpath == "only-headings.md")
    toc = library.toc(doc.doc_id)
    assert [s.title for s in toc.documents[0].sections] == ["Outline", "First part", "Second part", "Detail"]
    assert library.read_section(doc.doc_id, 2).hint  # says where the text is: its sub-sections


def test_giant_words_and_rows_keep_every_budget(library: Library) -> None:
    word = next(d for d in library.index.store.documents() if d.relpath == "long-word.md")
    for start in (0, 1):  # paragraph 1 is the word itself
        section = library.read_section(word.doc_id, 0, start_para=start)
        assert count_tokens(render_section(section)) <= BUDGET
    assert "longer than the token budget: this is part 1 of" in (section.hint or "")
    # The giant row is stored in pieces; its hits share the budget and the other documents' are still there.
    ids = {d.relpath: d.doc_id for d in library.index.store.documents()}
    scope = [ids["giant-row.md"], ids["good.md"], ids["notes.txt"]]
    result = library.retrieve("values id heron tomatoes", top_k=5, doc_ids=scope)
    text = render_retrieve(result)
    assert count_tokens(text) <= BUDGET and len(text) < 40 * BUDGET
    hits = [r for r in result.results if r.is_hit]
    assert {ids["good.md"], ids["notes.txt"]} <= {r.doc_id for r in hits}
    assert all(r.text.endswith(("nine.", "dawn.")) for r in hits if r.doc_id != ids["giant-row.md"])
    for r in result.results:  # a piece cut to share the budget says how to read it whole
        if r.clipped:
            assert f"read_section(doc_id={r.doc_id}, sec_id={r.sec_id}, start_para={r.para_idx}" in r.text
    # and read to its last value, answer by answer
    start: int | None = 0
    last = ""
    while start is not None:
        section = library.read_section(ids["giant-row.md"], 0, start_para=start)
        assert count_tokens(render_section(section)) <= BUDGET
        last, start = section.paragraphs[-1].text, section.next_start_para
    assert last.rstrip(" |").endswith("59998,59999")


def test_twenty_thousand_headings_fit_the_budget_at_every_depth(library: Library) -> None:
    doc = next(d for d in library.index.store.documents() if d.relpath == "headings.md")
    for toc in (
        library.toc(),
        library.toc(max_depth=0),
        library.toc(doc.doc_id),
        library.toc(doc.doc_id, max_depth=0),
        library.toc(doc.doc_id, sec_id=0),
        library.toc(doc.doc_id, sec_id=0, after=15_000),
    ):
        assert count_tokens(render_toc(toc)) <= BUDGET
    assert count_tokens(render_section(library.read_section(doc.doc_id, 0))) <= BUDGET


def test_queries_that_would_freeze_or_flood_are_answered(library: Library) -> None:
    started = time.monotonic()
    assert len(lexical_terms("y" * 150_000 + " 10-k")) == 4  # linear: a long word is one pass, not one per letter
    with pytest.raises(InvalidArgument, match="the limit is 2,000"):
        library.retrieve("z" * MB)
    result = library.retrieve("q" * 1999, top_k=3)
    assert len(result.query) < 200 and count_tokens(render_retrieve(result)) <= BUDGET
    for query in ["?!…", "\x00\x00", "🙂🙃", "   "]:
        with pytest.raises(InvalidArgument):
            library.retrieve(query)
    with pytest.raises(InvalidArgument, match="doc_ids is empty"):
        library.retrieve("heron", doc_ids=[])
    assert time.monotonic() - started < 30
    assert library.indexing_seconds < 240  # type: ignore[attr-defined]

"""The index's files damaged or not writable, on real SQLite and real Chroma files.

What the end-to-end tests (tests/e2e/test_damage.py, test_full_disk.py) show through the CLI and
the MCP client rests on these: a cut file is told from a sound one, what it still holds is read
back, a failed write leaves the store ready for the next, and a damaged Chroma store is filled
again from the vectors' copy without embedding.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from indexer.errors import CannotWrite
from indexer.library import Library
from indexer.store.database import Store
from indexer.store.health import check, readable_rows
from indexer.store.space import write_failure
from indexer.store.vectors import VectorIndex
from tests.conftest import write


def cut(path: Path, keep: float) -> None:
    with open(path, "r+b") as f:
        f.truncate(int(path.stat().st_size * keep))


def filled_store(path: Path, documents: int) -> Store:
    store = Store(path)
    for i in range(documents):
        store.add_document("/docs", f"note-{i:04}.md")
    with store.transaction() as db:  # pages enough that a cut loses some
        db.executemany("INSERT INTO meta VALUES (?, ?)", [(f"k{i}", "x" * 3000) for i in range(200)])
    return store


def test_a_cut_file_is_told_from_a_sound_one_and_what_it_holds_is_read_back(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    filled_store(path, 300).close()
    assert check(path) is None
    cut(path, 0.5)
    assert check(path) == "database disk image is malformed"
    with pytest.raises(Exception, match="malformed"):  # what SQLite itself says of it
        Store(path)
    rows, whole = readable_rows(path, "SELECT * FROM documents", "doc_id")
    assert whole and [r["doc_id"] for r in rows] == list(range(1, 301)), "the documents' pages lie before the cut"


def test_a_write_that_finds_the_disk_full_says_so_and_the_next_one_starts_clean(tmp_path: Path) -> None:
    """SQLite's own full-disk error (SQLITE_FULL), made by a page limit rather than a full disk."""
    store = filled_store(tmp_path / "index.sqlite3", 3)
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(CannotWrite) as raised, store.transaction() as db:
        db.executemany("INSERT INTO meta VALUES (?, ?)", [(f"big{i}", "y" * 5000) for i in range(50)])
    failure = raised.value
    assert failure.kind == "full" and failure.path == str(tmp_path / "index.sqlite3")
    assert str(failure).startswith(f"cannot write the index ({tmp_path / 'index.sqlite3'}): the disk is full, ")
    assert not store._db.in_transaction, "a failed write leaves no transaction open"
    assert [d.relpath for d in store.documents()] == ["note-0000.md", "note-0001.md", "note-0002.md"]
    store._db.execute(f"PRAGMA max_page_count = {pages * 100}")  # space freed
    store.add_document("/docs", "later.md")
    assert len(store.documents()) == 4


def test_os_errors_of_a_write_are_told_and_others_are_not(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    full = write_failure(OSError(28, "No space left on device", str(data / "parse-cache" / "x.json.gz")))
    assert full is not None and full.fact.startswith(f"cannot write the parse cache ({data}/parse-cache/x.json.gz)")
    denied_outside = OSError(13, "Permission denied", str(tmp_path / "docs" / "report.pdf"))
    assert write_failure(denied_outside, data) is None, "a document that cannot be read is not a write failure"
    assert write_failure(ValueError("no")) is None


def test_a_damaged_chroma_store_answers_from_the_copy_and_is_filled_again_without_embedding(
    tmp_path: Path, folder: Path, open_library: Callable[..., Library]
) -> None:
    for name in ("otters", "herons", "cedars"):
        write(folder, f"{name}.md", f"# {name.title()}\n\n## One\n\n{name} live here.\n\n## Two\n\n{name} eat there.\n")
    data = tmp_path / "data"
    first = open_library(folder, data_dir=data)
    first.reconcile()
    assert isinstance(first.index.vectors, VectorIndex)
    vectors_before = first.index.vectors.count()
    first.close()
    cut(data / "chroma" / "chroma.sqlite3", 0.5)

    library = open_library(folder, data_dir=data)
    assert library.index.writing is not None
    assert any(p.name.startswith("chroma.damaged-") for p in data.iterdir())
    hits = library.retrieve("where do herons live", top_k=1)  # before Chroma is refilled: the copy answers
    assert hits.results[0].text.startswith("herons live")
    assert library.wait_for_vectors(120)
    assert library.index.writing.catchup.embedded == 0, "every vector came back from the copy"
    assert isinstance(library.index.vectors, VectorIndex) and library.index.vectors.count() == vectors_before
    assert "Semantic search was rebuilt" in (library.toc().hint or "")


def test_a_damaged_copy_keeps_what_it_can_and_chroma_answers_meanwhile(tmp_path: Path) -> None:
    found: list = []
    vectors = VectorIndex("paragraphs", path=tmp_path / "chroma", copy=tmp_path / "vectors.sqlite3")
    rng = np.random.default_rng(0)
    matrix = rng.random((400, 384)).astype(np.float32)
    ids = [f"{i // 40}:{i:04}" for i in range(400)]
    vectors.add(ids, [i // 40 for i in range(400)], matrix)
    vectors.close()
    cut(tmp_path / "vectors.sqlite3", 0.5)

    reopened = VectorIndex(
        "paragraphs", path=tmp_path / "chroma", copy=tmp_path / "vectors.sqlite3", on_damage=found.append
    )
    assert [d.name for d in found][:1] == ["vectors.sqlite3"]
    assert reopened.query(matrix[7], 1, None)[0][0] == ids[7], "Chroma answers while the copy is damaged"
    aside, kept = reopened.replace_copy()
    assert aside is not None and aside.name.startswith("vectors.sqlite3.damaged-") and aside.exists()
    assert 0 < kept < 400
    complete = set().union(*(reopened.ids_for_document(d) for d in range(10)))
    assert len(complete) == kept, "the vectors the copy lost are the ones the catch-up lane embeds again"

"""A search scoped to documents scans their vectors exactly (kept in memory after the first
query) instead of Chroma's filtered index: the same ranking, and an edit is seen at once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from indexer.library import Library
from tests.conftest import write

TOPICS = [
    "tides and the moon",
    "baking sourdough bread",
    "repairing a bicycle chain",
    "the life of honey bees",
    "volcanic eruptions in Iceland",
    "learning to play the cello",
    "migrating arctic terns",
    "compound interest",
]


def test_a_scoped_search_ranks_like_a_full_search_and_sees_edits(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    for i in range(3):
        body = "\n\n".join(
            f"Note {j} of file {i}: {topic}, seen from angle {j * 3 + i}." for j, topic in enumerate(TOPICS)
        )
        write(folder, f"notes{i}.md", f"# Notes {i}\n\n{body}")
    lib = open_library(folder)
    lib.reconcile()
    doc = lib.toc().documents[1].doc_id
    query = lib.index.embedder.embed(["bees making honey"])[0]

    scoped = lib.index.vectors.query(query, 5, [doc])
    everything = [(vid, s) for vid, s in lib.index.vectors.query(query, 100, None) if vid.startswith(f"{doc}:")][:5]
    assert [vid for vid, _ in scoped] == [vid for vid, _ in everything]
    assert all(abs(a - b) < 1e-4 for (_, a), (_, b) in zip(scoped, everything, strict=True))
    assert lib.retrieve("bees making honey", top_k=1, doc_ids=[doc]).results[0].text.startswith("Note 3 of file 1")

    write(folder, "notes1.md", "# Notes 1\n\nHives of honey bees swarm in spring to found a new colony.")
    lib.reconcile()
    hit = lib.retrieve("bees making honey", top_k=1, doc_ids=[doc]).results[0]
    assert hit.text.startswith("Hives of honey bees"), "the edit is seen: the document's copy was dropped"
    lib.index.use_search("dense")
    assert len(lib.retrieve("bees making honey", top_k=5, doc_ids=[doc]).results) == 1, "the old vectors are gone"


def test_an_index_older_than_its_vector_copy_fills_it_at_the_first_scoped_query(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """An index made before the copy existed (or whose copy was deleted): a scoped query copies
    its documents' vectors from Chroma once, ranks as before, and later writes keep the copy true."""
    for i in range(3):
        write(folder, f"notes{i}.md", f"# Notes {i}\n\n" + "\n\n".join(f"File {i} on {t}." for t in TOPICS))
    lib = open_library(folder)
    lib.reconcile()
    lib.wait_for_vectors(60)
    doc = lib.toc().documents[2].doc_id
    data_dir = lib.config.data_dir
    lib.close()
    for suffix in ("", "-wal", "-shm"):
        (data_dir / f"vectors.sqlite3{suffix}").unlink(missing_ok=True)

    lib = open_library(folder)
    query = lib.index.embedder.embed(["arctic birds migrating"])[0]
    assert lib.index.vectors._copy is not None and lib.index.vectors._copy.unfilled([doc]) == [doc]
    scoped = lib.index.vectors.query(query, 3, [doc])
    everything = [(vid, s) for vid, s in lib.index.vectors.query(query, 100, None) if vid.startswith(f"{doc}:")][:3]
    assert [vid for vid, _ in scoped] == [vid for vid, _ in everything]
    assert lib.index.vectors._copy.unfilled([doc]) == [], "filled once"

    write(folder, "notes2.md", "# Notes 2\n\nTerns fly from pole to pole every year.")
    lib.reconcile()
    lib.wait_for_vectors(60)
    lib.index.use_search("dense")
    hits = lib.retrieve("arctic birds migrating", top_k=5, doc_ids=[doc]).results
    assert [h.text for h in hits] == ["Terns fly from pole to pole every year."], (
        "the edit replaced its vectors in the copy"
    )

"""A dense score per paragraph at a passage's price: each paragraph of a passage has its own vector,
pooled from the passage's one pass, and orders the passage's paragraphs (not their shared words)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from indexer.library import Library
from indexer.models import section_paths
from indexer.store.rows import ParagraphRow
from indexer.store.vectors import CopyVectors
from indexer.structure.passages import Passage, describe, vector_ids
from tests.conftest import write

CLUB = """# Harbour Rowing Club — Season Notes

## Club business

The next meeting is scheduled after the regatta.

Dues, the regatta's entry fees and the barbecue brought in more than the season's expenses: the club closed the year with a surplus of $1,200.

Membership renewals are due by the first of March; late renewals pay a ten-dollar fee.

The committee thanks the volunteers who ran the barbecue stall.

## On the water

Crew members meet at the boathouse at eight and carry the boats down together.

Wear sunglasses and a visor on bright afternoons: the glare off the water is strong.

Boats leave the dock at nine sharp; latecomers help rig the next boat.

Report any damage to the boat captain before the boat is put away.
"""

FEES = """# Fees

## Dues

Dues are paid once a year.

| Member | Dues |
|---|---|
| Adult | $120 |
| Junior | $60 |

Families pay the adult rate for one member and the junior rate for the others.
"""


def test_the_paragraph_that_answers_comes_first_not_the_one_sharing_a_word(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    write(folder, "club.md", CLUB)
    lib = open_library(folder)
    lib.reconcile()
    money = lib.retrieve("money left over after expenses", top_k=5).results
    assert "surplus" in money[0].text, [r.text[:50] for r in money]
    eyes = lib.retrieve("what should a crew member wear to protect the eyes", top_k=5).results
    assert "sunglasses" in eyes[0].text, [r.text[:50] for r in eyes]


def test_each_paragraph_of_a_passage_gets_a_vector_read_in_the_passage_from_one_pass(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    write(folder, "club.md", CLUB)
    write(folder, "fees.md", FEES)
    lib = open_library(folder)
    lib.reconcile()
    rows: dict[int, list[ParagraphRow]] = {}
    passages: dict[str, Passage] = {}
    for doc in lib.index.store.documents():
        rows[doc.doc_id] = lib.index.store.document_paragraphs(doc.doc_id)
        passages.update(
            vector_ids(doc.doc_id, rows[doc.doc_id], section_paths(lib.index.store.sections(doc.doc_id)), True)[1]
        )
    shared = [vid for vid, p in passages.items() if len(p.members) > 1]
    owner = {vid: rows[int(vid.split(":")[0])] for vid in shared}
    assert any(owner[vid][i].kind == "table" for vid in shared for i in passages[vid].members), (
        "a short table shares one"
    )
    kept = lib.index.vectors.member_vectors(shared, lib.index.embedder.dim)
    assert set(kept) == set(shared)
    for vid in shared:
        passage = passages[vid]
        doc_rows = owner[vid]
        # Each span holds what the model read of its paragraph: its text, a table's description.
        assert [passage.text[a:b] for a, b in passage.spans] == [describe(doc_rows[i]) for i in passage.members]
        assert kept[vid].shape == (len(passage.members), lib.index.embedder.dim)
        norms = np.linalg.norm(kept[vid], axis=1)
        assert np.allclose(norms, 1.0, atol=1e-2)  # unit vectors (float16 kept)
        # Each is its own paragraph's, read in context: on the whole nearer that paragraph read alone
        # than the others (not always: a short paragraph's tokens take much from their neighbours).
        similarity = kept[vid] @ lib.index.embedder.embed([describe(doc_rows[i]) for i in passage.members]).T
        own = np.diag(similarity)
        assert own.mean() > (similarity.sum() - own.sum()) / (similarity.size - len(own)) + 0.1, similarity.round(2)
    # A process that reads the index another one writes reads them from the same copy.
    reader = CopyVectors(lib.config.data_dir / "vectors.sqlite3")
    try:
        assert {vid: v.tolist() for vid, v in reader.member_vectors(shared, lib.index.embedder.dim).items()} == {
            vid: v.tolist() for vid, v in kept.items()
        }
    finally:
        reader.close()
    # The passage's own vector is what it was without spans: one pass gives both.
    passage = passages[shared[0]]
    whole, _ = lib.index.embedder.embed_passages([passage.text], [passage.spans])
    assert np.allclose(whole[0], lib.index.embedder.embed([passage.text])[0], atol=1e-6)


def test_a_passage_without_paragraph_vectors_orders_its_paragraphs_by_their_words(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """An index whose copy lost them (or a Chroma filled before them) still ranks: by BM25 within
    the passage, as before paragraph vectors."""
    write(folder, "club.md", CLUB)
    lib = open_library(folder)
    lib.reconcile()
    (_doc,) = lib.index.store.documents()
    lib.index.vectors._copy._db.execute("DELETE FROM members")  # type: ignore[union-attr]
    lib.index.use_search("dense")
    hits = lib.retrieve("the glare of sunglasses and a visor", top_k=3).results
    assert "sunglasses" in hits[0].text, "the passage's rank goes to the paragraph holding the words"

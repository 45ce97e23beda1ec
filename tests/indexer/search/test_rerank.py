"""The optional cross-encoder stage.

No cross-encoder weights ship with deepread and none can be downloaded on this
machine, so the ranking test runs only when DEEPREAD_TEST_RERANKER_PATH names a
local folder holding Xenova/ms-marco-MiniLM-L-6-v2 (model.onnx + tokenizer
files). What needs no weights — the error a user gets when they are missing —
always runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from indexer.errors import ModelUnavailable
from indexer.library import Library

RERANKER = "Xenova/ms-marco-MiniLM-L-6-v2"
WEIGHTS = os.environ.get("DEEPREAD_TEST_RERANKER_PATH")


def test_a_folder_without_weights_is_refused_with_what_it_needs(
    tmp_path: Path, folder: Path, open_library: Callable[..., Library]
) -> None:
    empty = tmp_path / "reranker"
    empty.mkdir()
    with pytest.raises(ModelUnavailable, match=r"no model\.onnx.*tokenizer\.json"):
        open_library(folder, reranker=RERANKER, reranker_path=empty)


@pytest.mark.skipif(not WEIGHTS, reason="set DEEPREAD_TEST_RERANKER_PATH to a local cross-encoder folder")
def test_reranking_puts_the_answering_paragraph_first(folder: Path, open_library: Callable[..., Library]) -> None:
    (folder / "pets.md").write_text(
        "# Pets\n\nCats sleep for most of the day.\n\n"
        "Dogs need a walk twice a day.\n\n"
        "A hamster lives for about two to three years.\n"
    )
    lib = open_library(folder, reranker=RERANKER, reranker_path=Path(WEIGHTS or ""))
    lib.reconcile()
    hits = [r for r in lib.retrieve("How long does a hamster live?", top_k=3).results if r.is_hit]
    assert hits[0].text.startswith("A hamster lives")
    assert hits[0].score is not None and hits[0].score > hits[-1].score  # type: ignore[operator]

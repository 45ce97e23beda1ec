"""An exact code wins: asked for an invoice, part or case number, the paragraph that holds that
very code comes first, above paragraphs whose codes share its pieces. Real files, the real store,
Chroma and the offline model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from indexer.library import Library
from tests.conftest import write

CODES = [
    ("INV-2024-00417", "INV-2024-00471"),
    ("ZX-88-A71", "ZX-88-A17"),
    ("77B-4410", "77B-4401"),
    ("CASE-19-0042", "CASE-19-0024"),
]


@pytest.fixture
def invoices(folder: Path, open_library: Callable[..., Library]) -> Library:
    for n, (code, neighbour) in enumerate(CODES):
        # The neighbour's paragraph says what the question asks about; the code's own only holds it.
        write(
            folder,
            f"billing/{n}-a.md",
            f"# Invoices due\n\nPayment of invoice {neighbour} for replacement parts is due within thirty days of "
            "delivery; late payment of an invoice adds a fee.\n",
        )
        write(folder, f"billing/{n}-b.md", f"# Dock log\n\nThe crate labelled {code} was unloaded at bay four.\n")
    for n in range(24):  # a folder of other documents around them, each printing its form's number
        write(folder, f"notes/{n}.md", f"# Note {n}\n\nFORM-7A: the spring order arrived on day {n} with its parts.\n")
    library = open_library(folder)
    library.reconcile()
    return library


@pytest.mark.parametrize("mode", ["hybrid", "lexical"])
def test_the_paragraph_holding_the_exact_code_ranks_first(invoices: Library, mode: str) -> None:
    invoices.index.use_search(mode)  # type: ignore[arg-type]
    for code, neighbour in CODES:
        for query in (code, f"when is payment of invoice {code} due"):
            hits = [r for r in invoices.retrieve(query, top_k=5).results if r.is_hit]
            assert code in hits[0].text and neighbour not in hits[0].text, (mode, query, hits[0].text)


def test_a_code_many_paragraphs_hold_is_no_one_things(invoices: Library) -> None:
    """A form's number every note prints names none of them: the rest of the query ranks them."""
    hits = [r for r in invoices.retrieve("FORM-7A order that arrived on day 17", top_k=3).results if r.is_hit]
    assert hits and "day 17 " in hits[0].text, hits[0].text

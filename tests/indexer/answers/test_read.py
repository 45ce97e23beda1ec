"""read_section on real documents: order, clipping, errors that say what is valid, the budget."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from indexer.errors import InvalidArgument, NotFound
from indexer.library import Library
from tests.conftest import write
from tests.indexer.conftest import doc_id


def test_read_section_reads_in_order_and_clips(library: Library) -> None:
    guide = doc_id(library, "guide.md")
    whole = library.read_section(guide, 1)
    assert [p.para_idx for p in whole.paragraphs] == [0, 1, 2]
    assert whole.paragraphs[1].text.startswith("Test the pH")
    assert (whole.start_para, whole.end_para, whole.next_start_para) == (0, 2, None)

    part = library.read_section(guide, 1, start_para=1, end_para=99)
    assert [p.para_idx for p in part.paragraphs] == [1, 2] and part.end_para == 2

    head = library.read_section(guide, 1, start_para=0, end_para=0)
    assert head.next_start_para == 1 and "start_para=1" in (head.hint or "")

    parent = library.read_section(guide, 3)
    assert parent.paragraphs == [] and "[4, 5]" in (parent.hint or "")


def test_read_section_errors_say_what_is_valid(library: Library) -> None:
    guide = doc_id(library, "guide.md")
    with pytest.raises(NotFound, match=f"doc {guide} has no section 42; its sections are 0–5"):
        library.read_section(guide, 42)
    with pytest.raises(InvalidArgument, match="paragraphs 0–2"):
        library.read_section(guide, 1, start_para=7)
    with pytest.raises(InvalidArgument, match="end_para ≥ start_para"):
        library.read_section(guide, 1, start_para=2, end_para=1)
    with pytest.raises(NotFound, match="no document 777"):
        library.read_section(777, 0)


def test_read_section_token_budget_continues_exactly(folder: Path, open_library: Callable[..., Library]) -> None:
    paragraphs = [f"Paragraph {i}: " + "word " * 150 for i in range(12)]
    write(folder, "long.md", "# Long\n\n" + "\n\n".join(paragraphs))
    lib = open_library(folder, token_budget=600)
    lib.reconcile()
    doc = lib.toc().documents[0].doc_id
    seen: list[int] = []
    start = 0
    for _ in range(20):
        part = lib.read_section(doc, 0, start_para=start)
        assert sum(len(p.text.split()) for p in part.paragraphs) <= 600
        seen += [p.para_idx for p in part.paragraphs]
        if part.next_start_para is None:
            break
        assert f"start_para={part.next_start_para}" in (part.hint or "")
        start = part.next_start_para
    assert seen == list(range(12)), "continuing from next_start_para reads every paragraph once, in order"

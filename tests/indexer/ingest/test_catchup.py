"""A document is usable as soon as it is parsed: listed, readable and found by keyword search
before its vectors exist; semantic search catches up on its own thread, says how far it has
got, and what a stop leaves undone the next start completes."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from indexer.library import Library
from server.render import render_retrieve, render_toc
from tests.conftest import write

HERONS = "# Herons\n\nThe grey heron waits motionless in the reed bed for fish.\n\n## Nesting\n\nHerons nest in colonies called heronries.\n"
OTTERS = "# Otters\n\nSea otters hold hands while they sleep so they do not drift apart.\n"


def test_documents_are_readable_and_found_by_keyword_before_their_vectors(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    write(folder, "herons.md", HERONS)
    write(folder, "otters.md", OTTERS)
    lib = open_library(folder)
    with lib.index.writing.catchup.held():
        report = lib.reconcile(wait=False)
        assert sorted(report.indexed) == ["herons.md", "otters.md"]

        toc = lib.toc()
        assert [d.semantic for d in toc.documents] == [False, False]
        assert "vectors pending" in render_toc(toc)
        assert "Semantic search is catching up: 3 paragraphs of 2 document(s) left" in (toc.hint or "")
        herons = next(d.doc_id for d in toc.documents if d.path == "herons.md")
        assert "reed bed" in lib.read_section(herons, 0).paragraphs[0].text

        found = lib.retrieve("heron reed bed")
        assert found.results[0].doc_id == herons, "keyword search finds it at once"
        scoped = lib.retrieve("heron reed bed", doc_ids=[herons])  # no vector of it exists yet
        assert scoped.results[0].doc_id == herons and scoped.coverage is not None
        assert found.coverage is not None and (found.coverage.documents, found.coverage.semantic) == (2, 0)
        assert "Semantic search covers 0 of 2 documents so far" in render_retrieve(found)
        lib.index.use_search("dense")
        assert lib.retrieve("heron reed bed").results == [], "no vector exists yet"
        lib.index.use_search("hybrid")

    assert lib.wait_for_vectors(60), "the lane finishes once released"
    toc = lib.toc()
    assert all(d.semantic for d in toc.documents) and "vectors pending" not in render_toc(toc)
    assert toc.hint is None or "catching up" not in toc.hint
    assert lib.retrieve("heron reed bed").coverage is None
    lib.index.use_search("dense")
    assert lib.retrieve("animals that sleep holding hands").results[0].text.startswith("Sea otters")
    assert lib.index.vectors.count() == 3


def test_an_edit_keeps_the_vectors_of_unchanged_paragraphs(folder: Path, open_library: Callable[..., Library]) -> None:
    write(folder, "herons.md", HERONS)
    lib = open_library(folder)
    assert lib.reconcile().embedded == 2
    write(folder, "herons.md", HERONS.replace("colonies called heronries", "tall trees near water"))
    report = lib.reconcile()
    assert report.indexed == ["herons.md"] and report.embedded == 1, "only the edited paragraph is embedded again"
    assert lib.index.vectors.count() == 2 and lib.toc().documents[0].semantic


def test_vectors_a_stop_left_undone_are_completed_by_the_next_start(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    write(folder, "herons.md", HERONS)
    write(folder, "otters.md", OTTERS)
    data = tmp_path / "index"
    lib = open_library(folder, data_dir=data)
    with lib.index.writing.catchup.held():
        lib.reconcile(wait=False)
        assert lib.index.vectors.count() == 0
        lib.close()  # stops the lane: the documents are committed, their vectors are not

    again = open_library(folder, data_dir=data)
    assert again.wait_for_vectors(60), "the start finds what is missing and embeds it"
    assert again.index.store.awaiting_vectors() == [] and again.index.vectors.count() == 3
    assert all(d.semantic for d in again.toc().documents)
    assert again.reconcile().indexed == [], "nothing is parsed again"
    again.index.use_search("dense")
    assert again.retrieve("animals that sleep holding hands").results[0].text.startswith("Sea otters")


def test_quick_files_are_parsed_first_whatever_their_names(folder: Path, open_library: Callable[..., Library]) -> None:
    """A long PDF cannot hold short files behind it: text first, then by size; ids stay in path order."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "Kingfishers dive for small fish from a perch above the water. " * 8)
    pdf.output(str(folder / "a-report.pdf"))
    write(folder, "b-long.md", "# Long\n\n" + "\n\n".join(f"Paragraph {i} about tides." for i in range(300)))
    write(folder, "c-short.md", OTTERS)
    lib = open_library(folder)
    order: list[str] = []
    lib.reconcile(lambda p: order.append(p.path) if p.action == "indexed" else None)
    # two lanes: the text files are parsed side by side (either may finish first), the PDF after them
    assert sorted(order[:2]) == ["b-long.md", "c-short.md"] and order[2] == "a-report.pdf"
    ids = {d.path: d.doc_id for d in lib.toc().documents}
    assert ids["a-report.pdf"] < ids["b-long.md"] < ids["c-short.md"], "ids in path order, as before"


def test_a_query_no_document_contains_says_its_hits_are_only_near(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    write(folder, "herons.md", HERONS)
    lib = open_library(folder)
    lib.reconcile()
    nonsense = lib.retrieve("zzqxv flibbertigibbet")
    assert nonsense.results, "semantic search always has a nearest paragraph"
    assert "None of the query's words occurs in the documents searched" in (nonsense.caution or "")
    shown = render_retrieve(nonsense)
    assert shown.index("None of the query's words") < shown.index("#1 "), "said before the hits, not after"
    assert lib.retrieve("heron").caution is None


def test_a_document_waiting_for_vectors_is_not_outranked_for_its_own_words(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    """Dense search cannot see it yet: its keyword rank stands in, so the exact match wins."""
    write(folder, "otters.md", OTTERS)
    lib = open_library(folder)
    lib.reconcile()
    with lib.index.writing.catchup.held():
        write(folder, "badgers.md", "# Badgers\n\nBadgers dig setts in woodland.\n")
        lib.reconcile(wait=False)
        assert lib.retrieve("badgers woodland", top_k=1).results[0].text.startswith("Badgers")


def test_a_document_removed_while_its_vectors_are_made_leaves_none_behind(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    from indexer.ingest.catchup import embed_pending
    from indexer.ingest.reconcile import BATCH_PASSAGES

    # A section each: one passage each, so the vectors come in more than one batch.
    body = "\n\n".join(f"## Nest {i}\n\nParagraph {i} about the heron colony." for i in range(BATCH_PASSAGES + 40))
    write(folder, "herons.md", f"# Herons\n\n{body}\n")
    lib = open_library(folder)
    with lib.index.writing.catchup.held():  # the test plays the lane, and removes the file between its batches
        lib.reconcile(wait=False)
        (doc,) = lib.index.store.documents()
        calls = []

        def pace(paragraphs: int, seconds: float, passages: int) -> None:
            calls.append(paragraphs)
            if len(calls) == 2:  # after the first batch is in
                assert lib.index.vectors.ids_for_document(doc.doc_id), "the first batch was added"
                (folder / "herons.md").unlink()
                lib.reconcile(wait=False)

        embed_pending(lib.index.store, lib.index.vectors, lib.index.embedder, True, threading.Event(), pace)
        assert lib.index.store.document(doc.doc_id) is None
        assert lib.index.vectors.ids_for_document(doc.doc_id) == set() and lib.index.vectors.count() == 0, (
            "no orphan vectors"
        )


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads thread priorities from /proc")
def test_the_lane_computes_at_a_lower_priority_than_parsing_and_queries(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    from indexer.ingest.catchup import LANE_NICENESS

    base = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    if base >= LANE_NICENESS:
        pytest.skip(f"the tests run at nice {base} already")
    for i in range(8):
        write(
            folder,
            f"d{i}.md",
            f"# Doc {i}\n\n" + "\n\n".join(f"Heron {j} waits in the reeds of pond {i}." for j in range(40)),
        )
    lib = open_library(folder)
    assert lib.reconcile().embedded == 320

    def threads() -> list[tuple[int, int]]:
        """(nice, CPU ticks) of this process's threads."""
        out = []
        for task in Path("/proc/self/task").iterdir():
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            out.append((int(fields[16]), int(fields[11]) + int(fields[12])))
        return out

    lowered = [ticks for nice, ticks in threads() if nice == LANE_NICENESS]
    assert len(lowered) >= 2 and sum(lowered) > 0, (
        "the lane and the model threads it started run niced, and did the work"
    )
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == base, "the caller's thread keeps its priority"
    lib.index.use_search("dense")
    assert lib.retrieve("grey bird waiting in reeds").results, "queries use the model at normal priority"

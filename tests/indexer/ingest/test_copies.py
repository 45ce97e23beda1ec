"""Identical files are one document: listed once with its copies' paths, found once, kept by id.

Real files in a real library (SQLite, Chroma, the bundled model); a real PDF through MinerU for
the case that was reported (two copies of one PDF doubled every hit).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from fpdf import FPDF

from indexer.errors import NotFound
from indexer.library import Library
from server.render import render_toc
from tests.conftest import write

MANUAL = """# Espresso Machine Manual

## Cleaning

Descale every 3 months with citric acid; error code E-17 means the tank is empty.

## Brewing

Grind fine and tamp firmly before pulling a double shot.
"""
OTHER = "# Garden notes\n\nWater the tomatoes every morning in July.\n"


def _documents(lib: Library) -> dict[str, int]:
    return {d.path: d.doc_id for d in lib.toc().documents}


def _hit_docs(lib: Library, query: str) -> list[int]:
    return [r.doc_id for r in lib.retrieve(query, top_k=10).results if r.is_hit]


def test_two_copies_are_one_document_listed_with_its_other_path(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    write(folder, "manual.md", MANUAL)
    write(folder, "old/manual.md", MANUAL)
    write(folder, "garden.md", OTHER)
    lib = open_library(folder)
    lib.reconcile()
    toc = lib.toc()
    assert sorted(d.path for d in toc.documents) == ["garden.md", "manual.md"]
    manual = next(d for d in toc.documents if d.path == "manual.md")
    assert manual.copies == ["old/manual.md"] and manual.n_copies == 1
    assert "manual.md — Espresso Machine Manual" in render_toc(toc)
    assert "| also at old/manual.md" in render_toc(toc)
    hits = [r for r in lib.retrieve("error code E-17 tank empty", top_k=10).results if r.is_hit]
    assert hits[0].doc_id == manual.doc_id
    assert len({r.text for r in hits}) == len(hits), "each hit once: no paragraph found twice"
    # A search scoped to the copy's folder finds the document.
    scoped = lib.retrieve("descale citric acid", path="old")
    assert scoped.results and scoped.results[0].doc_id == manual.doc_id


def test_deleting_either_copy_keeps_the_document_and_its_id(folder: Path, open_library: Callable[..., Library]) -> None:
    write(folder, "a.md", MANUAL)
    write(folder, "b.md", MANUAL)
    lib = open_library(folder)
    lib.reconcile()
    (doc,) = lib.toc().documents
    assert (doc.path, doc.copies) == ("a.md", ["b.md"])

    (folder / "a.md").unlink()  # the document's own file: it lives on under its copy's path
    lib.sync_paths([folder / "a.md"])
    (after,) = lib.toc().documents
    assert (after.doc_id, after.path, after.copies) == (doc.doc_id, "b.md", [])
    assert lib.read_section(doc.doc_id, 1).paragraphs[0].text.startswith("Descale every 3 months")

    write(folder, "c.md", MANUAL)  # a copy again, then that copy deleted by a full reconcile
    lib.reconcile()
    assert lib.toc().documents[0].copies == ["c.md"]
    (folder / "c.md").unlink()
    lib.reconcile()
    (last,) = lib.toc().documents
    assert (last.doc_id, last.path, last.copies) == (doc.doc_id, "b.md", [])


def test_a_copy_that_changes_is_a_document_of_its_own(folder: Path, open_library: Callable[..., Library]) -> None:
    write(folder, "a.md", MANUAL)
    write(folder, "b.md", MANUAL)
    lib = open_library(folder)
    lib.reconcile()
    original = _documents(lib)["a.md"]

    write(folder, "b.md", MANUAL.replace("E-17", "E-99"))
    lib.sync_paths([folder / "b.md"])
    docs = _documents(lib)
    assert set(docs) == {"a.md", "b.md"} and docs["a.md"] == original and docs["b.md"] > original
    assert _hit_docs(lib, "E-99")[:1] == [docs["b.md"]]
    assert lib.toc().documents[0].copies == []


def test_editing_the_document_leaves_its_copy_with_the_old_text(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    write(folder, "a.md", MANUAL)
    write(folder, "b.md", MANUAL)
    lib = open_library(folder)
    lib.reconcile()
    original = _documents(lib)["a.md"]

    write(folder, "a.md", MANUAL.replace("citric acid", "white vinegar"))
    lib.sync_paths([folder / "a.md"])  # only the edited file's event: its copy is checked too
    docs = _documents(lib)
    assert docs["a.md"] == original, "the edited file keeps its id"
    assert "b.md" in docs and docs["b.md"] != original
    assert _hit_docs(lib, "white vinegar")[:1] == [original]
    assert _hit_docs(lib, "citric acid")[:1] == [docs["b.md"]]


def test_a_renamed_copy_stays_a_copy_and_ids_survive_a_restart(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    write(folder, "a.md", MANUAL)
    write(folder, "b.md", MANUAL)
    write(folder, "garden.md", OTHER)
    lib = open_library(folder)
    lib.reconcile()
    before = _documents(lib)
    os.rename(folder / "b.md", folder / "renamed.md")
    lib.sync_paths([folder / "b.md", folder / "renamed.md"])
    assert _documents(lib) == before
    assert next(d for d in lib.toc().documents if d.path == "a.md").copies == ["renamed.md"]
    lib.close()

    again = open_library(folder, data_dir=tmp_path / "data")
    again.index.store.forget_file_facts()  # as a parser upgrade does: every file read and structured again
    report = again.reconcile()
    assert _documents(again) == before
    assert next(d for d in again.toc().documents if d.path == "a.md").copies == ["renamed.md"]
    assert "renamed.md" not in report.indexed


def test_a_copy_id_is_refused_with_the_document_to_use(folder: Path, open_library: Callable[..., Library]) -> None:
    write(folder, "a.md", MANUAL)
    write(folder, "b.md", MANUAL)
    lib = open_library(folder)
    lib.reconcile()
    copy = lib.index.store.document_at(str(folder.resolve()), "b.md")
    assert copy is not None and copy.is_copy
    with pytest.raises(NotFound, match=rf"b.md is a copy of document {copy.copy_of} .*use doc_id={copy.copy_of}"):
        lib.read_section(copy.doc_id, 0)


def _pdf(path: Path) -> Path:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", style="B", size=18)
    pdf.multi_cell(0, 10, "Warranty Terms", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "The warranty covers the pump and the boiler for 24 months from the date of purchase.")
    pdf.output(str(path))
    return path


@pytest.mark.slow
def test_two_copies_of_one_pdf_are_one_document(folder: Path, open_library: Callable[..., Library]) -> None:
    _pdf(folder / "warranty.pdf")
    (folder / "downloads").mkdir()
    shutil.copy(folder / "warranty.pdf", folder / "downloads" / "warranty (1).pdf")
    lib = open_library(folder)
    report = lib.reconcile()
    assert sorted(report.indexed) == ["downloads/warranty (1).pdf", "warranty.pdf"]
    (doc,) = lib.toc().documents
    assert (doc.path, doc.copies) == ("downloads/warranty (1).pdf", ["warranty.pdf"]), "the lower id stays"
    hits = [r for r in lib.retrieve("pump and boiler warranty months", top_k=5).results if r.is_hit]
    assert hits and {r.doc_id for r in hits} == {doc.doc_id}
    assert len({r.text for r in hits}) == len(hits), "each hit once: no paragraph found twice"


def test_a_document_that_becomes_a_copy_hands_its_copies_on(folder: Path, open_library: Callable[..., Library]) -> None:
    """b.md and its copy c.md; a.md, older, is saved with their bytes: b.md becomes a.md's copy,
    and so does c.md, which a copy of a copy would leave listed nowhere."""
    write(folder, "a.md", OTHER)
    write(folder, "b.md", MANUAL)
    write(folder, "c.md", MANUAL)
    lib = open_library(folder)
    lib.reconcile()
    assert next(d for d in lib.toc().documents if d.path == "b.md").copies == ["c.md"]
    write(folder, "a.md", MANUAL)
    lib.sync_paths([folder / "a.md"])
    toc = lib.toc()
    assert [(d.path, d.copies) for d in toc.documents] == [("a.md", ["b.md", "c.md"])]
    assert not toc.pending and not toc.failed

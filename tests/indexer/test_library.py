"""The Library end to end on real files: real SQLite, real Chroma, the real offline MiniLM."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from indexer.errors import NotReady
from indexer.library import Library
from tests.conftest import write


def test_failed_documents_are_reported_and_the_rest_works(folder: Path, open_library: Callable[..., Library]) -> None:
    write(folder, "good.md", "# Good\n\nThe lighthouse keeper logs the weather.")
    (folder / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (folder / "empty.txt").write_text("")
    lib = open_library(folder)
    report = lib.reconcile()
    assert sorted(report.failed) == ["binary.md", "empty.txt"]
    toc = lib.toc()
    reasons = {f.path: f.reason for f in toc.failed}
    assert "binary" in reasons["binary.md"] and reasons["empty.txt"] == "file is empty"
    assert [d.path for d in toc.documents] == ["good.md"]
    failed_id = lib.index.store.document_at(str(folder.resolve()), "binary.md").doc_id  # type: ignore[union-attr]
    with pytest.raises(NotReady, match="failed to index: binary"):
        lib.read_section(failed_id, 0)
    assert lib.retrieve("lighthouse weather").results[0].text.startswith("The lighthouse")


def test_ids_are_stable_unchanged_files_are_not_reembedded_and_ids_never_reused(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    write(folder, "a.md", "# A\n\nAlpha text.\n\n## More\n\nSecond alpha paragraph.")  # two passages
    write(folder, "b.md", "# B\n\nBeta text.")
    data = tmp_path / "data"
    lib = open_library(folder, data_dir=data)
    first = lib.reconcile()
    assert first.embedded == 3
    ids = {d.path: d.doc_id for d in lib.toc().documents}
    lib.close()

    (folder / "b.md").unlink()
    write(folder, "a.md", "# A\n\nAlpha text.\n\n## More\n\nSecond alpha paragraph, edited.")
    write(folder, "c.md", "# C\n\nGamma text.")
    lib = open_library(folder, data_dir=data)
    report = lib.reconcile()
    assert report.removed == ["b.md"] and sorted(report.indexed) == ["a.md", "c.md"]
    assert report.embedded == 2, "only the edited paragraph of a.md and the new c.md paragraph are embedded"
    now = {d.path: d.doc_id for d in lib.toc().documents}
    assert now["a.md"] == ids["a.md"]
    assert now["c.md"] not in ids.values(), "a deleted document's id is never reused"
    assert "edited" in lib.read_section(now["a.md"], 1).paragraphs[0].text
    assert lib.reconcile().embedded == 0 and lib.index.vectors.count() == 3


def test_a_moved_file_keeps_its_id(folder: Path, open_library: Callable[..., Library], tmp_path: Path) -> None:
    write(folder, "old/name.md", "# Report\n\nQuarterly numbers.")
    lib = open_library(folder, data_dir=tmp_path / "data")
    lib.reconcile()
    original = lib.toc().documents[0].doc_id
    (folder / "new").mkdir()
    (folder / "old/name.md").rename(folder / "new/renamed.md")
    report = lib.reconcile()
    assert report.embedded == 0 and report.removed == []
    assert [(d.doc_id, d.path) for d in lib.toc().documents] == [(original, "new/renamed.md")]


def test_hidden_temp_and_unsupported_files_are_ignored(folder: Path, open_library: Callable[..., Library]) -> None:
    write(folder, "real.md", "# Real\n\ntext")
    for name in (".hidden.md", ".git/notes.md", "~$draft.md", ".#lock.md", "x.md.swp", "y.tmp", "z.pdfx", "clip.wav"):
        write(folder, name, "# junk\n\njunk")
    lib = open_library(folder)
    lib.reconcile()
    assert [d.path for d in lib.toc().documents] == ["real.md"]


def test_symlinks_out_of_the_folder_are_not_followed(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    outside = tmp_path / "outside"
    write(outside, "secret.md", "# Secret\n\nkeep out")
    (folder / "link.md").symlink_to(outside / "secret.md")
    (folder / "linkdir").symlink_to(outside, target_is_directory=True)
    write(folder, "inside.md", "# Inside\n\nhello")
    (folder / "alias.md").symlink_to(folder / "inside.md")
    lib = open_library(folder)
    lib.reconcile()
    # A link to a file inside the folder is that file: indexed once, under its own name.
    assert sorted(d.path for d in lib.toc().documents) == ["inside.md"]


def test_changing_the_embedded_text_rebuilds_vectors(
    folder: Path, tmp_path: Path, open_library: Callable[..., Library]
) -> None:
    write(folder, "a.md", "# A\n\nAlpha.\n\n## Sub\n\nBeta.")
    lib = open_library(folder, data_dir=tmp_path / "d", heading_context=True)
    lib.reconcile()
    before = lib.index.store.vec_ids(1)
    lib.close()
    lib = open_library(folder, data_dir=tmp_path / "d", heading_context=False)
    assert lib.read_section(1, 1).paragraphs[0].text == "Beta.", "readable while its vectors are made again"
    assert [r.text for r in lib.retrieve("beta").results] == ["Beta."], "and found by its words"
    report = lib.reconcile()
    assert report.indexed == [], "the file is not parsed again: its stored paragraphs are packed anew"
    assert report.embedded == 2 and lib.index.vectors.count() == 2 and lib.index.store.vec_ids(1).isdisjoint(before)


@pytest.mark.slow
def test_readers_never_see_a_mix_of_versions(folder: Path, open_library: Callable[..., Library]) -> None:
    """While one thread keeps replacing a document, every answer holds exactly one version."""
    import re
    import threading

    def content(version: int) -> str:
        sections = "\n\n".join(
            f"## Part {s}\n\n" + "\n\n".join(f"Lantern v{version} part {s} line {p}." for p in range(4))
            for s in range(3)
        )
        return f"# Lanterns\n\n{sections}"

    path = write(folder, "lanterns.md", content(1))
    lib = open_library(folder)
    lib.reconcile()
    doc = lib.toc().documents[0].doc_id
    errors: list[str] = []
    done = threading.Event()

    def writer() -> None:
        for version in range(2, 41):
            path.write_text(content(version))
            lib.sync_paths([path])
        done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    reads = 0
    while not done.is_set() or reads < 20:
        reads += 1
        result = lib.retrieve("lantern part line", top_k=6, before=3, after=3)
        for r in result.results:
            if f"Lantern v{r.doc_version} " not in r.text:
                errors.append(f"retrieve: {r.text!r} labelled version {r.doc_version}")
        section = lib.read_section(doc, 2)
        seen = {re.search(r"v(\d+)", p.text).group(1) for p in section.paragraphs}  # type: ignore[union-attr]
        if seen != {str(section.version)} or len(section.paragraphs) != 4:
            errors.append(f"read_section: versions {seen} in version {section.version}")
    thread.join()
    assert not errors, errors[:5]
    assert lib.read_section(doc, 1).version == 40


def test_a_data_dir_inside_the_folder_is_not_indexed(folder: Path, open_library: Callable[..., Library]) -> None:
    write(folder, "real.md", "# Real\n\nOnly this.")
    lib = open_library(folder, data_dir=folder / "index-data")
    write(folder / "index-data", "looks-like-a-doc.md", "# Not a document\n\ntext")
    lib.reconcile()
    assert [d.path for d in lib.toc().documents] == ["real.md"]
    assert lib.sync_paths([folder / "index-data" / "looks-like-a-doc.md"]).indexed == []

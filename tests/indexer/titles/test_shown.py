"""Titles as the map shows them: documents titled alike are told apart, a file's name says so."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from indexer.answers.folders import COMPACT_TITLE, compact_title
from indexer.library import Library
from indexer.titles.shown import shown_titles
from indexer.tokens import count_tokens
from server.render import render_toc
from tests.conftest import write


@dataclass
class Doc:
    doc_id: int
    title: str | None
    relpath: str
    detail: str | None = None
    named_by_file: int = 0
    content_hash: str | None = None

    def __post_init__(self) -> None:
        self.content_hash = self.content_hash or f"hash-{self.doc_id}"


def test_documents_titled_alike_get_what_tells_them_apart() -> None:
    docs = [
        Doc(1, "Contoso — Form 10-Q", "a.pdf", detail="quarter ended March 31, 2031"),
        Doc(2, "Contoso — Form 10-Q", "b.pdf", detail="quarter ended June 30, 2031"),
        Doc(3, "CONTOSO — FORM 10-Q", "c.pdf"),  # alike, whatever the case; states nothing: its file tells it
        Doc(4, "Annual Report", "d.pdf", detail="version 2"),  # the only one so titled: as it is
        Doc(5, "scan 0042", "inbox/scan 0042.pdf", named_by_file=1),
    ]
    assert shown_titles(docs) == {
        1: "Contoso — Form 10-Q (quarter ended March 31, 2031)",
        2: "Contoso — Form 10-Q (quarter ended June 30, 2031)",
        3: "CONTOSO — FORM 10-Q (c.pdf)",
        4: "Annual Report",
        5: "scan 0042 (file name)",
    }


def test_copies_of_one_file_keep_one_title_and_a_shared_detail_falls_back_to_the_file() -> None:
    copies = [
        Doc(1, "Field Guide", "a/guide.pdf", content_hash="same"),
        Doc(2, "Field Guide", "b/guide.pdf", content_hash="same"),
    ]
    assert shown_titles(copies) == {1: "Field Guide", 2: "Field Guide"}
    same_day = [Doc(1, "Minutes", "jan.md", detail="May 4, 2031"), Doc(2, "Minutes", "feb.md", detail="May 4, 2031")]
    assert shown_titles(same_day) == {1: "Minutes (jan.md)", 2: "Minutes (feb.md)"}
    two_folders = [
        Doc(1, "Middleware", "docs/tutorial/middleware.md"),
        Doc(2, "Middleware", "docs/reference/middleware.md"),
        Doc(3, "NOTES", "a/NOTES.txt", named_by_file=1),
        Doc(4, "NOTES", "b/NOTES.txt", named_by_file=1),
    ]
    assert shown_titles(two_folders) == {
        1: "Middleware (tutorial/middleware.md)",
        2: "Middleware (reference/middleware.md)",
        3: "a/NOTES.txt (file name)",
        4: "b/NOTES.txt (file name)",
    }


def test_the_map_tells_apart_documents_of_one_folder_titled_alike(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    for n, version in ((1, "1.0"), (2, "2.0")):
        write(
            folder,
            f"m{n}.md",
            f"# Espresso Machine Manual\n\nVersion {version}\n\n## Brewing\n\nGrind the beans finely.\n",
        )
    write(folder, "memo-7.txt", "dear team,\n\nthe kettle is broken again and will be replaced on monday.\n")
    lib = open_library(folder)
    lib.reconcile()
    toc = lib.toc(max_depth=0)
    text = render_toc(toc)
    assert "— Espresso Machine Manual (version 1.0) |" in text and "— Espresso Machine Manual (version 2.0) |" in text
    assert [d.title for d in toc.documents if d.path == "memo-7.txt"] == ["memo-7 (file name)"]
    assert ") memo-7.txt | " in text, "a title that is only the file's name is left to the path in the map's text"
    hits = lib.retrieve("kettle broken", top_k=1).results
    assert hits[0].section_path[0] == "memo-7", "the document keeps its title; only the map adds to it"


def test_a_compact_line_cuts_a_title_where_it_keeps_what_tells_it_apart() -> None:
    filing = "AMERICAN WATER WORKS COMPANY, INC. — Form 10-K, fiscal year ended December 31, 2020"
    cut = compact_title(filing)
    assert cut.endswith("— Form 10-K, fiscal year ended December 31, 2020") and count_tokens(cut) <= COMPACT_TITLE
    told_apart = (
        "Board minutes of the regional water association annual meeting at the hall (quarter ended March 31, 2031)"
    )
    assert compact_title(told_apart).endswith("(quarter ended March 31, 2031)")
    assert compact_title("Short title") == "Short title"

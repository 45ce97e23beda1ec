"""Each document's card: its kind, issuer, date and a line of what it is about, from evidence any
document of its kind has; shown in its own map and told apart in a folder's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from indexer.library import Library
from indexer.models import Block, Declared, Paragraph, Section
from indexer.titles.card import about_line, make_card
from server.render import render_toc
from tests.conftest import write


def _card(title: str, blocks: list[Block], file_format: str = ".pdf", n_pages: int | None = 12, paper: bool = True):
    sections = [Section(0, title, 0, None), Section(1, "Abstract", 1, 0), Section(2, "References", 1, 0)]
    if not paper:
        sections[1:] = [Section(1, "Filling", 1, 0), Section(2, "Cleaning", 1, 0)]
    paragraphs = [
        Paragraph(1, 0, "text", "We show that herons wait longer in cold water. The rest follows.", 1, 14),
        Paragraph(2, 0, "text", "[1] A. Author. A paper. 2030.", 9, 9),
    ]
    return make_card(title, blocks, None, Declared(authors=["Jane Roe"]), file_format, n_pages, sections, paragraphs)


def test_kind_issuer_date_and_about_come_from_the_document() -> None:
    paper = _card("Patience in Herons", [Block("text", "Patience in Herons"), Block("text", "July 9, 2031")])
    assert (paper.kind, paper.issuer, paper.date) == ("paper", "Jane Roe", "July 9, 2031")
    assert paper.about == "We show that herons wait longer in cold water."
    deck = _card("Quarterly Review", [], file_format=".pptx")
    assert deck.kind == "slides", "a format that is a kind"
    manual = _card("Espresso Machine User Manual", [], n_pages=3, paper=False)
    assert manual.kind == "manual", "the kind its title names"
    opening = [Block("text", "May 5, 2031 To Whom it May Concern:"), Block("text", "Best Regards, Ann")]
    letter = _card("Delivery", opening, n_pages=2, paper=False)
    assert letter.kind == "letter", "a greeting or a close, whatever the words after it"


def test_a_byline_names_the_author_of_any_kind_of_document() -> None:
    """A byline ("By …") under a title: the names it opens with, not the degrees, roles or institution after."""
    lines = [
        Block("text", "On the Breccia-Gashes of the Durham Coast", page=1),
        Block(
            "text", "By G. A. LEBOUR, M.A., F.G.S., Professor of Geology in the Northwind College of Science", page=1
        ),
        Block("text", "North of England Institute of Mining Engineers", page=1),
    ]
    report = _card("On the Breccia-Gashes of the Durham Coast", lines, paper=False)
    assert report.issuer == "G. A. LEBOUR"
    nobody = [Block("text", "By order of the Board", page=1), *lines[2:]]
    assert _card("Notice", nobody, paper=False).issuer == "North of England Institute of Mining Engineers"


def test_the_about_line_is_one_sentence_of_prose_at_most_25_words() -> None:
    long = "The heron stands in the shallows " + " ".join(["and waits"] * 20) + " for a fish."
    sections = [Section(0, "Doc", 0, None)]
    paragraphs = [
        Paragraph(0, 0, "text", "Name: Jane Roe", None, 4),  # a field, not prose
        Paragraph(0, 1, "text", long, None, 40),
    ]
    about = about_line(sections, paragraphs)
    assert about is not None and about.endswith("…") and len(about.split()) == 25


def test_the_map_shows_the_card_and_tells_kinds_apart(folder: Path, open_library: Callable[..., Library]) -> None:
    write(
        folder,
        "herons.md",
        "# Patience in Herons\n\n## Abstract\n\nWe show that herons wait longer in cold water.\n\n"
        "## Method\n\nWe watched them.\n\n## References\n\n[1] A paper.\n",
    )
    write(folder, "kettle.md", "# Kettle User Manual\n\nFill the kettle to the line before you switch it on.\n")
    library = open_library(folder)
    library.reconcile()
    ids = {d.path: d.doc_id for d in library.toc().documents}
    own = library.toc(doc_id=ids["herons.md"])
    card = own.documents[0]
    assert (card.kind, card.about) == ("paper", "We show that herons wait longer in cold water.")
    assert "  Card: paper. About: We show that herons wait longer in cold water." in render_toc(own)
    folder_map = library.toc()
    tags = {d.path: d.tag for d in folder_map.documents}
    assert tags == {"herons.md": "paper", "kettle.md": None}, "a kind the title names already is not repeated"

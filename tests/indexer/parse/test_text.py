"""Plain text's headings: short lines set apart as a heading is, and the short lines of ordinary
text (an address, a sign-off, list items, dialogue) left as text (`indexer.parse.text`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.parse.formats import parse_text_file
from indexer.structure.sections import build
from tests.conftest import CORPORA

PROSE = (
    "He joined the club as a trainee at sixteen and signed his first professional contract two years later. "
    "His first season was spent mostly on the bench, but he scored twice on his debut in the cup."
)


def sections(path: Path, text: str) -> list[str]:
    path.write_text(text, encoding="utf-8")
    return [s.title for s in build(parse_text_file(path, 1 << 20), fallback_title=path.stem).sections[1:]]


def test_short_lines_set_apart_by_blank_lines_are_sections(tmp_path: Path) -> None:
    text = f"Iwan Roberts\n\n{PROSE}\n\nEarly life\n\n{PROSE}\n\nClub career\n\nWatford\n\n{PROSE}\n\nPersonal life\n\n{PROSE}\n"
    assert sections(tmp_path / "article.txt", text) == ["Early life", "Club career", "Watford", "Personal life"]


def test_headings_in_text_hard_wrapped_without_blank_lines(tmp_path: Path) -> None:
    """A page saved as text: lines wrapped at a fixed width, no blank line anywhere."""

    def wrapped(text: str) -> list[str]:
        out, line = [], ""
        for word in text.split():
            if len(line) + len(word) + 1 > 78:
                out.append(line)
                line = word
            else:
                line = f"{line} {word}".strip()
        return [*out, line]

    body = wrapped(PROSE + " " + PROSE)
    lines = [*body, "Early life", *body, "International career", *body, "Style of play", *body]
    assert sections(tmp_path / "saved.txt", "\n".join(lines) + "\n") == [
        "Early life",
        "International career",
        "Style of play",
    ]


def test_the_short_lines_of_ordinary_text_stay_text(tmp_path: Path) -> None:
    letter = (
        "Dear Ms Jones,\n\n"
        f"{PROSE}\n\n"
        "Shopping list\n- bread\n- eggs\n- Milk\n\n"
        '"Are you coming?"\n\n"Not tonight"\n\n'
        f"{PROSE}\n\n"
        "With best regards,\n\n"
        "Anna Smith\n\n"
        "Anna Smith\n12 High Street\nDoylestown, PA 18901\n"
    )
    assert sections(tmp_path / "letter.txt", letter) == []
    address = "Acme Supplies\n\nUnit 4\n\nDock Road\n\nLiverpool\n\n" + PROSE + "\n"
    assert sections(tmp_path / "address.txt", address) == []


def test_a_text_s_short_opening_lines_stay_lines_of_their_own(tmp_path: Path) -> None:
    """A course's text file opens with its kind, code and name and term, a line each, then its text:
    they are not run into its first paragraph, so its title is found in them."""
    syllabus = tmp_path / "syllabus.txt"
    syllabus.write_text(
        "Syllabus\nPhil 753: Grounding\nSpring 2023\n\nThis seminar examines the metaphysics of grounding: what it is "
        "for one fact to hold in virtue of another.\n",
        encoding="utf-8",
    )
    s = build(parse_text_file(syllabus, 1 << 20), fallback_title="syllabus")
    assert s.title == "Phil 753: Grounding Syllabus"
    assert "Spring 2023" in [p.text for p in s.paragraphs]
    course = tmp_path / "course.txt"
    course.write_text(
        "PHYSICS 606 : Classical Electrodynamics\nFall 2019\n"
        "Instructor: Prof. A. Smith, Room 214, office hours Tuesday and Thursday from two until four.\n"
        "The course covers electrostatics, magnetostatics, Maxwell's equations, radiation and special\n"
        "relativity at the graduate level.\n",
        encoding="utf-8",
    )
    s = build(parse_text_file(course, 1 << 20), fallback_title="course")
    assert s.title == "PHYSICS 606: Classical Electrodynamics"
    assert s.paragraphs[0].text == "Fall 2019"
    named = tmp_path / "named.txt"  # a document's name runs longer than a section's heading
    named.write_text(
        "Syllabus for CE-ENGIN 597J Computational Methods in Environmental Engineering\nSpring 2031\nCourse details\n"
        "The class meets on Tuesday and Thursday each week, 10:00-11:15 at Marston Hall, Room 23, for lectures.\n",
        encoding="utf-8",
    )
    title = build(parse_text_file(named, 1 << 20), fallback_title="named").title
    assert title == "Syllabus for CE-ENGIN 597J Computational Methods in Environmental Engineering"


def test_a_paragraph_s_first_lines_are_not_taken_for_opening_lines(tmp_path: Path) -> None:
    path = tmp_path / "wrapped.txt"
    path.write_text(
        "The committee met on Tuesday to discuss the budget for the\nnext year and agreed on the main lines.\n",
        encoding="utf-8",
    )
    s = build(parse_text_file(path, 1 << 20), fallback_title="wrapped")
    assert [p.text for p in s.paragraphs] == [
        "The committee met on Tuesday to discuss the budget for the next year and agreed on the main lines."
    ]


@pytest.mark.skipif(not (CORPORA / "unstructured" / "norwich-city.txt").exists(), reason="needs ../shared/corpora")
def test_a_wikipedia_article_saved_as_text_has_its_title_and_sections() -> None:
    """unstructured's norwich-city.txt: an article copied from a web page, its headings short lines of their own."""
    path = CORPORA / "unstructured" / "norwich-city.txt"
    s = build(parse_text_file(path, 1 << 22), fallback_title=path.stem)
    assert s.title == "Iwan Roberts"
    titles = [sec.title for sec in s.sections]
    for heading in ("Early life", "International career", "References"):
        assert heading in titles

"""What OCR's lines become: `respace` puts back the spaces the recognition model drops (with
wordninja's real word list), `paragraphs` groups recognised lines by position and letter height."""

from __future__ import annotations

import pytest

from indexer.parse.ocr import _Line, _Paragraph, paragraphs, respace

# --- respace -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ocr", "expected"),
    [
        ("Thecompanyreportedrevenue", "The company reported revenue"),
        ("Thecommitteereviewedthe", "The committee reviewed the"),
        ("THECOMPLETEVIEW", "THE COMPLETE VIEW"),  # the case of each letter is kept
        ("ThecompanyREPORTED", "The company REPORTED"),
        ("theendofthestory.", "the end of the story."),
        ("Thecompanyreportedrevenue, up 12%.", "The company reported revenue, up 12%."),
        ("mid-yearreview", "mid-year review"),
    ],
)
def test_runs_of_words_are_spaced(ocr: str, expected: str) -> None:
    assert respace(ocr) == expected


@pytest.mark.parametrize(
    ("ocr", "expected"),
    [
        ("January2012", "January 2012"),
        ("revenue2023", "revenue 2023"),
        ("Revenuegrew12% inJanuary2012.", "Revenue grew 12% in January 2012."),
        ("annualreport2024", "annual report 2024"),
    ],
)
def test_a_word_run_into_a_number_gets_its_space_back(ocr: str, expected: str) -> None:
    assert respace(ocr) == expected


@pytest.mark.parametrize(
    "text",
    [
        "The committee reviewed the quarterly results and approved the budget.",
        "Revenue: $4.2M (up 12.5%) — Q3/2024, see p. 17; EBITDA rose 3.1 %.",
        "approximately internationalization",  # long words are words, not runs
        "Kubernetes",  # a name wordninja could only shred into rare pieces
        "EBITDA",  # an acronym: "EB IT DA" has pieces that are no words
        "self-driving e-mail x86_64 hello_world",
        "Jan2012 Q3 ab12 ABC12 Chapter1",  # too short, or not lower case, before the digits
        "étéchaudfroid",  # only ASCII letters are split
        "qwerty zzzzzzzzzz",
        "",
    ],
)
def test_normal_text_numbers_and_punctuation_are_kept(text: str) -> None:
    assert respace(text) == text


def test_respace_only_inserts_spaces() -> None:
    ocr = "Thecommitteereviewedthequarterlyresults; Revenuegrew12% inJanuary2012 (seeTable4)."
    spaced = respace(ocr)
    assert spaced.replace(" ", "") == ocr.replace(" ", "")
    assert respace(spaced) == spaced, "spacing spaced text again changes nothing"


def test_a_run_of_mostly_rare_words_stays_whole() -> None:
    """The split must be mostly common words; a run that only splits into rare ones is left alone."""
    assert respace("Thequickbrownfox") == "The quick brown fox"
    assert respace("jumpsoverthelazydog") == "jumpsoverthelazydog"  # "jumps" and "lazy" are rare in the word list


# --- paragraphs ----------------------------------------------------------------------

INK = 14.0  # letter height in pixels of the body text


def line(y: float, text: str, x0: float = 50, x1: float = 500, ink: float = INK) -> _Line:
    """A recognised line at `y` whose box is its letters plus a little padding."""
    return _Line(x0, y, x1, y + ink + 6, text, ink=ink)


def texts(found: list[_Paragraph]) -> list[str]:
    return [p.text() for p in found]


def test_no_lines_no_paragraphs() -> None:
    assert paragraphs([]) == []


def test_one_line_is_one_paragraph() -> None:
    (only,) = paragraphs([line(100, "A lone caption")])
    assert only.text() == "A lone caption"
    assert only.box() == (50, 100, 500, 120)


def test_lines_close_below_each_other_form_one_paragraph_in_reading_order() -> None:
    body = [
        line(100 + 24 * i, t)
        for i, t in enumerate(["The committee reviewed", "the results and approved", "the budget."])
    ]
    for order in (body, body[::-1], [body[2], body[0], body[1]]):
        (paragraph,) = paragraphs(order)
        assert paragraph.text() == "The committee reviewed the results and approved the budget."
        assert paragraph.box() == (50, 100, 500, 168)


def test_a_short_last_line_still_continues_its_paragraph() -> None:
    found = paragraphs([line(100, "The board expects modest growth"), line(124, "next year.", x1=140)])
    assert texts(found) == ["The board expects modest growth next year."]


def test_a_word_hyphenated_at_the_line_end_is_joined() -> None:
    found = paragraphs(
        [line(100, "the quarter-"), line(124, "ly results"), line(148, "of Hewlett-"), line(172, "Packard")]
    )
    assert texts(found) == ["the quarterly results of Hewlett- Packard"], "a capital after the hyphen keeps both"


def test_a_blank_gap_starts_a_new_paragraph() -> None:
    found = paragraphs(
        [line(100, "First paragraph ends here."), line(124, "Still the first."), line(170, "Second one.")]
    )
    assert texts(found) == ["First paragraph ends here. Still the first.", "Second one."]
    # The bound: a gap of up to 0.8 × the letter height joins, more does not.
    assert len(paragraphs([line(100, "a b"), line(120 + 0.8 * INK, "c d")])) == 1
    assert len(paragraphs([line(100, "a b"), line(120 + 0.8 * INK + 1, "c d")])) == 2


def test_slightly_overlapping_boxes_join_but_a_line_beside_does_not() -> None:
    assert texts(paragraphs([line(100, "boxes padded"), line(117, "so they overlap")])) == [
        "boxes padded so they overlap"
    ]
    beside = paragraphs([line(100, "Revenue", x1=200), line(100, "4.2M", x0=300, x1=380)])
    assert texts(beside) == ["Revenue", "4.2M"], "two items on one line (a table row) stay apart, left to right"


def test_a_heading_in_larger_letters_is_its_own_paragraph() -> None:
    found = paragraphs(
        [line(60, "Results", ink=28), line(100, "Revenue grew in every region"), line(124, "of the company.")]
    )
    assert texts(found) == ["Results", "Revenue grew in every region of the company."]


def test_two_columns_are_two_paragraphs() -> None:
    left = [line(100 + 24 * i, f"left {i}", x0=50, x1=250) for i in range(3)]
    right = [line(100 + 24 * i, f"right {i}", x0=300, x1=500) for i in range(3)]
    found = paragraphs(left + right)
    assert texts(found) == ["left 0 left 1 left 2", "right 0 right 1 right 2"]
    assert [p.box() for p in found] == [(50, 100, 250, 168), (300, 100, 500, 168)]


def test_paragraphs_come_out_top_to_bottom_then_left_to_right() -> None:
    found = paragraphs(
        [line(300, "bottom"), line(100, "top right", x0=300, x1=500), line(100, "top left", x0=50, x1=250)]
    )
    assert texts(found) == ["top left", "top right", "bottom"]

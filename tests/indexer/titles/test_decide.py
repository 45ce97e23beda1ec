"""What a document is called when it is built: its only top-level heading is its title (and its
root, not a section), and with nothing that names it, its file's name stands in. The opening is read
as a reader reads it: a date or a code above the title, an issuer's stacked lines, a deck's first slide
and a declared title (an e-mail's subject) kept whole."""

from __future__ import annotations

from indexer.models import DocumentStructure, Item
from indexer.parse.items import clean
from indexer.parse.markdown import parse_markdown
from indexer.structure.sections import build


def md(source: str, name: str = "doc") -> DocumentStructure:
    return build(parse_markdown(source), fallback_title=name)


def test_a_single_top_heading_is_the_title_and_the_root() -> None:
    s = md("# Guide\n\nIntro text.\n\n## Install\n\nRun it.\n\n## Use\n\nCall it.\n")
    assert s.title == "Guide" and not s.named_by_file
    assert [(x.sec_id, x.level, x.title, x.parent) for x in s.sections] == [
        (0, 0, "Guide", None),
        (1, 1, "Install", 0),
        (2, 1, "Use", 0),
    ]
    assert [(p.sec_id, p.para_idx, p.text) for p in s.paragraphs] == [
        (0, 0, "Intro text."),
        (1, 0, "Run it."),
        (2, 0, "Call it."),
    ]


def test_with_nothing_that_names_it_the_file_name_stands_in() -> None:
    s = md("Preamble.\n\n# One\n\nA.\n\n# Two\n\nB.\n", name="notes")
    assert s.title == "notes" and s.named_by_file
    assert [x.title for x in s.sections] == ["notes", "One", "Two"]
    assert s.paragraphs[0].sec_id == 0


def _office(lines: list[str], fmt: str = ".docx", page: int | None = None) -> DocumentStructure:
    """A word processor's or a deck's opening as MinerU reads it: lines in order, no boxes, no sizes."""
    from indexer.models import Block, ParsedDocument

    items: list[Item] = [{"type": "text", "page_idx": 0, "text": line} for line in lines]
    blocks = [Block("text", clean(line), page=page) for line in lines]
    parsed = ParsedDocument(blocks=blocks, items=items, paged=page is not None, format=fmt)
    return build(parsed, fallback_title="file-name")


def test_a_date_or_a_code_alone_above_the_title_leaves_it_the_title() -> None:
    body = "Language is what people do with it; this course looks at how."
    coded = _office(["LINGUIST 101 (49624)", "People and Their Language", "MW 1.25-2.15, Room 131", body])
    assert coded.title == "LINGUIST 101: People and Their Language"
    dated = _office(["1/27/23", "Management 462: Social Entrepreneurship Professor Jane Roe", body])
    assert dated.title == "Management 462: Social Entrepreneurship", "a byline after it is no part of it"
    aside = ["ZOOLOGY 130 (GEN ED BS 4 credits)", "ZOOLOGY FOR EVERYONE SYLLABUS Spring 2031 MWF 10:10-11", body]
    assert _office(aside).title == "ZOOLOGY 130: Zoology for Everyone Syllabus Spring 2031", "its aside and times cut"
    kind = _office(["Syllabus", "ZOO 270, Fall 2031 (4 credits)", "Lecture location: ILC N151", body])
    assert kind.title == "ZOO 270, Fall 2031 Syllabus", "a kind alone takes the code line under it"


def test_a_file_without_pages_takes_the_subtitle_set_on_the_line_under_its_title() -> None:
    """No type size tells a word processor's or a text's subtitle: a line under the title in title
    case, without a number, repeating none of its words. A code, a repeat or a header's words are no subtitle."""
    body = "How people learn, and how to design for it, in classrooms and out of them."
    subtitled = _office(["Seabird Ecology", "Introduction to Colony Sciences II", body])
    assert subtitled.title == "Seabird Ecology: Introduction to Colony Sciences II"
    assert _office(["Seabird Ecology", "ZOO 204 Fall 2031", body]).title != "Seabird Ecology: ZOO 204 Fall 2031"
    assert _office(["Lorem Ipsum", "Lorem Ipsum Again", body]).title == "Lorem Ipsum"
    assert _office(["Main document", "First header para Last header para", body]).title == "Main document"
    assert _office(["Seabird Ecology", "Jane Roe", body]).title == "Seabird Ecology", "an author's name is no subtitle"


def test_a_heading_under_a_courses_particulars_is_its_title() -> None:
    from indexer.models import Block, ParsedDocument

    particulars = ["ZOO 204", "Fall 2031", "TTh 11:30 a.m. - 12:45 p.m.", "W201 South College", "Email: <EMAIL>"]
    items: list[Item] = [
        {"type": "text", "page_idx": 0, "text": line} for line in [*particulars, "Seabirds of the North Atlantic"]
    ]
    blocks = [Block("text", clean(line)) for line in particulars]
    blocks += [
        Block("heading", "Seabirds of the North Atlantic", level=1),
        Block("heading", "Course Description", level=1),
    ]
    blocks += [Block("text", "We count burrows on three islands and learn why herons wait.")]
    s = build(ParsedDocument(blocks=blocks, items=items, format=".docx"), fallback_title="file-name")
    assert s.title == "Seabirds of the North Atlantic" and not s.named_by_file
    blocks[4] = Block("text", "Welcome! This term we will count burrows.")  # text before the heading: no particulars
    assert build(ParsedDocument(blocks=blocks, items=items, format=".docx"), fallback_title="f").named_by_file
    # A text sets its particulars in columns, read as a table
    columns = (
        "ZOO 204  Instructor:  Prof. <PROF_NAME>\nFall 2031  (she/her)\nTTh 11:30 a.m. - 12:45 p.m.  Email:  <EMAIL>"
    )
    tabled = [Block("table", columns), *blocks[5:]]
    s = build(ParsedDocument(blocks=tabled, format=".txt"), fallback_title="file-name")
    assert s.title == "Seabirds of the North Atlantic" and not s.named_by_file
    prices = [Block("table", "Burrows  12\nHerons  4"), *blocks[5:]]  # a table of counts is no particulars
    assert build(ParsedDocument(blocks=prices, format=".txt"), fallback_title="file-name").named_by_file


def test_the_issuers_lines_give_way_and_a_title_torn_after_for_is_joined() -> None:
    lines = [
        "**U.S. Department of Justice**",
        "<strong><u>Executive Office for United States Trustees</u></strong>",
        "**Handbook for**",
        "**Chapter 13 Standing Trustees**",
        "**October 1, 2012**",
        "The handbook sets out what a standing trustee's duties are.",
    ]
    assert _office(lines).title == "Handbook for Chapter 13 Standing Trustees"


def test_a_decks_first_slide_names_it_past_its_issuer() -> None:
    from indexer.models import Block, ParsedDocument

    items: list[Item] = [
        {"type": "text", "page_idx": 0, "text": "**Northwind Research Directorate**"},
        {"type": "text", "page_idx": 0, "text": "**Virtual Machine Environment Scorecard**"},
    ]
    title_box = Block("text", "Northwind Research Directorate\nVirtual Machine Environment Scorecard", page=1)
    bullets = Block("list", "- Code 600: the research directorate\n- Code 610: earth sciences", page=1)
    parsed = ParsedDocument(blocks=[title_box, bullets], items=items, paged=True, format=".pptx")
    assert build(parsed, fallback_title="file-name").title == "Virtual Machine Environment Scorecard"


def test_an_institutions_word_that_qualifies_a_decks_title_leaves_it_the_title() -> None:
    """ "University" in "Government-University Identity Management Opportunities" names no
    institution: it qualifies the words after it, so the slide's title is the deck's, not its file's."""
    from indexer.models import Block, ParsedDocument

    heading = "Government-University Identity Management Opportunities"
    items: list[Item] = [
        {"type": "text", "text_level": 1, "page_idx": 0, "text": f"**{heading}**"},
        {"type": "text", "page_idx": 0, "text": "*Peter Northwind, Ph.D.*"},
        {"type": "text", "text_level": 2, "page_idx": 1, "text": "Current State of Affairs"},
    ]
    blocks = [
        Block("heading", heading, level=1, page=1),
        Block("text", "Peter Northwind, Ph.D.", page=1),
        Block("heading", "Current State of Affairs", level=2, page=2),
        Block("text", "You apply to the application owner for a password.", page=2),
    ]
    parsed = ParsedDocument(blocks=blocks, items=items, paged=True, format=".pptx")
    assert build(parsed, fallback_title="file-name").title == heading


def test_italics_and_bold_italics_leave_no_asterisks() -> None:
    assert clean("***University of Northwind***") == "University of Northwind"
    assert clean("5 * 3 * 2 and a *word*") == "5 * 3 * 2 and a word"
    assert clean("\\*Refers to frames\\*") == "*Refers to frames*", "an escaped asterisk is the text's"


def test_what_a_message_or_front_matter_declares_is_its_title_whole() -> None:
    from indexer.models import Block, Declared, ParsedDocument

    mail = ParsedDocument(
        blocks=[Block("heading", "Example MIME Email", level=1), Block("text", "Hello.")],
        declared=Declared(title="Example MIME Email"),
        format=".eml",
    )
    assert build(mail, fallback_title="x").title == "Example MIME Email", "'Email' is no field of it here"


def test_a_web_page_is_titled_by_its_h1_not_the_sites_header_above_it() -> None:
    from indexer.models import Block, ParsedDocument

    blocks = [
        Block("text", "Northwind Birding"),
        Block("text", "Home | Counts | About"),
        Block("heading", "Seabird Counts of 2031", level=1),
        Block("text", "We counted burrows on three islands."),
        Block("heading", "Method", level=2),
        Block("text", "By torchlight."),
    ]
    page = build(ParsedDocument(blocks=blocks, format=".html"), fallback_title="counts")
    assert page.title == "Seabird Counts of 2031"
    text = build(ParsedDocument(blocks=blocks, format=".txt"), fallback_title="counts")
    assert text.title == "Northwind Birding", "elsewhere the opening line stands"
    site = [Block("heading", "Latest from the colony", level=2), *blocks]  # a site-wide <h2> first
    page = build(ParsedDocument(blocks=site, format=".html"), fallback_title="counts")
    assert page.title == "Seabird Counts of 2031"
    assert [(x.title, x.level) for x in page.sections] == [
        ("Seabird Counts of 2031", 0),
        ("Latest from the colony", 1),
        ("Method", 1),
    ]


def test_a_preformatted_text_is_titled_by_the_lines_it_sets_in_from_the_margin() -> None:
    licence = md(
        "                                 Seabird Licence\n"
        "                           Version 2.0, January 2031\n"
        "                        http://www.example.org/licences/\n\n"
        "   TERMS AND CONDITIONS FOR COUNTING\n",
        name="LICENCE",
    )
    assert licence.title == "Seabird Licence Version 2.0, January 2031" and not licence.named_by_file
    code = md("    import seabirds\n    seabirds.count()\n\nCounting made easy.\n", name="count")
    assert code.named_by_file, "code is no title"


def test_an_institution_run_into_the_title_in_capitals_gives_way_to_it() -> None:
    body = "Seabirds are counted from the cliffs each week; the course teaches how."
    schedule = "ZOOLOGY 371-01 (#58038) M & W: 11:15 – 12:05, ISOM 106"
    heading = "UNIVERSITYOF NORTHWIND COASTAL SCHOOL OF ZOOLOGY SEABIRD FIELD METHODS"  # one paragraph, lines lost
    assert _office([heading, schedule, body]).title == "ZOOLOGY 371-01: Seabird Field Methods"
    # a text whose lines were joined: past the institution, up to the professor's name
    run_on = (
        "UNIVERSITYOF NORTHWIND COASTAL SCHOOL OF ZOOLOGY MASTER OF SCIENCE IN ECOLOGY PROGRAM SEABIRD FIELD "
        "METHODS ZOO-ECOL 652 SPRING 2031 SYLLABUS Prof. <PROF_FULL_NAME> Office: N374 " + body
    )
    assert _office([run_on], fmt=".txt").title.startswith("Master of Science in Ecology Program Seabird Field Methods")
    # an institution alone still gives way to the line under it, and its own name is not cut in two
    assert _office(["DEPARTMENT OF HEALTH AND HUMAN SERVICES", "Seabird Field Methods", body]).title == (
        "Seabird Field Methods"
    )

"""Markdown and plain text → sections and paragraphs with the coordinates docs/design.md promises."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.errors import ParseError
from indexer.models import DocumentStructure
from indexer.parse.formats import decode_text, parse_text_file
from indexer.parse.layout import _block, blocks_from_content_list
from indexer.parse.markdown import parse_markdown
from indexer.parse.numbering import levels_from_numbering, numbering, numbering_depth, split_run_in_heading
from indexer.parse.outline import OutlineEntry
from indexer.parse.text import parse_text
from indexer.structure.sections import build
from indexer.tokens import count_tokens
from tests.conftest import BENCH


def md(source: str, name: str = "doc") -> DocumentStructure:
    return build(parse_markdown(source), fallback_title=name)


def tree(structure: DocumentStructure) -> list[tuple[int, int, str, int | None]]:
    return [(s.sec_id, s.level, s.title, s.parent) for s in structure.sections]


def assert_coordinates_consistent(structure: DocumentStructure) -> None:
    """para_idx is 0..n-1 per section and the direct counts add up."""
    for section in structure.sections:
        own = [p for p in structure.paragraphs if p.sec_id == section.sec_id]
        assert [p.para_idx for p in own] == list(range(len(own)))
        assert section.n_paras == len(own)
        assert section.n_tokens == sum(p.n_tokens for p in own)
        for child in section.children:
            assert structure.sections[child].parent == section.sec_id
            assert structure.sections[child].level == section.level + 1
    assert [s.sec_id for s in structure.sections] == list(range(len(structure.sections)))


def test_level_jumps_nest_one_level_and_later_headings_find_their_ancestor() -> None:
    s = md("# T\n\n### Deep\n\nx\n\n## Mid\n\ny\n\n#### Deeper\n\nz\n\n# Other\n\nw\n")
    # "# Other" is a second top-level heading, so "# T" is not a unique top: both sit under the root.
    assert tree(s) == [
        (0, 0, "T", None),
        (1, 1, "T", 0),
        (2, 2, "Deep", 1),
        (3, 2, "Mid", 1),
        (4, 3, "Deeper", 3),
        (5, 1, "Other", 0),
    ]
    assert_coordinates_consistent(s)


def test_setext_headings_front_matter_and_attribute_lists() -> None:
    source = (
        '---\ntitle: "Release Notes"\nhide:\n  - navigation\n---\n\n'
        "Overview\n========\n\nFirst.\n\nDetails { #details }\n-------\n\nSecond.\n"
    )
    s = md(source)
    assert s.title == "Release Notes"
    assert [x.title for x in s.sections] == ["Release Notes", "Overview", "Details"]
    assert s.sections[2].parent == 1


def test_tables_lists_and_code_are_single_paragraphs() -> None:
    source = (
        "# Doc\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n"
        "- one\n- two\n  - nested\n- three\n\n"
        "```python\n# not a heading\nprint(1)\n\nprint(2)\n```\n\n"
        "![Figure 1: the pipeline](img/pipe.png)\n\n"
        "<!-- a comment that carries nothing -->\n\n"
        "$$\nE = mc^2\n$$\n"
    )
    s = md(source)
    assert len(s.sections) == 1, "a '#' inside a code fence is not a heading"
    kinds = [p.kind for p in s.paragraphs]
    assert kinds == ["table", "list", "code", "figure", "equation"]
    table, lst, code = s.paragraphs[0].text, s.paragraphs[1].text, s.paragraphs[2].text
    assert table.count("\n") == 3 and "| 3 | 4 |" in table
    assert "nested" in lst and "three" in lst
    assert "print(2)" in code and code.startswith("```python")


def test_flat_numbered_headings_imply_depth() -> None:
    source = "## 1 Intro\n\na\n\n## 2 Method\n\nb\n\n## 2.1 Data\n\nc\n\n## 2.1.1 Cleaning\n\nd\n\n## 2.2 Model\n\ne\n\n## 3 Results\n\nf\n"
    s = md(source)
    assert tree(s)[1:] == [
        (1, 1, "1 Intro", 0),
        (2, 1, "2 Method", 0),
        (3, 2, "2.1 Data", 2),
        (4, 3, "2.1.1 Cleaning", 3),
        (5, 2, "2.2 Model", 2),
        (6, 1, "3 Results", 0),
    ]


def test_numbering_depth() -> None:
    assert numbering_depth("3 Methods") == 1
    assert numbering_depth("3.2.1 Setup") == 3
    assert numbering_depth("2. Background") == 1
    assert numbering_depth("A.1 Proofs") == 2
    assert numbering_depth("Methods") is None
    assert numbering_depth("2024 was a good year") is None, "a year is not a section number"


def test_document_without_headings_gets_a_root_section() -> None:
    s = md("Just a paragraph.\n\nAnd another one.\n", name="plain")
    assert tree(s) == [(0, 0, "plain", None)]
    assert [p.para_idx for p in s.paragraphs] == [0, 1]


def test_plain_text_infers_headings_and_splits_long_lines() -> None:
    text = (
        "COURSE SYLLABUS\n\n1. Overview\nThis course covers budgets.\n\n1.1 Goals\n\nLearn things.\n\n"
        "2. Grading\n\n- memos 30%\n- final 30%\n- participation 40%\n\n"
        + " ".join(f"Sentence number {i} talks about the federal budget process." for i in range(120))
    )
    s = build(parse_text(text), fallback_title="syllabus")
    assert tree(s) == [
        (0, 0, "Course Syllabus", None),  # set in capitals, cased for a reader
        (1, 1, "1. Overview", 0),
        (2, 2, "1.1 Goals", 1),
        (3, 1, "2. Grading", 0),
    ]
    grading = [p for p in s.paragraphs if p.sec_id == 3]
    assert grading[0].kind == "list"
    long_pieces = grading[1:]
    assert len(long_pieces) > 3, "a 1,300-token line is split at sentence boundaries"
    assert all(p.n_tokens <= 350 for p in long_pieces)
    assert " ".join(p.text for p in long_pieces).count("Sentence number") == 120
    assert_coordinates_consistent(s)


def test_plain_text_with_many_shouting_lines_does_not_explode_the_toc() -> None:
    lines = "\n\n".join(f"ITEM NUMBER {i} HERE" for i in range(40))
    s = build(parse_text("Intro paragraph that is long enough.\n\n" + lines), fallback_title="x")
    assert len(s.sections) == 1
    assert len(s.paragraphs) == 41


def test_binary_and_empty_files_are_refused_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "bin.md").write_bytes(b"\x00\x01\x02\x03garbage")
    (tmp_path / "empty.txt").write_text("   \n")
    with pytest.raises(ParseError, match="binary"):
        parse_text_file(tmp_path / "bin.md", max_bytes=10**6)
    with pytest.raises(ParseError, match="empty"):
        parse_text_file(tmp_path / "empty.txt", max_bytes=10**6)
    (tmp_path / "big.md").write_text("x" * 2000)
    with pytest.raises(ParseError, match="limit"):
        parse_text_file(tmp_path / "big.md", max_bytes=1000)


def test_legacy_encodings_decode() -> None:
    assert decode_text("café\r\nnaïve".encode("cp1252")) == "café\nnaïve"


@pytest.mark.skipif(not (BENCH / "markdown").exists(), reason="needs ../shared/bench")
@pytest.mark.parametrize(
    "relpath",
    [
        "markdown/rust-book/src/ch08-02-strings.md",
        "markdown/rust-book/src/ch19-03-pattern-syntax.md",
        "markdown/fastapi-docs/docs/en/docs/tutorial/bigger-applications.md",
        "markdown/fastapi-docs/docs/en/docs/release-notes.md",
    ],
)
def test_real_documentation_files(relpath: str) -> None:
    path = BENCH / relpath
    s = build(parse_text_file(path, 10**8), fallback_title=path.stem)
    assert_coordinates_consistent(s)
    assert len(s.sections) > 3
    headings_in_source = sum(
        1 for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("#") and " " in line[:7]
    )
    # Every section is a real heading; '#' lines inside code fences are not.
    assert len(s.sections) - 1 <= headings_in_source
    assert all(p.text.strip() for p in s.paragraphs)
    assert sum(p.n_tokens for p in s.paragraphs) == sum(count_tokens(p.text) for p in s.paragraphs)
    code = [p for p in s.paragraphs if p.kind == "code"]
    assert code and all(p.text.startswith(("```", "~~~", "    ")) for p in code)


def test_numbering_schemes_nest_in_the_order_a_document_introduces_them() -> None:
    filing = [
        "Table of Contents",
        "PART I",
        "Item 1. Business",
        "Item 1A. Risk Factors",
        "PART II",
        "Item 7. Management's Discussion and Analysis",
        "Overview",
        "Item 8. Financial Statements",
        "Consolidated Statements of Operations",
        "Note 1. Summary of Significant Accounting Policies",
        "Revenue Recognition",
        "PART IV",
        "Item 15. Exhibits",
        "Signatures",
    ]
    assert levels_from_numbering(filing) == [1, 1, 2, 2, 1, 2, 3, 2, 3, 3, 4, 1, 2, 1]
    # An index of the statements titled "Table of Contents" inside Item 8 does not hold what follows.
    indexed = [*filing[:8], "TABLE OF CONTENTS", *filing[8:]]
    assert levels_from_numbering(indexed) == [1, 1, 2, 2, 1, 2, 3, 2, 3, 3, 3, 4, 1, 2, 1]

    paper = [
        "Abstract",
        "1 Introduction",
        "2 Method",
        "2.1 Data",
        "2.1.1 Cleaning",
        "3 Results",
        "References",
        "A.1 Proofs",
    ]
    assert levels_from_numbering(paper) == [1, 1, 1, 2, 3, 1, 1, 2]

    cover = [
        "FORM 10-Q",
        "83 Tower Road North",
        "Table of Contents",
        "Cautionary Statement",
        "Note 1 - Basis",
        "Note 2 - Guidance",
    ]
    assert levels_from_numbering(cover) == [1, 1, 1, 1, 1, 1], "an address is not section 83"

    report = ["第一节 重要提示", "第二节 公司简介", "一、公司信息", "（一）基本情况", "二、联系人", "第三节 财务报告"]
    assert levels_from_numbering(report) == [1, 1, 2, 3, 2, 1]
    assert numbering("Article 3 Definitions") == numbering("Article IV Terms")
    assert numbering("I. Background").scheme == "roman"  # type: ignore[union-attr]


def test_flat_pdf_like_headings_get_depth_from_numbering() -> None:
    """MinerU's flash tier gives every PDF heading the same level; the tree must still be right."""
    source = "\n\n".join(
        f"## {h}\n\ntext under {h}"
        for h in ["PART I", "Item 1. Business", "Item 1A. Risk Factors", "PART II", "Item 7. MD&A"]
    )
    s = md(source)
    assert tree(s)[1:] == [
        (1, 1, "PART I", 0),
        (2, 2, "Item 1. Business", 1),
        (3, 2, "Item 1A. Risk Factors", 1),
        (4, 1, "PART II", 0),
        (5, 2, "Item 7. MD&A", 4),
    ]


@pytest.mark.parametrize(
    "line, is_heading",
    [
        ("I will be away on Monday", False),
        ("A midterm and a final exam", False),
        ("Civic engagement day", False),
        ("IV. Discussion", True),
        ("B) Appendix", True),
        ("2.1 Methods", True),
        ("Chapter 3 Results", True),
        ("第一章 总则", True),
        ("第１節　概要", True),
        ("一、基本情况", True),
        ("（二）联系人", True),
        ("１．目的", True),
        ("제2장 총칙", True),
        ("一、会员应当遵守俱乐部的章程。", False),  # a numbered sentence
        (
            "第一章俱乐部成立于一九八五年，会员每周在船库集合训练，俱乐部的宗旨是推广划船运动，欢迎新会员加入",
            False,
        ),  # long
    ],
)
def test_plain_text_numbering_needs_a_real_number(line: str, is_heading: bool) -> None:
    assert (parse_text(line).blocks[0].kind == "heading") is is_heading
    assert (parse_markdown(line).blocks[0].kind == "heading") is (is_heading and not line[0].isascii())


def test_cjk_numbered_headings_nest_in_text_and_markdown() -> None:
    source = "公司年报\n\n第一章 总则\n\n本报告说明公司概况。\n\n第一节 目的\n\n一、范围\n\n适用于全体员工。\n\n第二章 财务\n\n全年结余一千二百元。\n"
    for structure in (build(parse_text(source), "f.txt"), build(parse_markdown(source), "f.md")):
        assert [(s.level, s.title) for s in structure.sections] == [
            (0, "公司年报"),
            (1, "第一章 总则"),
            (2, "第一节 目的"),
            (3, "一、范围"),
            (1, "第二章 财务"),
        ]


def test_text_without_spaces_is_split_too() -> None:
    from indexer.structure.sections import split_prose

    chinese = split_prose("这是一个很长的中文段落。" * 150)
    assert len(chinese) > 3 and all(count_tokens(p) <= 350 for p in chinese)
    assert "".join(chinese) == "这是一个很长的中文段落。" * 150
    leaders = split_prose("Contents " + "." * 3000 + " 5")
    assert all(count_tokens(p) <= 350 for p in leaders)


# --- PDFs through MinerU's content list (flash tier: every heading level 2, lines with boxes) ----------


def line(
    page: int, y: int, text: str, level: int | None = None, x: tuple[int, int] = (60, 600), kind: str = "text"
) -> dict:
    item = {"type": kind, "text": text, "page_idx": page, "bbox": [x[0], y, x[1], y + 12]}
    if level:
        item["text_level"] = level
    return item


def pdf(items: list[dict], n_pages: int, outline: list[OutlineEntry] | None = None) -> DocumentStructure:
    running = [line(p, 20, "Acme Corp | Quarterly Report", kind="header") for p in range(n_pages)]
    in_order = sorted(running + items, key=lambda item: item["page_idx"])
    parsed = blocks_from_content_list(in_order, n_pages, paged=True, heading_levels_reliable=False, outline=outline)
    return build(parsed, fallback_title="filing")


def test_a_quarterly_report_gets_the_toc_a_person_would_recognise() -> None:
    body = "The company reported results for the quarter in line with its guidance to investors."
    s = pdf(
        [
            line(0, 50, "UNITED STATES SECURITIES AND EXCHANGE COMMISSION", level=1),
            line(0, 240, "**FORM 10-Q**"),
            line(0, 370, "Commission File Number 001-38932", level=2),
            line(0, 400, "ACME CORP", level=2),
            line(0, 420, "(Exact name of registrant as specified in its charter)"),
            line(0, 440, "Delaware", level=2, x=(230, 290)),  # a cover page's table: cells, not headings
            line(0, 440, "98-1455367", level=2, x=(700, 780)),
            line(1, 45, "<strong><u>Acme Quarterly Report on Form 10-Q</u></strong>"),
            line(1, 68, "Table of Contents", level=2),
            {
                "type": "index",
                "list_items": ["- Part I", "- Item 1. Financial Statements 4"],
                "page_idx": 1,
                "bbox": [60, 90, 900, 400],
            },
            line(2, 70, "Cautionary Statement Regarding Forward-Looking Statements", level=2),
            line(2, 100, body),
            line(2, 115, body),
            line(2, 130, body),
            line(3, 45, "<strong><u>Part I - Financial Information Item 1. Financial Statements</u></strong>"),
            line(3, 80, "Condensed Consolidated Balance Sheets", level=2),
            line(3, 120, "Balance as of June 30, 2023", level=2),  # a table's row label
            line(3, 128, "12 weeks", level=2, x=(320, 388)),  # a quantity in a table's column
            line(3, 132, "12 % (a)", level=2, x=(320, 388)),
            line(3, 140, "Net sales", level=2, x=(60, 200)),
            line(3, 140, "1,234", x=(700, 760)),
            line(3, 200, "**Note 1 - Basis of Presentation**"),
            line(3, 220, body),
            line(3, 235, body),
            line(3, 300, "Recently Adopted Accounting Standards", level=2),
            line(3, 320, body),
            line(3, 335, body),
            line(4, 45, "Note 2 - Revenue", kind="header"),  # a page's first line, labelled a header
            line(4, 70, body),
            line(4, 85, body),
            line(5, 45, "<strong><u>Item 2. Management's Discussion and Analysis</u></strong>"),
            line(5, 70, body),
            line(5, 85, body),
            line(5, 100, "Overview", level=2),
            line(5, 120, body),
            line(5, 135, body),
            line(6, 45, "PART II - OTHER INFORMATION", kind="header"),
            line(6, 70, "Item 1. Legal Proceedings", level=2),
            line(6, 100, body),
            line(6, 115, body),
        ],
        n_pages=7,
    )
    # The commission's header is a banner, not a title: without the cover's title (the parser's,
    # `cover_title`), the file's name is, and the map says so.
    assert s.title == "filing" and s.named_by_file
    assert [(sec.level, sec.title) for sec in s.sections[1:]] == [
        (1, "Table of Contents"),
        (1, "Cautionary Statement Regarding Forward-Looking Statements"),
        (1, "Part I - Financial Information"),
        (2, "Item 1. Financial Statements"),
        (3, "Condensed Consolidated Balance Sheets"),
        (3, "Note 1 - Basis of Presentation"),
        (4, "Recently Adopted Accounting Standards"),
        (3, "Note 2 - Revenue"),
        (2, "Item 2. Management's Discussion and Analysis"),
        (3, "Overview"),
        (1, "PART II - OTHER INFORMATION"),
        (2, "Item 1. Legal Proceedings"),
    ]
    texts = [p.text for p in s.paragraphs]
    text = "\n".join(texts)
    assert "ACME CORP" in text and "Delaware" in text and "Net sales" in text, "demoted lines stay as text"
    assert "Acme Quarterly Report on Form 10-Q" in texts, "inline HTML is dropped from text"
    assert_coordinates_consistent(s)


def test_a_heading_beside_one_line_of_the_other_column_stays_a_heading() -> None:
    s = pdf(
        [
            line(0, 100, "Implementation Details about the Baselines", level=2, x=(80, 460)),
            line(0, 100, "In this category, we selected three fine-tuned models:", x=(520, 900)),
            line(0, 130, "We compare against strong baselines trained on the same data.", x=(80, 460)),
        ],
        n_pages=2,
    )
    assert [sec.title for sec in s.sections] == ["Implementation Details about the Baselines"]
    s = pdf(  # three in a row: a table's cells
        [
            line(0, 100, "Level 1", level=2, x=(400, 460)),
            line(0, 100, "Level 2", x=(560, 620)),
            line(0, 100, "Total", x=(800, 860)),
            line(0, 130, "Fair value hierarchy of the assets measured at the end of the period."),
        ],
        n_pages=2,
    )
    assert len(s.sections) == 1


def test_headings_the_outline_does_not_list_may_still_be_captions() -> None:
    body = "We describe the data and the evaluation protocol used throughout the paper."
    s = pdf(
        [
            line(0, 100, "1 Introduction", level=2),
            line(0, 120, body),
            line(1, 100, "Table 3: Results by region", level=2),
            line(1, 120, body),
            line(1, 200, "Error analysis", level=2),
            line(1, 220, body),
            line(1, 300, "2 Method", level=2),
            line(1, 320, body),
        ],
        n_pages=2,
        outline=[OutlineEntry("1 Introduction", 1, 1), OutlineEntry("2 Method", 1, 2)],
    )
    assert [(sec.level, sec.title) for sec in s.sections[1:]] == [
        (1, "1 Introduction"),
        (2, "Error analysis"),
        (1, "2 Method"),
    ]


def test_front_and_back_matter_between_items_sits_beside_them() -> None:
    filing = [
        "PART II",
        "Item 7. MD&A",
        "Overview",
        "Glossary of Selected Terminology",
        "Item 7A. Market Risk",
        "Item 8. Financial Statements",
        "PART III",
        "Item 10. Directors",
        "Signatures",
    ]
    assert levels_from_numbering(filing) == [1, 2, 3, 2, 2, 2, 1, 2, 1]


def test_a_part_heading_with_the_first_item_run_in_is_two_headings() -> None:
    assert split_run_in_heading("Part I - Financial Information Item 1. Financial Statements (unaudited)") == [
        "Part I - Financial Information",
        "Item 1. Financial Statements (unaudited)",
    ]
    assert split_run_in_heading("PART II OTHER INFORMATION ITEM 1. LEGAL PROCEEDINGS") == [
        "PART II OTHER INFORMATION",
        "ITEM 1. LEGAL PROCEEDINGS",
    ]
    for title in [
        "Part I",
        "Item 7. See Part II Item 8. below",
        "Chapter 2 Methods",
        "Part III Directors and item 10 data",
    ]:
        assert split_run_in_heading(title) == [title]


def test_a_long_chapter_title_on_two_lines_is_one_heading_and_back_matter_stays_at_the_top() -> None:
    body = "Most respondents said their finances improved over the past year, the survey found."
    first = "1. Latinos are increasingly positive about current finances, but many say family income is not keeping pace with cost of"
    s = pdf(
        [
            line(1, 100, first, level=1),
            line(1, 125, "living", level=2),
            line(1, 160, body),
            line(2, 100, "% who say their personal financial situation is in good shape", level=2),  # a chart's title
            line(2, 300, body),
            line(3, 100, "2. Latinos are optimistic about their finances in the next year", level=1),
            line(3, 160, body),
            line(4, 100, "Acknowledgments", level=2),
            line(4, 160, body),
            line(5, 100, "Methodology", level=2),
            line(5, 160, body),
            line(6, 100, "Appendix A: References", level=2),
            line(6, 160, body),
        ],
        n_pages=7,
    )
    assert [(sec.level, sec.title) for sec in s.sections[1:]] == [
        (1, f"{first} living"),
        (1, "2. Latinos are optimistic about their finances in the next year"),
        (1, "Acknowledgments"),
        (1, "Methodology"),
        (1, "Appendix A: References"),
    ]


def test_cells_a_pdf_parser_cut_apart_become_one_paragraph_and_dot_leaders_go() -> None:
    from indexer.models import Block, ParsedDocument

    cells = ["Name", "Age", "Positions", "Jane Roe", "52"]
    blocks = [
        Block("heading", "Executive Officers", level=1, page=3),
        *(Block("text", cell, page=3, bbox=[100 * i, 10, 100 * i + 50, 20]) for i, cell in enumerate(cells)),
        Block("text", "Ms. Roe has served as chief executive officer since 2019 and as a director since 2015.", page=3),
        Block("text", "Total current and long-term assets .......... $ 1,234", page=4),
        Block("text", "52", page=4),  # a lone short block stays as it is
    ]
    structure = build(ParsedDocument(blocks=blocks, title="Annual report", n_pages=4), fallback_title="x")
    texts = [p.text for p in structure.paragraphs]
    assert texts[0] == "Name\nAge\nPositions\nJane Roe\n52"
    assert structure.paragraphs[0].bbox == [0, 10, 450, 20] and structure.paragraphs[0].page == 3
    assert texts[2] == "Total current and long-term assets … $ 1,234" and texts[3] == "52"
    markdown = build(parse_markdown("# T\n\nYes.\n\nNo.\n"), fallback_title="T")  # not paged: written that way
    assert [p.text for p in markdown.paragraphs] == ["Yes.", "No."]


def test_a_financial_statement_cut_into_labels_and_figures_is_one_table() -> None:
    """flash returns each row label (with its dot leaders) and each figure as its own item."""
    rows = [
        (
            "Cash flows from operating activities: Net income ...................................",
            ["629,551", "268,395"],
        ),
        (
            "Depreciation, amortization and accretion, including the long-term portion of all leases ......",
            ["339,473", "313,590"],
        ),
        ("Stock-based compensation ..........................................", ["335,859", "333,701"]),
        ("Net cash provided by operating activities ...........................", ["1,469,502", "1,287,482"]),
    ]
    items = [
        line(0, 40, "CONSOLIDATED STATEMENTS OF CASH FLOWS", level=2, x=(310, 694)),
        line(0, 60, "Increase/(Decrease)", level=2, x=(704, 813)),  # titles the figures' columns
    ]
    for r, (label, figures) in enumerate(rows):
        y = 80 + 20 * r
        items.append(line(0, y, label, x=(85, 595)))
        items.extend(line(0, y, f, x=(640 + 110 * c, 700 + 110 * c)) for c, f in enumerate(figures))
    items.append(line(0, 300, "See accompanying Notes to Consolidated Financial Statements."))
    s = pdf(items, n_pages=2)
    assert [sec.title for sec in s.sections[1:]] == [] and s.title == "Consolidated Statements of Cash Flows"
    tables = [p for p in s.paragraphs if p.kind == "table"]
    assert len(tables) == 1, [p.text for p in s.paragraphs]
    assert tables[0].text.splitlines()[-1] == "Net cash provided by operating activities … | 1,469,502 | 1,287,482"
    assert "Increase/(Decrease)" in "\n".join(p.text for p in s.paragraphs), "the column title stays as text"


def test_an_outline_title_matches_a_heading_on_its_own_page_only() -> None:
    body = "Revenue grew in every segment, led by subscriptions, as the table below shows in detail."
    s = pdf(
        [
            line(0, 100, "Results of Operations", level=2),
            line(0, 120, body),
            line(3, 100, "Financial Statements", level=2),
            line(3, 120, "Revenue:", level=2, x=(85, 150)),  # a statement's row label, set in bold
            line(3, 140, body),
            line(4, 100, "Revenue", level=2),
            line(4, 120, body),
        ],
        n_pages=5,
        outline=[
            OutlineEntry("Results of Operations", 1, 1),
            OutlineEntry("Financial Statements", 1, 4),
            OutlineEntry("Revenue", 2, 5),
        ],
    )
    assert [(sec.level, sec.title, sec.page_start) for sec in s.sections[1:]] == [
        (1, "Results of Operations", 1),
        (1, "Financial Statements", 4),
        (2, "Revenue", 5),
    ]
    assert s.paragraphs[1].text == "Revenue:" and s.paragraphs[1].page == 4, "the label is text again"


def test_a_statement_titled_only_by_a_centred_page_top_line_is_a_section() -> None:
    """flash leaves a statement's title unmarked, or calls it a page header and reads it
    (and the table cells it also labels header) before everything else on the page."""
    body = "The company reported results for the quarter in line with its guidance to investors."
    s = pdf(
        [
            line(0, 100, "Item 8. Financial Statements", level=2),
            line(0, 120, body),
            line(1, 200, "Net income", x=(60, 200)),
            line(1, 200, "1,058", x=(700, 760)),
            line(1, 45, "Amcor plc Consolidated Statements of Cash Flows ($ in millions)", x=(300, 700), kind="header"),
            line(1, 180, "Cash flows from operating activities:", x=(60, 300), kind="header"),
            line(2, 60, "Notes to Consolidated Financial Statements", x=(330, 670)),
            line(2, 100, body),
            line(3, 60, "Notes to Consolidated Financial Statements (Continued)", x=(300, 700)),
            line(3, 100, body),
            line(3, 500, "Segment Results By Region", x=(350, 650)),  # centred, but not at the top
            line(3, 520, body),
        ],
        n_pages=4,
    )
    assert [(sec.level, sec.title) for sec in s.sections[1:]] == [
        (1, "Amcor plc Consolidated Statements of Cash Flows ($ in millions)"),
        (1, "Notes to Consolidated Financial Statements"),
    ]
    statement = [p.text for p in s.paragraphs if p.sec_id == 1]
    assert statement == ["Cash flows from operating activities:\nNet income\n1,058"]
    assert s.sections[0].page_end == 1, "nothing of page 2 is left in the section before"


def test_a_statement_titled_by_a_bold_flush_left_line_at_the_page_top_is_a_section() -> None:
    """A filing that sets each statement's title in bold, body size, flush left over its table:
    flash reads it as plain text, and the statement had hidden inside the section before it.
    A bold line lower on a page, or one that reads as a sentence, stays text."""
    body = "The company reported results for the year in line with its guidance to investors."
    s = pdf(
        [
            line(0, 100, "Item 8. Financial Statements", level=2),
            line(0, 120, body),
            line(1, 55, "**Consolidated Statement of Cash Flows**", x=(28, 326)),
            line(1, 70, "Acme Corp Fiscal years ended December 25, 2031 and December 26, 2030 (in millions)"),
            {
                "type": "table",
                "page_idx": 1,
                "bbox": [28, 123, 968, 644],
                "table_body": "<table><tr><td>Net income</td><td>7,679</td></tr></table>",
            },
            line(1, 664, "(Continued on following page)", x=(28, 196), kind="page_footnote"),
            line(2, 55, "**Total cash paid during the year.**", x=(28, 326)),
            line(2, 400, "**Supplemental Cash Flow Information**", x=(28, 326)),
            line(2, 420, body),
        ],
        n_pages=3,
    )
    assert [sec.title for sec in s.sections[1:]] == ["Consolidated Statement of Cash Flows"]
    statement = [p for p in s.paragraphs if p.sec_id == 1]
    assert [p.kind for p in statement][:2] == ["text", "table"] and "7,679" in statement[1].text
    assert any("Supplemental Cash Flow Information" in p.text for p in statement), "a bold line lower on a page is text"
    assert not any("Continued on" in p.text for p in s.paragraphs), "a line saying the table goes on says nothing"


def test_a_statement_title_carried_onto_its_next_page_is_one_section() -> None:
    """A balance sheet over two pages, its title repeated as a page header on both: one section
    from its first page, holding both halves. A header on two pages far apart is a running line."""
    body = "The company reported results for the year in line with its guidance to investors."
    title = "Acme Water Company and Subsidiary Companies Consolidated Balance Sheets"

    def table(page: int, label: str) -> dict:
        cells = f"<table><tr><td>{label}</td><td>29,736</td></tr></table>"
        return {"type": "table", "page_idx": page, "bbox": [30, 146, 971, 745], "table_body": cells}

    s = pdf(
        [
            line(0, 100, body),
            line(1, 84, title, x=(30, 448), kind="header"),
            table(1, "Total assets"),
            line(2, 84, title, x=(30, 448), kind="header"),
            table(2, "Total liabilities"),
            line(3, 84, "Acme Water Company Proxy Matters", x=(30, 448), kind="header"),
            line(3, 200, body),
            line(4, 84, "Acme Water Company Proxy Matters (Continued)", x=(30, 448), kind="header"),
            line(4, 200, body),
            line(5, 84, "Acme Water Company Proxy Matters", x=(30, 448), kind="header"),
            line(5, 200, body),
        ],
        n_pages=6,
    )
    assert not any("(Continued)" in p.text for p in s.paragraphs), "a continued page's title says nothing new"
    assert [sec.title for sec in s.sections[1:]] == [title]
    held = " ".join(p.text for p in s.paragraphs if p.sec_id == 1)
    assert "Total assets" in held and "Total liabilities" in held
    assert "Consolidated Balance Sheets" not in held, "the title repeated over the second page is no paragraph"


def test_a_10k_reads_as_its_parts_and_items_whatever_flash_misreads() -> None:
    """Faults seen on filings: a centred "PART I" read after the Item below it, a bold Item
    title with its text run on, "ITEM 6." and "ITEM 7." page headers that differ only by their
    number, Item titles ending with a period, a part first met after its items, and statement
    titles set smaller than the prose or flush left in a page header."""
    body = "The company reported results for the year in line with its guidance to investors."

    def sized(item: dict, size: float = 10.0) -> dict:
        return {**item, "font_size": size}

    s = pdf(
        [
            sized(line(1, 107, "Item 1. Business.", level=2, x=(30, 135))),
            sized(line(1, 134, "Overview", level=2, x=(30, 90))),
            sized(line(1, 79, "PART I", level=2, x=(476, 524))),
            sized(line(1, 161, body)),
            sized(line(1, 176, body)),
            sized(line(2, 64, "**Item 4. Mine Safety Disclosures.** Not applicable.")),
            sized(line(2, 90, "**PART II**", x=(470, 530))),
            sized(line(2, 110, body)),
            sized(line(3, 41, "ITEM 6.", kind="header", x=(28, 80))),
            sized(line(3, 70, body)),
            sized(line(3, 85, body)),
            sized(line(4, 41, "ITEM 7.", kind="header", x=(28, 80))),
            sized(line(4, 70, body)),
            sized(line(4, 85, body)),
            sized(line(5, 100, "Item 8. Financial Statements and Supplementary Data.", level=2)),
            sized(line(5, 130, body)),
            sized(line(6, 80, "Consolidated Statements of Income", level=2, x=(391, 607)), 8.0),
            sized(line(6, 120, body)),
            sized(line(7, 67, "Consolidated Balance Sheets", kind="header", x=(29, 195))),
            sized(line(7, 67, "Acme Corp and Subsidiaries", kind="header", x=(683, 970))),
            sized(line(7, 120, body)),
            sized(line(8, 67, "Acme Corp and Subsidiaries", kind="header", x=(683, 970))),
            sized(line(8, 120, body)),
        ],
        n_pages=9,
    )
    assert [(sec.level, sec.title) for sec in s.sections[1:]] == [
        (1, "PART I"),
        (2, "Item 1. Business."),
        (3, "Overview"),
        (2, "Item 4. Mine Safety Disclosures."),
        (1, "PART II"),
        (2, "ITEM 6."),
        (2, "ITEM 7."),
        (2, "Item 8. Financial Statements and Supplementary Data."),
        (3, "Consolidated Statements of Income"),
        (3, "Consolidated Balance Sheets"),
    ]
    item4 = next(sec.sec_id for sec in s.sections if sec.title.startswith("Item 4"))
    assert [p.text for p in s.paragraphs if p.sec_id == item4] == ["Not applicable."]


def test_a_part_first_met_after_its_items_is_never_inside_one() -> None:
    """The part's own first heading went unread: the next part sits beside the items, not in Item 4."""
    levels = levels_from_numbering(["Item 1. Business", "Item 4. Mine Safety", "PART II", "Item 5. Market"])
    assert levels == [1, 1, 1, 1]


def test_an_outline_misfiling_an_item_or_missing_one_does_not_nest_items() -> None:
    """The PDF's bookmarks put "Item 9." under the last note, and list "Item 6. Selected
    Financial Data" where the page says only "ITEM 6.": both still sit beside the other Items."""
    body = "The company reported results for the year in line with its guidance to investors."
    outline = [
        OutlineEntry("Item 5. Market", 2, 1),
        OutlineEntry("Item 6. Selected Financial Data", 2, 2),
        OutlineEntry("Item 8. Financial Statements", 2, 3),
        OutlineEntry("Note 1 – Leases", 4, 3),
        OutlineEntry("Item 9. Changes in Accountants", 4, 4),
        OutlineEntry("Item 9A. Controls", 2, 4),
    ]
    s = pdf(
        [
            line(1, 60, "Item 5. Market", level=2),
            line(1, 90, body),
            line(2, 41, "ITEM 6.", kind="header", x=(28, 80)),
            line(2, 90, body),
            line(3, 60, "Item 8. Financial Statements", level=2),
            line(3, 80, "Note 1 – Leases", level=2),
            line(3, 90, body),
            line(4, 60, "Item 9. Changes in Accountants", level=2),
            line(4, 90, body),
            line(4, 300, "Item 9A. Controls", level=2),
            line(4, 330, body),
        ],
        n_pages=5,
        outline=outline,
    )
    items = [(sec.level, sec.title) for sec in s.sections if sec.title.upper().startswith("ITEM")]
    assert {level for level, _ in items} == {1}, items
    assert [(sec.level, sec.title) for sec in s.sections if sec.title.startswith("Note")] == [(2, "Note 1 – Leases")]


def test_a_lone_page_number_at_the_page_edge_is_not_a_paragraph() -> None:
    body = "The company reported results for the year in line with its guidance to investors."
    s = pdf(
        [
            line(0, 60, "1 Results", level=2),
            line(0, 100, body),
            line(0, 950, "59"),
            line(1, 60, body),
            line(1, 30, "- ii -"),
            line(1, 500, "59"),
            line(1, 950, "2012"),
        ],
        n_pages=2,
    )
    lines = [line for p in s.paragraphs for line in p.text.split("\n")]
    assert lines.count("59") == 1, "the page's number goes; a number inside the page is content"
    assert "- ii -" not in lines
    assert "2012" in lines, "a year is not a page number"


def test_a_page_number_under_a_page_that_ends_early_is_not_a_paragraph() -> None:
    """A filing printed from HTML ends each page at its own height, its number right under the
    last line, centred: still the page's number. A lone number with content below it stays."""
    body = "The company reported results for the year in line with its guidance to investors."
    s = pdf(
        [
            line(0, 60, "1 Results", level=2),
            line(0, 100, body),
            line(0, 140, "Total 1,906 | 512 | 960"),
            line(0, 170, "58", x=(493, 506)),
            line(1, 60, body),
            line(1, 420, "59", x=(493, 506)),
            line(2, 60, body),
            line(2, 300, "12"),
            line(2, 330, body),
            line(2, 640, "iv", x=(493, 506)),
        ],
        n_pages=3,
    )
    lines = [line for p in s.paragraphs for line in p.text.split("\n")]
    assert "58" not in lines and "59" not in lines and "iv" not in lines, lines
    assert "12" in lines, "a number with the page's text below it is content"
    # A numeral set far taller than a line ("1" over a slide's title) is not the page's number.
    display = {"type": "text", "text": "1", "page_idx": 2, "bbox": [222, 238, 250, 324]}
    assert _block(display, True, set(), False, page_end=True) is not None
    assert _block({**display, "bbox": [493, 640, 506, 652]}, True, set(), False, page_end=True) is None
    assert lines.count(body) == 4


def test_numbered_headings_ending_in_a_colon_are_headings_as_a_reader_takes_them() -> None:
    body = "Students will read two chapters a week and discuss them in small groups before each class."
    s = pdf(
        [
            line(0, 50, "Marine Microbiology Syllabus", level=1),
            line(0, 80, body),
            line(0, 110, "**1. Learning Outcomes:**"),  # bold, its text below it
            line(0, 130, body),
            line(0, 160, "**2. Required Textbook:** Environmental Microbiology, second edition, 2031."),  # run in
            line(0, 190, "3) Grading:", level=2),
            line(0, 210, body),
            line(0, 240, "4. Then submit the following:", level=2),  # a numbered sentence leading a list
            line(0, 260, body),
        ],
        n_pages=1,
    )
    titles = [sec.title for sec in s.sections[2:]]
    assert titles == ["1. Learning Outcomes", "2. Required Textbook", "3) Grading"], tree(s)
    assert any(p.text.startswith("Environmental Microbiology") for p in s.paragraphs)

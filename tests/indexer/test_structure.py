"""Markdown and plain text → sections and paragraphs with the coordinates DESIGN.md promises."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.errors import ParseError
from indexer.models import DocumentStructure
from indexer.parse import decode_text, parse_text_file
from indexer.parse.markdown import parse_markdown
from indexer.parse.text import parse_text
from indexer.numbering import levels_from_numbering, numbering, numbering_depth
from indexer.structure import build
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


def test_single_top_heading_becomes_the_root_title() -> None:
    s = md("# Guide\n\nIntro text.\n\n## Install\n\nRun it.\n\n## Use\n\nCall it.\n")
    assert tree(s) == [(0, 0, "Guide", None), (1, 1, "Install", 0), (2, 1, "Use", 0)]
    assert [(p.sec_id, p.para_idx, p.text) for p in s.paragraphs] == [
        (0, 0, "Intro text."),
        (1, 0, "Run it."),
        (2, 0, "Call it."),
    ]
    assert_coordinates_consistent(s)


def test_text_before_first_heading_belongs_to_root_and_title_falls_back() -> None:
    s = md("Preamble.\n\n# One\n\nA.\n\n# Two\n\nB.\n", name="notes")
    assert s.title == "notes"
    assert tree(s) == [(0, 0, "notes", None), (1, 1, "One", 0), (2, 1, "Two", 0)]
    assert s.paragraphs[0].sec_id == 0


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
        "---\ntitle: \"Release Notes\"\nhide:\n  - navigation\n---\n\n"
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
    assert tree(s) == [(0, 0, "COURSE SYLLABUS", None), (1, 1, "1. Overview", 0), (2, 2, "1.1 Goals", 1), (3, 1, "2. Grading", 0)]
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
        "Table of Contents", "PART I", "Item 1. Business", "Item 1A. Risk Factors", "PART II",
        "Item 7. Management's Discussion and Analysis", "Overview", "Item 8. Financial Statements",
        "Consolidated Statements of Operations", "Note 1. Summary of Significant Accounting Policies",
        "Revenue Recognition", "PART IV", "Item 15. Exhibits", "Signatures",
    ]
    assert levels_from_numbering(filing) == [1, 1, 2, 2, 1, 2, 3, 2, 3, 3, 4, 1, 2, 1]

    paper = ["Abstract", "1 Introduction", "2 Method", "2.1 Data", "2.1.1 Cleaning", "3 Results", "References", "A.1 Proofs"]
    assert levels_from_numbering(paper) == [1, 1, 1, 2, 3, 1, 1, 2]

    cover = ["FORM 10-Q", "83 Tower Road North", "Table of Contents", "Cautionary Statement", "Note 1 - Basis", "Note 2 - Guidance"]
    assert levels_from_numbering(cover) == [1, 1, 1, 1, 1, 1], "an address is not section 83"

    report = ["第一节 重要提示", "第二节 公司简介", "一、公司信息", "（一）基本情况", "二、联系人", "第三节 财务报告"]
    assert levels_from_numbering(report) == [1, 1, 2, 3, 2, 1]
    assert numbering("Article 3 Definitions") == numbering("Article IV Terms")
    assert numbering("I. Background").scheme == "roman"  # type: ignore[union-attr]


def test_flat_pdf_like_headings_get_depth_from_numbering() -> None:
    """MinerU's flash tier gives every PDF heading the same level; the tree must still be right."""
    source = "\n\n".join(
        f"## {h}\n\ntext under {h}" for h in ["PART I", "Item 1. Business", "Item 1A. Risk Factors", "PART II", "Item 7. MD&A"]
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
    ],
)
def test_plain_text_numbering_needs_a_real_number(line: str, is_heading: bool) -> None:
    assert (parse_text(line).blocks[0].kind == "heading") is is_heading


def test_text_without_spaces_is_split_too() -> None:
    from indexer.structure import split_prose

    chinese = split_prose("这是一个很长的中文段落。" * 150)
    assert len(chinese) > 3 and all(count_tokens(p) <= 350 for p in chinese)
    assert "".join(chinese) == "这是一个很长的中文段落。" * 150
    leaders = split_prose("Contents " + "." * 3000 + " 5")
    assert all(count_tokens(p) <= 350 for p in leaders)

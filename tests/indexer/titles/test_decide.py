"""What a document is called when it is built: its only top-level heading is its title (and its
root, not a section), and with nothing that names it, its file's name stands in."""

from __future__ import annotations

from indexer.models import DocumentStructure
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

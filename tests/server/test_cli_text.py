"""What the CLI prints names commands: the library's tool calls rewritten for a person."""

from __future__ import annotations

import pytest

from server.cli_text import Scope, as_commands

NOTES = Scope(folders=["notes"])


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("| read_section(doc_id=2, sec_id=0) reads it", "| deepread-mcp read notes 2 0 reads it"),
        ("+12 sections: get_toc(doc_id=2, sec_id=30)", "+12 sections: deepread-mcp toc notes --doc 2 --sec 30"),
        ("not indexed: get_toc(skipped=true) says why.", "not indexed: deepread-mcp toc notes --skipped says why."),
        ("hide sub-sections: get_toc(doc_id, sec_id) opens one.", "deepread-mcp toc notes --doc D --sec S opens one."),
        ("get_toc(doc_id=N) opens a document.", "deepread-mcp toc notes --doc N opens a document."),
        ("(call get_toc(doc_id=3) to see them)", "(run deepread-mcp toc notes --doc 3 to see them)"),
        ("valid doc_ids are 1, 2 (call get_toc to list them)", "(run deepread-mcp toc notes to list them)"),
        ("Rephrase, or browse get_toc.", "Rephrase, or browse deepread-mcp toc notes."),
        ("read_section(doc_id=1, sec_id=4, start_para=12) for", "deepread-mcp read notes 1 4 --start 12 for"),
        ("read_section(doc_id=1, sec_id=4, start_para=3, part=2) reads", "read notes 1 4 --start 3 --part 2 reads"),
        ('get_toc(path="reports (old)/", page=3) lists', "deepread-mcp toc notes --path 'reports (old)/' --page 3"),
        ('retrieve(query="x y", doc_ids=[1, 2], top_k=3)', "deepread-mcp search notes 'x y' --doc 1 --doc 2 -k 3"),
        ("get_toc() lists every document", "deepread-mcp toc notes lists every document"),
        (  # a filtered map's next page keeps its filters
            'get_toc(path="a/", file_types=["pdf", "eml"], modified_after="2023-01-01", page=2) lists',
            "deepread-mcp toc notes --path a/ --type pdf --type eml --modified-after 2023-01-01 --page 2 lists",
        ),
        ('get_toc(dated_before="2022", page=3)', "deepread-mcp toc notes --dated-before 2022 --page 3"),
        ("read_section(doc_id=1, sec_id=0, version=2)", "deepread-mcp read notes 1 0"),  # no command for it
        ("view_page shows a page", "view_page shows a page"),  # no command for it: left as the tool
    ],
)
def test_tool_calls_become_commands(text: str, printed: str) -> None:
    assert printed in as_commands(text, NOTES)


def test_the_command_repeats_how_the_index_was_named() -> None:
    scope = Scope(folders=["my notes", "papers"], options=["--data-dir", "/tmp/idx"])
    assert as_commands("get_toc(doc_id=3)", scope) == "deepread-mcp toc 'my notes' papers --doc 3 --data-dir /tmp/idx"
    assert as_commands("get_toc(doc_id=3)", Scope()) == "deepread-mcp toc --doc 3", "no folder named: none printed"


def test_text_without_calls_is_unchanged() -> None:
    text = "(1) notes.md — Field Notes | 3 sections, 2 paragraphs, 15 tokens | v1\n    [1] Birds | 9 tokens"
    assert as_commands(text, NOTES) == text


def test_the_documents_own_words_are_shown_as_they_are() -> None:
    """A folder about this very tool (its README) quotes calls: only our notes are rewritten."""
    from indexer.models import DocumentInfo, RetrievedParagraph, RetrieveResult, SectionInfo, SectionText, Toc
    from server.cli_text import told, told_map
    from server.render import render_retrieve, render_section, render_toc

    quoted = "get_toc(doc_id=2, sec_id=30) opens a branch"
    root = SectionInfo(sec_id=0, title=quoted, level=0, parent=None, children=[], n_paras=1, n_tokens=9)
    doc = DocumentInfo(
        doc_id=1, path="README.md", title=quoted, status="ready", version=1, n_sections=1, n_paras=1, n_tokens=9,
        sections=[root],
    )  # fmt: skip
    shown = told_map(render_toc(told(Toc(documents=[doc], hint="get_toc(doc_id=N) opens a document."), NOTES)), NOTES)
    assert shown.startswith(f"(1) README.md — {quoted} |") and "| deepread-mcp read notes 1 0 reads it" in shown
    assert "Note: deepread-mcp toc notes --doc N opens a document." in shown

    cut = " […cut: 900 tokens in all; read_section(doc_id=1, sec_id=0, start_para=0, end_para=0) shows more]"
    hit = RetrievedParagraph(
        doc_id=1, sec_id=0, para_idx=0, text=quoted + cut, kind="text", section_path=[quoted], is_hit=True,
        doc_version=1, score=0.5, rank=1,
    )  # fmt: skip
    found = render_retrieve(told(RetrieveResult(query="branch", results=[hit]), NOTES))
    assert f"{quoted} […cut: 900 tokens in all; deepread-mcp read notes 1 0 --start 0 --end 0 shows more]" in found
    assert f"| {quoted}" in found, "the section path too"

    section = SectionText(
        doc_id=1, sec_id=0, version=1, title=quoted, level=0, n_paras=1, start_para=0, end_para=0,
        paragraphs=[{"para_idx": 0, "text": quoted, "kind": "text"}], next_start_para=None,
        hint="read_section(doc_id=1, sec_id=N) for each.",
    )  # fmt: skip
    read = render_section(told(section, NOTES))
    assert f"[0] {quoted} |" in read and f"\n{quoted}\n" in read and "deepread-mcp read notes 1 N for each." in read

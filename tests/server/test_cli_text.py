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

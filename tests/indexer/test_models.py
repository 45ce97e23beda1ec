"""The data shapes: the field names of the tools' structured content, which hosts rely on (the
contract in docs/design.md), and section paths from the root down."""

from __future__ import annotations

from indexer.models import (
    DocumentInfo,
    ParagraphText,
    RetrievedParagraph,
    RetrieveResult,
    Section,
    SectionInfo,
    SectionText,
    Toc,
    section_paths,
)


def test_structured_content_carries_the_contracts_field_names() -> None:
    promised = {
        Toc: {"documents", "pending", "failed", "truncated", "hint"},
        DocumentInfo: {"doc_id", "path", "title", "status", "n_pages", "n_sections", "n_paras", "n_tokens", "sections"},
        SectionInfo: {
            "sec_id",
            "title",
            "level",
            "parent",
            "children",
            "n_paras",
            "n_tokens",
            "page_start",
            "page_end",
        },
        RetrieveResult: {"query", "results", "hint"},
        RetrievedParagraph: {
            "doc_id",
            "sec_id",
            "para_idx",
            "text",
            "kind",
            "page",
            "section_path",
            "score",
            "rank",
            "is_hit",
        },
        SectionText: {
            "doc_id",
            "sec_id",
            "title",
            "level",
            "n_paras",
            "start_para",
            "end_para",
            "paragraphs",
            "next_start_para",
        },
        ParagraphText: {"para_idx", "text", "kind", "page"},
    }
    for model, fields in promised.items():
        assert fields <= set(model.model_fields), (model.__name__, fields - set(model.model_fields))


def test_section_paths_run_from_the_root_down() -> None:
    root = Section(sec_id=0, title="Guide", level=0, parent=None)
    soil = Section(sec_id=1, title="Soil", level=1, parent=0)
    ph = Section(sec_id=2, title="pH", level=2, parent=1)
    assert section_paths([root, soil, ph]) == {0: ["Guide"], 1: ["Guide", "Soil"], 2: ["Guide", "Soil", "pH"]}

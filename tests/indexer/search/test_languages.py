"""Languages through the real library (SQLite FTS5, Chroma, the offline MiniLM): a query's function
words do not score, CJK chapters are sections, CJK words are found as words, and a query in one
language over documents in another says so."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from indexer.library import Library
from indexer.tokens import count_tokens
from server.render import render_retrieve
from tests.conftest import write
from tests.indexer.search.languages_fixtures import CHINESE, EQUIPMENT, HANDBOOK, JAPANESE, NOTES


@pytest.fixture
def small_folder(folder: Path) -> Path:
    write(folder, "committee-notes.md", NOTES)
    write(folder, "crew-handbook.md", HANDBOOK)
    write(folder, "equipment.md", EQUIPMENT)
    return folder


@pytest.mark.parametrize("mode", ["hybrid", "lexical"])
def test_a_small_folder_ranks_the_answer_above_a_paragraph_sharing_only_function_words(
    small_folder: Path, open_library: Callable[..., Library], mode: str
) -> None:
    lib = open_library(small_folder, search_mode=mode)
    lib.reconcile()
    money = lib.retrieve("money left over after expenses", top_k=3).results
    assert "surplus of $1,200" in money[0].text, [r.text[:50] for r in money]
    assert not any("after the regatta" in r.text for r in money if r.is_hit), "'after' alone is no match"
    eyes = lib.retrieve("what should a crew member wear to protect the eyes", top_k=3).results
    assert "sunglasses" in eyes[0].text, [r.text[:50] for r in eyes]


def test_keyword_search_scores_no_function_word_of_the_querys_language(
    small_folder: Path, open_library: Callable[..., Library]
) -> None:
    lib = open_library(small_folder)
    lib.reconcile()
    assert lib.index.store.keywords.search("after the regatta", 10, None), "the content word still finds it"
    for query in ("after", "over and after", "what should we do after that", "nach der Sitzung"):
        assert lib.index.store.keywords.search(query, 10, None) == [], query


@pytest.fixture
def cjk_folder(folder: Path) -> Path:
    for name, text in (("zh", CHINESE), ("ja", JAPANESE)):
        write(folder, f"{name}.txt", text)
        write(folder, f"{name}.md", text + "\n")  # not the same bytes: a copy would be one document
    return folder


def test_cjk_chapters_are_sections_in_text_and_markdown(cjk_folder: Path, open_library: Callable[..., Library]) -> None:
    lib = open_library(cjk_folder)
    lib.reconcile()
    docs = {d.relpath: d for d in lib.index.store.documents()}
    for name in ("zh.txt", "zh.md"):
        sections = [(s.level, s.title) for s in lib.index.store.sections(docs[name].doc_id)]
        assert sections == [
            (0, "海港划船俱乐部手册"),
            (1, "第一章 俱乐部简介"),
            (1, "第二章 安全须知"),
            (2, "第一节 下水之前"),
            (2, "第二节 意外处理"),
            (1, "第三章 装备清单"),
            (1, "第四章 会费与财务"),
        ], name
        assert docs[name].language == "zh"
    for name in ("ja.txt", "ja.md"):
        titles = [s.title for s in lib.index.store.sections(docs[name].doc_id) if s.level == 1]
        assert titles == ["第1章 部の紹介", "第2章 安全について", "第3章 持ち物", "第4章 会費と会計"], name
        assert docs[name].language == "ja"
    toc = lib.toc(doc_id=docs["zh.txt"].doc_id)
    assert "第三章 装备清单" in toc.model_dump_json()


@pytest.mark.parametrize(
    ("query", "document", "chapter"),
    [
        ("保护眼睛", "zh", "第三章 装备清单"),
        ("俱乐部年底结余多少钱", "zh", "第四章 会费与财务"),
        ("救生衣", "zh", "第一节 下水之前"),
        ("目を守る", "ja", "第3章 持ち物"),
        ("黒字", "ja", "第4章 会費と会計"),
        ("ライフジャケット", "ja", "第2章 安全について"),
    ],
)
def test_a_query_in_the_documents_language_finds_its_words(
    cjk_folder: Path, open_library: Callable[..., Library], query: str, document: str, chapter: str
) -> None:
    lib = open_library(cjk_folder, search_mode="lexical")
    lib.reconcile()
    result = lib.retrieve(query, top_k=2)
    hits = [r for r in result.results if r.is_hit]
    assert hits and all(lib.index.store.document(r.doc_id).relpath.startswith(document) for r in hits), query  # type: ignore[union-attr]
    assert all(r.section_path[-1] == chapter for r in hits), [r.section_path for r in hits]
    assert result.caution is None


def test_cjk_words_match_as_words_not_single_characters(cjk_folder: Path, open_library: Callable[..., Library]) -> None:
    """ "太阳镜" (sunglasses) is found where the word is written, not wherever 太 or 阳 is."""
    lib = open_library(cjk_folder, search_mode="lexical")
    lib.reconcile()
    found = [p for p, _ in lib.index.store.keywords.search("太阳镜", 10, None)]
    texts = [p.text for p in lib.index.store.paragraphs_by_id(found).values()]
    assert texts and all("太阳镜" in t for t in texts), texts
    assert lib.index.store.keywords.search("太阳能", 10, None) == [], "sharing two characters of three is no match"


def test_a_query_in_another_language_is_flagged(cjk_folder: Path, open_library: Callable[..., Library]) -> None:
    write(cjk_folder, "club.md", NOTES)
    lib = open_library(cjk_folder)
    lib.reconcile()
    docs = {d.relpath: d.doc_id for d in lib.index.store.documents()}
    scoped = lib.retrieve("what should I wear to protect my eyes", doc_ids=[docs["zh.txt"]])
    assert scoped.caution is not None
    assert "This query is in English and the documents searched are in Chinese" in scoped.caution
    assert "likely unrelated" in scoped.caution and "DEEPREAD_EMBEDDING_MODEL" in scoped.caution
    everywhere = lib.retrieve("what should I wear to protect my eyes").caution or ""
    assert "4 of the 5 documents searched are in Chinese or Japanese" in everywhere, everywhere
    reverse = lib.retrieve("俱乐部年底结余多少钱", doc_ids=[docs["club.md"]]).caution or ""
    assert "This query is in Chinese and the documents searched are in English" in reverse, reverse
    assert lib.retrieve("surplus", doc_ids=[docs["club.md"]]).caution is None
    assert lib.retrieve("结余", doc_ids=[docs["zh.md"]]).caution is None


def test_the_caution_is_paid_from_the_budget(cjk_folder: Path, open_library: Callable[..., Library]) -> None:
    """A tight budget holds the answer with its caution: the hits share what the caution leaves."""
    log = "".join(
        f"第{i}次训练：队员在水面上练习划船技术，教练记录每位队员的成绩和进步情况，并提出改进建议。\n\n"
        for i in range(40)
    )
    write(cjk_folder, "log.txt", f"训练记录\n\n{log}")
    budget = 600
    lib = open_library(cjk_folder, token_budget=budget)
    lib.reconcile()
    result = lib.retrieve("what should I wear to protect my eyes", top_k=10, before=2, after=2)
    assert result.caution and "Chinese" in result.caution
    assert len(result.results) >= 2 and count_tokens(render_retrieve(result)) <= budget

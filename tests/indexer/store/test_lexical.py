"""BM25 (SQLite FTS5) over paragraphs, the lexical tokenizer, and rank fusion."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from indexer.models import DocumentStructure, Paragraph, Section
from indexer.search.hybrid import rrf_fuse
from indexer.store.database import Store
from indexer.store.keywords import CONTEXT_WEIGHT
from indexer.tokens import clip_to_tokens, count_tokens, lexical_terms, query_terms


def test_lexical_terms_keep_codes_numbers_and_cjk() -> None:
    terms = lexical_terms("Form 10-K, FY2023 revenue $1,234.5m; section 3.2.1 (ISO-8601). 財務報告")
    assert "10_k" in terms and "10" in terms and "k" in terms
    assert "1_234_5m" in terms
    assert "3_2_1" in terms
    assert "iso_8601" in terms
    assert "fy2023" in terms
    assert {"財", "務", "財務", "務報", "報告"} <= set(terms)


def test_query_terms_drop_stopwords_and_duplicates() -> None:
    assert query_terms("What is the revenue of the company and the revenue growth?") == ["revenue", "company", "growth"]
    assert query_terms("money left over after expenses") == ["money", "left", "expenses"]
    assert query_terms("quels sont les frais de la saison") == ["frais", "saison"], "French function words"
    assert query_terms("Form 10-K for 2023") == ["form", "10", "k", "2023", "10_k"], "codes and numbers stay"


def test_query_terms_find_cjk_words() -> None:
    """A word of two characters is a bigram, a longer one the phrase of its bigrams; Chinese function
    words ("的") go; characters the segmenter does not know stay one word ("黒字", Japanese)."""
    assert query_terms("年底的结余") == ["年底", "结余"]
    assert query_terms("俱乐部的太阳镜") == ["俱乐 乐部", "太阳 阳镜"]
    assert query_terms("黒字") == ["黒字"]
    assert query_terms("目を守るには") == ["目", "守"], "Japanese is cut where its hiragana stands"
    assert query_terms("サングラス") == ["サン ング グラ ラス"]
    assert query_terms("안전 장비를") == ["안전", "장비", "비를"], "Korean: bigrams, its particle aside"


def test_count_tokens_counts_words_punctuation_and_cjk_characters() -> None:
    assert count_tokens("Hello, world!") == 4
    assert count_tokens("財務報告") == 4
    assert count_tokens("") == 0


def test_digit_runs_count_as_tokenizers_cut_them() -> None:
    """Groups of three digits, as LLM tokenizers cut numbers: a 9-digit number is three tokens."""
    assert count_tokens("123456789") == 3
    assert count_tokens("id 1234567890123") == 1 + 5
    assert count_tokens("1,234,567") == 5, "separated groups are tokens already"
    assert count_tokens("abc123456") == 1, "a word with digits in it is one word"
    assert clip_to_tokens("123456789 more", 2) == "123456"


def _structure(texts: list[str]) -> DocumentStructure:
    paras = [Paragraph(0, i, "text", t, None, count_tokens(t)) for i, t in enumerate(texts)]
    return DocumentStructure("t", [Section(0, "t", 0, None, n_paras=len(paras))], paras)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "index.sqlite3")
    yield s
    s.close()


def _add(store: Store, texts: list[str]) -> int:
    doc_id = store.add_document("/root", f"doc{len(store.documents())}.md")
    store.replace_content(doc_id, _structure(texts), [f"{doc_id}:{i}" for i in range(len(texts))], {})
    return doc_id


def test_exact_codes_rank_first_and_doc_filter_scopes(store: Store) -> None:
    a = _add(store, ["The part number XJ-2231 is discontinued.", "Parts are listed in the catalogue.", "Nothing here."])
    b = _add(store, ["Order XJ-2231 again next year.", "The catalogue of parts."])
    hits = store.keywords.search("XJ-2231", 10, None)
    rows = store.paragraphs_by_id([pid for pid, _ in hits])
    assert {(rows[pid].doc_id, rows[pid].para_idx) for pid, _ in hits} == {(a, 0), (b, 0)}
    scoped = store.keywords.search("XJ-2231", 10, [b])
    assert [store.paragraphs_by_id([pid])[pid].doc_id for pid, _ in scoped] == [b]
    assert store.keywords.search("the of and", 10, None) == [], "a query of stopwords only matches nothing"


def _reference_bm25(
    corpus: list[tuple[list[str], list[str]]], query: list[str], k1: float = 1.2, b: float = 0.75
) -> list[float]:
    """Okapi BM25 as SQLite FTS5 defines it over (text, heading path) rows: idf floored at 1e-6,
    a term's frequency summed over columns by weight, the row's length over all columns."""
    n_docs = len(corpus)
    avgdl = sum(len(text) + len(context) for text, context in corpus) / n_docs
    scores = []
    for text, context in corpus:
        score = 0.0
        for term in query:
            df = sum(1 for t, c in corpus if term in t or term in c)
            idf = max(math.log((n_docs - df + 0.5) / (df + 0.5)), 1e-6)
            f = text.count(term) + CONTEXT_WEIGHT * context.count(term)
            score += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * (len(text) + len(context)) / avgdl))
        scores.append(score)
    return scores


def test_bm25_scores_match_a_reference_implementation(store: Store) -> None:
    texts = [
        "revenue grew in the third quarter",
        "churn fell while revenue grew",
        "churn churn churn",
        "weather report rain wind sun clouds",
        "operating margin and revenue guidance",
        "the board approved a dividend",
        "dividend policy and buyback plans for shareholders",
    ]
    _add(store, texts)
    query = "churn revenue dividend"
    hits = store.keywords.search(query, 10, None)
    got = {store.paragraphs_by_id([pid])[pid].para_idx: score for pid, score in hits}
    # No two distinct words here share a Porter stem, so matching whole words is the same.
    expected = _reference_bm25([(lexical_terms(t), ["t"]) for t in texts], query_terms(query))
    assert set(got) == {i for i, s in enumerate(expected) if s > 0}
    for idx, score in got.items():
        assert math.isclose(score, expected[idx], rel_tol=1e-6), (idx, score, expected[idx])
    assert [i for i, _ in sorted(got.items(), key=lambda kv: -kv[1])] == sorted(got, key=lambda i: -expected[i])


def test_heading_path_and_word_stems_match(store: Store) -> None:
    sections = [
        Section(0, "Annual report", 0, None, n_paras=1),
        Section(1, "Consolidated Statements of Cash Flows", 1, 0, n_paras=1),
    ]
    texts = ["Net income was 12.", "Depreciation 4; working capital 7."]
    paras = [Paragraph(i, 0, "text", t, None, count_tokens(t)) for i, t in enumerate(texts)]
    doc = store.add_document("/root", "report.pdf")
    store.replace_content(doc, DocumentStructure("Annual report", sections, paras), ["r:0", "r:1"], {})
    hits = store.keywords.search("cash flow statement", 10, None)
    assert [store.paragraphs_by_id([pid])[pid].sec_id for pid, _ in hits] == [1], "found through its heading path"
    assert len(store.keywords.search("depreciated", 10, None)) == 1, "a stem matches another form of the word"


def _varied_corpus(store: Store, n_docs: int = 6, per_doc: int = 60) -> None:
    """Paragraphs drawn from words with several forms of a stem, accents, codes and a heading
    path per section: enough to tell a score computed here from FTS5's."""
    import random

    rng = random.Random(7)
    words = (
        "statement statements stated revenue revenues growing grew growth café cafe naïve naive "
        "depreciation depreciated dividend dividends XJ-2231 10-K margin margins operate operating "
        "operations cash flows flow the of and a quarter quarterly report reported reporting"
    ).split()
    for d in range(n_docs):
        sections = [Section(0, f"Report {d}", 0, None, n_paras=0)]
        sections += [
            Section(k, rng.choice(["Cash flows", "Statements of operations", "Café notes"]), 1, 0) for k in (1, 2)
        ]
        paras = []
        for i in range(per_doc):
            text = " ".join(rng.choice(words) for _ in range(rng.randint(1, 40)))
            paras.append(Paragraph(1 + i % 2, i // 2, "text", text, None, count_tokens(text)))
        for sec in sections[1:]:
            sec.n_paras = sum(1 for p in paras if p.sec_id == sec.sec_id)
        doc = store.add_document("/root", f"r{d}.pdf")
        store.replace_content(
            doc, DocumentStructure(f"Report {d}", sections, paras), [f"{doc}:{i}" for i in range(per_doc)], {}
        )


QUERIES = ["cash flow statement", "revenues grew quarterly", "café naive", "XJ-2231 dividend", "operating margins 10-K"]


def test_scores_computed_here_equal_fts5s(store: Store) -> None:
    """`lexical_scores` computes BM25 in Python (FTS5 would recount every row of each term);
    it must give FTS5's scores: stems, accents, codes and the heading path included."""
    _varied_corpus(store)
    for query in QUERIES:
        exact = dict(store.keywords.search(query, 1000, None))
        assert len(exact) > 10, query
        computed = store.keywords.scores(query, [*list(exact), max(exact) + 1000])
        assert set(computed) == set(exact), query
        for pid, score in exact.items():
            assert math.isclose(computed[pid], score, rel_tol=1e-9), (query, pid)


def test_a_term_the_index_reads_as_two_words_is_scored_by_fts5(store: Store) -> None:
    """A query word the index's tokenizer splits (a New Tai Lue vowel sign is a word character
    to Python, a separator to FTS5) is a phrase: FTS5 scores it, not the Python formula."""
    word = "ab\u19b0cd"
    _add(store, [f"{word} once", f"{word} and {word} twice", "ab cd apart", "nothing"])
    assert query_terms(word) == [word] and store.keywords.stems([word]) == {word: ["ab", "cd"]}
    exact = dict(store.keywords.search(word, 10, None))
    assert len(exact) == 3
    assert store.keywords.scores(word, list(exact)) == pytest.approx(exact)


def test_common_words_alone_do_not_make_candidates_past_the_scoring_limit(store: Store, monkeypatch) -> None:
    """Over SCORED_ROWS matching rows, only rows holding a rarer query term are ranked, with
    every term's weight; below it the ranking is FTS5's own. Either way the scores are exact."""
    import indexer.store.keywords as keywords_module

    _varied_corpus(store)
    query = "XJ-2231 statements"
    exact = store.keywords.search(query, 20, None)
    counts = store.keywords.row_counts(query_terms(query))
    assert counts["xj_2231"] < counts["statements"], "the code is the rarer term here"
    monkeypatch.setattr(keywords_module, "SCORED_ROWS", counts["xj_2231"] + 1)
    gated = store.keywords.search(query, 20, None)
    rows = store.paragraphs_by_id([pid for pid, _ in gated])
    assert gated and all("XJ-2231" in rows[pid].text for pid, _ in gated), "every candidate holds the rare term"
    exact_all = dict(store.keywords.search(query, 10_000, [d.doc_id for d in store.documents()]))
    for pid, score in gated:
        assert math.isclose(score, exact_all[pid], rel_tol=1e-9)
    with_code = [(pid, s) for pid, s in exact if "XJ-2231" in store.paragraphs_by_id([pid])[pid].text]
    assert [pid for pid, _ in gated][: len(with_code)] == [pid for pid, _ in with_code], "the same order for them"


def test_replacing_a_document_replaces_its_lexical_rows(store: Store) -> None:
    doc = _add(store, ["old wording about zebras"])
    store.replace_content(doc, _structure(["new wording about giraffes"]), [f"{doc}:n"], {})
    assert store.keywords.search("zebras", 10, None) == []
    assert len(store.keywords.search("giraffes", 10, None)) == 1
    assert store.document(doc).version == 2  # type: ignore[union-attr]


def test_reciprocal_rank_fusion_matches_the_formula() -> None:
    fused = rrf_fuse([[1, 2, 3], [3, 1, 4]])
    scores = {r.paragraph_id: r.score for r in fused}
    assert math.isclose(scores[1], 1 / 61 + 1 / 62)
    assert math.isclose(scores[3], 1 / 63 + 1 / 61)
    assert math.isclose(scores[4], 1 / 63)
    assert [r.paragraph_id for r in fused] == [1, 3, 2, 4]
    assert rrf_fuse([[]]) == []


def test_an_older_index_is_migrated_in_place(tmp_path: Path) -> None:
    import sqlite3

    from indexer.store.migrations import MIGRATIONS

    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN")
    MIGRATIONS[0](db)
    db.execute("PRAGMA user_version = 1")
    db.execute("INSERT INTO documents (root, relpath, status) VALUES ('/r', 'kept.md', 'ready')")
    db.execute("COMMIT")
    db.close()
    store = Store(path)
    try:
        assert store.documents()[0].relpath == "kept.md", "migrations keep what is there"
        assert store.query("PRAGMA user_version")[0][0] == len(MIGRATIONS)
        assert "bbox" in {row["name"] for row in store.query("PRAGMA table_info(paragraphs)")}
    finally:
        store.close()


def test_a_paragraph_holding_the_questions_words_together_counts_each_pair(store: Store) -> None:
    from indexer.tokens import query_pairs

    pairs = query_pairs("How many data centers does the China's largest cloud provider have?")
    assert pairs == [
        ("data", "centers"),
        ("centers", "china"),
        ("china", "largest"),
        ("largest", "cloud"),
        ("cloud", "provider"),
    ], "function words between them are skipped, and what 'how many' asks"
    a = _add(store, ["We are China's largest cloud provider, with data centers on four continents."])
    b = _add(store, ["China's cloud is large; the provider with the largest data, of all of them, centers on it."])
    ids = [p.id for p in store.document_paragraphs(a)] + [p.id for p in store.document_paragraphs(b)]
    counts = store.keywords.near(pairs, ids, gap=3)
    said, scattered = ids
    assert counts[said] == 4, "data/center stemmed, in order; china/largest/cloud/provider a phrase"
    assert counts.get(scattered, 0) < counts[said], "the same words scattered over a sentence count less"
    assert store.keywords.near([], ids, gap=3) == {} and store.keywords.near(pairs, [], gap=3) == {}
    c = _add(store, ["Every cloud provider reads this part before the first outing."])
    subject = [p.id for p in store.document_paragraphs(c)]
    assert store.keywords.near(pairs, subject, gap=3) == {subject[0]: 1}
    assert store.keywords.near(pairs, subject, gap=3, least=3) == {}, "two of the words, said together, are too few"
    assert store.keywords.near([("cloud", "provider")], subject, gap=3, least=3) == {subject[0]: 1}, "all there are"


def test_pairs_are_found_by_bisection_in_long_text_and_with_accents(store: Store) -> None:
    import time

    long = _add(store, ["date 2024 user login ok " * 8_000 + "login date"])
    accented = _add(store, ["Le résultat net de la société a augmenté."])
    ids = [p.id for d in (long, accented) for p in store.document_paragraphs(d)]
    started = time.perf_counter()
    counts = store.keywords.near([("user", "date"), ("résultat", "net"), ("login", "date")], ids, gap=3)
    assert time.perf_counter() - started < 1.0, "positions are bisected, not compared two by two"
    assert counts == {ids[0]: 2, ids[1]: 1}, "'date' three words after 'user', 'date' after 'login'; 'résultat' stemmed"
    assert store.keywords.near([("ok", "user")], ids, gap=1) == {}, "'user' stands two words from 'ok'"
    assert store.keywords.near([("net", "résultat")], ids, gap=1) == {ids[1]: 1}, "in either order"

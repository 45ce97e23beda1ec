"""Token counts a budget can rely on, and the terms keyword search indexes and asks for."""

from __future__ import annotations

from indexer.tokens import clip_to_tokens, count_tokens, lexical_terms, query_terms, shorten


def test_counts_charge_long_words_and_digit_runs_by_their_length() -> None:
    assert count_tokens("Revenue grew 12% to 123456789 dollars") == 9  # 123456789: three groups of three
    assert count_tokens("x" * 40) == 10, "a 40-letter word is about ten tokens, not one"
    assert count_tokens("") == 0


def test_a_clipped_text_keeps_its_promise() -> None:
    assert clip_to_tokens("alpha beta gamma delta", 2) == "alpha beta"
    assert shorten("alpha beta gamma", 2) == "alpha beta…" and shorten("alpha", 2) == "alpha"
    giant = "y" * 10_000
    assert count_tokens(clip_to_tokens(giant, 50)) <= 50, "cut inside a long word if need be"


def test_codes_are_indexed_whole_as_well_as_in_pieces() -> None:
    terms = lexical_terms("INV-2024-0042 and 3.5 percent")
    assert {"inv", "2024", "0042", "inv_2024_0042", "3_5"} <= set(terms)


def test_cjk_text_is_indexed_by_characters_and_pairs() -> None:
    assert lexical_terms("保护眼睛") == ["保", "护", "眼", "睛", "保护", "护眼", "眼睛"]


def test_a_query_keeps_its_words_once_without_function_words() -> None:
    assert query_terms("What is the INV-2024-0042 total of the invoice?") == [
        "inv",
        "2024",
        "0042",
        "total",
        "invoice",
        "inv_2024_0042",
    ]

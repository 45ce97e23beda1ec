"""A text's language, told by its script and its function words; and when a query's language is
apart from its documents' for the embedding model."""

from __future__ import annotations

from indexer.languages import apart, language_of, stop_words


def test_languages_are_told_by_script_and_function_words() -> None:
    assert language_of("what is the surplus") == "en"
    assert language_of("quel est le chiffre d'affaires") == "fr"
    assert language_of("保护眼睛") == "zh"
    assert language_of("目を守る") == "ja"
    assert language_of("안전 장비") == "ko"
    assert language_of("surplus 2023") is None, "no function word: nothing tells"
    english = frozenset({"en"})
    assert apart("surplus", "zh", english) and not apart("surplus", "fr", english), "unknown: only another script"
    assert apart("what is the surplus", "fr", english)
    assert not apart("what is the surplus", "zh", None), "a multilingual model reads across"


def test_function_words_are_the_languages_own() -> None:
    assert {"the", "of", "and"} <= stop_words("en") and "le" in stop_words("fr")
    assert "surplus" not in stop_words("en")

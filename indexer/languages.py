"""Which language a text is written in, and the words of that language that say nothing.

A query's function words ("after", "over", "the") must not score in keyword search: in a small
folder such a word is rare, and BM25 then ranks a paragraph that shares nothing else with the
question ("The next meeting is scheduled after the regatta.") above the one that answers it.
Which words those are depends on the query's language, so the language is told first: by script
for Chinese, Japanese and Korean (kana makes Japanese), else by which language's function words
the text uses most (English when it uses none). The lists are the `stopwords` package's
(Snowball's for English), with the few words they leave out added (`_EXTRA`).

Documents get a language the same way (from a sample of their text, `document_language`), so that
a query in one language over documents in another can say so (`indexer.search.retrieve`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from functools import cache

import stopwords

# Languages told apart by their function words, in the order ties are broken (English first: the
# bundled model's). Scripts without spaces are told by their characters instead.
_WORD_LANGUAGES = {
    "en": "English",
    "fr": "French",
    "de": "German",
    "es": "Spanish",
    "it": "Italian",
    "pt": "Portuguese",
    "nl": "Dutch",
    "sv": "Swedish",
    "da": "Danish",
    "no": "Norwegian",
    "fi": "Finnish",
    "pl": "Polish",
    "cs": "Czech",
    "ro": "Romanian",
    "hu": "Hungarian",
    "tr": "Turkish",
    "id": "Indonesian",
    "ru": "Russian",
    "el": "Greek",
}
NAMES = {**_WORD_LANGUAGES, "zh": "Chinese", "ja": "Japanese", "ko": "Korean"}
# What the package's lists leave out: Snowball's English keeps "can't" and "won't" but not these, and
# its Romance lists miss their commonest words (checked against each language's most frequent words).
_EXTRA = {
    "en": {"can", "will"},
    "fr": {"de", "un", "une"},
    "es": {"de", "y", "que", "del", "se", "un"},
    "pt": {"de", "que", "a", "do", "da"},
    "it": {"in", "per"},
}

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_KANA = "\u3040-\u30ff"
_HANGUL = "\uac00-\ud7af\u1100-\u11ff"
_SCRIPT_RE = {
    "han": re.compile(f"[{_HAN}]"),
    "kana": re.compile(f"[{_KANA}]"),
    "hangul": re.compile(f"[{_HANGUL}]"),
}
_WORD_RE = re.compile(rf"[^\W\d_{_HAN}{_KANA}{_HANGUL}]+", re.UNICODE)
_SPLIT_RE = re.compile(r"[^\w]+", re.UNICODE)
SAMPLE_CHARS = 20_000  # a document's language is told from this much of its text


@cache
def stop_words(language: str) -> frozenset[str]:
    """The function words of a language (`NAMES`), lower-case, split as keyword search splits
    words ("aren't" gives "aren" and "t"); none for a language without a list."""
    try:
        listed = stopwords.get_stopwords(language)
    except stopwords.LanguageNotAvailable:
        return frozenset()
    words = {part for entry in listed for part in _SPLIT_RE.split(entry.lower()) if part}
    return frozenset(words | _EXTRA.get(language, set()))


def language_of(text: str) -> str | None:
    """The language `text` is written in (a code of `NAMES`), or None when nothing tells (a name,
    a number, a few words none of which is a function word)."""
    text = text[:SAMPLE_CHARS]
    han, kana, hangul = (len(pattern.findall(text)) for pattern in _SCRIPT_RE.values())
    words = _WORD_RE.findall(text.lower())
    letters = sum(len(w) for w in words)
    if han + kana + hangul > letters / 2:  # CJK characters are words, or most of one
        if hangul > han + kana:
            return "ko"
        # Japanese writes its grammar in kana; Chinese text holds none (a quoted name at most).
        return "ja" if kana > 0.05 * (han + kana) else "zh"
    counts = Counter(dict.fromkeys(_WORD_LANGUAGES, 0))
    for word in words:
        if len(word) < 2:  # "d" is English's (from "i'd") and French's ("d'affaires"): it tells nothing
            continue
        for code in _WORD_LANGUAGES:
            if word in stop_words(code):
                counts[code] += 1
    best, n = counts.most_common(1)[0]  # ties go to the earlier language (English first)
    return best if n > 0 else None


def document_language(texts: Iterable[str]) -> str | None:
    """The language of a document, from the start of its text (`SAMPLE_CHARS`)."""
    sample: list[str] = []
    size = 0
    for text in texts:
        sample.append(text)
        size += len(text)
        if size >= SAMPLE_CHARS:
            break
    return language_of("\n".join(sample))


def query_stop_words(query: str) -> frozenset[str]:
    """The words of a query that do not score: its language's function words (English when its
    words tell no language), and Chinese or Japanese ones for its CJK part."""
    latin = language_of(" ".join(_WORD_RE.findall(query))) or "en"
    return stop_words(latin) | stop_words("zh") | stop_words("ja")


def name(code: str) -> str:
    return NAMES.get(code, code)


_SCRIPTS = {"zh": "han", "ja": "han", "ko": "hangul", "ru": "cyrillic", "el": "greek"}


def apart(query: str, language: str, reads: frozenset[str] | None) -> bool:
    """Whether a query cannot find a document written in `language`: keyword search matches only
    the words a text holds, and an embedding model that reads `reads` (None: many) matches
    meaning only across the languages it reads. A query whose words tell no language is taken
    to be apart only from documents in another script (an English guess could be wrong)."""
    if reads is None:
        return False
    told = language_of(query)
    if told is None:
        script = "latin" if _WORD_RE.search(query) else None
        return script is not None and _SCRIPTS.get(language, "latin") != script
    if told == language or {told, language} <= reads:
        return False
    # Between two languages that share a script, only a difference involving English is told surely.
    same_script = _SCRIPTS.get(told, "latin") == _SCRIPTS.get(language, "latin")
    return not same_script or "en" in (told, language)
